r"""The error of sampling a public state's histories, measured where the game compiles.

  python benchmarks/papers/nested_solving_sampling.py \
      --games="liars_dice(numdice=1,dice_sides=4)=actions" \
      --budgets=14 --seeds=3 --exact_seeds=1 --bots=nested/resolving/blueprint \
      --output_json=docs/results/nested_sampling.json

For each of --games (imperfect-information Goofspiel 5 with the public key 'lines',
Liar's dice 1,4 with 'actions'), each bot of --bots and each budget of --budgets
(`NestedSettings.max_histories`; 0: every history) and each belief budget of
--belief_budgets (`NestedSettings.max_belief_histories`, the sample carried to the next
decision; 0: the exact belief), plays the
`depth_limited.sampled.bot.LargeNestedSolvingBot` in both seats at every information state of the
compiled game and measures the exploitability of the strategy it plays
(`ospiel_ext.evaluate.exploitability`, the mean of the two players' best-response gains).

The strategy a bot plays at an information state is what it plays on reaching it: the bot
restarts (or goes on, if the information state's history continues the last one it was shown),
is shown each prefix of one history of the information state where it moves (solving there as
in a game: `step`), and its probabilities at the information state are read from its running
policy. A bot's samples are seeded by its seed and the public state
(`LargeNestedSolvingBot.solve_belief`), so each seed gives one draw of the strategy a sampling
bot plays. The
leaf and root values are exact (--exact_leaf_nodes, large enough for every continuation of
these games), so the bot with every history is deterministic and the only randomness is the
sample's: the exact bot's exploitability is one number (--exact_seeds seeds show it), the
sampling bot's a mean over --seeds seeds with a 95 % normal interval. Budget 0 always runs
first; a budget at or above the largest public state the exact bot met is skipped (it is the
exact bot).

Also prints the histories per public state the bots met (at their decisions, budget 0): the
budgets that make sampling trigger.

JSON keys: blueprint_iterations, blueprint_exploitability (per game), settings, rows (game,
bot, budget, belief_budget, seeds, exploitability (per seed), mean, ci95, sampled_decisions,
decisions, max_histories_seen, seconds), histories (game: [histories, solves] per size of the
public states the exact bot solved in).
"""

import collections
import dataclasses
import time

import nested_flags
import numpy as np
import pyspiel
from absl import flags
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import NestedSettings, match_report, matches
from ospiel_ext.algorithms.depth_limited.sampled import bot as sampled_bot
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

GAMES = [
    "turn_based_simultaneous_game(game=goofspiel(num_cards=5,imp_info=True,"
    "points_order=descending))=lines",
    "liars_dice(numdice=1,dice_sides=4)=actions",
]
_GAMES = flags.DEFINE_multi_string("games", GAMES, "GAME=PUBLIC_KEY (repeat the flag).")
cli_flags.rename("game", "games")
_BOTS = flags.DEFINE_list(
    "bots", ["nested/resolving/blueprint", "nested/unsafe"], "Bots (nested/GADGET[/PRIOR])."
)
_BUDGETS = flags.DEFINE_list("budgets", ["64", "14", "8"], "max_histories values (0 always runs).")
_BELIEF_BUDGETS = flags.DEFINE_list(
    "belief_budgets", ["0"], "max_belief_histories values, each with every budget but 0."
)
_SEEDS = flags.DEFINE_integer("seeds", 10, "Seeds per sampling budget.")
_EXACT_SEEDS = flags.DEFINE_integer("exact_seeds", 2, "Seeds of the exact bot (deterministic).")
_BLUEPRINT = flags.DEFINE_integer("blueprint_iterations", 2000, "MCCFR iterations.")
flags.set_default(nested_flags.EXACT, 1_000_000)  # exact leaf and root values: no rollouts
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def played_policy(
    game: pyspiel.Game, bots: list[sampled_bot.LargeNestedSolvingBot]
) -> tuple[policy_lib.TabularPolicy, collections.Counter, int, int]:
    """The strategy `bots[p]` plays in seat p (module docstring), the histories per public
    state at its solves, and (solves on a sample, solves).

    A bot shown a history that the next information state's history continues goes on from
    there instead of restarting (what it would have done on reaching it that way).
    """
    policy = policy_lib.TabularPolicy(game)
    sizes: collections.Counter = collections.Counter()
    sampled = solves = 0
    shown: list[list[int] | None] = [None, None]
    for key, row in policy.state_lookup.items():  # OpenSpiel's states, depth first per player
        target = policy.states[row]
        p = target.current_player()
        bot, history = bots[p], target.history()
        seen = shown[p]
        if seen is not None and history[: len(seen)] == seen:
            state = game.new_initial_state()
            for a in seen:
                state.apply_action(a)
            rest = history[len(seen) :]
        else:
            bot.restart()
            state, rest = game.new_initial_state(), history
            seen = None
        for k, action in enumerate([*rest, None]):
            if state.current_player() == p and not (seen is not None and k == 0):
                before = bot.solves
                bot.step(state)
                if bot.solves > before:
                    n = bot.histories_at_solve
                    sizes[n] += 1
                    solves += 1
                    sampled += bool(bot.settings.max_histories) and n > bot.settings.max_histories
            if action is not None:
                state.apply_action(action)
        shown[p] = history
        probs = bot.running.action_probabilities(target, p)
        row = policy.policy_for_key(key)
        row[:] = 0.0
        for a, prob in probs.items():
            row[a] = prob
    return policy, sizes, sampled, solves


