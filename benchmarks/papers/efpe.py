"""Reproduce Figures 2 and 3 of Kroer, Farina & Sandholm, "Smoothing Method for Approximate
Extensive-Form Perfect Equilibrium", IJCAI 2017: perturbed EGT against CFR+.

  python benchmarks/papers/efpe.py --out_dir=docs/results

On Leduc 5 (limit_leduc_poker(num_ranks=5,max_raises=2)): EGT with xi in {0, 0.1, 0.05, 0.01,
0.005, 0.001} (overall DGF weight tuned once with xi = 0 on 20 iterations, as in Section 4),
CFR+ and CFR+ with behavioural lower bounds xi = 0.005 (basis matrices), all given the same
number of tree traversals. Writes efpe_<game>_fig2.png (sum of regrets vs traversals, log y),
efpe_<game>_fig3.png (maximum infoset regret vs traversals, log-log), efpe.json, and prints a
markdown table of the final values. --games adds the same comparison on other games.

Beside the paper-exact runs (Algorithms 1-2 as written), EGT with the aggressive step-size rule
of Kroer, Farina & Sandholm, "Solving Large Sequential Games with the Excessive Gap Technique"
(NeurIPS 2018; `egt.EGTSolver(stepping="aggressive")`) runs at each --aggressive_xis, with the
same traversal budget; efpe_<game>_stepping_fig{2,3}.png show both rules at those xi beside
CFR+ (the paper-exact figures stay as they were).
"""

import os
import sys

from absl import flags

from ospiel_ext import sequence_form
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

LEDUC_5 = "limit_leduc_poker(num_ranks=5,max_raises=2)"
XIS = (0.0, 0.1, 0.05, 0.01, 0.005, 0.001)

_GAMES = flags.DEFINE_multi_string(
    "games",
    [LEDUC_5, "leduc_poker", "sequential_goofspiel(num_cards=4)"],
    "A game to run; repeat the flag for more.",
)
_TRAVERSALS = flags.DEFINE_integer("traversals", 9000, "Tree traversals per algorithm.")
_CFR_XI = flags.DEFINE_float("cfr_xi", 0.005, "Lower bound of the perturbed CFR+ run.")
_AGGRESSIVE_XIS = flags.DEFINE_list(
    "aggressive_xis", ["0", "0.005", "0.01"], "Perturbations run with aggressive EGT too."
)
_OUT_DIR = flags.DEFINE_string("out_dir", "docs/results", "Where PNGs and JSON go.")
_PLOTS = flags.DEFINE_bool("plots", True, "Draw the PNGs (--noplots: the JSON and table only).")


def _curve(solver, iterations):
    """The curve at 25 log-spaced checkpoints (to where the run stopped), and whether Ctrl-C
    stopped it."""
    result = solver_lib.run(
        solver, iterations, checkpoints=solver_lib.log_spaced(iterations, 25), infoset_regrets=True
    )
    return result.curve, result.interrupted


def _run_game(game, aggressive_xis):
    """(tuned DGF weight, curves, interrupted): curves of the algorithms run before Ctrl-C."""
    sf = sequence_form.for_game(game)
    weight = egt.tune_dgf_weight(sf)
    runs = [(f"EGT xi={xi}", egt.EGTSolver(sf, xi=xi, dgf_weight=weight), 3) for xi in XIS]
    runs += [
        (name, cfr.CFRPlusSolver(sf, xi=xi), 2)
        for name, xi in (("CFR+", 0.0), (f"CFR+ xi={_CFR_XI.value}", _CFR_XI.value))
    ]
    runs += [
        (f"EGT aggressive xi={xi}", egt.EGTSolver(sf, xi=xi, stepping="aggressive"), 4)
        for xi in aggressive_xis
    ]
    curves = {}
    # one EGT step = 3 traversals (two smoothed best responses and a prox step), CFR+ 2, an
    # aggressive EGT step 4 (and 4 more for each rejected attempt, so it may overrun a little)
    for name, solver, per_iteration in runs:
        curves[name], interrupted = _curve(solver, _TRAVERSALS.value // per_iteration)
        if interrupted:
            return weight, curves, True
    return weight, curves, False


def _plot(path, title, curves, *, key, loglog):
    plt = cli_output.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    colours: dict[str, str] = {}  # one colour per run, dashed for the aggressive rule
    for name, c in curves.items():
        base = name.replace("aggressive ", "")
        colour = colours.setdefault(base, f"C{len(colours) % 10}")
        style = "--" if base != name else "-"
        plot = ax.loglog if loglog else ax.semilogy
        plot(c.traversals, getattr(c, key), style, color=colour, label=name)
    ax.set_xlabel("tree traversals")
    ax.set_ylabel({"nash_conv": "sum of regrets", "max_infoset_regret": "max infoset regret"}[key])
    ax.set_title(title)
    cli_output.save_plot(fig, ax, path)
    plt.close(fig)


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.require(
        _TRAVERSALS.value >= 6, f"--traversals must be at least 6, got {_TRAVERSALS.value}"
    )
    cli_flags.non_negative(_CFR_XI)
    aggressive_xis = cli_flags.float_list(_AGGRESSIVE_XIS)
    cli_flags.require(
        all(0 <= x < 0.5 for x in aggressive_xis),
        f"--aggressive_xis must lie in [0, 0.5), got {_AGGRESSIVE_XIS.value}",
    )
    games = [cli.load_game(name) for name in _GAMES.value]  # every game, before the work
    if _PLOTS.value:
        cli_flags.plots_dir(_OUT_DIR)
    else:
        cli_flags.output_dir(_OUT_DIR)
    results, interrupted = {}, False
    for name, game in zip(_GAMES.value, games):
        weight, curves, interrupted = _run_game(game, aggressive_xis)
        slug = name.split("(")[0]
        paper = {k: c for k, c in curves.items() if "aggressive" not in k}
        stepping = {
            k: c
            for k, c in curves.items()
            if k.startswith("CFR+") or any(k.endswith(f" xi={xi}") for xi in aggressive_xis)
        }
        for key, fig, loglog in (("nash_conv", 2, False), ("max_infoset_regret", 3, True)):
            if not _PLOTS.value:
                break
            for suffix, which, title in (
                ("", paper, f"Figure {fig}"),
                ("_stepping", stepping, f"Figure {fig}, theory and aggressive steps"),
            ):
                if which is stepping and not aggressive_xis:
                    continue
                _plot(
                    os.path.join(_OUT_DIR.value, f"efpe_{slug}{suffix}_fig{fig}.png"),
                    f"{game}\n({title})",
                    which,
                    key=key,
                    loglog=loglog,
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
    cli_output.write_json(os.path.join(_OUT_DIR.value, "efpe.json"), results)
    if interrupted:  # Ctrl-C: the plots, table and JSON so far are written
        sys.exit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    cli.main(main)
