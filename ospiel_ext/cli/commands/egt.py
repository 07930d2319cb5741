r"""EGT with the xi-perturbed dilated entropy (approximate extensive-form perfect equilibrium).

  ospiel-ext egt --game="limit_leduc_poker(num_ranks=5,max_raises=2)" \
      --xi=0.005 --iterations=2000 --policy_out=/tmp/efpe.json --plot=/tmp/efpe.png

Prints the convergence table (iterations, tree traversals, the saddle-point gap in the
perturbed game, the unperturbed NashConv = sum of regrets, the maximum per-infoset regret,
seconds). --dgf_weight=0 tunes the overall DGF weight as the paper does (Section 4: the best
for xi = 0 after 20 iterations, over ospiel_ext.algorithms.egt.DGF_WEIGHTS).
--stepping=aggressive uses the practical step-size rule of later EGT work instead
(`egt.EGTSolver`; no weight to tune: its initial smoothing is found by the EGC);
--stepping=restarted adds restarts at the current iterate whenever the gap has halved (linear
convergence; best for solving to high accuracy, see docs/results/efpe.md).

JSON keys: game, xi, stepping, dgf_weight (null unless --stepping=theory), iterations,
traversals, seconds, value, nash_conv, exploitability, max_infoset_regret (lists, one entry
per checkpoint, the last where the run stopped; nash_conv, exploitability and regrets are >= 0,
rounding errors above -1e-9 are written as 0), final_iteration, perturbed_gap (final),
epsilon (--target_gap; null without it), epsilon_reached (perturbed_gap <= --target_gap; null
without it), stopped_early, stop_reason ('iterations', 'target' for --target_gap reached,
'time_limit', 'interrupted').

With --target_gap, one run of up to 10 x --iterations steps: the --num_checkpoints log-spaced
points up to --iterations, then a checkpoint every --iterations / 10 steps where the gap is
tested.

--time_limit alone sets the run's length (as many steps as fit): the checkpoints keep the
density of --num_checkpoints over --iterations' default and go on in log space until the time
is up (with --target_gap the gap is tested at each of them); the curve ends where the run
stopped. Given with --iterations, the run ends at whichever comes first.

--form=public_tree runs on the poker games' public tree x hand ranges (`algorithms.forms`;
poker games only): the same iterates, JSON and policy file as the explicit form's, with no
game tree compiled and no payoff matrix built.

Ctrl-C or SIGTERM stops after the current step; the table, JSON, policy and plot so far are
written (all of them or none) and the command exits with code 130.
"""

from collections.abc import Callable
from typing import Any

from absl import flags

from ospiel_ext import policy_files
from ospiel_ext.algorithms import egt
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.cli import solving as cli_solving
from ospiel_ext.runtime import interrupts, stops
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_XI = flags.DEFINE_float("xi", 0.005, "Behavioural lower bound of every action (0: plain EGT).")
_ITERATIONS = flags.DEFINE_integer(
    "iterations", 1000, "EGT steps (with --time_limit alone: as many as it allows)."
)
_DGF_WEIGHT = flags.DEFINE_float(
    "dgf_weight", 0.0, "Overall DGF weight; 0 tunes it (--stepping=theory only)."
)
_STEPPING = flags.DEFINE_enum(
    "stepping",
    "theory",
    list(egt.STEPPINGS),
    "theory: Algorithms 1-2 as written (tau = 2 / (t + 3)); aggressive: tau halved only when "
    "the excessive gap condition fails, mu balanced, smallest feasible initial mu (Kroer, "
    "Farina & Sandholm, NeurIPS 2018); restarted: aggressive, restarted at the current "
    "iterate each time the gap halves (Gilpin, Pena & Sandholm, Math. Programming 2012).",
)
_NUM_CHECKPOINTS = flags.DEFINE_integer("num_checkpoints", 15, "Log-spaced evaluation points.")
cli_flags.rename("checkpoints", "num_checkpoints")
_TARGET_GAP = flags.DEFINE_float(
    "target_gap",
    None,
    "After --iterations, continue until the perturbed saddle-point gap is at most this "
    "(Algorithm 1's stopping rule, tested every --iterations / 10 steps), up to 10x "
    "--iterations steps in all.",
)
cli_flags.rename("epsilon", "target_gap")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Stop after this many seconds.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_FORM = cli_solving.define_form_flag()
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the final iterate's policy here.")
_PLOT = flags.DEFINE_string("plot", None, "Write a PNG of both measures (needs matplotlib).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def _plot(path: str, title: str, curve: solver_lib.ConvergenceCurve) -> None:
    plt = cli_output.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    axes[0].semilogy(curve.traversals, curve.nash_conv)
    axes[0].set_ylabel("sum of regrets (NashConv)")
    axes[1].loglog(curve.traversals, curve.max_infoset_regret)
    axes[1].set_ylabel("max infoset regret")
    for ax in axes:
        ax.set_xlabel("tree traversals")
        ax.grid(True, which="both", alpha=0.3)
    fig.suptitle(title)
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=100)


