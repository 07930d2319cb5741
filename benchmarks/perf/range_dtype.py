r"""float32 against float64 on the range layout: an iteration of each, side by side.

  python benchmarks/perf/range_dtype.py --output_json=docs/results/range_dtype.json

Lays out --game once (`poker.range_tree.RangeTree`, one board per suit orbit) and runs two
`poker.range_cfr.RangeCFRSolver`s of --solver on it, one iterating in float64 and one in
float32 (regrets, strategies, reaches and values; both average in float64), in alternating
blocks of --block iterations, so that the noise of a shared machine falls on both, until each
has made --iterations. Then both average profiles are measured exactly (float64 best responses
on the same tree). An iteration is a few dozen passes over arrays of up to 17 M entries (Rhode
Island's last round: 1,029 betting nodes x 325 boards x 52 hands): float32 halves the bytes
each pass moves.

Prints and writes the CPU seconds per iteration of each (`time.process_time`), the speed-up
(float64's over float32's), and each profile's exploitability and value: the float32 run's
iterates part from the float64 run's at rounding level and both are CFR iterates; whether
float32's rounding stops the convergence early is what `range_cfr_run.py --dtype=float32`
measures over an hour. Ctrl-C or SIGTERM stops after the current iteration and writes the
figures so far (exit 130).

JSON keys: game, solver, block, iterations {float64, float32}, seconds_per_iteration {...},
speedup, exploitability {...}, value {...}, strategy_bytes {...} (regrets and current
strategies), peak_rss_bytes (both solvers in one process), stop_reason ('iterations' or
'interrupted').
"""

import time

import numpy as np
import timing
from absl import flags

from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms.poker import range_cfr, range_tree, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

SOLVERS = {"cfr_plus": cfr_rules.CFR_PLUS, "dcfr": cfr_rules.DCFR}
DTYPES = ("float64", "float32")
_GAME = flags.DEFINE_string("game", "rhode_island_holdem", "A poker game (load_game string).")
_SOLVER = flags.DEFINE_enum("solver", "dcfr", list(SOLVERS), "The CFR variant.")
_ITERATIONS = flags.DEFINE_integer("iterations", 100, "Iterations of each solver.")
_BLOCK = flags.DEFINE_integer("block", 10, "Iterations per block (the solvers alternate).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def main(argv):
    cli_flags.no_arguments(argv)
    for holder in (_ITERATIONS, _BLOCK):
        cli_flags.positive(holder)
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    with cli_flags.refuse(ValueError):
        ps = structure.detect(game)
    tree = range_tree.RangeTree(ps, suits=True)
    solvers = {d: range_cfr.RangeCFRSolver(tree, SOLVERS[_SOLVER.value], dtype=d) for d in DTYPES}
    seconds = dict.fromkeys(DTYPES, 0.0)
    with interrupts.graceful():
        while not interrupts.requested() and solvers["float32"].iteration < _ITERATIONS.value:
            block = min(_BLOCK.value, _ITERATIONS.value - solvers["float32"].iteration)
            for d, solver in solvers.items():
                start = time.process_time()
                for _ in range(block):
                    if interrupts.requested():  # within an iteration (under a second)
                        break
                    solver.evaluate_and_update_policy()
                seconds[d] += time.process_time() - start
            print(
                f"{solvers['float32'].iteration}/{_ITERATIONS.value} iterations: "
                + ", ".join(
                    f"{d} {seconds[d] / max(solvers[d].iteration, 1):.3f} s" for d in DTYPES
                ),
                flush=True,
            )
    interrupted = interrupts.requested()
    measured = {d: solver.evaluate_average() for d, solver in solvers.items()}
    per_iteration = {d: seconds[d] / max(solvers[d].iteration, 1) for d in DTYPES}
    speedup = per_iteration["float64"] / per_iteration["float32"] if seconds["float32"] else None
    output = {
        "game": str(game),
        "solver": _SOLVER.value,
        "block": _BLOCK.value,
        "iterations": {d: solvers[d].iteration for d in DTYPES},
        "seconds_per_iteration": per_iteration,
        "speedup": speedup,
        "exploitability": {d: measured[d].exploitability for d in DTYPES},
        "value": {d: measured[d].on_policy_values[0] for d in DTYPES},
        "strategy_bytes": {
            d: 2 * solvers[d].entries * np.dtype(d).itemsize  # strategies and regrets
            for d in DTYPES
        },
        "peak_rss_bytes": timing.status_bytes("VmHWM"),
        "stop_reason": "interrupted" if interrupted else "iterations",
    }
    for d in DTYPES:
        print(
            f"{d}: {per_iteration[d]:.3f} s per iteration, exploitability "
            f"{output['exploitability'][d]:.4e}, value {output['value'][d]:.6f}"
        )
    if speedup is not None:
        print(f"speed-up of float32: {speedup:.2f}x")
    cli_output.write_json(_OUTPUT_JSON.value, output)
    if interrupted:
        raise SystemExit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    cli.main(main)
