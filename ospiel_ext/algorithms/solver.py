"""The solver interface and the one run loop: budget, time limit, Ctrl-C, checkpoints.

Every iterative solver of ospiel_ext (the CFR family of `cfr`, `egt.EGTSolver`) satisfies the
`Solver` protocol, OpenSpiel's solver shape plus what array code needs; a solver on a game too
large for a sequence form and TabularPolicy (`poker.range_cfr` on Rhode Island Hold'em)
satisfies `SelfEvaluatingSolver`, evaluating its own average profile. Every long run goes
through `run`, which checks after EVERY iteration

1. the measurement checkpoints (the average profile's value, NashConv and, on request, maximum
   per-infoset regret; evaluation time is not solver time) and the `target` predicate there;
2. the iteration budget (none: the time limit or a Ctrl-C ends the run);
3. Ctrl-C or SIGTERM (`ospiel_ext.runtime.interrupts`): the first one makes the loop stop after the
   current iteration and return the result so far with stop reason 'interrupted' (a second one
   interrupts as usual); a run that starts after one arrived in the same computation (the next
   inner solve of a nested solver, under an enclosing `interrupts.handled()`) stops at once.
   Where an iteration or a measurement takes long (52-card hold'em: seconds), a
   `PausableSolver`'s iteration pauses, and a measurement that gives up
   (`interrupts.Interrupted`) is left out, a second after the signal (`interrupts.overdue`);
4. the time limit, on the wall-clock time of the loop (solver and evaluation together),

then returns a frozen `RunResult`. Meanwhile `progress.RunProgress` shows the iterations
against whichever budget ends first and the average profile's NashConv (a bar on a terminal,
else a log line a minute). The solver itself holds the strategies (its
`average_policy()` is the best result so far). Signal handlers are installed only while `run`
runs (or an enclosing region of `interrupts`), in the main thread, and the previous ones are
restored when it returns.

    >>> from ospiel_ext.algorithms import cfr, solver
    >>> s = cfr.CFRPlusSolver("kuhn_poker")
    >>> result = solver.run(s, iterations=100, checkpoints=[10, 100])
    >>> result.stop_reason, result.iterations, result.curve.iterations
    ('iterations', 100, (10, 100))
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
from collections.abc import Callable, Collection
from typing import Literal, Protocol, cast, runtime_checkable

import numpy as np
from absl import logging
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate, policies
from ospiel_ext.runtime import interrupts, progress, stops
from ospiel_ext.sequence_form import SequenceForm

StopReason = Literal["iterations", "time_limit", "interrupted", "target"]
"""The `stops.StopReason`s of a run loop."""


@runtime_checkable
class Solver(Protocol):
    """An iterative solver of a two-player zero-sum game compiled to a sequence form.

    OpenSpiel's shape (`evaluate_and_update_policy`, `current_policy`, `average_policy`, the
    policies being fresh TabularPolicy objects) plus the array views the run loop and the
    evaluation use. `average_behavioural` is the profile that converges (for EGT, the iterate).
    """

    @property
    def sequence_form(self) -> SequenceForm:
        """The compiled game the solver runs on."""
        ...

    @property
    def iteration(self) -> int:
        """Iterations performed so far."""
        ...

    @property
    def traversals(self) -> int:
        """Tree traversals (bottom-up treeplex passes) so far."""
        ...

    def evaluate_and_update_policy(self) -> None:
        """One iteration (OpenSpiel's solver method)."""
        ...

    def current_policy(self) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy of the current strategies (OpenSpiel's solver method)."""
        ...

    def average_policy(self) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy of the profile that converges (OpenSpiel's solver method)."""
        ...

    def average_behavioural(self) -> policies.Behavioural:
        """The profile that converges, one behavioural array per player."""
        ...

    def exploitability(self) -> float:
        """OpenSpiel exploitability of `average_behavioural()`."""
        ...


@runtime_checkable
class SelfEvaluatingSolver(Protocol):
    """An iterative solver that measures its own average profile (no SequenceForm needed).

    For games whose sequence form or TabularPolicy would not fit (`poker.range_cfr`).
    """

    @property
    def name(self) -> str:
        """The game's load_game string."""
        ...

    @property
    def iteration(self) -> int:
        """Iterations performed so far."""
        ...

    @property
    def traversals(self) -> int:
        """Tree traversals so far."""
        ...

    def evaluate_and_update_policy(self) -> None:
        """One iteration."""
        ...

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """Values and best-response values of the average profile."""
        ...

    def exploitability(self) -> float:
        """OpenSpiel exploitability of the average profile."""
        ...


AnySolver = Solver | SelfEvaluatingSolver
"""What `run` runs."""


@runtime_checkable
class PausableSolver(Protocol):
    """A solver whose iterations can pause part way and resume (`poker.range_cfr`).

    For iterations of many seconds: `run` pauses one a second after Ctrl-C or SIGTERM
    (`interrupts.overdue`) instead of finishing it.
    """

    @property
    def paused(self) -> bool:
        """An iteration stopped part way; the next call finishes it."""
        ...

    def iterate(self, stop: Callable[[], bool] | None = None) -> bool:
        """One iteration (the rest of a paused one); False if it paused when stop() held."""
        ...


def solver_name(solver: AnySolver) -> str:
    """The name of the game a solver runs on."""
    return solver.sequence_form.name if isinstance(solver, Solver) else solver.name


def evaluate_average(solver: AnySolver) -> evaluate.ProfileEvaluation:
    """Values and best-response values of a solver's average profile."""
    if isinstance(solver, Solver):
        return evaluate.evaluate_profile(solver.sequence_form, solver.average_behavioural())
    return solver.evaluate_average()


@dataclasses.dataclass(frozen=True, kw_only=True)
class ConvergenceCurve:
    """Quality of a solver's average profile at checkpoints, one entry per checkpoint.

    The measures of Kroer, Farina & Sandholm 2017, "Smoothing method for approximate
    extensive-form perfect equilibrium", Figures 2-3.

    Attributes:
      iterations: the solver's iteration count.
      traversals: the solver's tree traversals (bottom-up treeplex passes).
      seconds: solver seconds since the run started (evaluation excluded).
      value: player 0's expected utility of the profile.
      nash_conv: sum of both players' best-response gains (in the unperturbed game).
      max_infoset_regret: largest per-infoset regret (`evaluate.max_infoset_regret`); empty
        unless the run measured it.
    """

    iterations: tuple[int, ...] = ()
    traversals: tuple[int, ...] = ()
    seconds: tuple[float, ...] = ()
    value: tuple[float, ...] = ()
    nash_conv: tuple[float, ...] = ()
    max_infoset_regret: tuple[float, ...] = ()

    @property
    def exploitability(self) -> tuple[float, ...]:
        """OpenSpiel's exploitability, NashConv / 2, per checkpoint."""
        return tuple(n / 2 for n in self.nash_conv)

    def as_dict(self) -> dict[str, list[float]]:
        """The fields and exploitability as lists (for JSON)."""
        fields = {f.name: list(getattr(self, f.name)) for f in dataclasses.fields(self)}
        return {**fields, "exploitability": list(self.exploitability)}


@dataclasses.dataclass(frozen=True, kw_only=True)
class RunResult(stops.Stoppable):
    """What `run` did.

    Attributes:
      iterations: iterations performed by this run.
      seconds: solver seconds (evaluation excluded).
      wall_seconds: wall-clock seconds of the whole loop, evaluation included.
      stop_reason: 'iterations' (budget done), 'time_limit', 'interrupted' (Ctrl-C) or
        'target' (the target predicate held at a checkpoint).
      curve: the measurements at the checkpoints (and where the run stopped, unless that
        measurement was given up after Ctrl-C or the solver paused).
      paused: a `PausableSolver`'s iteration was paused part way by Ctrl-C (not counted in
        `iterations`): its average holds that iteration on part of the game, and is not
        measured into the curve.
    """

    iterations: int
    seconds: float
    wall_seconds: float
    stop_reason: StopReason
    curve: ConvergenceCurve
    paused: bool = False


class _CurveRecorder:
    """Measures the average profile of a solver; builds the frozen curve at the end."""

    def __init__(self, solver: AnySolver, infoset_regrets: bool):
        self._solver = solver
        self._infoset_regrets = infoset_regrets
        self._rows: list[tuple[float, ...]] = []
        self.last_iteration = -1
        self.last_nash_conv = float("nan")

    def measure(self, seconds: float) -> None:
        """Evaluates the solver's average profile now and keeps the row."""
        s = self._solver
        ev = evaluate_average(s)
        regret = (
            evaluate.max_infoset_regret(s.sequence_form, s.average_behavioural())
            if self._infoset_regrets and isinstance(s, Solver)
            else np.nan
        )
        self._rows.append(
            (s.iteration, s.traversals, seconds, ev.on_policy_values[0], ev.nash_conv, regret)
        )
        self.last_iteration, self.last_nash_conv = s.iteration, float(ev.nash_conv)
        logging.vlog(
            1,
            "iteration %d  traversals %d  value %.6g  nash_conv %.3g%s  %.2fs",
            s.iteration,
            s.traversals,
            ev.on_policy_values[0],
            ev.nash_conv,
            f"  max infoset regret {regret:.3g}" if self._infoset_regrets else "",
            seconds,
        )

    def measure_or_give_up(self, seconds: float) -> bool:
        """`measure`, or False if the evaluation gave up after Ctrl-C (`interrupts.overdue`)."""
        try:
            self.measure(seconds)
        except interrupts.Interrupted:
            return False
        return True

    def curve(self) -> ConvergenceCurve:
        """The frozen curve of the rows measured so far."""
        cols = list(zip(*self._rows)) if self._rows else [()] * 6
        it, trav, sec, value, nash_conv, regret = cols
        return ConvergenceCurve(
            iterations=tuple(int(i) for i in it),
            traversals=tuple(int(t) for t in trav),
            seconds=tuple(sec),
            value=tuple(value),
            nash_conv=tuple(nash_conv),
            max_infoset_regret=tuple(regret) if self._infoset_regrets else (),
        )


def _check_arguments(
    solver: AnySolver,
    iterations: int | None,
    time_limit: float | None,
    *,
    checkpoints: Collection[int],
    log_every: int | None,
    infoset_regrets: bool = False,
) -> None:
    if not isinstance(solver, Solver | SelfEvaluatingSolver):
        raise ValueError(f"{type(solver).__name__} does not satisfy the Solver protocol")
    name = solver_name(solver)
    if infoset_regrets and not isinstance(solver, Solver):
        raise ValueError(f"infoset regrets need a sequence form (game {name})")
    if iterations is not None and iterations < 0:
        raise ValueError(f"iterations must be non-negative, got {iterations} (game {name})")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time_limit must be positive, got {time_limit} (game {name})")
    if log_every is not None and log_every <= 0:
        raise ValueError(f"log_every must be positive, got {log_every} (game {name})")
    if isinstance(checkpoints, range):  # min() would walk a long range
        lowest = min(checkpoints[0], checkpoints[-1]) if len(checkpoints) else 0
    else:
        lowest = min(checkpoints, default=0)
    if lowest < 0:
        raise ValueError(f"checkpoints must be non-negative iteration counts (game {name})")


def run(
    solver: AnySolver,
    iterations: int | None,
    *,
    time_limit: float | None = None,
    checkpoints: Collection[int] = (),
    infoset_regrets: bool = False,
    target: Callable[[AnySolver], bool] | None = None,
    log_every: int | None = None,
    after_iteration: Callable[[AnySolver], None] | None = None,
) -> RunResult:
    """Runs `solver.evaluate_and_update_policy()` until a stop condition holds.

    The budget, Ctrl-C and the time limit are checked after every iteration (see the module
    docstring for the order).

    Args:
      solver: any `Solver` or `SelfEvaluatingSolver`.
      iterations: the most iterations this run performs (None: no iteration budget; the
        time limit, the target or Ctrl-C ends the run).
      time_limit: stop once this many wall-clock seconds have passed since the run started.
      checkpoints: numbers of iterations of this run (0: before the first) after which the
        average profile is measured into the curve; when any is given, the profile is also
        measured where the run stops, so the curve ends at the returned profile.
      infoset_regrets: also measure the maximum per-infoset regret at checkpoints (needs a
        `Solver` with a tree-backed sequence form).
      target: evaluated on the solver at every checkpoint; the run stops with reason 'target'
        when it returns True (e.g. `lambda s: s.perturbed_gap() <= 1e-3`).
      log_every: log the iteration, the exploitability and the solver seconds every this many
        iterations (absl logging; evaluation time excluded from solver seconds).
      after_iteration: called with the solver after every complete iteration (e.g. to keep
        its state now and then: `RangeCFRSolver.state`); its time counts as the run's wall
        time, not solver seconds.

    Returns:
      A `RunResult`; the solver holds the strategies.

    Raises:
      ValueError: the solver does not satisfy `Solver`, or an argument is out of range.
    """
    _check_arguments(
        solver,
        iterations,
        time_limit,
        checkpoints=checkpoints,
        log_every=log_every,
        infoset_regrets=infoset_regrets,
    )
    points = checkpoints if isinstance(checkpoints, range) else frozenset(checkpoints)
    recorder = _CurveRecorder(solver, infoset_regrets)
    start = time.perf_counter()
    seconds, done = 0.0, 0
    reason: StopReason | None = None
    name = solver_name(solver)
    shown = progress.RunProgress(
        name, iterations, time_limit, measure=lambda: float(evaluate_average(solver).nash_conv)
    )
    pausable = isinstance(solver, PausableSolver)
    with interrupts.graceful(), shown:
        while reason is None:
            if done in points:
                if not recorder.measure_or_give_up(seconds):
                    reason = interrupts.stop_reason() or "interrupted"
                    break
                shown.measured(recorder.last_nash_conv)
                if target is not None and target(solver):
                    reason = "target"
                    break
            reason = _budget_spent(done, iterations, time.perf_counter() - start, time_limit)
            if reason is None:
                tick = time.perf_counter()
                complete = _iterate(solver, pausable)
                seconds += time.perf_counter() - tick
                if not complete:
                    reason = interrupts.stop_reason() or "interrupted"
                    break
                done += 1
                shown.update(done)
                _after_iteration(solver, done, seconds, log_every=log_every, hook=after_iteration)
        paused = pausable and cast(PausableSolver, solver).paused
        if len(points) and recorder.last_iteration != solver.iteration and not paused:
            recorder.measure_or_give_up(seconds)
    if reason != "iterations":
        logging.vlog(1, "stopped (%s) after %d iterations, %.2fs", reason, done, seconds)
    return RunResult(
        iterations=done,
        seconds=seconds,
        wall_seconds=time.perf_counter() - start,
        stop_reason=reason,
        curve=recorder.curve(),
        paused=paused,
    )


def _after_iteration(
    solver: AnySolver,
    done: int,
    seconds: float,
    *,
    log_every: int | None,
    hook: Callable[[AnySolver], None] | None,
) -> None:
    """`run`'s work after iteration `done`: its log line every `log_every`, then the hook."""
    if log_every is not None and done % log_every == 0:
        with contextlib.suppress(interrupts.Interrupted):  # given up after Ctrl-C
            logging.info(
                "iteration %d  exploitability %.3g  %.2fs",
                solver.iteration,
                solver.exploitability(),
                seconds,
            )
    if hook is not None:
        hook(solver)


def _budget_spent(
    done: int, iterations: int | None, elapsed: float, time_limit: float | None
) -> StopReason | None:
    """Why the run stops before another iteration (budget, Ctrl-C, time limit), or None."""
    if iterations is not None and done >= iterations:
        return "iterations"
    if interrupts.requested():
        return interrupts.stop_reason()
    if time_limit is not None and elapsed >= time_limit:
        return "time_limit"
    return None


def _iterate(solver: AnySolver, pausable: bool) -> bool:
    """One iteration of the solver; False if it paused (a `PausableSolver`, after Ctrl-C)."""
    if pausable:
        return cast(PausableSolver, solver).iterate(stop=interrupts.overdue)
    solver.evaluate_and_update_policy()
    return True


def log_spaced(iterations: int, count: int) -> tuple[int, ...]:
    """About `count` distinct iteration numbers from 1 to `iterations`, evenly spaced in log."""
    if iterations < 1 or count < 1:
        return ()
    return tuple(int(i) for i in np.unique(np.geomspace(1, iterations, count).round().astype(int)))


OPEN_ENDED_ITERATIONS = 10**9
"""Where `checkpoints_for` ends the points of a run with no iteration budget."""


def checkpoints_for(iterations: int | None, count: int, density_of: int) -> tuple[int, ...]:
    """The checkpoints of a run: `count` log-spaced points up to its iteration budget.

    With no iteration budget (None: a time limit, a target or Ctrl-C ends the run), log-spaced
    points at the density of `count` points over `density_of` iterations, up to
    `OPEN_ENDED_ITERATIONS` (`run` also measures where the run stops).
    """
    if iterations is not None:
        return log_spaced(iterations, count)
    decades = math.log10(OPEN_ENDED_ITERATIONS) / math.log10(max(density_of, 10))
    return log_spaced(OPEN_ENDED_ITERATIONS, math.ceil(count * decades))
