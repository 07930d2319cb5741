"""The Solver protocol and the run loop: budget, time limit, Ctrl-C, checkpoints, target."""

import os
import signal

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.algorithms import solver as solver_lib


class _FakeTime:
    """Stands in for the `time` module inside solver.py: time advances only when told."""

    def __init__(self):
        self.now = 0.0

    def perf_counter(self):
        return self.now


class _Wrapped:
    """A CFR+ solver that calls `hook(iteration)` after each of its iterations."""

    def __init__(self, hook, game="kuhn_poker"):
        self.inner = cfr.CFRPlusSolver(game)
        self.hook = hook

    sequence_form = property(lambda self: self.inner.sequence_form)
    iteration = property(lambda self: self.inner.iteration)
    traversals = property(lambda self: self.inner.traversals)

    def evaluate_and_update_policy(self):
        self.inner.evaluate_and_update_policy()
        self.hook(self.inner.iteration)

    def current_policy(self):
        return self.inner.current_policy()

    def average_policy(self):
        return self.inner.average_policy()

    def average_behavioural(self):
        return self.inner.average_behavioural()

    def exploitability(self):
        return self.inner.exploitability()


def test_our_solvers_satisfy_the_protocol_and_openspiels_do_not():
    for s in (cfr.CFRPlusSolver("kuhn_poker"), egt.EGTSolver("kuhn_poker"), _Wrapped(print)):
        assert isinstance(s, solver_lib.Solver)
    theirs = os_cfr.CFRPlusSolver(pyspiel.load_game("kuhn_poker"))
    assert not isinstance(theirs, solver_lib.Solver)
    with pytest.raises(ValueError, match="does not satisfy the Solver protocol"):
        solver_lib.run(theirs, 10)


@pytest.mark.parametrize("already", [0, 5])
def test_budget_stops_after_the_right_number_of_iterations(already):
    solver = cfr.CFRPlusSolver("kuhn_poker")
    for _ in range(already):
        solver.evaluate_and_update_policy()
    result = solver_lib.run(solver, 37)
    assert result.stop_reason == "iterations" and not result.stopped_early
    assert result.iterations == 37 and solver.iteration == already + 37
    assert result.curve == solver_lib.ConvergenceCurve()  # no checkpoints, no curve
    assert result.seconds <= result.wall_seconds


def test_zero_iterations_do_nothing():
    solver = cfr.CFRSolver("kuhn_poker")
    result = solver_lib.run(solver, 0, checkpoints=[0])
    assert (result.stop_reason, result.iterations, solver.iteration) == ("iterations", 0, 0)
    assert result.curve.iterations == (0,)


def test_the_hook_sees_every_complete_iteration():
    seen = []
    solver = cfr.CFRPlusSolver(pyspiel.load_game("kuhn_poker"))
    result = solver_lib.run(solver, 5, after_iteration=lambda s: seen.append(s.iteration))
    assert result.iterations == 5 and seen == [1, 2, 3, 4, 5]


def test_time_limit_is_checked_every_iteration(monkeypatch):
    clock = _FakeTime()
    monkeypatch.setattr(solver_lib, "time", clock)

    def tick(_):
        clock.now += 1.0  # every iteration takes one (fake) second

    solver = _Wrapped(tick)
    result = solver_lib.run(solver, 1000, time_limit=4.5, checkpoints=[100])
    assert result.stop_reason == "time_limit" and result.stopped_early
    # stopped after the 5th iteration, not at the next checkpoint (100)
    assert result.iterations == solver.iteration == 5
    assert result.seconds == result.wall_seconds == 5.0
    assert result.curve.iterations == (5,)  # the curve ends where the run stopped


def test_interrupt_returns_the_result_so_far_and_restores_the_handler():
    calls = []

    def previous(signum, frame):
        calls.append(signum)

    def interrupt_at_3(iteration):
        if iteration == 3:
            os.kill(os.getpid(), signal.SIGINT)

    original = signal.signal(signal.SIGINT, previous)
    try:
        solver = _Wrapped(interrupt_at_3)
        result = solver_lib.run(solver, 100, checkpoints=[1, 50])
        assert signal.getsignal(signal.SIGINT) is previous
    finally:
        signal.signal(signal.SIGINT, original)
    assert result.stop_reason == "interrupted" and result.interrupted
    assert result.iterations == solver.iteration == 3
    assert result.curve.iterations == (1, 3)
    assert calls == []  # the loop took the Ctrl-C, not the previous handler
    # the returned profile is the solver's average after 3 iterations
    reference = cfr.CFRPlusSolver("kuhn_poker")
    for _ in range(3):
        reference.evaluate_and_update_policy()
    np.testing.assert_allclose(
        solver.average_policy().action_probability_array,
        reference.average_policy().action_probability_array,
    )


def test_handler_is_restored_after_a_complete_run():
    before = signal.getsignal(signal.SIGINT)
    solver_lib.run(cfr.CFRSolver("kuhn_poker"), 3)
    assert signal.getsignal(signal.SIGINT) is before


def test_target_is_checked_at_checkpoints():
    solver = cfr.CFRPlusSolver("kuhn_poker")
    result = solver_lib.run(solver, 100, checkpoints=[5, 10, 15], target=lambda s: s.iteration >= 7)
    assert result.stop_reason == "target" and result.iterations == 10
    assert result.curve.iterations == (5, 10)


@pytest.mark.parametrize(
    "make",
    [lambda: cfr.DCFRSolver("kuhn_poker"), lambda: egt.EGTSolver("kuhn_poker", dgf_weight=0.05)],
)
def test_curve_agrees_with_openspiel_on_the_same_profiles(make):
    solver, twin = make(), make()
    checkpoints = (1, 4, 20)
    result = solver_lib.run(solver, 20, checkpoints=checkpoints, infoset_regrets=True)
    curve = result.curve
    assert curve.iterations == checkpoints
    assert len(curve.max_infoset_regret) == len(checkpoints)
    game = pyspiel.load_game("kuhn_poker")
    for k, target in enumerate(checkpoints):
        while twin.iteration < target:
            twin.evaluate_and_update_policy()
        pol = twin.average_policy()
        assert curve.traversals[k] == twin.traversals
        assert curve.nash_conv[k] == pytest.approx(os_exploitability.nash_conv(game, pol), abs=1e-9)
        assert curve.exploitability[k] == pytest.approx(
            os_exploitability.exploitability(game, pol), abs=1e-9
        )
        value = expected_game_score.policy_value(game.new_initial_state(), [pol, pol])[0]
        assert curve.value[k] == pytest.approx(value, abs=1e-9)
        sf = twin.sequence_form
        assert curve.max_infoset_regret[k] == pytest.approx(
            evaluate.max_infoset_regret(sf, twin.average_behavioural()), abs=1e-12
        )
    assert list(curve.seconds) == sorted(curve.seconds)
    assert curve.as_dict()["iterations"] == list(checkpoints)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"iterations": -1}, "iterations must be non-negative"),
        ({"iterations": 5, "time_limit": 0.0}, "time_limit must be positive"),
        ({"iterations": 5, "log_every": 0}, "log_every must be positive"),
        ({"iterations": 5, "checkpoints": [-1]}, "checkpoints must be non-negative"),
    ],
)
def test_bad_arguments_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        solver_lib.run(cfr.CFRSolver("kuhn_poker"), **kwargs)


def test_log_spaced():
    assert solver_lib.log_spaced(1000, 4) == (1, 10, 100, 1000)
    assert solver_lib.log_spaced(3, 20) == (1, 2, 3)
    assert solver_lib.log_spaced(0, 5) == ()
