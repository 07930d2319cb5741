r"""Convergence of our CFR family against OpenSpiel's solvers on one game.

  ospiel-ext compare --game=leduc_poker --iterations=500 \
      --solvers=cfr_plus,openspiel_cpp_cfr_plus,openspiel_py_cfr_plus --plot=/tmp/leduc.png

Every solver runs the same number of iterations, or, with --time_limit, until that many seconds
of its own (evaluation included; given alone, --time_limit sets each solver's run length: a
comparison at equal time), through the one run loop (`ospiel_ext.algorithms.solver.run`);
exploitability of the average policy is measured at ~20 log-spaced checkpoints with
ospiel_ext.evaluate (which agrees with OpenSpiel's to 1e-9), and evaluation time is not
counted as solver time. OpenSpiel's solvers run through a thin adapter to our Solver protocol
(their average policy read into arrays at checkpoints only).

Ctrl-C stops the whole comparison (the current solver after its current iteration, and no
further solver starts; during a solver's set-up, that solver does not run); the curves so far
are printed and written, and the script exits with code 130.

JSON keys: game, iterations (--iterations; null with --time_limit alone), interrupted,
solvers: {name: {iterations: [...], seconds: [...], exploitability: [...] (>= 0; rounding
errors above -1e-9 are written as 0), seconds_per_iteration, stop_reason}}.
"""

import textwrap
from typing import Any

import numpy as np
import pyspiel
from absl import flags
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import cfr as os_cfr

from ospiel_ext import evaluate, loading, policies
from ospiel_ext.algorithms import cfr
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import TreeSequenceForm

