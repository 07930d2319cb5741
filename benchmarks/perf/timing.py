"""Timing of the benchmarks that compare two implementations side by side in one process."""

import time
from collections.abc import Callable


def seconds_per_call(step: Callable[[], object], seconds: float) -> float:
    """Runs step() for about `seconds` (at least once); returns the seconds per call."""
    calls, start = 0, time.perf_counter()
    while True:
        step()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


def status_bytes(field: str) -> int:
    """A size field of /proc/self/status in bytes (VmRSS, VmHWM: the peak RSS); 0 if absent."""
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0
