"""Budgets of a long computation: wall-clock time, resident memory, and Ctrl-C / SIGTERM.

A loop that may run long (growing a certificate trunk, walking a game) asks its `Budget`
inside its work, not only between iterations, whether it must stop:

    budget = Budget(time_limit=60, max_memory=8 * GIB)
    for node in nodes:
        if budget.exceeded():
            break
        expand(node)
    budget.exceeded()  # 'time_limit', 'max_memory', 'interrupted' or None

Reading the clock costs well under a microsecond; the resident memory is read from
/proc/self/statm (Linux), at most every `MEMORY_POLL_SECONDS`.
"""

from __future__ import annotations

import os
import time
from typing import Literal

from ospiel_ext.runtime import interrupts

GIB = 1024**3
MEMORY_POLL_SECONDS = 0.05
StopReason = Literal["time_limit", "max_memory", "interrupted"]
"""The `stops.Early` reasons a budget gives."""


def resident_bytes() -> int | None:
    """This process's resident memory now (bytes), or None where it cannot be read."""
    try:
        with open("/proc/self/statm", "rb") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def physical_memory() -> int | None:
    """The machine's physical memory (bytes), or None where it cannot be read."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError):
        return None


class Budget:
    """A time limit, a memory cap and the Ctrl-C flag, checked together by `exceeded`.

    The time limit is in seconds from construction, the cap is on resident memory (bytes), and
    the Ctrl-C flag is that of `ospiel_ext.runtime.interrupts`.
    """

    def __init__(self, time_limit: float | None = None, max_memory: int | None = None):
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be positive, got {time_limit}")
        if max_memory is not None and not max_memory > 0:
            raise ValueError(f"max_memory must be positive, got {max_memory}")
        self.time_limit, self.max_memory = time_limit, max_memory
        self.start = time.perf_counter()
        self._memory_checked = -float("inf")
        self.peak_memory = 0

    def elapsed(self) -> float:
        """Seconds since the budget was made."""
        return time.perf_counter() - self.start

    def remaining(self) -> float | None:
        """Seconds left (at least a millisecond, for a solver's own time limit), or None."""
        if self.time_limit is None:
            return None
        return max(self.time_limit - self.elapsed(), 1e-3)

    def exceeded(self) -> StopReason | None:
        """Why the computation must stop now, or None."""
        if interrupts.requested():
            return interrupts.stop_reason()
        now = time.perf_counter()
        if self.time_limit is not None and now - self.start >= self.time_limit:
            return "time_limit"
        if self.max_memory is not None and now - self._memory_checked >= MEMORY_POLL_SECONDS:
            self._memory_checked = now
            used = resident_bytes()
            if used is not None:
                self.peak_memory = max(self.peak_memory, used)
                if used > self.max_memory:
                    return "max_memory"
        return None