_OURS = cfr.SOLVERS
_OPENSPIEL = {
    "openspiel_cpp_cfr": pyspiel.CFRSolver,
    "openspiel_cpp_cfr_plus": pyspiel.CFRPlusSolver,
    "openspiel_py_cfr": os_cfr.CFRSolver,
    "openspiel_py_cfr_plus": os_cfr.CFRPlusSolver,
}
SOLVERS = [*_OURS, *_OPENSPIEL]
LEGEND = """\
  solver            ours, or OpenSpiel's: openspiel_cpp_* = pyspiel (C++), openspiel_py_* = Python
  iterations        iterations run (all the same unless --time_limit stopped a solver)
  seconds           solver time, evaluation excluded
  ms/iter           milliseconds per iteration
  cost vs {first:<8}  ms/iter relative to {first} (below 1: faster than {first})
  exploitability    of the average policy, in the game's utility (0: a Nash equilibrium)"""

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_SOLVERS = flags.DEFINE_list(
    "solvers",
    "cfr_plus,openspiel_cpp_cfr_plus,openspiel_py_cfr_plus",
    f"Comma-separated, from {SOLVERS}.",
)
_ITERATIONS = flags.DEFINE_integer(
    "iterations", 200, "Iterations per solver (with --time_limit alone: as many as it allows)."
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Seconds per solver (no limit by default).")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_PLOT = flags.DEFINE_string("plot", None, "Write a PNG plot here (needs matplotlib).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the curves here as JSON.")
_LEGEND = flags.DEFINE_bool("legend", True, "Explain the columns below the table.")


class _OpenSpielSolver:
    """An OpenSpiel CFR solver (C++ or Python) seen through our Solver protocol."""

    def __init__(self, name: str, game: pyspiel.Game, sf: TreeSequenceForm) -> None:
        self._solver = _OPENSPIEL[name](game)
        self._cpp = name.startswith("openspiel_cpp")
        self._sf = sf
        self._layout = policies.layout(sf)
        self._iteration = 0

    sequence_form = property(lambda self: self._sf)
    iteration = property(lambda self: self._iteration)
    traversals = property(lambda self: 2 * self._iteration)  # alternating updates

    def evaluate_and_update_policy(self) -> None:
        self._solver.evaluate_and_update_policy()
        self._iteration += 1

    def average_behavioural(self) -> policies.Behavioural:
        if self._cpp:
            return self._layout.from_table(self._solver.tabular_average_policy().policy_table())
        return self._layout.from_tabular(self._solver.average_policy())

    def current_behavioural(self) -> policies.Behavioural:
        if self._cpp:
            return self._layout.from_table(self._solver.tabular_current_policy().policy_table())
        return self._layout.from_tabular(self._solver.current_policy())

    def average_policy(self) -> policy_lib.TabularPolicy:
        return self._layout.to_tabular(self.average_behavioural())

    def current_policy(self) -> policy_lib.TabularPolicy:
        return self._layout.to_tabular(self.current_behavioural())

    def exploitability(self) -> float:
        return evaluate.evaluate_profile(self._sf, self.average_behavioural()).exploitability


def _make(name: str, game: pyspiel.Game, sf: TreeSequenceForm) -> solver_lib.Solver:
    return _OURS[name](sf) if name in _OURS else _OpenSpielSolver(name, game, sf)


def _run(
    solver: solver_lib.Solver, iterations: int | None, checkpoints: tuple[int, ...]
) -> dict[str, Any]:
    result = solver_lib.run(
        solver,
        iterations,
        time_limit=_TIME_LIMIT.value,
        checkpoints=checkpoints,
    )
    curve = result.curve
    return {
        "iterations": list(curve.iterations),
        "seconds": list(curve.seconds),
        "exploitability": cli_output.clip_rounding(list(curve.exploitability)),
        "seconds_per_iteration": result.seconds / max(result.iterations, 1),
        "stop_reason": result.stop_reason,
    }


def _plot(path: str, game: pyspiel.Game, curves: dict[str, dict[str, Any]]) -> None:
    plt = cli_output.pyplot()
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
    cli_output.save_figure(fig, path, dpi=100)


def _check_flags() -> None:
    """Refuses bad flag values (one-line usage errors) before any work."""
    for holder in (_ITERATIONS, _TIME_LIMIT, _MAX_NODES):
        cli_flags.positive(holder)
    names = _SOLVERS.value
    cli_flags.require(bool(names), f"--solvers is empty; choose from {SOLVERS}")
    unknown = [s for s in names if s not in SOLVERS]
    cli_flags.require(not unknown, f"unknown solvers {unknown}; choose from {SOLVERS}")
    cli_flags.require(len(set(names)) == len(names), f"--solvers names a solver twice: {names}")
    for output in (_OUTPUT_JSON, _PLOT):
        cli_flags.output_path(output)
    cli_flags.distinct_files([_OUTPUT_JSON, _PLOT])


def main(argv: list[str]) -> None:
    """Runs --solvers on --game side by side; prints the table, writes the JSON and the plot."""
    cli_flags.no_arguments(argv)
    _check_flags()
    names = _SOLVERS.value
    if _PLOT.value:
        cli_output.pyplot()  # matplotlib is there before the work
    game = cli.load_game(_GAME.value)
    theirs = [s for s in names if s in _OPENSPIEL]
    cli_flags.require(
        not (theirs and loading.keyed_by_history(game)),
        f"OpenSpiel's CFR solvers ({', '.join(theirs)}) need information_state_string, which "
        f"{game} does not provide; compare ours only (--solvers={','.join(_OURS)})",
    )
    sf = cli.compile_game(game, _MAX_NODES.value)
    n = cli_flags.iteration_budget(_ITERATIONS, _TIME_LIMIT)
    checkpoints = solver_lib.checkpoints_for(n, 20, _ITERATIONS.default)
    curves = {}
    with interrupts.graceful():  # Ctrl-C between two solvers' loops
        for name in names:
            solver = _make(name, game, sf)  # OpenSpiel's Python CFR walks the game here
            if interrupts.requested():
                break
            curves[name] = _run(solver, n, checkpoints)
            if curves[name]["stop_reason"] == "interrupted":
                break
    interrupted = interrupts.requested()
    if interrupted:
        print(f"interrupted; solvers run: {list(curves)}")
    first = curves.get(_SOLVERS.value[0], {})
    base = first.get("seconds_per_iteration") or 1.0
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
        format_table(
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
    if _LEGEND.value:
        print(LEGEND.format(first=_SOLVERS.value[0]))
    slower = [r[0] for r in rows if r[0] in _OPENSPIEL and r[4] < 1]
    if slower and _SOLVERS.value[0] in _OURS:
        sequences = max(tp.num_sequences for tp in sf.treeplexes)
        verb = "is" if len(slower) == 1 else "are"
        note = (
            f"note: {', '.join(slower)} {verb} faster here. At {sequences:,} sequences per "
            "player an iteration of ours is a few dozen numpy calls on tiny arrays, so "
            "per-call overhead, not the game, sets its cost; the arrays pay off as games grow."
        )
        print(textwrap.fill(note, width=96, subsequent_indent="      "))
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value,
            {"game": str(game), "iterations": n, "interrupted": interrupted, "solvers": curves},
        )
        if _PLOT.value and curves:
            _plot(_PLOT.value, game, curves)
    if _PLOT.value and curves:
        print(f"convergence plot: {_PLOT.value}")


if __name__ == "__main__":
    cli.main(main)