def _settings(key: str, budget: int, carried: int = 0) -> NestedSettings:
    """The bots' settings (`nested_flags`) with `budget` histories per solve, `carried` carried."""
    shared = nested_flags.settings(key, _BLUEPRINT.value).bot_settings()
    return dataclasses.replace(shared, max_histories=budget, max_belief_histories=carried)


def _row(game, name, key, *, spec, blueprint, budget, carried=0):
    """One row of the JSON (module docstring) and the histories per public state at its solves."""
    _, gadget, prior = matches.parse_bot(spec)
    settings = _settings(key, budget, carried)
    seeds = _EXACT_SEEDS.value if budget == 0 else _SEEDS.value
    values, sizes, sampled, solves = [], collections.Counter(), 0, 0
    start = time.process_time()
    for seed in range(seeds):
        bots = [
            sampled_bot.LargeNestedSolvingBot(
                game, blueprint, p, settings=settings, gadget=gadget, prior=prior,
                seed=1000 * seed + p,
            )
            for p in (0, 1)
        ]  # fmt: skip
        policy, seen, s, n = played_policy(game, bots)
        values.append(float(evaluate.exploitability(game, policy)))
        sizes += seen
        sampled, solves = sampled + s, solves + n
    r = np.array(values)
    ci95 = match_report.t_ci95(values)
    row = {
        "game": name,
        "bot": spec,
        "budget": budget,
        "belief_budget": carried,
        "seeds": seeds,
        "exploitability": values,
        "mean": float(r.mean()),
        "ci95": ci95,
        "sampled_decisions": sampled,
        "decisions": solves,
        "max_histories_seen": max(sizes),
        "seconds": time.process_time() - start,
    }
    print(
        f"{name} {spec} max_histories={budget} max_belief_histories={carried}: "
        f"exploitability {r.mean():.5f} "
        f"± {ci95:.5f} ({seeds} seeds: {min(values):.5f} .. {max(values):.5f}); "
        f"{sampled}/{solves} solves sampled; {row['seconds']:.1f} s CPU",
        flush=True,
    )
    return row, sizes


def main(argv):
    cli_flags.no_arguments(argv)
    for holder in (_SEEDS, _EXACT_SEEDS, _BLUEPRINT, nested_flags.EXACT):
        cli_flags.positive(holder)
    nested_flags.check()
    cli_flags.require(not nested_flags.MAX_HISTORIES.value, "--max_histories: give --budgets")
    cli_flags.require(
        not nested_flags.MAX_BELIEF.value, "--max_belief_histories: give --belief_budgets"
    )
    budgets = sorted(set(cli_flags.int_list(_BUDGETS, minimum=0)) | {0})
    carried_budgets = sorted(set(cli_flags.int_list(_BELIEF_BUDGETS, minimum=0)))
    for spec in _BOTS.value:
        cli_flags.require(spec.startswith("nested/"), f"--bots: {spec} is not a nested bot")
    cli_flags.output_path(_OUTPUT_JSON)
    entries = []
    for entry in _GAMES.value:
        name, _, key = entry.rpartition("=")
        cli_flags.require(bool(name) and bool(key), f"--games: {entry} is not GAME=PUBLIC_KEY")
        entries.append((name, key, cli.load_game(name)))
    rows, histories, blueprints = [], {}, {}
    for name, key, game in entries:
        blueprint = ss.mccfr_blueprint(game, _BLUEPRINT.value, seed=0)
        tabular = policy_lib.tabular_policy_from_callable(game, blueprint)
        blueprints[name] = float(evaluate.exploitability(game, tabular))
        print(f"{name}: the MCCFR blueprint's exploitability {blueprints[name]:.5f}", flush=True)
        for spec in _BOTS.value:
            row, sizes = _row(game, name, key, spec=spec, blueprint=blueprint, budget=0)
            rows.append(row)
            histories[name] = [list(x) for x in sorted(sizes.items())]
            for budget in budgets[1:]:
                for carried in carried_budgets:
                    if budget >= max(sizes) and (not carried or carried >= max(sizes)):
                        print(
                            f"{name} {spec} max_histories={budget} max_belief_histories="
                            f"{carried}: at or above the largest public state ({max(sizes)} "
                            "histories): the exact bot",
                            flush=True,
                        )
                        continue
                    rows.append(
                        _row(game, name, key, spec=spec, blueprint=blueprint, budget=budget,
                             carried=carried)[0]
                    )  # fmt: skip
        print(f"{name}: [histories, solves] per public state {histories[name]}", flush=True)
    settings = _settings("", 0).record("sampled")
    cli_output.write_json(
        _OUTPUT_JSON.value,
        {
            "blueprint_iterations": _BLUEPRINT.value,
            "blueprint_exploitability": blueprints,
            "settings": {
                k: v
                for k, v in settings.items()
                if k not in ("public_key", "max_histories", "max_belief_histories")
            },
            "rows": rows,
            "histories": histories,
        },
    )


if __name__ == "__main__":
    cli.main(main)
