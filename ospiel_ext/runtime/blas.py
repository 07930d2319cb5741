"""One BLAS thread while the pack's own threads run numpy.

numpy and scipy ship OpenBLAS, which starts a thread per core at import and lets them wait
spinning after each product. A pass that runs on the pack's own threads (`poker.range_cfr`,
one block of boards per thread, each calling BLAS) then has each core shared between its
thread and OpenBLAS's spinning ones: 52-card no-limit flop hold'em took about 40 s per DCFR
iteration on 2 threads against 15 s with OpenBLAS on one thread. `single_threaded()` sets
every OpenBLAS library the process has loaded to one thread for the length of a `with` block
and restores the count after: what `OPENBLAS_NUM_THREADS=1` does, for that block only.

Without OpenBLAS (another BLAS, or a platform whose loaded libraries cannot be listed) it
does nothing.

    >>> from ospiel_ext.runtime import blas
    >>> with blas.single_threaded():
    ...     inside = blas.num_threads()
    >>> inside in ([], [1, 1], [1])
    True
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import threading
from collections.abc import Callable, Iterator

_PREFIXES = ("scipy_openblas", "openblas")  # symbol prefixes: numpy's and scipy's wheels, others
_INTS = ("64_", "")  # 64-bit-integer builds add a suffix
_lock = threading.Lock()
_depth = 0
_saved: list[tuple[Callable[[int], None], int]] = []  # (set, count) to restore

Functions = tuple[Callable[[], int], Callable[[int], None]]
"""(get, set) of one library's thread count."""


@functools.cache
def _libraries() -> list[Functions]:
    """(get, set) of each OpenBLAS library the process has loaded, read once.

    numpy's is loaded with numpy, before any pass; one loaded later (scipy's, with its first
    linear algebra) is not seen. Reading the process's maps costs about 0.2 ms, and a pass
    enters a block several times per iteration.
    """
    try:
        with open("/proc/self/maps", encoding="utf-8") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return []
    return [f for f in map(_functions, paths) if f is not None]


def _functions(path: str) -> Functions | None:
    """The library's (get, set) thread-count functions, or None."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    for prefix in _PREFIXES:
        for ints in _INTS:
            get = getattr(lib, f"{prefix}_get_num_threads{ints}", None)
            put = getattr(lib, f"{prefix}_set_num_threads{ints}", None)
            if get is not None and put is not None:
                return get, put
    return None


def num_threads() -> list[int]:
    """The thread count of each loaded OpenBLAS library ([] without one)."""
    return [int(get()) for get, _ in _libraries()]


@contextlib.contextmanager
def single_threaded() -> Iterator[None]:
    """Every loaded OpenBLAS library on one thread inside the block.

    Nested blocks, and blocks on several threads, share one setting, restored when the last
    ends.
    """
    global _depth, _saved
    with _lock:
        if _depth == 0:
            _saved = [(put, int(get())) for get, put in _libraries()]
            for put, _ in _saved:
                put(1)
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0:
                for put, count in _saved:
                    put(count)
