"""Sweeps of independent runs through a `concurrent.futures.Executor`.

A sweep (every blueprint x subgame x technique of a subgame-solving reproduction, every pair
of a head-to-head match) is a list of tasks and one top-level function applied to each. The
function runs wherever the executor puts it: local processes, this process, or a Dask cluster
(`executors.executor`).

`map_tasks(fn, tasks, executor)` submits `fn(task)` for every task, gathers the results in task
order, logs progress (done / total, elapsed, ETA) through absl logging, stops cleanly on Ctrl-C
or a `stop()` callable (pending tasks are cancelled, running ones finish, and the finished
results come back with `stopped_early` True), and turns a task's exception into a `TaskError`
naming the task. `fn` must be a module-level function and the tasks and results picklable
(small frozen dataclasses are ideal: their repr is the task's description); `fn` must take
every option from its task, never from absl flags, which worker processes do not parse.

A script adds the flags and runs the sweep like this:

    _SCHEDULER = executors.define_scheduler_flag()
    _WORKERS = executors.define_workers_flag()

    def main(_):
        with executors.executor(_SCHEDULER.value, _WORKERS.value) as ex:
            sweep = sweeps.map_tasks(solve_one, tasks, ex)

    >>> with executors.executor("local") as ex:
    ...     sweep = map_tasks(abs, [-2, 3, -5], ex)
    >>> sweep.results, sweep.stop_reason
    ((2, 3, 5), 'completed')
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import pickle
import queue
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Generic, Literal, TypeVar

from absl import logging

from ospiel_ext.runtime import executors, interrupts, stops
from ospiel_ext.runtime import progress as progress_bars

T = TypeVar("T")
R = TypeVar("R")

_DESCRIPTION_CHARS = 200


def _task(fn: Callable[[T], R], task: T, sweep: str, started: float) -> R:
    """Runs one task of sweep `sweep` (begun at `started`: `interrupts.begin_task`)."""
    interrupts.begin_task(sweep, started)
    return fn(task)


@dataclasses.dataclass(frozen=True, kw_only=True)
class SweepResult(stops.Stoppable, Generic[R]):
    """What `map_tasks` gathered.

    Attributes:
      results: the results of the finished tasks, in task order.
      task_indices: the index in `tasks` of each result (all of range(total) unless
        interrupted; a finished set need not be a prefix, as tasks finish out of order).
      total: the number of tasks.
      stop_reason: 'completed' (every task ran), or 'interrupted' (Ctrl-C, SIGTERM or
        `stop()`) / 'time_limit' (a deadline of `ospiel_ext.runtime.interrupts`) when the sweep
        ended before every task ran.
      wall_seconds: wall-clock seconds of the sweep.
    """

    results: tuple[R, ...]
    task_indices: tuple[int, ...]
    total: int
    stop_reason: Literal["completed", "interrupted", "time_limit"]
    wall_seconds: float

    @property
    def completed(self) -> int:
        """The number of finished tasks."""
        return len(self.results)


class TaskError(RuntimeError):
    """A task of a sweep raised; `__cause__` is its exception (with the remote traceback).

    Attributes:
      index: the task's index in `tasks`.
      description: the one-line description of the task.
    """

    def __init__(self, index: int, total: int, description: str, exc: BaseException):
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        super().__init__(
            f"sweep task {index + 1} of {total} ({description}) failed: "
            f"{type(exc).__name__}: {first_line}"
        )
        self.index = index
        self.description = description


def _one_line(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > _DESCRIPTION_CHARS:
        return text[: _DESCRIPTION_CHARS - 3] + "..."
    return text


def _check_picklable(fn: Callable[..., Any], tasks: Sequence[Any]) -> None:
    """Fails early, on every executor, with what a process pool would fail on later."""
    try:
        pickle.dumps(fn)
    except Exception as exc:
        raise ValueError(
            f"the task function {fn!r} must be a module-level function (picklable): {exc}"
        ) from None
    if tasks:
        try:
            pickle.dumps(tasks[0])
        except Exception as exc:
            raise ValueError(f"tasks must be picklable; task 1 is not: {exc}") from None


class _Progress:
    """Logs done / total, elapsed and ETA at most every `every` seconds, and at the end."""

    def __init__(self, total: int, every: float):
        self.total, self.every = total, every
        self.start = time.perf_counter()
        self._last = self.start
        self.bar = progress_bars.bar("sweep", total=total, unit="task")

    def elapsed(self) -> float:
        return time.perf_counter() - self.start

    def log(self, done: int, force: bool = False) -> None:
        self.bar.update(done - self.bar.n)
        if force:
            self.bar.close()
        now = time.perf_counter()
        if not force and now - self._last < self.every:
            return
        self._last = now
        elapsed = now - self.start
        eta = f"{elapsed / done * (self.total - done):.1f}s" if done else "?"
        logging.info(
            "sweep: %d/%d tasks done, %.1fs elapsed, ETA %s", done, self.total, elapsed, eta
        )


class _Sweep(Generic[T, R]):
    """The state of one `map_tasks` run: its tasks in flight and the results gathered so far.

    Each submitted future puts itself on `finished` when done; the sweep collects them from
    there in the calling thread.
    """

    def __init__(
        self,
        *,
        fn: Callable[[T], R],
        tasks: list[T],
        executor: cf.Executor,
        describe: Callable[[T], str],
        progress: _Progress,
        poll_seconds: float,
    ):
        self.fn, self.tasks, self.executor, self.describe = fn, tasks, executor, describe
        self.progress, self.poll_seconds = progress, poll_seconds
        self.sweep_id = uuid.uuid4().hex
        self.started = time.time()  # wall clock: a worker's signal time is compared with it
        self.finished: queue.SimpleQueue[cf.Future[R]] = queue.SimpleQueue()
        self.in_flight: dict[cf.Future[R], int] = {}
        self.results: dict[int, R] = {}

    def _collect(self, future: cf.Future[R], *, stopping: bool = False) -> None:
        """Keeps a finished future's result; TaskError (the others cancelled) if it raised.

        While the sweep stops (`stopping`), a task that raised is dropped with a warning
        instead: the stop reaches workers anywhere, even while they import, and a worker it
        ends breaks the process pool (BrokenProcessPool); the results so far stand.
        """
        index = self.in_flight.pop(future)
        if future.cancelled():
            return
        exc = future.exception()
        if exc is not None and stopping:
            logging.warning(
                "sweep stopping: task %d of %d ended by the stop (%s)",
                index + 1,
                len(self.tasks),
                type(exc).__name__,
            )
            return
        if exc is not None:
            for other in self.in_flight:
                other.cancel()
            total = len(self.tasks)
            raise TaskError(index, total, _one_line(self.describe(self.tasks[index])), exc) from exc
        self.results[index] = future.result()

    def _drain(self, timeout: float | None, *, stopping: bool = False) -> None:
        """Collects the finished futures, waiting up to `timeout` for the first (None: none)."""
        try:
            future = self.finished.get(timeout=timeout) if timeout else self.finished.get_nowait()
        except queue.Empty:
            return
        self._collect(future, stopping=stopping)
        while True:
            try:
                self._collect(self.finished.get_nowait(), stopping=stopping)
            except queue.Empty:
                return

    def submit_and_gather(
        self, max_in_flight: int, stop: Callable[[], bool] | None
    ) -> Literal["completed", "interrupted", "time_limit"]:
        """Submits the tasks in order, at most `max_in_flight` at a time, and gathers them.

        Returns 'completed' once every result is in, or why it stopped early: a signal or a
        deadline (`interrupts.stop_reason()`) or `stop()` ('interrupted').
        """
        total = len(self.tasks)
        submitted = 0
        while len(self.results) < total:
            if interrupts.requested() or (stop is not None and stop()):
                return interrupts.stop_reason() or "interrupted"
            if submitted < total and len(self.in_flight) < max_in_flight:
                future = self.executor.submit(
                    _task, self.fn, self.tasks[submitted], self.sweep_id, self.started
                )
                self.in_flight[future] = submitted
                future.add_done_callback(self.finished.put)
                submitted += 1
                self._drain(None)
            else:
                self._drain(self.poll_seconds)
            self.progress.log(len(self.results))
        return "completed"

    def wind_down(self) -> None:
        """Stops a sweep asked to stop: cancels what has not started, asks the workers to stop.

        The signal is passed on to the local worker processes (`executors.forward_signal`), and
        the results of the running tasks are gathered for up to
        `executors.WORKER_GRACE_SECONDS`; the workers that did not answer in time are given up.
        """
        running = [f for f in self.in_flight if not f.cancel()]
        logging.warning(
            "sweep stopping: %d tasks cancelled, %d handed to workers asked to stop",
            len(self.in_flight) - len(running),
            len(running),
        )
        executors.forward_signal(self.executor)
        deadline = time.monotonic() + executors.WORKER_GRACE_SECONDS
        while self.in_flight and time.monotonic() < deadline:
            self._drain(self.poll_seconds, stopping=True)
        for future in list(self.in_flight):  # workers that did not answer in time
            self.in_flight.pop(future)

    def cancel(self) -> None:
        """Cancels every task in flight (a task raised, or the sweep was interrupted)."""
        for future in self.in_flight:
            future.cancel()


def map_tasks(
    fn: Callable[[T], R],
    tasks: Sequence[T],
    executor: cf.Executor,
    *,
    describe: Callable[[T], str] = repr,
    progress_every: float = 30.0,
    stop: Callable[[], bool] | None = None,
    poll_seconds: float = 0.1,
    max_in_flight: int | None = None,
) -> SweepResult[R]:
    """Runs `fn(task)` for every task on `executor`; gathers the results in task order.

    Tasks are submitted in order, at most `max_in_flight` at a time. Before each submission,
    and every `poll_seconds` while waiting, the sweep checks Ctrl-C / SIGTERM
    (`interrupts`; the first one, a second interrupts as usual) and `stop()`; when
    either holds, it cancels the tasks not yet started, passes the signal on to its local
    worker processes (their tasks poll it and return their results so far), waits up to
    `executors.WORKER_GRACE_SECONDS` for the running tasks and returns every finished result
    with `stopped_early` True. On a serial executor, the check falls between tasks: `stop()`
    turning True after k tasks returns exactly k results.

    Args:
      fn: a module-level function of one task (picklable by reference).
      tasks: picklable task arguments.
      executor: from `executors.executor()`, or any `concurrent.futures.Executor`.
      describe: one-line description of a task, for progress and errors (default: repr).
      progress_every: seconds between two progress lines (absl logging.info).
      stop: polled; True ends the sweep early (e.g. a deadline or an outside signal).
      poll_seconds: how often the wait for results checks Ctrl-C and `stop()`.
      max_in_flight: tasks submitted and not yet gathered (default for local processes: 4
        per usable core, so that a sweep of many tasks holds few of them at once; for other
        executors, such as a Dask cluster, all of them).

    Returns:
      A `SweepResult`.

    Raises:
      ValueError: fn or the first task cannot be pickled, or progress_every / poll_seconds
        is not positive.
      TaskError: a task raised (the others are cancelled); names the task.
    """
    if not progress_every > 0 or not poll_seconds > 0:
        raise ValueError(
            f"progress_every and poll_seconds must be positive, got {progress_every}, "
            f"{poll_seconds}"
        )
    tasks = list(tasks)
    _check_picklable(fn, tasks)
    if max_in_flight is None:  # a remote cluster decides its own pace
        local = isinstance(executor, (cf.ProcessPoolExecutor, executors.SerialExecutor))
        max_in_flight = 4 * executors.usable_cores() if local else max(len(tasks), 1)
    total = len(tasks)
    progress = _Progress(total, progress_every)
    name = getattr(fn, "__name__", repr(fn))  # a functools.partial has no __name__
    logging.info("sweep: %d tasks of %s on %s", total, name, type(executor).__name__)
    sweep = _Sweep(
        fn=fn,
        tasks=tasks,
        executor=executor,
        describe=describe,
        progress=progress,
        poll_seconds=poll_seconds,
    )
    with interrupts.graceful():
        try:
            stop_reason = sweep.submit_and_gather(max_in_flight, stop)
            if stop_reason != "completed":
                sweep.wind_down()
        except BaseException:
            sweep.cancel()
            raise
    results = sweep.results
    progress.log(len(results), force=True)
    indices = tuple(sorted(results))
    return SweepResult(
        results=tuple(results[i] for i in indices),
        task_indices=indices,
        total=total,
        stop_reason=stop_reason,
        wall_seconds=progress.elapsed(),
    )