def _checkpoints(iterations: int | None) -> list[int]:
    """The log-spaced checkpoints, then (with --target_gap) the ones where the gap is tested.

    Those are one every iterations / 10 steps up to 10 x iterations. With no step budget
    (None: --time_limit alone), log-spaced points at the density --num_checkpoints gives
    --iterations' default, until the run stops (`solver.checkpoints_for`).
    """
    points = set(
        solver_lib.checkpoints_for(iterations, _NUM_CHECKPOINTS.value, _ITERATIONS.default)
    )
    if iterations is None:
        return sorted(points)
    if _TARGET_GAP.value is not None:
        points |= set(range(iterations, 10 * iterations + 1, max(iterations // 10, 1)))
    return sorted(points)


def _gap_at_most(epsilon: float, after: int) -> Callable[[Any], bool]:
    """Algorithm 1's stopping rule, tested once the solver has made `after` steps.

    The run loop passes the solver it runs, an `egt.EGTSolver`.
    """
    return lambda solver: solver.iteration >= after and solver.perturbed_gap() <= epsilon


def main(argv: list[str]) -> None:
    """Runs EGT with the perturbed dilated entropy on --game; prints and writes its curve."""
    cli_flags.no_arguments(argv)
    for holder in (_ITERATIONS, _NUM_CHECKPOINTS, _TIME_LIMIT, _MAX_NODES):
        cli_flags.positive(holder)
    for holder in (_XI, _DGF_WEIGHT, _TARGET_GAP):
        cli_flags.non_negative(holder)
    for output in (_OUTPUT_JSON, _POLICY_OUT, _PLOT):
        cli_flags.output_path(output)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT, _PLOT])
    cli_flags.require(
        _STEPPING.value == "theory" or not _DGF_WEIGHT.value,
        "--dgf_weight applies to --stepping=theory only",
    )
    if _PLOT.value:
        cli_output.pyplot()  # matplotlib is there before the work
    game = cli.load_game(_GAME.value)
    sf = cli_solving.sequence_form(game, _MAX_NODES.value, form=_FORM.value)
    with cli_flags.refuse(ValueError):  # an infeasible xi, before tuning
        solver = egt.EGTSolver(
            sf, xi=_XI.value, dgf_weight=_DGF_WEIGHT.value or 1.0, stepping=_STEPPING.value
        )
    weight = None if _STEPPING.value != "theory" else _DGF_WEIGHT.value
    if weight == 0:
        with cli.stage(f"tuning the DGF weight on {game}"):
            weight = egt.tune_dgf_weight(sf)
        solver = egt.EGTSolver(sf, xi=_XI.value, dgf_weight=weight)
    n, epsilon = cli_flags.iteration_budget(_ITERATIONS, _TIME_LIMIT), _TARGET_GAP.value
    with interrupts.graceful():  # a Ctrl-C once the run is done lets the gap be measured
        result = solver_lib.run(
            solver,
            n if epsilon is None or n is None else 10 * n,
            time_limit=_TIME_LIMIT.value,
            checkpoints=_checkpoints(n),
            infoset_regrets=True,
            target=None if epsilon is None else _gap_at_most(epsilon, after=n or 0),
        )
        gap = solver.perturbed_gap()
    curve, reason = result.curve, result.stop_reason
    reached = None if epsilon is None else bool(gap <= epsilon)
    rows = zip(
        curve.iterations,
        curve.traversals,
        cli_output.clip_rounding(curve.nash_conv),
        cli_output.clip_rounding(curve.max_infoset_regret),
        curve.seconds,
    )
    print(f"game: {game}  xi: {_XI.value}  stepping: {_STEPPING.value}  dgf_weight: {weight}")
    print(
        format_table(
            ["iteration", "traversals", "nash_conv", "max infoset regret", "seconds"], rows
        )
    )
    print(
        f"saddle-point gap in the perturbed game: {gap:.6g} at step {solver.iteration} "
        f"(stopped: {reason})"
        + ("" if epsilon is None else f"; target gap {epsilon} {'' if reached else 'not '}reached")
    )
    measures = curve.as_dict()
    for key in ("nash_conv", "exploitability", "max_infoset_regret"):
        measures[key] = cli_output.clip_rounding(measures[key])
    row = {
        "game": str(game),
        "xi": _XI.value,
        "stepping": _STEPPING.value,
        "dgf_weight": weight,
        **measures,
        "final_iteration": solver.iteration,
        "perturbed_gap": gap,
        "epsilon": epsilon,
        "epsilon_reached": reached,
        "stopped_early": stops.stopped_early(reason),
        "stop_reason": reason,
    }
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)
        if _POLICY_OUT.value:
            policy_files.save_policy(solver.current_policy(), _POLICY_OUT.value, game)
        if _PLOT.value:
            _plot(_PLOT.value, f"{game}, EGT xi={_XI.value}", curve)


if __name__ == "__main__":
    cli.main(main)
