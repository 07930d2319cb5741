"""One Ctrl-C / SIGTERM mechanism for the library and the commands.

A long computation of the pack stops on the first Ctrl-C (SIGINT) or SIGTERM and keeps what it
has. Two kinds of code meet a signal:

* A *graceful* region (`graceful()`) can stop cleanly: a run loop, a sweep, the certificate
  search, a HiGHS solve. There the first signal only sets a process-wide flag that the region
  polls (`requested()`); the loop then stops and returns its result so far with stop reason
  'interrupted'. The flag stays set until the outermost region ends, so every later graceful
  region of the same computation (the next inner solve of a nested solver, the next phase of a
  command) stops at once instead of starting.
* Any other code gets a `KeyboardInterrupt` at once, as Python's default handler would give
  (there is no result so far of compiling a game).

A second signal raises `KeyboardInterrupt` wherever it lands, except inside `deferred()`
regions (code running under C++, such as HiGHS's callbacks, which an exception must not cross):
there it is remembered and raised when the region ends.

The handlers are installed by the outermost `handled()` or `graceful()` region, in the main
thread only (Python cannot install signal handlers elsewhere; other threads read the flag), and
the previous handlers are restored when it ends; a signal the region took is not passed on
to them. A signal that the previous handler ignored (SIG_IGN, e.g. a background job of a
shell) stays ignored.

A time limit over a computation of many phases (a command's --time_limit) is the same flag set
by a timer (`deadline(seconds)`): every graceful region inside it stops as on Ctrl-C, and
`stop_reason()` says 'time_limit' instead of 'interrupted'; when the deadline's region ends,
its expiry is forgotten (the phases after it run), and the region's `Deadline.reason` keeps
why it stopped.

Worker processes of a sweep call `install_in_worker()`: there every signal only sets the flag,
which the task polls to return its result so far (`ospiel_ext.runtime.sweeps` forwards the parent's
signal to its workers: `executors.forward_signal`).

    >>> from ospiel_ext.runtime import interrupts
    >>> steps = []
    >>> with interrupts.graceful():
    ...     while not interrupts.requested() and len(steps) < 3:
    ...         steps.append(len(steps))  # one step of the computation
    >>> steps, interrupts.stop_reason()
    ([0, 1, 2], None)
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType
from typing import Any, Literal

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(KeyboardInterrupt):
    """A computation with no result so far stopped because of Ctrl-C or SIGTERM.

    E.g. an interrupted HiGHS solve. A `KeyboardInterrupt`, so code that does not handle it
    stops as on any Ctrl-C.
    """


class _State:
    """The process's signal state.

    Its region counters are the main thread's: only there can a signal handler run
    (`graceful` and `deferred` elsewhere, e.g. in a Dask thread, count nothing).
    """

    def __init__(self) -> None:
        self.signal: int | None = None  # the first signal received, while a region is open
        self.signal_time = 0.0  # when it arrived (time.time(): comparable across processes)
        self.timed_out = False  # a deadline() passed (and no signal came first)
        self.depth = 0  # open handled() / graceful() regions of the main thread
        self.graceful = 0  # open graceful() regions
        self.deferred = 0  # open deferred() regions
        self.pending_raise = False  # a second signal arrived inside a deferred() region
        self.previous: dict[int, Any] = {}
        self.worker = False
        self.sweep = ""  # in a sweep worker: the sweep its tasks belong to

    def reset(self) -> None:
        self.signal, self.pending_raise = None, False
        self.timed_out = False


_state = _State()


def requested() -> bool:
    """True once Ctrl-C or SIGTERM arrived, or a `deadline` passed, in the current computation.

    Until its outermost region ends; in a sweep worker, until a task of another sweep begins.
    """
    return _state.signal is not None or _state.timed_out


def stop_reason() -> Literal["interrupted", "time_limit"] | None:
    """Why the computation was asked to stop: 'interrupted', 'time_limit' or None.

    'interrupted' (Ctrl-C or SIGTERM), 'time_limit' (a `deadline` passed) or None (nothing
    asked the computation to stop).
    """
    if _state.signal is not None:
        return "interrupted"
    return "time_limit" if _state.timed_out else None


GRACE_SECONDS = 1.0
"""How long after the first Ctrl-C / SIGTERM a phase that polls `overdue()` may go on: a step
that ends within it (a small game's iteration or evaluation) ends as if no signal had come."""


def overdue() -> bool:
    """True once Ctrl-C or SIGTERM arrived more than `GRACE_SECONDS` ago (not a deadline).

    For phases whose steps are long (an iteration or an exact evaluation of 52-card hold'em
    takes tens of seconds): they finish a step that ends within the grace and give up the rest,
    so the result so far is written within a second or two of the signal. A time limit does
    not make a phase overdue: the run it ends finishes its step and measures it exactly.
    """
    return _state.signal is not None and time.time() - _state.signal_time > GRACE_SECONDS


def check() -> None:
    """Raises `Interrupted` if a signal arrived or a deadline passed.

    For phases that have no result so far.
    """
    if requested():
        raise Interrupted


def _handle(signum: int, frame: FrameType | None) -> None:
    del frame
    first = _state.signal is None
    if first:
        _state.signal, _state.signal_time = signum, time.time()
    if _state.worker:
        return
    if first and _state.graceful:
        return
    if _state.deferred:
        _state.pending_raise = _state.pending_raise or not first
        return
    raise KeyboardInterrupt


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def _install() -> None:
    _state.previous = {}
    for signum in SIGNALS:
        previous = signal.getsignal(signum)
        if previous == signal.SIG_IGN:
            continue
        _state.previous[signum] = previous
        signal.signal(signum, _handle)


def _restore() -> None:
    for signum, previous in _state.previous.items():
        # None: the handler was not installed from Python; Python's default is the nearest
        signal.signal(signum, signal.SIG_DFL if previous is None else previous)
    _state.previous = {}
    _state.reset()


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """A region whose signals follow this module (see the module docstring).

    The first signal sets the flag, and raises KeyboardInterrupt unless a graceful region is
    open. Nests; the outermost installs and restores the handlers and clears the flag.
    """
    if not _main_thread() or _state.worker:
        yield
        return
    if _state.depth == 0:
        _install()
    _state.depth += 1
    try:
        yield
    finally:
        _state.depth -= 1
        if _state.depth == 0:
            _restore()


@contextlib.contextmanager
def graceful() -> Iterator[None]:
    """A region that polls `requested()` and stops cleanly.

    The first signal only sets the flag. Implies `handled()`.
    """
    step = 1 if _main_thread() else 0
    with handled():
        _state.graceful += step
        try:
            yield
        finally:
            _state.graceful -= step


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """A graceful region in which no KeyboardInterrupt may be raised.

    For C++ code calling back into Python, e.g. a HiGHS solve: a second signal is raised as
    KeyboardInterrupt when the region ends.
    """
    step = 1 if _main_thread() else 0
    with graceful():
        _state.deferred += step
        try:
            yield
        finally:
            _state.deferred -= step
            if step and not _state.deferred and _state.pending_raise:
                _state.pending_raise = False
                raise KeyboardInterrupt


@contextlib.contextmanager
def immediate() -> Iterator[None]:
    """A region, inside a graceful one, where a signal raises `Interrupted` at once.

    For code that blocks and cannot poll (waiting for the user's input; main thread). Sets
    the flag as usual.
    """
    saved, _state.graceful = _state.graceful, 0
    try:
        yield
    except KeyboardInterrupt:
        raise Interrupted from None
    finally:
        _state.graceful = saved


class Deadline:
    """What a `deadline` region saw: `reason` is `stop_reason()` as the region ended."""

    def __init__(self) -> None:
        self.reason: Literal["interrupted", "time_limit"] | None = None


@contextlib.contextmanager
def deadline(seconds: float | None) -> Iterator[Deadline]:
    """A `handled()` region that is stopped `seconds` after it starts, as Ctrl-C would stop it.

    Its graceful regions are stopped as by Ctrl-C (`stop_reason()` then says 'time_limit'):
    one time limit for a computation of many phases, each of which polls `requested()`. None:
    no limit. When the region ends, its `Deadline` keeps the stop reason and the expiry is
    forgotten, so that what follows (an evaluation, the outputs) runs; a signal stays
    requested as always.
    """
    if seconds is not None and not seconds > 0:
        raise ValueError(f"a deadline needs a positive number of seconds, got {seconds}")
    result = Deadline()

    def expire() -> None:
        _state.timed_out = True

    timer = None if seconds is None else threading.Timer(seconds, expire)
    with handled():
        if timer is not None:
            timer.daemon = True
            timer.start()
        try:
            yield result
        finally:
            if timer is not None:
                timer.cancel()
                timer.join()  # an expiry under way has set the flag before it is read
            result.reason = stop_reason()
            _state.timed_out = False


def install_in_worker() -> None:
    """Makes this process a sweep worker: SIGINT and SIGTERM only set the flag.

    The flag stays set for the rest of the sweep (`begin_task`; `executors` starts its local
    workers with this and `sweeps` begins every task with that).
    """
    _state.worker = True
    for signum in SIGNALS:
        signal.signal(signum, _handle)


def begin_task(sweep: str, started: float) -> None:
    """In a sweep worker, clears a stop asked of an earlier sweep when another sweep begins.

    Cleared when the first task of another sweep (id `sweep`, begun at `started`, a
    `time.time()` of the same host) begins, if the signal arrived before that sweep began: a
    process pool reuses its workers, and the stopped sweep's tasks still queued must stop too,
    while a signal that reached the worker after this sweep began, even before its first task
    of it, is this sweep's stop. Elsewhere does nothing (the computation's own regions clear
    the flag).
    """
    if _state.worker and _state.sweep != sweep:
        _state.sweep = sweep
        if _state.signal is None or _state.signal_time < started:
            _state.reset()
