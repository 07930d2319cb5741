"""GameShrink stopped early (a time limit, Ctrl-C) returns its filter so far with a stop reason
(`ospiel_ext.runtime.stops`), and that filter is what its reason says: a valid information filter,
coarser than the lossless fixed point (so not lossless) when the refinement was stopped, between
the lossless and the complete approximate filter when the joins were stopped."""

import os
import signal
import time

import numpy as np
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import lp
from ospiel_ext.algorithms.gameshrink import abstract_game as ag
from ospiel_ext.algorithms.gameshrink import filters, lifting
from ospiel_ext.algorithms.gameshrink import shrink as gs
from ospiel_ext.runtime import budget

RI_SMALL = "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"


class _StopAt(budget.Budget):
    """A budget that runs out at its `checks`-th check (counting from 0): a time limit
    passing at a chosen point of the computation, without timing."""

    def __init__(self, checks: int, reason: str = "time_limit"):
        super().__init__()
        self.checks, self.reason, self.seen = checks, reason, 0

    def exceeded(self):
        self.seen += 1
        if self.seen > self.checks:
            if self.reason == "interrupted":
                os.kill(os.getpid(), signal.SIGINT)  # a real Ctrl-C, taken by the filter's region
                time.sleep(0.01)  # the handler runs at the next bytecode
            else:
                return self.reason
        return super().exceeded()


def _refines(fine, coarse) -> bool:
    """Every class of `fine` lies inside one class of `coarse` (per round)."""
    return all(
        len(np.unique(np.column_stack([f, c]), axis=0)) == len(np.unique(f))
        for f, c in zip(fine, coarse, strict=True)
    )


def _hierarchical(st, classes) -> bool:
    """A view's class determines its parent view's class (perfect recall of Γ_f)."""
    return all(
        len(np.unique(np.column_stack([classes[r], classes[r - 1][st.view_parent[r]]]), axis=0))
        == len(np.unique(classes[r]))
        for r in range(1, st.num_rounds)
    )


def test_a_tiny_time_limit_returns_a_filter_that_says_it_is_not_lossless(shrunk, leduc):
    stopped = gs.gameshrink("leduc_poker", time_limit=1e-9)
    assert stopped.stop_reason == "time_limit"
    assert stopped.stopped_early and not stopped.interrupted
    assert stopped.passes == 0 and stopped.num_classes == [1, 1]  # before the precheck
    assert _refines(leduc.classes, stopped.classes)  # the fixed point refines it
    game = ag.AbstractGame.of(stopped)
    assert "stopped early: time_limit" in game.name
    # What it says is true: its Γ_f is a valid game, but its equilibrium lifted back is not
    # one of Leduc (OpenSpiel's exploitability).
    solution = lp.solve(game.sequence_form)
    lifted = lifting.LiftedPolicy(game, solution.behavioural)
    assert os_exploitability.exploitability(leduc.og.game, lifted.to_tabular()) > 0.1
    with pytest.raises(ValueError, match="stopped before it was complete"):
        lifting.save_lifted_policy(lifted, os.devnull)


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL])
def test_the_lossless_filter_so_far_is_coarser_than_the_fixed_point(shrunk, game):
    """Stopped at every check in turn: each filter so far is hierarchical, refines the one
    stopped a check before, is refined by the fixed point, and says it stopped; with checks
    enough it is the fixed point."""
    complete = shrunk.abstraction(game)
    st = complete.signal_tree
    previous = [np.zeros(n, dtype=np.int64) for n in st.num_views]
    checks = 0
    while True:
        result = filters.lossless_filter(st, _StopAt(checks))
        assert _hierarchical(st, result.classes)
        assert _refines(result.classes, previous) and _refines(complete.classes, result.classes)
        if result.stop_reason == "fixed_point":
            break
        assert result.stopped_early and result.passes <= complete.passes
        previous, checks = result.classes, checks + 1
    assert checks > complete.passes  # stopped before the precheck, in and between passes
    assert result.passes == complete.passes and not result.stopped_early
    for got, want in zip(result.classes, complete.classes, strict=True):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "game, threshold", [(RI_SMALL, 1.0), ("limit_leduc_poker(num_ranks=13)", 0.3)]
)
def test_the_approximate_filter_so_far_lies_between_lossless_and_complete(shrunk, game, threshold):
    lossless = shrunk.abstraction(game)
    st = lossless.signal_tree
    complete = filters.approximate_filter(st, list(lossless.classes), threshold)
    assert complete.stop_reason == "fixed_point"
    previous, checks = lossless.classes, 0
    while True:
        result = filters.approximate_filter(st, list(lossless.classes), threshold, _StopAt(checks))
        assert _hierarchical(st, result.classes)
        assert _refines(lossless.classes, result.classes)
        assert _refines(result.classes, complete.classes)
        assert _refines(previous, result.classes)  # a later stop has joined more
        if not result.stopped_early:
            break
        assert result.stop_reason == "time_limit"
        previous, checks = result.classes, 2 * checks + 1
    assert checks > 0  # stopped early at least once
    assert sum(len(np.unique(c)) for c in complete.classes) < sum(lossless.num_classes)


def test_ctrl_c_stops_the_filter_which_says_interrupted(shrunk, leduc):
    before = signal.getsignal(signal.SIGINT)
    result = filters.lossless_filter(leduc.signal_tree, _StopAt(1, "interrupted"))
    assert signal.getsignal(signal.SIGINT) is before  # the filter's region restored it
    assert result.stop_reason == "interrupted" and result.interrupted
    assert result.passes == 0  # stopped in the first pass: the precheck's filter stands
    for got, want in zip(result.classes, filters._precheck_classes(leduc.signal_tree)):
        np.testing.assert_array_equal(got, want)
    assert _refines(leduc.classes, result.classes)


def test_a_time_limit_must_be_positive():
    with pytest.raises(ValueError, match="time_limit must be positive"):
        gs.gameshrink("kuhn_poker", time_limit=0)


def test_the_identity_filter_of_a_stopped_filter_is_complete(leduc):
    stopped = gs.gameshrink("leduc_poker", time_limit=1e-9)
    identity = gs.identity_filter(stopped)
    assert identity.stop_reason == "fixed_point" and identity.num_classes == [6, 30]
