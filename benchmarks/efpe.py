"""Reproduce Figures 2 and 3 of Kroer, Farina & Sandholm, "Smoothing Method for Approximate
Extensive-Form Perfect Equilibrium", IJCAI 2017: perturbed EGT against CFR+.

  python benchmarks/efpe.py --out_dir=docs/results

On Leduc 5 (limit_leduc_poker(num_ranks=5,max_raises=2)): EGT with xi in {0, 0.1, 0.05, 0.01,
0.005, 0.001} (overall DGF weight tuned once with xi = 0 on 20 iterations, as in Section 4),
CFR+ and CFR+ with behavioural lower bounds xi = 0.005 (basis matrices), all given the same
number of tree traversals. Writes efpe_<game>_fig2.png (sum of regrets vs traversals, log y),
efpe_<game>_fig3.png (maximum infoset regret vs traversals, log-log), efpe.json, and prints a
markdown table of the final values. --games adds the same comparison on other games.
"""

import json
import os
import sys

from absl import flags

from ospiel_ext import cli, sequence_form
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.algorithms import solver as solver_lib

LEDUC_5 = "limit_leduc_poker(num_ranks=5,max_raises=2)"
XIS = (0.0, 0.1, 0.05, 0.01, 0.005, 0.001)

_GAMES = flags.DEFINE_multi_string(
    "games",
    [LEDUC_5, "leduc_poker", "sequential_goofspiel(num_cards=4)"],
    "A game to run; repeat the flag for more.",
)
_TRAVERSALS = flags.DEFINE_integer("traversals", 9000, "Tree traversals per algorithm.")
_CFR_XI = flags.DEFINE_float("cfr_xi", 0.005, "Lower bound of the perturbed CFR+ run.")
_OUT_DIR = flags.DEFINE_string("out_dir", "docs/results", "Where PNGs and JSON go.")


def _curve(solver, iterations):
    """The curve at 25 log-spaced checkpoints (to where the run stopped), and whether Ctrl-C
    stopped it."""
    result = solver_lib.run(
        solver, iterations, checkpoints=solver_lib.log_spaced(iterations, 25), infoset_regrets=True
    )
    return result.curve, result.interrupted


def _run_game(game):
    """(tuned DGF weight, curves, interrupted): curves of the algorithms run before Ctrl-C."""
    sf = sequence_form.for_game(game)
    weight = egt.tune_dgf_weight(sf)
    runs = [(f"EGT xi={xi}", egt.EGTSolver(sf, xi=xi, dgf_weight=weight), 3) for xi in XIS]
    runs += [
        (name, cfr.CFRPlusSolver(sf, xi=xi), 2)
        for name, xi in (("CFR+", 0.0), (f"CFR+ xi={_CFR_XI.value}", _CFR_XI.value))
    ]
    curves = {}
    # one EGT step = 3 traversals (two smoothed best responses and a prox step), CFR+ 2
    for name, solver, per_iteration in runs:
        curves[name], interrupted = _curve(solver, _TRAVERSALS.value // per_iteration)
        if interrupted:
            return weight, curves, True
    return weight, curves, False


def _plot(path, title, curves, key, loglog):
    plt = cli.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for name, c in curves.items():
        (ax.loglog if loglog else ax.semilogy)(c.traversals, getattr(c, key), label=name)
    ax.set_xlabel("tree traversals")
    ax.set_ylabel({"nash_conv": "sum of regrets", "max_infoset_regret": "max infoset regret"}[key])
    ax.set_title(title)
    cli.save_plot(fig, ax, path)
    plt.close(fig)


def main(argv):
    cli.no_arguments(argv)
    cli.require(_TRAVERSALS.value >= 6, f"--traversals must be at least 6, got {_TRAVERSALS.value}")
    cli.non_negative(_CFR_XI)
    games = [cli.load_game(name) for name in _GAMES.value]  # every game, before the work
    cli.output_dir(_OUT_DIR)
    cli.pyplot()  # matplotlib is there before the work
    results, interrupted = {}, False
    for name, game in zip(_GAMES.value, games):
        weight, curves, interrupted = _run_game(game)
        slug = name.split("(")[0]
        for key, fig, loglog in (("nash_conv", 2, False), ("max_infoset_regret", 3, True)):
            _plot(
                os.path.join(_OUT_DIR.value, f"efpe_{slug}_fig{fig}.png"),
                f"{game} (Figure {fig})",
                curves,
                key,
                loglog,
            )
        results[str(game)] = {"dgf_weight": weight, **{k: c.as_dict() for k, c in curves.items()}}
        print(f"\n{game}  (tuned DGF weight {weight})\n")
        print("| algorithm | traversals | sum of regrets | max infoset regret | seconds |")
        print("|---|---|---|---|---|")
        for algo, c in curves.items():
            print(
                f"| {algo} | {c.traversals[-1]} | {c.nash_conv[-1]:.3g} | "
                f"{c.max_infoset_regret[-1]:.3g} | {c.seconds[-1]:.2f} |"
            )
        if interrupted:
            break
    with open(os.path.join(_OUT_DIR.value, "efpe.json"), "w", encoding="utf-8") as f:
        json.dump(results, f)
    if interrupted:  # Ctrl-C: the plots, table and JSON so far are written
        sys.exit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    cli.main(main)
