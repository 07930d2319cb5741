r"""Starting a certificate-search trunk LP from CFR+'s strategy, against HiGHS's own starts
(a CFR+ warm start of the basis).

  python benchmarks/perf/certificate_lp_starts.py \
      --output_json=docs/results/certificate_lp_starts.json

Grows trunks of --game by Algorithm 6.7 of Zhang & Sandholm, "Finding and Certifying
(Near-)Optimal Strategies in Black-Box Extensive-Form Games" (AAAI 2021), with the settings that
certify 6-rank Goofspiel (`expand_below`, HiGHS's interior point), up to each --trunk_nodes,
and solves player 0's LP of that trunk (eq. 6.10 with every leaf at the upper end of its
utility interval: `lp_model.sequence_form_lp(bound="hi")`) in a new HiGHS model each way:

- dual simplex, cold; interior point with crossover (cold), as `--lp_method` offers;
- CFR+ for N iterations (each --cfr_iterations entry) on the same bound game, then its average
  strategy x and the opponent's best-response values q against it (one bottom-up pass:
  q_J = min over J's actions of (A^T x + the values q of the sets below), which makes every
  constraint 2c hold) handed to HiGHS as a primal solution (`Highs.setSolution`); HiGHS's
  simplex, given a solution and no basis, builds its start basis from it
  (`Highs::basisForSolution`) and runs from there.

Prints, per trunk and start, HiGHS's seconds and simplex iterations, CFR+'s seconds, and the
objective (the same optimum every way, checked).
"""

import time

import certificate_trunks
import highspy
import numpy as np
from absl import flags

from ospiel_ext import highs_run, lp_model
from ospiel_ext.algorithms import cfr
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import SequenceForm, TreeSequenceForm

_GAME = flags.DEFINE_string("game", "sequential_goofspiel(num_cards=6)", "A load_game string.")
_TRUNK_NODES = flags.DEFINE_list(
    "trunk_nodes",
    ["20000", "60000", "120000"],
    "Trunk sizes (nodes) to grow to, comma-separated.",
)
_CFR_ITERATIONS = flags.DEFINE_list(
    "cfr_iterations", ["100", "1000", "10000"], "CFR+ iteration counts of the CFR+ starts."
)
_EXPAND_BELOW = flags.DEFINE_integer("expand_below", 1, "Larger steps of the trunk search.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def _upper_game(sf: TreeSequenceForm) -> SequenceForm:
    """The trunk's game with every leaf at the upper end of its interval (what the LP of
    `bound="hi"` solves), as a sequence form CFR+ runs on."""
    return SequenceForm(
        name=f"{sf.name} (upper bounds)",
        treeplexes=sf.treeplexes,
        payoff_lo=sf.payoff_hi,
        payoff_hi=sf.payoff_hi,
        infoset_keys=sf.infoset_keys,
        build_reach=sf.build_reach,
    )


def _lp_point(sf: SequenceForm, x: np.ndarray) -> np.ndarray:
    """Player 0's LP columns (x, q) for the realization plan x: q the opponent's best-response
    values against x, information set by information set (module docstring)."""
    g = sf.payoff_hi.T @ x  # the opponent's sequences, in player 0's terms
    v_seq, v_inf = sf.treeplexes[1].infoset_values(-g, None)  # -min = max of -g
    return np.concatenate([x, [-v_seq[0]], -v_inf])


def _solve(program, point: np.ndarray | None = None, method: str = "simplex") -> dict:
    """HiGHS's `method` (`highs.METHODS`) on a new model of `program`, from `point` if given."""
    h = program.to_highs()
    for option, value in highs_run.METHOD_OPTIONS[method].items():
        h.setOptionValue(option, value)
    if point is not None:
        solution = highspy.HighsSolution()
        solution.col_value = point.tolist()
        solution.value_valid = True
        h.setSolution(solution)
    begin = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - begin
    info = h.getInfo()
    return {
        "status": h.modelStatusToString(h.getModelStatus()),
        "highs_seconds": seconds,
        "simplex_iterations": int(info.simplex_iteration_count),
        "objective": float(info.objective_function_value),
    }


def main(argv):
    cli_flags.no_arguments(argv)
    sizes = cli_flags.int_list(_TRUNK_NODES)
    counts = cli_flags.int_list(_CFR_ITERATIONS)
    cli_flags.non_negative(_EXPAND_BELOW)
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    results, table = [], []
    for size in sizes:
        sf = certificate_trunks.grown_trunk(game, size, _EXPAND_BELOW.value)
        program = lp_model.sequence_form_lp(sf, 0, bound="hi").program
        rows, cols = program.matrix().shape
        nodes = sf.tree.num_nodes
        runs = []
        runs.append({"start": "dual simplex, cold", "cfr_seconds": 0.0, **_solve(program)})
        runs.append(
            {
                "start": "interior point + crossover",
                "cfr_seconds": 0.0,
                **_solve(program, method="ipm"),
            }
        )
        upper = _upper_game(sf)
        solver, done, cfr_seconds = cfr.CFRPlusSolver(upper), 0, 0.0
        for count in sorted(counts):
            begin = time.perf_counter()
            for _ in range(count - done):
                solver.evaluate_and_update_policy()
            cfr_seconds += time.perf_counter() - begin
            done = count
            b0, _ = solver.average_behavioural()
            x = upper.treeplexes[0].realization_plan(b0)
            point = _lp_point(upper, x)
            run = _solve(program, point)
            runs.append(
                {
                    "start": f"CFR+ {count}, then dual simplex",
                    "cfr_seconds": cfr_seconds,
                    "cfr_value": float(point[upper.treeplexes[0].num_sequences]),
                    **run,
                }
            )
        best = runs[0]["objective"]
        for r in runs:
            if r["status"] != "Optimal" or abs(r["objective"] - best) > 1e-6 * max(1, abs(best)):
                cli.fail(f"{r['start']}: {r['status']}, objective {r['objective']} vs {best}", 1)
            table.append(
                [f"{nodes:,}", f"{rows:,} x {cols:,}", r["start"], f"{r['cfr_seconds']:.2f}",
                 f"{r['highs_seconds']:.2f}", r["simplex_iterations"],
                 f"{r['cfr_seconds'] + r['highs_seconds']:.2f}"]
            )  # fmt: skip
        results.append({"trunk_nodes": nodes, "rows": rows, "columns": cols, "runs": runs})
    print(f"{game}: player 0's LP (upper bounds) of each trunk, optimum checked equal")
    print(
        format_table(
            ["trunk nodes", "LP rows x columns", "start", "CFR+ s", "HiGHS s",
             "simplex iterations", "total s"],
            table,
        )
    )  # fmt: skip
    cli_output.write_json(
        _OUTPUT_JSON.value,
        {"game": str(game), "expand_below": _EXPAND_BELOW.value, "trunks": results},
    )


if __name__ == "__main__":
    cli.main(main)
