r"""Nested depth-limited solving in games too large to compile: round-robin head to head of
gadget x prior (Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve Subgame
Solving in Imperfect-Information Games", Section 8.1, Figures 4, 20, 21).

  python benchmarks/papers/nested_solving_round_robin.py \
      --game="liars_dice(numdice=2,dice_sides=4)" --public_key=actions --num_games=100 --workers=2 \
      --output_json=docs/results/depth_limited_nested_liars_dice_2_4.json

Every pair of --bots plays --num_games games in duplicate (each deal from both seats) through
`pyspiel.evaluate_bots`. The bots are `depth_limited.sampled.bot.LargeNestedSolvingBot`s: nothing is
compiled beyond the current public state and the depth limit; the blueprint is OpenSpiel's
external-sampling MCCFR (--blueprint_iterations, where the paper trained value functions), the
K = --num_values leaf values (blueprint + biased copies) and the opponent's alternative values
are Monte Carlo rollouts (--samples each, cached per history; exact values from a compiled
continuation where the rest of the game has at most --exact_leaf_nodes nodes; solves on a
sample of a public state's histories above --max_histories, a sample of the belief above
--max_belief_histories carried to the next decision, `NestedSettings`). Prints each
pair's mean return and win rate, and Figure 4's measure: each bot's win rate against its worst
matchup.
The 95 % interval is given over games and over deals (each deal is played from both seats and
its two games are not independent: `match_report.duplicate_ci95`).

The tasks (--chunk games of one pair) go round the pairs, so that --time_limit (a wall-clock
budget: no task starts after it, running ones stop at their current game), Ctrl-C or SIGTERM
leave every pair with about as many games; the JSON is written either way (exit 130 when
interrupted). The committed Goofspiel 7 round robin:

  python benchmarks/papers/nested_solving_round_robin.py \
      --game="turn_based_simultaneous_game(game=goofspiel(\
num_cards=7,imp_info=True,points_order=descending))" --public_key=lines \
      --blueprint_iterations=2000 --max_histories=2000 --num_games=30 --chunk=2 --workers=2 \
      --output_json=docs/results/depth_limited_goofspiel7_round_robin.json

On a Dask cluster add --scheduler=HOST:PORT; the JSON's `projection` gives the hours that
--projected_games games per pair would take on N workers at the measured cost per game.
JSON keys: game, settings, seconds, interrupted, stop_reason ('games', 'time_limit' or
'interrupted'), games_asked, games_per_pair (the fewest games
any pair played), pairs (a, b, games, mean, ci95, ci95_deals, win_rate, returns: bot a's return
in each game, in game order), worst_matchups (bot,
win_rate, opponent, mean_win_rate), workers (null on a Dask cluster),
worker_seconds_per_game (wall seconds x workers / games played; null on a cluster),
projection {games_per_pair, hours_by_workers {N: hours}}.
"""

import itertools
import time

import nested_flags
from absl import app, flags

from ospiel_ext.algorithms.depth_limited import match_report, matches
from ospiel_ext.algorithms.depth_limited.sampled import bot as sampled_bot
from ospiel_ext.algorithms.depth_limited.sampled import public_belief
from ospiel_ext.algorithms.subgames import blueprints
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import executors, interrupts

