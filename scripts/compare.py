"""Convergence of our CFR family against OpenSpiel's solvers on one game.

  python scripts/compare.py --game=leduc_poker --iterations=500 \
      --solvers=cfr_plus,openspiel_cpp_cfr_plus,openspiel_py_cfr_plus --plot=/tmp/leduc.png

Every solver runs the same number of iterations (or until --time_limit seconds of its own);
exploitability of the average policy is measured at ~20 log-spaced checkpoints with
ospiel_ext.evaluate (which agrees with OpenSpiel's to 1e-9), and evaluation time is not
counted as solver time.

JSON keys: game, iterations, solvers: {name: {iterations: [...], seconds: [...],
exploitability: [...], seconds_per_iteration}}.
"""

import time

import numpy as np
import pyspiel
from absl import app, flags, logging
from open_spiel.python.algorithms import cfr as os_cfr

from ospiel_ext import cli, evaluate, policies, sequence_form
from ospiel_ext.algorithms import cfr

_OURS = cfr.SOLVERS
_OPENSPIEL = {
    "openspiel_cpp_cfr": pyspiel.CFRSolver,
    "openspiel_cpp_cfr_plus": pyspiel.CFRPlusSolver,
    "openspiel_py_cfr": os_cfr.CFRSolver,
    "openspiel_py_cfr_plus": os_cfr.CFRPlusSolver,
}
SOLVERS = [*_OURS, *_OPENSPIEL]

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_SOLVERS = flags.DEFINE_list(
    "solvers",
    "cfr_plus,openspiel_cpp_cfr_plus,openspiel_py_cfr_plus",
    f"Comma-separated, from {SOLVERS}.",
)
_ITERATIONS = flags.DEFINE_integer("iterations", 200, "Iterations per solver.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", 120.0, "Seconds per solver.")
_PLOT = flags.DEFINE_string("plot", None, "Write a PNG plot here (needs matplotlib).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the curves here as JSON.")


def _average_behavioural(name, solver, layout):
    if name in _OURS:
        return solver.average_behavioural()
    if name.startswith("openspiel_cpp"):
        return layout.from_table(solver.tabular_average_policy().policy_table())
    return layout.from_tabular(solver.average_policy())


def _run(name, game, sf, checkpoints):
    layout = policies.layout(sf)
    solver = _OURS[name](sf) if name in _OURS else _OPENSPIEL[name](game)
    curve = {"iterations": [], "seconds": [], "exploitability": []}
    seconds, done = 0.0, 0
    with cli.StopFlag() as stop:
        for target in checkpoints:
            start = time.perf_counter()
            while done < target:
                solver.evaluate_and_update_policy()
                done += 1
            seconds += time.perf_counter() - start
            expl = evaluate.evaluate_profile(sf, _average_behavioural(name, solver, layout))
            curve["iterations"].append(done)
            curve["seconds"].append(seconds)
            curve["exploitability"].append(expl.exploitability)
            logging.info(
                "%s: iteration %d  exploitability %.3g  %.2fs",
                name,
                done,
                expl.exploitability,
                seconds,
            )
            if stop.stopped or seconds >= _TIME_LIMIT.value:
                break
    curve["seconds_per_iteration"] = seconds / max(done, 1)
    return curve


def _plot(path, game, curves):
    plt = cli.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name, c in curves.items():
        axes[0].loglog(c["iterations"], c["exploitability"], label=name)
        axes[1].loglog(np.maximum(c["seconds"], 1e-6), c["exploitability"], label=name)
    axes[0].set_xlabel("iterations")
    axes[1].set_xlabel("solver seconds")
    for ax in axes:
        ax.set_ylabel("exploitability")
        ax.grid(True, which="both", alpha=0.3)
    axes[0].legend()
    fig.suptitle(str(game))
    fig.tight_layout()
    fig.savefig(path, dpi=100)


def main(argv):
    cli.require(len(argv) == 1, f"unexpected arguments {argv[1:]}")
    cli.require(_ITERATIONS.value > 0, "--iterations must be positive")
    cli.require(_TIME_LIMIT.value > 0, "--time_limit must be positive")
    unknown = [s for s in _SOLVERS.value if s not in SOLVERS]
    cli.require(not unknown, f"unknown solvers {unknown}; choose from {SOLVERS}")
    game = cli.load_game(_GAME.value)
    try:
        sf = sequence_form.for_game(game)
    except ValueError as e:
        raise app.UsageError(str(e)) from None
    n = _ITERATIONS.value
    checkpoints = np.unique(np.round(np.logspace(0, np.log10(n), 20)).astype(int))
    curves = {name: _run(name, game, sf, checkpoints) for name in _SOLVERS.value}
    base = curves[_SOLVERS.value[0]]["seconds_per_iteration"]
    rows = [
        (
            name,
            c["iterations"][-1],
            c["seconds"][-1],
            1e3 * c["seconds_per_iteration"],
            c["seconds_per_iteration"] / base,
            c["exploitability"][-1],
        )
        for name, c in curves.items()
    ]
    print(f"game: {game}")
    print(
        cli.format_table(
            [
                "solver",
                "iterations",
                "seconds",
                "ms/iter",
                f"cost vs {_SOLVERS.value[0]}",
                "exploitability",
            ],
            rows,
        )
    )
    cli.write_json(_OUTPUT_JSON.value, {"game": str(game), "iterations": n, "solvers": curves})
    if _PLOT.value:
        _plot(_PLOT.value, game, curves)


if __name__ == "__main__":
    app.run(main)
