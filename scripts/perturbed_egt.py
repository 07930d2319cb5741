"""EGT with the xi-perturbed dilated entropy (approximate extensive-form perfect equilibrium).

  python scripts/perturbed_egt.py --game="limit_leduc_poker(num_ranks=5,max_raises=2)" \
      --xi=0.005 --iterations=2000 --policy_out=/tmp/efpe.json --plot=/tmp/efpe.png

Prints the convergence table (iterations, tree traversals, the saddle-point gap in the
perturbed game, the unperturbed NashConv = sum of regrets, the maximum per-infoset regret,
seconds). --dgf_weight=0 tunes the overall DGF weight as the paper does (Section 4: the best
for xi = 0 after 20 iterations, over ospiel_ext.algorithms.egt.DGF_WEIGHTS).

JSON keys: game, xi, dgf_weight, iterations, traversals, seconds, value, nash_conv,
exploitability, max_infoset_regret (lists, one entry per checkpoint), final_iteration,
perturbed_gap (final), stopped_early, stop_reason ('iterations', 'target' for --epsilon
reached, 'time_limit', 'interrupted').

Ctrl-C stops after the current step; the table, JSON and policy so far are written and the
script exits with code 130.
"""

import sys

from absl import app, flags

from ospiel_ext import cli, policies, sequence_form
from ospiel_ext.algorithms import egt
from ospiel_ext.algorithms import solver as solver_lib

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_XI = flags.DEFINE_float("xi", 0.005, "Behavioural lower bound of every action (0: plain EGT).")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "EGT steps.")
_DGF_WEIGHT = flags.DEFINE_float("dgf_weight", 0.0, "Overall DGF weight; 0 tunes it.")
_CHECKPOINTS = flags.DEFINE_integer("checkpoints", 15, "Log-spaced evaluation points.")
_EPSILON = flags.DEFINE_float(
    "epsilon",
    None,
    "Then continue until the perturbed saddle-point gap is at most this "
    "(Algorithm 1's stopping rule), up to 10x --iterations steps.",
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Stop after this many seconds.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the final iterate's policy here.")
_PLOT = flags.DEFINE_string("plot", None, "Write a PNG of both measures (needs matplotlib).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def _plot(path, title, curve):
    plt = cli.pyplot()
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
    fig.savefig(path, dpi=100)


def main(argv):
    cli.require(len(argv) == 1, f"unexpected arguments {argv[1:]}")
    cli.require(_ITERATIONS.value > 0, "--iterations must be positive")
    cli.require(_XI.value >= 0, "--xi must be non-negative")
    cli.require(_DGF_WEIGHT.value >= 0, "--dgf_weight must be non-negative")
    cli.require(_CHECKPOINTS.value > 0, "--checkpoints must be positive")
    game = cli.load_game(_GAME.value)
    try:
        sf = sequence_form.for_game(game, max_nodes=_MAX_NODES.value)
        weight = _DGF_WEIGHT.value or egt.tune_dgf_weight(sf)
        solver = egt.EGTSolver(sf, xi=_XI.value, dgf_weight=weight)
    except ValueError as e:
        raise app.UsageError(str(e)) from None
    checkpoints = solver_lib.log_spaced(_ITERATIONS.value, _CHECKPOINTS.value)
    result = solver_lib.run(
        solver,
        _ITERATIONS.value,
        time_limit=_TIME_LIMIT.value,
        checkpoints=checkpoints,
        infoset_regrets=True,
    )
    curve, reason = result.curve, result.stop_reason
    if _EPSILON.value is not None and reason == "iterations":
        left = None if _TIME_LIMIT.value is None else _TIME_LIMIT.value - result.wall_seconds
        if left is not None and left <= 0:
            reason = "time_limit"
        else:
            more = solver.run(
                _EPSILON.value, max_iterations=10 * _ITERATIONS.value, time_limit=left
            )
            reason = more.stop_reason
    rows = zip(
        curve.iterations,
        curve.traversals,
        curve.nash_conv,
        curve.max_infoset_regret,
        curve.seconds,
    )
    print(f"game: {game}  xi: {_XI.value}  dgf_weight: {weight}")
    print(
        cli.format_table(
            ["iteration", "traversals", "nash_conv", "max infoset regret", "seconds"], rows
        )
    )
    print(
        f"saddle-point gap in the perturbed game: {solver.perturbed_gap():.6g} at step "
        f"{solver.iteration} (stopped: {reason})"
    )
    cli.write_json(
        _OUTPUT_JSON.value,
        {
            "game": str(game),
            "xi": _XI.value,
            "dgf_weight": weight,
            **curve.as_dict(),
            "final_iteration": solver.iteration,
            "perturbed_gap": solver.perturbed_gap(),
            "stopped_early": reason in ("time_limit", "interrupted"),
            "stop_reason": reason,
        },
    )
    if _POLICY_OUT.value:
        policies.save_policy(solver.current_policy(), _POLICY_OUT.value, game)
    if _PLOT.value:
        _plot(_PLOT.value, f"{game}, EGT xi={_XI.value}", curve)
    if reason == "interrupted":
        sys.exit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    app.run(main)
