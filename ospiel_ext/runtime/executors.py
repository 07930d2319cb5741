"""Executors for sweeps: local processes, this process, or a Dask cluster.

`executor(scheduler, max_workers)` gives the `concurrent.futures.Executor` a sweep
(`sweeps.map_tasks`) runs its tasks on:

- `executor()` (no scheduler): a `ProcessPoolExecutor` of local processes, started with the
  'spawn' method. Fork is not needed: a child imports the task function's module (and so
  ospiel_ext, pyspiel and numpy) afresh, and spawn avoids forking a parent whose C++
  libraries may hold threads or locks. There are never more workers than usable cores (a
  larger --workers is capped, with a warning). In a worker, Ctrl-C and SIGTERM only ask the
  running task to stop (`interrupts.install_in_worker`); the parent stops the sweep
  (`sweeps.map_tasks`), passes its signal on (`forward_signal`), and terminates workers that
  do not end within moments; a worker dies with its parent even if the parent is killed
  outright.
- `executor("local")`: `SerialExecutor`, every submission runs at once in this process
  (debugging with pdb, tests).
- `executor("local-dask")`: a `dask.distributed.LocalCluster` of threads in this process
  (tests of the Dask path without a cluster).
- `executor("HOST:PORT")` (any other string): the Dask scheduler at that address; the tasks run
  on its workers, which need ospiel_ext installed. The same sweep runs on a cluster without
  code changes.

`dask.distributed` is an optional extra (`pip install 'dask[distributed]'`; in a checkout
`pip install -e '.[dask]'`), so it is imported inside the two Dask branches of `executor`,
and only there; the project otherwise forbids
function-local imports, but a module-level import would make dask a hard dependency of every
user of this module.

`define_scheduler_flag` and `define_workers_flag` add --scheduler and --workers, the two
arguments of `executor`, to a script (see `ospiel_ext.runtime.sweeps` for the whole pattern).
"""

from __future__ import annotations

import concurrent.futures as cf
import contextlib
import ctypes
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from absl import flags, logging

from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime import progress as progress_bars

R = TypeVar("R")

SERIAL = "local"
"""Scheduler value for the in-process serial executor."""

LOCAL_DASK = "local-dask"
"""Scheduler value for a Dask LocalCluster of threads in this process."""

SCHEDULER_HELP = (
    "Dask scheduler address (host:port) to run the sweep on a cluster; default: local "
    f"processes. '{SERIAL}': run the tasks one by one in this process (debugging); "
    f"'{LOCAL_DASK}': a Dask cluster of threads in this process."
)

_DASK_MISSING = (
    "--scheduler needs dask.distributed: pip install 'dask[distributed]' (in a checkout of "
    "ospiel_ext: pip install -e '.[dask]')"
)


