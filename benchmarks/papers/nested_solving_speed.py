r"""Nested solving at speed: the same Goofspiel 7 games with the old and the new path.

  python benchmarks/papers/nested_solving_speed.py --num_games=2 --max_histories=2000 \
      --max_belief_histories=10000 --output_json=docs/results/nested_speed.json

Plays --num_games games (duplicate seats and chance seeds as `matches.play_duplicate`) of --bots
(`depth_limited.sampled.bot.LargeNestedSolvingBot`s, the settings of
`benchmarks/papers/nested_solving_round_robin.py`) twice in one process, with one MCCFR blueprint:

* old: one `copy_subtree` per history in the gadgets (`gadgets.BATCHED_COPIES = False`), the
  policies asked at every rollout step (`rollouts.CACHE_POLICIES = False`), rollouts at every
  leaf (exact_leaf_nodes = 0);
* new: batched subtree copies, cached policies, exact leaf values from a compiled continuation
  wherever the rest of the game has at most --exact_leaf_nodes nodes, solves on a sample of
  the public state's histories above --max_histories (`NestedSettings.max_histories`), and
  a sample of the belief above --max_belief_histories carried to the next decision
  (`NestedSettings.max_belief_histories`).

Prints the CPU seconds (`time.process_time`: the machine may be shared) of each game for both
paths, the CPU seconds per phase of a decision
(`sampled.bot.PHASES`: beliefs, local game, leaf and root values, quantities, gadget, solve; both
bots added), the states valued exactly and by rollouts, and the speed-up (old seconds over new).
The bots' seeds are the same in both paths; the old path's decisions are those of the code
without the new path's changes, the new path's differ where exact values replace rollout
estimates or the histories are sampled.
Ctrl-C, SIGTERM or --time_limit stop the run within a decision's history walk: the game under
way is dropped, the path's finished games stand, and the JSON is written with the games both
paths finished (exit code 130 after Ctrl-C or SIGTERM).
JSON keys: game, bots, settings (the old path's), exact_leaf_nodes, max_histories,
max_belief_histories (the new path's), stop_reason ('games', 'time_limit' or 'interrupted'),
games_asked, games (per game both paths finished: seed, a_seat, old_s, new_s, old_return,
new_return, same_moves: the two paths' games had the same history up to the last decision),
old / new (the path's finished games: seconds, wall_seconds, per_game_s, phases, valued),
speedup (of CPU seconds over the games both paths finished; null if none).
"""

import dataclasses
import time

import nested_flags
import pyspiel
from absl import flags

from ospiel_ext.algorithms.depth_limited import matches, rollouts
from ospiel_ext.algorithms.depth_limited.sampled import bot as sampled_bot
from ospiel_ext.algorithms.depth_limited.sampled import public_belief
from ospiel_ext.algorithms.subgames import gadgets
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

GOOFSPIEL7 = (
    "turn_based_simultaneous_game(game=goofspiel(num_cards=7,imp_info=True,"
    "points_order=descending))"
)
_GAME = flags.DEFINE_string("game", GOOFSPIEL7, "A load_game string.")
_PUBLIC_KEY = flags.DEFINE_enum("public_key", "lines", list(public_belief.PUBLIC_KEYS), "Key.")
_BOTS = flags.DEFINE_list(
    "bots", ["nested/resolving/blueprint", "nested/unsafe"], "The two bots (nested/GADGET/PRIOR)."
)
_NUM_GAMES = flags.DEFINE_integer("num_games", 1, "Games per path.")
cli_flags.rename("games", "num_games")
_SEED = flags.DEFINE_integer("seed", 0, "First chance seed.")
_BLUEPRINT = flags.DEFINE_integer("blueprint_iterations", 2000, "MCCFR iterations.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Wall-clock budget (no limit by default).")
cli_flags.rename("seconds", "time_limit")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def _play(game, settings, *, a, b, first_seed, games):
    """Per finished game (CPU and wall seconds, bot a's return, the history at the last
    decision), and the bots' phase seconds and valued states over those games.

    Ctrl-C, SIGTERM or the time limit (inside a graceful region: the bots check between
    histories and after each solve) drops the game under way; the finished ones stand.
    """
    bots_a, bots_b = matches.seats(
        lambda spec, p, seed: matches.make_large_bot(
            spec, _GAME.value, p, settings=settings, seed=seed
        ),
        a,
        b,
        first_seed,
    )
    bots = [*bots_a, *bots_b]
    rows, phases, valued = [], dict.fromkeys(sampled_bot.PHASES, 0.0), {"exact": 0, "rollouts": 0}
    for g in range(games):
        a_seat = g % 2
        seats = [bots_a[0], bots_b[1]] if a_seat == 0 else [bots_b[0], bots_a[1]]
        start, wall = time.process_time(), time.perf_counter()
        try:
            returns = pyspiel.evaluate_bots(
                game.new_initial_state(), seats, first_seed + g - a_seat
            )
        except interrupts.Interrupted:
            break
        moves = max((bot.belief.path for bot in seats), key=len)  # the last decision's history
        rows.append(
            (time.process_time() - start, time.perf_counter() - wall, float(returns[a_seat]), moves)
        )
        phases = {p: sum(bot.seconds[p] for bot in bots) for p in sampled_bot.PHASES}
        valued = {k: sum(bot.valued[k] for bot in bots) for k in ("exact", "rollouts")}
    return rows, phases, valued


