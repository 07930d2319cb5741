r"""Rhode Island Hold'em solved whole on the public tree (issue 36): CFR+ or DCFR for a budget.

  python benchmarks/range_cfr_run.py --solver=cfr_plus --seconds=3600 \
      --output_json=docs/results/rhode_island_cfr_plus.json

Builds the range layout of --game (`poker.range_tree.RangeTree`, one board per suit orbit
with --suits) and runs `poker.range_cfr.RangeCFRSolver` (CFR+ or DCFR) until --seconds of
solving have passed (the exact exploitability checks, by the best response on the same
tree, are not counted), checking at iterations 1, 2, 3, ... growing by 25 %, and when
solving passes each of --marks seconds (the issue's 10 minutes). The JSON is rewritten at
every check, so a run cut short keeps its curve; Ctrl-C or SIGTERM stops at the next
iteration and writes the result so far (`stop_reason`).

JSON keys: game, solver, suits, boards (per round), entries (regret entries, both players),
build_seconds, seconds_per_iteration (median over the run), peak_rss_bytes (VmHWM),
curve [{iterations, seconds, exploitability, game_value}] (game_value: player 0's value of
the average profile), final (the last check and the stop_reason), seconds_to_1e-3,
seconds_to_1e-4 (solving seconds at the first check at or below; null when not reached).
"""

import statistics
import time

from absl import flags

from ospiel_ext import cli, cli_flags, cli_output, interrupts
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms.poker import range_cfr, range_tree, structure

SOLVERS = {"cfr_plus": cfr_variants.CFR_PLUS, "dcfr": cfr_variants.DCFR}
_GAME = flags.DEFINE_string("game", "rhode_island_holdem", "A poker game (load_game string).")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", list(SOLVERS), "The CFR variant.")
_SECONDS = flags.DEFINE_float("seconds", 600.0, "Seconds of solving.")
_SUITS = flags.DEFINE_bool("suits", True, "One board per suit orbit.")
_MARKS = flags.DEFINE_list("marks", ["600"], "Also check when solving passes these seconds.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")
TARGETS = (1e-3, 1e-4)


def _peak_rss() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _summary(output: dict, curve: list[dict], times: list[float], stop: str | None) -> dict:
    out = {
        **output,
        "curve": curve,
        "final": {**(curve[-1] if curve else {}), "stop_reason": stop},
        "seconds_per_iteration": statistics.median(times) if times else None,
        "peak_rss_bytes": _peak_rss(),
    }
    for target in TARGETS:
        reached = [p["seconds"] for p in curve if p["exploitability"] <= target]
        out[f"seconds_to_{target:.0e}".replace("e-0", "e-")] = reached[0] if reached else None
    return out


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_SECONDS)
    with cli_flags.refuse(ValueError):
        marks = sorted(float(m) for m in _MARKS.value)
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    with cli_flags.refuse(ValueError):
        ps = structure.detect(game)
    start = time.perf_counter()
    tree = range_tree.RangeTree(ps, suits=_SUITS.value)
    solver = range_cfr.RangeCFRSolver(tree, SOLVERS[_SOLVER.value])
    output = {
        "game": str(game),
        "solver": _SOLVER.value,
        "suits": _SUITS.value,
        "boards": [lay.deals.num_boards for lay in tree.rounds],
        "entries": int(sum(s.size for per_round in solver.walker.uniform() for s in per_round)),
        "build_seconds": time.perf_counter() - start,
    }
    curve: list[dict] = []
    times: list[float] = []
    solving, next_check, stop = 0.0, 1, None
    with interrupts.graceful():
        while stop is None:
            tick = time.perf_counter()
            solver.evaluate_and_update_policy()
            times.append(time.perf_counter() - tick)
            solving += times[-1]
            if interrupts.requested():
                stop = interrupts.stop_reason()
            elif solving >= _SECONDS.value:
                stop = "time_limit"
            passed = bool(marks) and solving >= marks[0]
            while marks and solving >= marks[0]:
                marks.pop(0)
            if solver.iteration >= next_check or stop is not None or passed:
                average = solver.average_strategy()
                br0, br1 = solver.best_response_values(average)
                point = {
                    "iterations": solver.iteration,
                    "seconds": solving,
                    "exploitability": (br0 + br1) / 2,
                    "game_value": solver.game_value(average),
                }
                curve.append(point)
                print(
                    f"{point['iterations']:6d} it  {solving:8.1f} s  "
                    f"exploitability {point['exploitability']:.4e}  "
                    f"value {point['game_value']:.6f}",
                    flush=True,
                )
                if solver.iteration >= next_check:
                    next_check = max(next_check + 1, int(next_check * 1.25))
                cli_output.write_json(_OUTPUT_JSON.value, _summary(output, curve, times, stop))


if __name__ == "__main__":
    cli.main(main)
