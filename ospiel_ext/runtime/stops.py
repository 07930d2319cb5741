"""Why a long computation ended: one vocabulary for every result of the pack.

Every long computation returns its result so far with a `stop_reason`, one of `StopReason`:
the reasons of a finished computation (`Finished`) and of one stopped before it finished
(`Early`); a command's JSON states it as `stop_reason` and `stopped_early`. `Stoppable` gives
a result the two questions a caller asks of it::

    >>> from ospiel_ext.algorithms import cfr, solver
    >>> result = solver.run(cfr.CFRPlusSolver("kuhn_poker"), iterations=10)
    >>> result.stop_reason, result.stopped_early, result.interrupted
    ('iterations', False, False)

The results that carry it: `solver.RunResult` (a run loop), `certificates.SearchResult` (the
certificate search), `sweeps.SweepResult` (a sweep of tasks), `combine.Resolution` (resolving
the subgames of a cut) and `gameshrink.shrink.Abstraction` (GameShrink's filter, complete or
so far).
"""

from __future__ import annotations

from typing import Literal, get_args

Finished = Literal[
    "iterations",  # a run loop did its iteration budget
    "target",  # a run loop's target predicate held at a checkpoint
    "epsilon",  # the certificate search reached its epsilon
    "no pseudoterminal node in support",  # the certificate search has nothing left to expand
    "solved",  # every subgame of a cut was resolved
    "completed",  # every task of a sweep ran
    "fixed_point",  # GameShrink reached its fixed point
    "optimal",  # an LP was solved to optimality
    "games",  # a match played every game it was asked to
    "end of input",  # a human player's input ended
]
"""The reasons of a computation that ended as it was asked to."""

Early = Literal[
    "time_limit",  # a time limit or deadline (`ospiel_ext.runtime.interrupts.deadline`) passed
    "max_memory",  # resident memory passed its cap (`ospiel_ext.runtime.budget.Budget`)
    "max_nodes",  # a node cap passed
    "interrupted",  # Ctrl-C or SIGTERM (`ospiel_ext.runtime.interrupts`)
]
"""The reasons of a computation stopped before it finished: its result is the result so far."""

StopReason = Finished | Early

EARLY: frozenset[str] = frozenset(get_args(Early))
REASONS: frozenset[str] = frozenset(get_args(Finished)) | EARLY


def stopped_early(reason: str) -> bool:
    """True when `reason` says the computation stopped before it finished."""
    if reason not in REASONS:
        raise ValueError(f"unknown stop reason {reason!r}; expected one of {sorted(REASONS)}")
    return reason in EARLY


class Stoppable:
    """A result with a `stop_reason` field (a `StopReason`) and the questions about it."""

    stop_reason: StopReason

    @property
    def stopped_early(self) -> bool:
        """True when a time limit, a memory or node cap or Ctrl-C ended it before it finished."""
        return stopped_early(self.stop_reason)

    @property
    def interrupted(self) -> bool:
        """True when Ctrl-C or SIGTERM ended it."""
        return self.stop_reason == "interrupted"