class SerialExecutor(cf.Executor):
    """Runs every submission at once in the calling thread; its future is done on return.

    An exception of the call is stored in the future (as every executor does); a
    KeyboardInterrupt or SystemExit propagates.
    """

    def __init__(self) -> None:
        self._shutdown = False

    def submit(self, fn: Callable[..., R], /, *args: Any, **kwargs: Any) -> cf.Future[R]:
        """Runs `fn(*args, **kwargs)` now (`concurrent.futures.Executor.submit`); a done future."""
        if self._shutdown:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: cf.Future[R] = cf.Future()
        future.set_running_or_notify_cancel()
        try:
            result = fn(*args, **kwargs)
        except Exception as exc:
            future.set_exception(exc)
        else:
            future.set_result(result)
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuses later submissions (`concurrent.futures.Executor.shutdown`)."""
        del wait, cancel_futures
        self._shutdown = True


_PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _start_worker(parent: int) -> None:
    """Initializer of local worker processes.

    The progress display is the parent's; Ctrl-C and SIGTERM only set the `interrupts` flag,
    which the task polls to return its result so far (the parent forwards its first signal);
    and the worker is killed if the parent (of pid `parent`) dies (Linux's parent-death
    signal), so no worker outlives the command.
    """
    progress_bars.set_enabled(False)
    interrupts.install_in_worker()
    try:
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL))
    except (OSError, AttributeError):  # not Linux: the parent's shutdown still ends workers
        return
    if os.getppid() != parent:  # the parent died before prctl
        os._exit(1)


def usable_cores() -> int:
    """The CPUs this process may run on (its affinity mask where the OS has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _capped(max_workers: int | None, what: str) -> int:
    """`max_workers` (default: the usable cores), at most the usable cores, said when capped.

    More processes than cores only add memory (a few hundred MB each) and no speed.
    """
    cores = usable_cores()
    if max_workers is not None and max_workers > cores:
        logging.warning(
            "%d %s asked for, %d used: this machine has %d usable cores",
            max_workers, what, cores, cores,
        )  # fmt: skip
    return _within_cores(max_workers)


def _within_cores(max_workers: int | None) -> int:
    """`max_workers` (default: the usable cores), at most the usable cores."""
    cores = usable_cores()
    return cores if max_workers is None else min(max_workers, cores)


def parallelism(scheduler: str | None = None, max_workers: int | None = None) -> int | None:
    """How many tasks `executor(scheduler, max_workers)` runs at once; None on a Dask cluster.

    Local processes and 'local-dask' threads: `max_workers` capped at the usable cores; the
    serial executor: 1; a remote scheduler: None (its cluster decides).
    """
    if scheduler == SERIAL:
        return 1
    if scheduler is None or scheduler == LOCAL_DASK:
        return _within_cores(max_workers)
    return None


@contextlib.contextmanager
def executor(scheduler: str | None = None, max_workers: int | None = None) -> Iterator[cf.Executor]:
    """An executor for `map_tasks`, shut down (waiting for its running tasks) on exit.

    Args:
      scheduler: None for local processes; 'local' for the in-process `SerialExecutor`;
        'local-dask' for a Dask LocalCluster of threads in this process; any other string is
        the address of a Dask scheduler ('host:port' or 'tcp://host:port').
      max_workers: local processes or, for 'local-dask', threads (default: the usable cores,
        and never more: a larger number is capped, with a warning); ignored by the serial
        executor and a remote scheduler, whose cluster decides.

    Yields:
      A `concurrent.futures.Executor`.

    Raises:
      ValueError: max_workers is not positive, or scheduler is an empty string.
      ImportError: a Dask scheduler is asked for and dask.distributed is not installed.
    """
    if max_workers is not None and max_workers < 1:
        raise ValueError(f"max_workers must be positive, got {max_workers}")
    if scheduler is not None and not scheduler.strip():
        raise ValueError("scheduler must be None, 'local', 'local-dask' or a Dask address, got ''")
    if scheduler is None:
        context = multiprocessing.get_context("spawn")
        workers = _capped(max_workers, "worker processes")
        pool = cf.ProcessPoolExecutor(
            workers, context, initializer=_start_worker, initargs=(os.getpid(),)
        )
        try:
            yield pool
        finally:
            _stop_workers(pool)
    elif scheduler == SERIAL:
        with SerialExecutor() as serial:
            yield serial
    else:
        try:
            import dask.distributed as dd  # optional extra: see the module docstring
        except ImportError:
            raise ImportError(_DASK_MISSING) from None
        with contextlib.ExitStack() as stack:
            if scheduler == LOCAL_DASK:
                cluster = stack.enter_context(
                    dd.LocalCluster(
                        n_workers=1,
                        threads_per_worker=_capped(max_workers, "threads"),
                        processes=False,
                        dashboard_address=None,
                    )
                )
                client = stack.enter_context(dd.Client(cluster))
            else:
                client = stack.enter_context(dd.Client(scheduler.strip()))
            logging.info("sweep on Dask scheduler %s", client.scheduler.address)
            # pure=False: two equal tasks are two runs, not one deduplicated key.
            yield stack.enter_context(client.get_executor(pure=False))


WORKER_GRACE_SECONDS = 2.0
"""How long an interrupted sweep waits for its workers' tasks to return their results so far
before it terminates the workers."""


def _stop_workers(pool: cf.ProcessPoolExecutor) -> None:
    """Shuts the pool down, waiting for its workers; none outlives the sweep.

    After Ctrl-C, SIGTERM or a deadline (`interrupts.requested()`, when `sweeps.map_tasks`
    has already passed the signal on to the workers: `forward_signal`), it waits
    WORKER_GRACE_SECONDS for them to end, then terminates and kills them.
    """
    if not interrupts.requested():
        pool.shutdown(wait=True)
        return
    pool.shutdown(wait=False, cancel_futures=True)
    processes = _workers(pool)
    deadline = time.monotonic() + WORKER_GRACE_SECONDS
    for process in processes:
        process.join(max(deadline - time.monotonic(), 0.0))
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(1.0)
        if process.is_alive():
            process.kill()
            process.join()


def _workers(executor: cf.Executor) -> list[multiprocessing.process.BaseProcess]:
    """The local worker processes of a process pool (none for other executors)."""
    if not isinstance(executor, cf.ProcessPoolExecutor):
        return []
    # the pool's own table (private, no public one exists): this process's other children,
    # the user's or another pool's, are not the sweep's to signal or stop
    processes = getattr(executor, "_processes", None) or {}
    return list(processes.values())


def forward_signal(executor: cf.Executor) -> None:
    """Sends SIGINT to the executor's local worker processes.

    Their tasks then return their results so far (`interrupts.install_in_worker`);
    `sweeps.map_tasks` calls it when it stops a sweep early.
    """
    for process in _workers(executor):
        if process.pid is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(process.pid, signal.SIGINT)


def define_scheduler_flag(flag_values: flags.FlagValues = flags.FLAGS) -> flags.FlagHolder:
    """Defines --scheduler (default None: local processes), the `scheduler` of `executor`."""
    return flags.DEFINE_string("scheduler", None, SCHEDULER_HELP, flag_values=flag_values)


def define_workers_flag(flag_values: flags.FlagValues = flags.FLAGS) -> flags.FlagHolder:
    """Defines --workers (default None: one per CPU), the `max_workers` of `executor`."""
    return flags.DEFINE_integer(
        "workers",
        None,
        "Local worker processes of the sweep (threads with --scheduler=local-dask); "
        "default: one per CPU. Ignored with a remote --scheduler.",
        lower_bound=1,
        flag_values=flag_values,
    )
