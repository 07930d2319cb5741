"""What a change to a kept HiGHS model costs the next solve.

  python benchmarks/perf/highs_model_changes.py --output_json=docs/results/highs_model_changes.json

Certificate search (Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
Black-Box Extensive-Form Games", AAAI 2021, Algorithm 6.7) solves a sequence of LPs that differ
by a few rows, columns and coefficients (the finding that led us to remove a kept-model option,
`highs.LiveModel`: docs/engineering.md).
This script measures, on the sequence-form LP of each --games entry solved to optimality
once, the `Highs.run` that follows each kind of change to the kept model, every change chosen
so that the optimum stays where it is (no pivot is needed): the same cost set again, the same
bounds set again, an empty column fixed at 0 appended, an empty free row appended, a
coefficient set to its own value. The "none" row runs again with no change and "new model"
passes the LP whole to a new model and solves it cold, for scale. Changes are interleaved in
--rounds rounds, each on a model restored to optimality first; the table gives medians.

HiGHS's simplex keeps its factorisation and edge weights through cost and bound changes
(`HEkk::updateStatus` with `LpAction::kNewCosts` / `kNewBounds`) and discards all of it on
new columns (`kNewCols` calls `HEkk::clear`), on new rows (`kNewRows`, the same while
`kExtendInvertWhenAddingRows` is false, as in HiGHS 1.12 and 1.15.1) and on a changed
coefficient (`Highs::changeCoefficientInterface` reports `kNewRows`): see
docs/engineering.md.
"""

import statistics
import time

import highspy
import numpy as np
from absl import flags

from ospiel_ext import lp_model
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

_GAMES = flags.DEFINE_multi_string(
    "games",
    [
        "leduc_poker",
        "sequential_goofspiel(num_cards=5)",
        "limit_leduc_poker(num_ranks=9,max_raises=4)",
        "sequential_goofspiel(num_cards=5,info=perfect)",
    ],
    "load_game strings; repeat the flag for more.",
)
_ROUNDS = flags.DEFINE_integer("rounds", 5, "Interleaved rounds.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")

_INF = highspy.kHighsInf


def _changes(program):
    """The changes measured: name -> function of the kept model that makes it."""
    a = program.matrix().tocoo()
    cost = np.concatenate([b.cost for b in program.columns])
    col_lower = np.concatenate([b.lower for b in program.columns])
    col_upper = np.concatenate([b.upper for b in program.columns])
    row_lower = np.concatenate([b.lower for b in program.rows])
    row_upper = np.concatenate([b.upper for b in program.rows])
    j, i = a.shape[1] // 2, a.shape[0] // 2  # a column and a row in the middle
    k = len(a.data) // 2  # an entry in the middle
    idx = np.array([j], dtype=np.int32)
    none = np.zeros(0, dtype=np.int32)
    return {
        "none": lambda h: None,
        "same cost": lambda h: h.changeColsCost(1, idx, cost[[j]]),
        "same column bounds": lambda h: h.changeColsBounds(1, idx, col_lower[[j]], col_upper[[j]]),
        "same row bounds": lambda h: h.changeRowsBounds(
            1, np.array([i], dtype=np.int32), row_lower[[i]], row_upper[[i]]
        ),
        "empty column fixed at 0": lambda h: h.addCols(
            1, np.zeros(1), np.zeros(1), np.zeros(1), 0, none, none, np.zeros(0)
        ),
        "empty free row": lambda h: h.addRows(
            1, np.array([-_INF]), np.array([_INF]), 0, none, none, np.zeros(0)
        ),
        "same coefficient": lambda h: h.changeCoeff(int(a.row[k]), int(a.col[k]), a.data[k]),
    }


def _run(h: highspy.Highs) -> tuple[float, int, float]:
    """Seconds of h.run(), its simplex iterations and objective."""
    begin = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - begin
    info = h.getInfo()
    return seconds, int(info.simplex_iteration_count), float(info.objective_function_value)


def _measure(game, rounds: int) -> dict:
    """Seconds and simplex iterations of the run after each change (module docstring)."""
    program = lp_model.sequence_form_lp(cli.compile_game(game)).program
    rows, cols = program.matrix().shape
    changes = _changes(program)
    kept = program.to_highs()
    _, _, optimum = _run(kept)  # the kept model, at its optimum
    seconds: dict[str, list[float]] = {name: [] for name in ["new model", *changes]}
    pivots: dict[str, list[int]] = {name: [] for name in seconds}
    for _ in range(rounds):
        s, n, _ = _run(program.to_highs())
        seconds["new model"].append(s)
        pivots["new model"].append(n)
        for name, change in changes.items():
            _run(kept)  # back at a fresh optimum, whatever the last change cleared
            change(kept)
            s, n, value = _run(kept)
            if abs(value - optimum) > 1e-9 * max(1.0, abs(optimum)):
                cli.fail(f"{game}, {name}: the optimum moved ({value} against {optimum})", 1)
            seconds[name].append(s)
            pivots[name].append(n)
    return {
        "game": str(game),
        "rows": rows,
        "columns": cols,
        "optimum": optimum,
        "highs_version": kept.version(),
        "changes": [
            {"change": name, "seconds": seconds[name], "simplex_iterations": pivots[name]}
            for name in seconds
        ],
    }


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.require(_ROUNDS.value > 0, f"--rounds must be positive, got {_ROUNDS.value}")
    cli_flags.output_path(_OUTPUT_JSON)
    games = [cli.load_game(g) for g in _GAMES.value]  # every game, before the work
    results = [_measure(game, _ROUNDS.value) for game in games]
    names = [c["change"] for c in results[0]["changes"]]
    table = [
        [name]
        + [
            f"{statistics.median(c['seconds']):.4f} ({max(c['simplex_iterations'])})"
            for r in results
            for c in r["changes"]
            if c["change"] == name
        ]
        for name in names
    ]
    for i, r in enumerate(results):
        print(
            f"[{i}] {r['game']}: sequence-form LP of {r['rows']:,} rows x {r['columns']:,} "
            f"columns, optimum {r['optimum']:.6g}, HiGHS {r['highs_version']}"
        )
    print("Seconds of the next Highs.run, median (most simplex iterations), per LP [i]:")
    header = ["change to the kept model"] + [
        f"[{i}] {r['rows']:,} rows" for i, r in enumerate(results)
    ]
    print(format_table(header, table))
    cli_output.write_json(_OUTPUT_JSON.value, {"rounds": _ROUNDS.value, "runs": results})


if __name__ == "__main__":
    cli.main(main)
