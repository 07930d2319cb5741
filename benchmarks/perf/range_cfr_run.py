r"""A poker game solved whole on the public tree: CFR+ or DCFR for a budget.

  python benchmarks/perf/range_cfr_run.py --solver=cfr_plus --time_limit=3600 \
      --output_json=docs/results/rhode_island_cfr_plus.json

Rhode Island Hold'em by default; any game of the range layout (`poker.structure`), hold'em
with two hole cards and a flop too (`universal_poker`).

Builds the range layout of --game (`poker.range_tree.RangeTree`, one board per suit orbit
with --suits) and runs `poker.range_cfr.RangeCFRSolver` (CFR+ or DCFR; its regrets, strategies,
reaches and values in --dtype, the average always in float64; each pass on --threads threads,
one block of boards each) through the pack's run loop (`algorithms.solver.run`) until
--time_limit seconds of wall-clock time have passed (or --iterations iterations), measuring
the average profile exactly (best responses on the same tree; not counted as solving seconds)
at iterations 1, 2, 3, ... growing by about 12 % (`solver.log_spaced`; --num_checkpoints
points up to 10^6 iterations). --sample_boards: public chance sampling of the last round's
boards (`range_cfr`).
Ctrl-C or SIGTERM stops after the current iteration and writes the result so far
(`stop_reason`); an iteration or a measurement still under way a second later is paused or
given up (`paused`; `final` is then the last measurement, of an earlier average), and
`br_seconds` is not measured.

JSON keys: game, solver, suits, dtype, threads, sample_boards (only when given), boards (per
round), entries (regret entries, both players), build_seconds, seconds_per_iteration (solving
seconds / iterations), peak_rss_bytes (VmHWM), curve {iterations, traversals, seconds (solving),
value (player 0's, of the average profile), nash_conv, exploitability, max_infoset_regret
(empty)}, final {iterations, seconds, exploitability, value} (the last measurement, where the
run stopped), stop_reason, paused (only when true), wall_seconds, at_600_seconds (the last
measurement within 600 solving seconds), seconds_to_1e-3, seconds_to_1e-4 (solving seconds at
the first measurement at or below; null when not reached), exploitability_mbb (the final
exploitability in milli-big-blinds per game; universal_poker games only), br_seconds (one exact
evaluation of the average profile: both best responses). --policy_out writes the average
strategy (`poker.range_policy`: an OpenSpiel policy of the whole game once loaded; Rhode
Island's is 133 MB).
"""

import time

import numpy as np
import timing
from absl import flags

from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.poker import range_cfr, range_policy, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

_GAME = flags.DEFINE_string("game", "rhode_island_holdem", "A poker game (load_game string).")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["cfr_plus", "dcfr"], "The CFR variant.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", 600.0, "Wall-clock seconds of the run.")
_ITERATIONS = flags.DEFINE_integer(
    "iterations",
    None,
    "Also stop after this many iterations (a fixed amount of work).",
    lower_bound=1,
)
cli_flags.rename("seconds", "time_limit")
_SUITS = flags.DEFINE_bool("suits", True, "One board per suit orbit.")
_DTYPE = flags.DEFINE_enum(
    "dtype", "float64", ["float64", "float32"], "The iteration's floating-point type."
)
_THREADS = flags.DEFINE_integer(
    "threads",
    1,
    "Threads each pass runs on, one block of boards each (the iterates do not depend on it).",
    lower_bound=1,
)
_SAMPLE_BOARDS = flags.DEFINE_float(
    "sample_boards",
    None,
    "Public chance sampling: the fraction of the last round's boards a pass walks (one board "
    "per chunk; `range_cfr`). Default: every board.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")