def _path(old: bool) -> None:
    """Switches the module-level flags between the old and the new path."""
    gadgets.BATCHED_COPIES = not old
    rollouts.CACHE_POLICIES = not old


def main(argv):
    cli_flags.no_arguments(argv)
    for holder in (_NUM_GAMES, _BLUEPRINT, _TIME_LIMIT):
        cli_flags.positive(holder)
    nested_flags.check()
    cli_flags.require(len(_BOTS.value) == 2, "--bots needs two bots")
    for spec in _BOTS.value:
        cli_flags.require(spec.startswith("nested/"), f"--bots: {spec} is not a nested bot")
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    new_settings = nested_flags.settings(_PUBLIC_KEY.value, _BLUEPRINT.value)
    settings = dataclasses.replace(
        new_settings, exact_leaf_nodes=0, max_histories=0, max_belief_histories=0
    )
    start = time.perf_counter()
    matches.large_blueprint(_GAME.value, _BLUEPRINT.value, settings.blueprint_seed)
    print(f"blueprint: {_BLUEPRINT.value} MCCFR iterations in {time.perf_counter() - start:.1f} s")
    a, b = _BOTS.value
    results = {}
    with cli.stoppable(_TIME_LIMIT.value) as stop:
        for name, path_settings in (("old", settings), ("new", new_settings)):
            _path(old=name == "old")
            try:
                rows, phases, valued = _play(
                    game, path_settings, a=a, b=b, first_seed=_SEED.value, games=_NUM_GAMES.value
                )
            finally:
                _path(old=False)
            results[name] = _summary(rows, phases, valued)
            per_game = ", ".join(f"{row[0]:.1f}" for row in rows[:10])
            print(
                f"{name}: {results[name]['seconds']:.1f} s for {len(rows)} game(s) "
                f"({per_game}{', ...' if len(rows) > 10 else ''} s CPU); phases (s): "
                f"{', '.join(f'{p} {v:.1f}' for p, v in phases.items())}; states valued "
                f"exactly {valued['exact']}, by rollouts {valued['rollouts']}",
                flush=True,
            )
            if interrupts.requested():
                break
    stop_reason = stop.reason or "games"
    old, new = results.get("old"), results.get("new")
    both = min(len(old["per_game_s"]), len(new["per_game_s"])) if old and new else 0
    speedup = sum(old["per_game_s"][:both]) / sum(new["per_game_s"][:both]) if both else None
    same = [old["moves"][g] == new["moves"][g] for g in range(both)] if both else []
    if speedup is None:
        print(f"stopped ({stop_reason}) before both paths finished a game: no speed-up")
    else:
        print(
            f"speed-up {speedup:.2f}x over {both} game(s); the same moves on both paths in "
            f"{sum(same)}/{both} games" + ("" if stop_reason == "games" else f" ({stop_reason})")
        )
    cli_output.write_json(
        _OUTPUT_JSON.value,
        {
            "game": _GAME.value,
            "bots": [a, b],
            "settings": settings.record("sampled"),
            "exact_leaf_nodes": new_settings.exact_leaf_nodes,
            "max_histories": new_settings.max_histories,
            "max_belief_histories": new_settings.max_belief_histories,
            "stop_reason": stop_reason,
            "games_asked": _NUM_GAMES.value,
            "games": [
                {
                    "seed": _SEED.value + g - g % 2,
                    "a_seat": g % 2,
                    "old_s": old["per_game_s"][g],
                    "new_s": new["per_game_s"][g],
                    "old_return": old["returns"][g],
                    "new_return": new["returns"][g],
                    "same_moves": same[g],
                }
                for g in range(both)
            ],
            **{
                name: {k: v for k, v in r.items() if k not in ("moves", "returns")}
                for name, r in results.items()
            },
            "speedup": speedup,
        },
    )


def _summary(rows, phases, valued) -> dict:
    """One path's finished games: seconds, per-game seconds, returns, moves, phases, valued."""
    return {
        "seconds": sum(row[0] for row in rows),
        "wall_seconds": sum(row[1] for row in rows),
        "per_game_s": [row[0] for row in rows],
        "returns": [row[2] for row in rows],
        "moves": [row[3] for row in rows],
        "phases": phases,
        "valued": valued,
    }


if __name__ == "__main__":
    cli.main(main)
