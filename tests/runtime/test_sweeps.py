"""Sweeps through executors: the same results in task order on the serial executor, local
processes and Dask; a failing task named in the error; stop() and Ctrl-C returning what
finished.

Task functions are module-level so that worker processes can import them; expected values come
from a direct serial computation with OpenSpiel's own exploitability.
"""

import concurrent.futures as cf
import doctest
import functools
import os
import signal
import sys
import threading
import time

import pyspiel
import pytest
from absl import flags
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, policies
from ospiel_ext.runtime import executors, interrupts, sweeps

try:  # the optional extra; `make test` installs it
    import dask.distributed as dd
except ImportError:
    dd = None

KUHN_SEEDS = tuple(range(6))
needs_dask = pytest.mark.skipif(
    dd is None, reason="dask.distributed not installed (pip install 'ospiel_ext[dask]')"
)

_CALLS: list[int] = []  # tasks run in this process (serial executor, Dask threads)


def kuhn_exploitability(seed: int) -> tuple[int, float]:
    """A task: ospiel_ext's exploitability of a random Kuhn policy."""
    return seed, evaluate.exploitability("kuhn_poker", policies.random_policy("kuhn_poker", seed))


def openspiel_exploitabilities() -> list[tuple[int, float]]:
    game = pyspiel.load_game("kuhn_poker")
    return [
        (s, os_exploitability.exploitability(game, policies.random_policy(game, s)))
        for s in KUHN_SEEDS
    ]


def sleep_then_return(task: tuple[int, float]) -> int:
    """Sleeps task[1] seconds and returns task[0] (later tasks finish first)."""
    index, seconds = task
    time.sleep(seconds)
    _CALLS.append(index)
    return index


def fail_on_three(index: int) -> int:
    _CALLS.append(index)
    if index == 3:
        raise ValueError("three is not allowed\nsecond line")
    return index


def interrupt_on_two(index: int) -> int:
    """Sends this process SIGINT (a Ctrl-C) during task 2."""
    _CALLS.append(index)
    if index == 2:
        os.kill(os.getpid(), signal.SIGINT)
    return index


@pytest.fixture(autouse=True)
def clear_calls():
    _CALLS.clear()


@pytest.fixture(scope="module")
def process_pool():
    with executors.executor(max_workers=2) as pool:
        yield pool


def check_kuhn_sweep(ex):
    sweep = sweeps.map_tasks(kuhn_exploitability, KUHN_SEEDS, ex)
    assert not sweep.interrupted
    assert sweep.total == sweep.completed == len(KUHN_SEEDS)
    assert sweep.task_indices == tuple(range(len(KUHN_SEEDS)))
    expected = openspiel_exploitabilities()
    assert [seed for seed, _ in sweep.results] == list(KUHN_SEEDS)
    for (_, got), (_, want) in zip(sweep.results, expected):
        assert got == pytest.approx(want, abs=1e-9)
    assert len({round(v, 6) for _, v in expected}) == len(KUHN_SEEDS)  # distinct policies


def test_serial_matches_openspiel():
    with executors.executor(executors.SERIAL) as ex:
        assert isinstance(ex, executors.SerialExecutor)
        check_kuhn_sweep(ex)


def test_process_pool_matches_openspiel(process_pool):
    check_kuhn_sweep(process_pool)


def test_process_pool_gathers_in_task_order(process_pool):
    # Later tasks sleep less, so they finish first on two workers.
    tasks = [(i, 0.05 * (5 - i)) for i in range(6)]
    sweep = sweeps.map_tasks(sleep_then_return, tasks, process_pool)
    assert sweep.results == tuple(range(6))


def test_task_error_names_the_task():
    with executors.executor(executors.SERIAL) as ex:
        with pytest.raises(sweeps.TaskError) as info:
            sweeps.map_tasks(fail_on_three, range(6), ex, describe=lambda i: f"index={i}")
    message = str(info.value)
    assert "\n" not in message
    assert "task 4 of 6 (index=3)" in message and "ValueError: three is not allowed" in message
    assert info.value.index == 3 and isinstance(info.value.__cause__, ValueError)
    assert _CALLS == [0, 1, 2, 3]  # the tasks after the failure never ran