TECHNIQUES = [
    "nested/resolving/none", "nested/resolving/uniform", "nested/resolving/blueprint",
    "nested/max_margin/none", "nested/max_margin/uniform", "nested/max_margin/blueprint",
    "nested/unsafe",
]  # fmt: skip
_GAME = flags.DEFINE_string("game", "liars_dice(numdice=2,dice_sides=4)", "A load_game string.")
_PUBLIC_KEY = flags.DEFINE_enum(
    "public_key", "actions", list(public_belief.PUBLIC_KEYS), "Public key."
)
_BOTS = flags.DEFINE_list("bots", TECHNIQUES, "Bot specs: blueprint or nested/GADGET[/PRIOR].")
_NUM_GAMES = flags.DEFINE_integer("num_games", 100, "Games per pair.")
cli_flags.rename("games", "num_games")
_CHUNK = flags.DEFINE_integer("chunk", 10, "Games per task (even).")
_SEED = flags.DEFINE_integer("seed", 0, "First chance seed.")
_BLUEPRINT = flags.DEFINE_integer("blueprint_iterations", 50_000, "MCCFR iterations.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Wall-clock budget (no limit by default).")
cli_flags.rename("seconds", "time_limit")
_PROJECTED = flags.DEFINE_integer("projected_games", 100, "Games per pair of the projection.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_SCHEDULER = executors.define_scheduler_flag()
_WORKERS = executors.define_workers_flag()


def main(argv):
    cli_flags.no_arguments(argv)
    bots = list(dict.fromkeys(_BOTS.value))
    cli_flags.require(len(bots) >= 2, "--bots needs at least two distinct bots")
    for holder in (_NUM_GAMES, _BLUEPRINT, _TIME_LIMIT, _PROJECTED):
        cli_flags.positive(holder)
    nested_flags.check()
    cli_flags.require(_CHUNK.value >= 2 and _CHUNK.value % 2 == 0, "--chunk must be even and >= 2")
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    settings = nested_flags.settings(_PUBLIC_KEY.value, _BLUEPRINT.value)
    try:
        for spec in bots:  # each bot checked before any work (no blueprint yet)
            kind, gadget, prior = matches.parse_bot(spec)
            if kind != "blueprint":
                sampled_bot.LargeNestedSolvingBot(
                    game, blueprints.MCCFRPolicy(game, None), 0,
                    settings=settings.bot_settings(kind), gadget=gadget, prior=prior,
                )  # fmt: skip
    except ValueError as e:
        raise app.UsageError(str(e).strip().splitlines()[0]) from None
    pairs = list(itertools.combinations(bots, 2))
    tasks = [
        matches.LargeMatch(game=_GAME.value, a=a, b=b, settings=settings,
                           games=min(_CHUNK.value, _NUM_GAMES.value - s), seed=_SEED.value + s)
        for s in range(0, _NUM_GAMES.value, _CHUNK.value)
        for a, b in pairs
    ]  # fmt: skip
    largest = max(task.games for task in tasks)  # --num_games below --chunk: one smaller task
    print(f"{len(pairs)} pairs, {len(tasks)} tasks of up to {largest} games", flush=True)
    start = time.perf_counter()
    deadline = None if _TIME_LIMIT.value is None else start + _TIME_LIMIT.value
    workers = executors.parallelism(_SCHEDULER.value, _WORKERS.value)
    with executors.executor(_SCHEDULER.value, _WORKERS.value) as executor:
        returns, result = matches.play_pairs(
            matches.play_large,
            pairs,
            tasks,
            executor,
            stop=None if deadline is None else lambda: time.perf_counter() > deadline,
        )
    seconds = time.perf_counter() - start
    interrupted = interrupts.requested()
    text, fields = match_report.report(pairs, returns, round_robin=True, with_returns=True)
    played = sum(len(r) for r in returns.values())
    per_game = seconds * workers / played if played and workers else None
    projection = {
        "games_per_pair": _PROJECTED.value,
        "hours_by_workers": {
            n: None if per_game is None else len(pairs) * _PROJECTED.value * per_game / n / 3600
            for n in (2, 8, 32, 128)
        },
    }
    where = f"{workers} worker{'s' if workers > 1 else ''}" if workers else "the cluster"
    print(f"{text} in {seconds:.1f} s on {where}")
    if per_game is not None:
        hours = ", ".join(f"{n}: {h:.3g}" for n, h in projection["hours_by_workers"].items())
        print(
            f"{per_game:.1f} worker-seconds per game; {_PROJECTED.value} games per pair "
            f"would take, in hours by workers, {hours}"
        )
    cli_output.write_json(
        _OUTPUT_JSON.value,
        {
            "game": _GAME.value,
            "settings": settings.record("sampled"),
            "seconds": seconds,
            "interrupted": interrupted,
            "stop_reason": "interrupted"
            if interrupted
            else "time_limit"
            if result.stopped_early
            else "games",
            "games_asked": _NUM_GAMES.value,
            "games_per_pair": min(len(r) for r in returns.values()),
            **fields,
            "workers": workers,
            "worker_seconds_per_game": per_game,
            "projection": projection,
        },
    )
    if interrupted:
        raise SystemExit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    cli.main(main)