_POLICY_OUT = flags.DEFINE_string(
    "policy_out", None, "Write the average strategy here (.npz, `range_policy.load_range_policy`)."
)
_NUM_CHECKPOINTS = flags.DEFINE_integer(
    "num_checkpoints",
    120,
    "Log-spaced measurements up to 10^6 iterations (fewer for games whose exact evaluation "
    "takes long: hold'em's takes about a minute).",
    lower_bound=2,
)
TARGETS = {"seconds_to_1e-3": 1e-3, "seconds_to_1e-4": 1e-4}
MAX_ITERATIONS = 10**6


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TIME_LIMIT)
    for output in (_OUTPUT_JSON, _POLICY_OUT):
        cli_flags.output_path(output)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT])
    game = cli.load_game(_GAME.value)
    start = time.perf_counter()
    with cli_flags.refuse(ValueError):
        solver = range_cfr.for_game(
            game,
            cfr_rules.PRESETS[_SOLVER.value],
            suits=_SUITS.value,
            dtype=_DTYPE.value,
            threads=_THREADS.value,
            sample_boards=_SAMPLE_BOARDS.value,
        )
    tree = solver.tree
    build_seconds = time.perf_counter() - start
    result = solver_lib.run(
        solver,
        _ITERATIONS.value or MAX_ITERATIONS,
        time_limit=_TIME_LIMIT.value,
        checkpoints=solver_lib.log_spaced(MAX_ITERATIONS, _NUM_CHECKPOINTS.value),
        log_every=None,
    )
    br_seconds = None
    if not interrupts.requested():  # after Ctrl-C the result so far is written at once
        tick = time.perf_counter()
        solver.evaluate_average()  # once more, timed: an exact best response of a saved strategy
        br_seconds = time.perf_counter() - tick
    curve = result.curve.as_dict()
    points = list(zip(curve["iterations"], curve["seconds"], curve["exploitability"]))
    last = {
        k: curve[k][-1] if curve[k] else None
        for k in ("iterations", "seconds", "exploitability", "value")
    }
    within = [i for i, (_, s, _) in enumerate(points) if s <= 600]
    blind = structure.big_blind(game)
    output = {
        "game": str(game),
        "solver": _SOLVER.value,
        "suits": _SUITS.value,
        "dtype": _DTYPE.value,
        "threads": _THREADS.value,
        **({} if _SAMPLE_BOARDS.value is None else {"sample_boards": _SAMPLE_BOARDS.value}),
        "boards": [lay.deals.num_boards for lay in tree.rounds],
        "entries": solver.entries,
        "build_seconds": build_seconds,
        "seconds_per_iteration": result.seconds / max(result.iterations, 1),
        "peak_rss_bytes": timing.status_bytes("VmHWM"),
        "curve": curve,
        "final": last,
        **(
            {}
            if blind is None or last["exploitability"] is None
            else {"exploitability_mbb": 1000 * last["exploitability"] / blind}
        ),
        "br_seconds": br_seconds,
        "stop_reason": result.stop_reason,
        **({"paused": True} if result.paused else {}),
        "wall_seconds": result.wall_seconds,
        "at_600_seconds": (
            {k: curve[k][within[-1]] for k in ("iterations", "seconds", "exploitability")}
            if within
            else None
        ),
        **{
            key: next((s for _, s, e in points if e <= target), None)
            for key, target in TARGETS.items()
        },
    }
    print(
        f"{_SOLVER.value}: {result.iterations} iterations, {result.seconds:.1f} s solving, "
        f"last measured at {last['iterations']}: exploitability {last['exploitability']}, "
        f"value {last['value']} ({result.stop_reason}{', paused' if result.paused else ''}); "
        f"seconds to 1e-3 {output['seconds_to_1e-3']}, "
        f"to 1e-4 {output['seconds_to_1e-4']}; "
        f"{np.mean(np.diff(curve['seconds'])) if len(points) > 1 else 0:.1f} s between checks"
    )
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, output)
        if _POLICY_OUT.value:
            range_policy.save_range_policy(solver.average_policy(), _POLICY_OUT.value)


if __name__ == "__main__":
    cli.main(main)