def test_task_error_from_a_process(process_pool):
    with pytest.raises(sweeps.TaskError, match=r"task 4 of 5 \(3\) failed: ValueError"):
        sweeps.map_tasks(fail_on_three, range(5), process_pool)


def test_stop_after_k_tasks_returns_them():
    with executors.executor(executors.SERIAL) as ex:
        sweep = sweeps.map_tasks(kuhn_exploitability, KUHN_SEEDS, ex, stop=lambda: True)
        assert sweep.interrupted and sweep.completed == 0
        stop_after_three = lambda: len(_CALLS) >= 3  # noqa: E731
        tasks = [(i, 0.0) for i in range(6)]
        sweep = sweeps.map_tasks(sleep_then_return, tasks, ex, stop=stop_after_three)
    assert sweep.interrupted
    assert sweep.results == (0, 1, 2) and sweep.task_indices == (0, 1, 2)
    assert sweep.total == 6 and _CALLS == [0, 1, 2]


def test_stop_cancels_process_tasks(process_pool):
    start = time.perf_counter()
    deadline = lambda: time.perf_counter() - start > 0.3  # noqa: E731
    tasks = [(i, 0.2) for i in range(30)]  # 3 s of work on two workers
    sweep = sweeps.map_tasks(sleep_then_return, tasks, process_pool, stop=deadline)
    assert sweep.interrupted and 0 < sweep.completed < 30
    assert sweep.results == sweep.task_indices  # each result belongs to its task


def test_ctrl_c_stops_after_the_running_task():
    with executors.executor(executors.SERIAL) as ex:
        sweep = sweeps.map_tasks(interrupt_on_two, range(6), ex)
    assert sweep.interrupted and sweep.results == (0, 1, 2) and _CALLS == [0, 1, 2]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # handler restored


_STOPPED = threading.Event()


def fail_once_stopped(index: int) -> int:
    """Task 0 returns; the others raise when the sweep stops (a worker the stop ended)."""
    if index == 0:
        return 0
    _STOPPED.wait(10)
    raise RuntimeError("a worker ended by the stop")


def test_a_task_ended_by_the_stop_is_dropped_not_raised():
    """A stop reaches workers anywhere (even importing, on a loaded machine) and a worker it
    ends breaks its task; that is not a task error: the results so far stand (it was an error
    exit where an interrupted run must exit 130)."""
    _STOPPED.clear()
    start = time.monotonic()

    def stop():
        if time.monotonic() - start > 0.3:
            _STOPPED.set()
            return True
        return False

    with cf.ThreadPoolExecutor(2) as ex:
        sweep = sweeps.map_tasks(fail_once_stopped, range(3), ex, stop=stop, max_in_flight=3)
    assert sweep.interrupted and sweep.results == (0,) and sweep.task_indices == (0,)


def test_partial_of_a_module_level_function(process_pool):
    fn = functools.partial(fail_on_three)  # picklable; has no __name__
    assert sweeps.map_tasks(fn, [0, 1, 2], process_pool).results == (0, 1, 2)


def test_unpicklable_function_is_refused():
    with (
        executors.executor(executors.SERIAL) as ex,
        pytest.raises(ValueError, match="module-level"),
    ):
        sweeps.map_tasks(lambda t: t, [1, 2], ex)


@pytest.mark.parametrize("scheduler, workers", [("", None), (None, 0), (executors.SERIAL, -1)])
def test_bad_executor_arguments(scheduler, workers):
    with pytest.raises(ValueError), executors.executor(scheduler, workers):
        pass


def test_missing_dask_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[dask\]'"):
        with executors.executor(executors.LOCAL_DASK):
            pass


def test_flags():
    fv = flags.FlagValues()
    scheduler = executors.define_scheduler_flag(fv)
    workers = executors.define_workers_flag(fv)
    fv(["prog", "--scheduler=tcp://10.0.0.1:8786", "--workers=3"])
    assert scheduler.value == "tcp://10.0.0.1:8786" and workers.value == 3
    assert "host:port" in fv["scheduler"].help
    fv.unparse_flags()
    fv(["prog"])
    assert scheduler.value is None and workers.value is None


def test_docstring_examples():
    assert doctest.testmod(sweeps).failed == 0


