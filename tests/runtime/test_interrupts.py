"""One Ctrl-C / SIGTERM mechanism (ospiel_ext.runtime.interrupts) and the budgets built on it."""

import os
import signal
import time

import pytest

from ospiel_ext.runtime import budget, interrupts


def _signal(signum=signal.SIGINT):
    os.kill(os.getpid(), signum)
    time.sleep(0.01)  # the handler runs at the next bytecode


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_graceful_region_takes_the_first_signal_as_a_flag(signum):
    previous = {s: signal.getsignal(s) for s in interrupts.SIGNALS}
    with interrupts.graceful():
        assert not interrupts.requested()
        _signal(signum)
        assert interrupts.requested() and interrupts.stop_reason() == "interrupted"
        with pytest.raises(interrupts.Interrupted):
            interrupts.check()
    assert not interrupts.requested()  # cleared with the outermost region
    assert {s: signal.getsignal(s) for s in interrupts.SIGNALS} == previous


def test_a_second_signal_raises_at_once():
    with pytest.raises(KeyboardInterrupt), interrupts.graceful():
        _signal()
        _signal(signal.SIGTERM)
        pytest.fail("the second signal did not raise")


def test_outside_a_graceful_phase_the_first_signal_raises():
    with interrupts.handled():
        with pytest.raises(KeyboardInterrupt):
            _signal()
        assert interrupts.requested()  # later graceful phases of the computation stop
        with interrupts.graceful():
            assert interrupts.requested()


def test_immediate_raises_interrupted_inside_a_graceful_region():
    with interrupts.graceful():
        with pytest.raises(interrupts.Interrupted), interrupts.immediate():
            _signal()
        assert interrupts.requested()


def test_a_deferred_region_raises_a_second_signal_when_it_ends():
    with pytest.raises(KeyboardInterrupt), interrupts.deferred():
        _signal()
        _signal()
        reached = True  # no exception inside: C++ code may be calling back into Python
    assert reached


def test_an_ignored_signal_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with interrupts.graceful():
            assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) == interrupts._handle
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_deadline_stops_graceful_phases_with_reason_time_limit():
    with interrupts.deadline(0.05):
        with interrupts.graceful():
            while not interrupts.requested():
                time.sleep(0.01)
        assert interrupts.stop_reason() == "time_limit"
    assert interrupts.stop_reason() is None


def test_budget_reports_time_memory_and_ctrl_c():
    assert budget.Budget().exceeded() is None
    spent = budget.Budget(time_limit=0.01)
    time.sleep(0.02)
    assert spent.exceeded() == "time_limit" and spent.remaining() == pytest.approx(1e-3)
    assert budget.resident_bytes() > 0
    assert budget.Budget(max_memory=1).exceeded() == "max_memory"
    with interrupts.graceful():
        _signal()
        assert budget.Budget(time_limit=100).exceeded() == "interrupted"
    with pytest.raises(ValueError, match="time_limit must be positive"):
        budget.Budget(time_limit=0)


def test_a_worker_keeps_a_stop_that_came_after_its_sweep_began(monkeypatch):
    """A stop forwarded to a pool worker before its first task of the sweep used to be cleared
    when that task began (it was taken for an earlier sweep's stop), so the task ran on."""
    monkeypatch.setattr(interrupts, "_state", interrupts._State())
    interrupts._state.worker = True
    interrupts.begin_task("earlier", started=time.time())
    before = time.time()
    interrupts._handle(signal.SIGINT, None)  # forwarded by the parent: the worker keeps running
    assert interrupts.requested()
    interrupts.begin_task("stopped", started=before)  # its first task of the stopped sweep
    assert interrupts.requested()
    interrupts.begin_task("stopped", started=before)  # its next task of the same sweep
    assert interrupts.requested()
    interrupts.begin_task("next", started=time.time() + 1.0)  # a sweep that began afterwards
    assert not interrupts.requested()
