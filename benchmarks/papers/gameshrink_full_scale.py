r"""GameShrink's losslessness tested on the whole of Rhode Island Hold'em.

  python benchmarks/papers/gameshrink_full_scale.py \
      --output_json=docs/results/gameshrink_full_scale.json

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006: Theorems 2-3 (an equilibrium of Γ_f lifted to the original game is one there)
and Section 1's claim that Rhode Island Hold'em was solved through a lossless abstraction.

For each of --filters ('coarsest': the coarsest ordered-game-isomorphic filter, our
lossless one; 'paper': Definition 5 as written, which reproduces the published abstraction's
size) it builds Γ_f and runs CFR+ on Γ_f's sequence form (`cfr.CFRPlusSolver`
through the run loop) up to each of --checkpoints iterations, and at each measures the average
profile twice:

* in Γ_f (`evaluate.evaluate_profile` on Γ_f's sequence form): what a user of the abstraction
  sees;
* lifted into the original 52-card game (Theorem 2's construction) on the range layout with
  suit isomorphism (`poker.abstract_ranges.RangeLift`, `range_walker.RangeWalker.evaluate`): the
  game's own exact best responses, which no compiled form of its 52 M information sets reaches.

For a lossless filter the two exploitabilities and values are equal at every checkpoint (up to
rounding); any gap is value the abstraction loses. --time_limit bounds each transformation's
CFR+; Ctrl-C or SIGTERM stops after the current iteration, measures there, and writes the JSON
(exit 130); one while Γ_f or the lift is built writes the transformations measured before.

JSON keys: game, checkpoints, transformations {name: {classes (per round),
abstraction_seconds, sequences (Γ_f's, per player), points [{iterations, seconds (CFR+
solving), abstract_value, abstract_exploitability, lifted_value, lifted_exploitability, gap
(lifted minus abstract exploitability)}], stop_reason}}, range_boards (per round),
peak_rss_bytes.
"""

import resource
import time

from absl import flags

from ospiel_ext import evaluate
from ospiel_ext.algorithms import cfr, gameshrink
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.gameshrink import abstract_game
from ospiel_ext.algorithms.poker import range_tree, range_walker, structure
from ospiel_ext.algorithms.poker.abstract_ranges import RangeLift
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

_GAME = flags.DEFINE_string("game", "rhode_island_holdem", "A Rhode Island or Leduc game.")
_FILTERS = flags.DEFINE_list(
    "filters", ["coarsest", "paper"], "GameShrink's filters (transformations): coarsest, paper."
)
_CHECKPOINTS = flags.DEFINE_list(
    "checkpoints", ["30", "100", "300", "1000"], "CFR+ iterations at which to measure."
)
cli_flags.rename("transformations", "filters")
_TIME_LIMIT = flags.DEFINE_float("time_limit", 1800.0, "Most CFR+ seconds per transformation.")
cli_flags.rename("seconds", "time_limit")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def _checkpoints() -> list[int]:
    try:
        points = sorted({int(x) for x in _CHECKPOINTS.value})
    except ValueError:
        cli.fail(f"--checkpoints must be integers, got {_CHECKPOINTS.value}")
    if not points or points[0] < 1:
        cli.fail(f"--checkpoints must be positive integers, got {_CHECKPOINTS.value}")
    return points


def _measure(solver, seconds: float, walker, lift) -> dict:
    b = solver.average_behavioural()
    inside = evaluate.evaluate_profile(solver.sequence_form, b)
    lifted = walker.evaluate(walker.tree.contract(lift.strategy(b)))
    point = {
        "iterations": solver.iteration,
        "seconds": seconds,
        "abstract_value": inside.on_policy_values[0],
        "abstract_exploitability": inside.exploitability,
        "lifted_value": lifted.on_policy_values[0],
        "lifted_exploitability": lifted.exploitability,
        "gap": lifted.exploitability - inside.exploitability,
    }
    print(
        f"  {point['iterations']:>6} iterations ({seconds:.0f} s): Γ_f exploitability "
        f"{inside.exploitability:.6e}, lifted {lifted.exploitability:.6e} "
        f"(gap {point['gap']:.3e}); values {inside.on_policy_values[0]:.9f} / "
        f"{lifted.on_policy_values[0]:.9f}"
    )
    return point


def _transformation(game, name: str, walker, points: list[int]) -> dict:
    abstraction = gameshrink.gameshrink(game, transformation=name)
    out = {
        "classes": list(abstraction.num_classes),
        "abstraction_seconds": abstraction.seconds,
        "stop_reason": abstraction.stop_reason,
    }
    if abstraction.stopped_early:
        return out
    shrunk = abstract_game.AbstractGame.of(abstraction)
    solver = cfr.CFRPlusSolver(shrunk.sequence_form)
    out["sequences"] = [tp.num_sequences for tp in shrunk.sequence_form.treeplexes]
    lift = RangeLift(walker.tree, shrunk)
    print(f"{name}: classes {out['classes']}, Γ_f sequences {out['sequences']}")
    out["points"], seconds, start = [], 0.0, time.perf_counter()
    for target in points:
        left = _TIME_LIMIT.value - (time.perf_counter() - start)
        result = solver_lib.run(solver, target - solver.iteration, time_limit=max(left, 0.0))
        seconds += result.seconds
        out["points"].append(_measure(solver, seconds, walker, lift))
        out["stop_reason"] = result.stop_reason
        if result.stop_reason != "iterations":
            break
    return out


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TIME_LIMIT)
    cli_flags.output_path(_OUTPUT_JSON)
    points = _checkpoints()
    unknown = set(_FILTERS.value) - set(gameshrink.TRANSFORMATIONS)
    if unknown:
        cli.fail(f"unknown --filters {sorted(unknown)}; known: {gameshrink.TRANSFORMATIONS}")
    game = cli.load_game(_GAME.value)
    with cli_flags.refuse(ValueError):
        ps = structure.detect(game)
    walker = range_walker.RangeWalker(range_tree.RangeTree(ps, suits=True))
    output = {
        "game": str(game),
        "checkpoints": points,
        "range_boards": [lay.deals.num_boards for lay in walker.tree.rounds],
        "transformations": {},
    }
    try:
        for name in _FILTERS.value:
            output["transformations"][name] = _transformation(game, name, walker, points)
            if interrupts.requested():
                break
    except KeyboardInterrupt:  # while building Γ_f or the lift: the transformations done stand
        print("interrupted: the transformations measured so far are written")
    # the peak RSS (VmHWM), as gameshrink.py reads it: ru_maxrss counts KiB on Linux
    output["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, output)
    if interrupts.requested():
        raise SystemExit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    cli.main(main)