@needs_dask
def test_local_dask_matches_openspiel():
    with executors.executor(executors.LOCAL_DASK, max_workers=2) as ex:
        check_kuhn_sweep(ex)
        tasks = [(i, 0.05 * (5 - i)) for i in range(6)]
        assert sweeps.map_tasks(sleep_then_return, tasks, ex).results == tuple(range(6))
        with pytest.raises(sweeps.TaskError, match=r"task 4 of 5 \(3\) failed: ValueError"):
            sweeps.map_tasks(fail_on_three, range(5), ex)


@needs_dask
def test_dask_scheduler_address():
    # The address path (a user's cluster), on a cluster this test starts in-process.
    with dd.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
    ) as cluster:
        with executors.executor(cluster.scheduler_address) as ex:
            _CALLS.clear()
            stop = lambda: len(_CALLS) >= 2  # noqa: E731
            tasks = [(i, 0.05) for i in range(20)]
            sweep = sweeps.map_tasks(sleep_then_return, tasks, ex, stop=stop)
    assert sweep.interrupted and 2 <= sweep.completed < 20
    assert sweep.results == sweep.task_indices


def test_workers_are_capped_at_the_usable_cores(caplog):
    """--workers=1000 used to start a process per task (1.9 GB for 12 of them)."""
    cores = executors.usable_cores()
    assert executors._capped(None, "worker processes") == cores
    assert executors._capped(1, "worker processes") == 1
    with caplog.at_level("WARNING"):
        assert executors._capped(1000, "worker processes") == cores
    assert f"1000 worker processes asked for, {cores} used" in caplog.text


class _CountingExecutor(cf.ThreadPoolExecutor):
    """One worker thread; records the most tasks submitted and not yet done."""

    def __init__(self):
        super().__init__(max_workers=1)
        self.outstanding = self.most = 0
        self._lock = threading.Lock()

    def submit(self, fn, /, *args, **kwargs):
        with self._lock:
            self.outstanding += 1
            self.most = max(self.most, self.outstanding)
        future = super().submit(fn, *args, **kwargs)
        future.add_done_callback(self._done)
        return future

    def _done(self, future):
        with self._lock:
            self.outstanding -= 1


def test_a_sweep_holds_few_tasks_at_once():
    with _CountingExecutor() as ex:
        sweep = sweeps.map_tasks(
            sleep_then_return, [(i, 0.002) for i in range(40)], ex, max_in_flight=3
        )
    assert sweep.results == tuple(range(40)) and ex.most <= 3


def requested_after(seconds: float) -> bool:
    """Sleeps (interruptibly), then says whether a stop was asked of this task."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline and not interrupts.requested():
        time.sleep(0.01)
    return interrupts.requested()


def requested_after_starting(task: tuple[str, float]) -> bool:
    """`requested_after`, after leaving a file in the folder `task[0]` to say it runs."""
    folder, seconds = task
    with open(os.path.join(folder, str(os.getpid())), "w", encoding="utf-8"):
        pass
    return requested_after(seconds)


def test_a_reused_pool_forgets_the_stop_of_an_earlier_sweep(tmp_path):
    """A stopped sweep passes the stop on to its workers; the next sweep on the same pool
    must not find its tasks stopped before they begin. The first sweep is stopped once both
    workers run one of its tasks (a stop while a worker still starts is another case)."""
    both_running = lambda: len(os.listdir(tmp_path)) == 2  # noqa: E731
    with executors.executor(max_workers=2) as pool:
        first = sweeps.map_tasks(
            requested_after_starting, [(str(tmp_path), 30.0)] * 4, pool, stop=both_running
        )
        # the running tasks were told, and so was a queued one the pool could not cancel
        assert first.interrupted and len(first.results) >= 2 and all(first.results)
        second = sweeps.map_tasks(requested_after, [0.05] * 4, pool)
    assert second.results == (False,) * 4


def test_parallelism_is_the_tasks_an_executor_runs_at_once():
    cores = executors.usable_cores()
    assert executors.parallelism() == cores
    assert executors.parallelism(None, 1) == 1
    assert executors.parallelism(None, cores + 5) == cores  # capped like the pool itself
    assert executors.parallelism("local") == 1
    assert executors.parallelism("tcp://scheduler:8786") is None  # the cluster decides
