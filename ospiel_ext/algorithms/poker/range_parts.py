"""The threads and chunks of the passes over a `RangeTree`: blocks and chunks of whole boards.

Everything a pass of `range_walker` does below a round's first rows is independent board by
board, so each round's entries are cut into consecutive blocks of whole boards
(`orbits.OrbitLayout.blocks`), one per thread (numpy releases the GIL inside its loops and BLAS
calls), and the last round, the largest, into chunks of whole boards (`CHUNK_VALUES` values
each) that a thread takes through a pass in buffers it reuses (`chunk_buffer`). A chunk's work
depends on no other chunk's, so a pass can leave chunks for later (`each_chunk`'s `stop`).
"""

from __future__ import annotations

import concurrent.futures as cf
import threading
import weakref
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Self

import numpy as np
from numpy.typing import DTypeLike

from ospiel_ext.algorithms.poker.range_tree import RangeTree
from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import blas

CHUNK_VALUES = 16_000_000
"""About how many (node, entry) values of the last round a pass holds per thread and array at
once (`RangeWalker`): 64 MB in float32, 128 MB in float64, where the whole round of 52-card
flop hold'em is hundreds of millions. Rhode Island Hold'em's last round (10.3 M) is then one
chunk per thread, as fast as whole arrays; in 52-card limit flop hold'em 16 chunks took 9.0 s
per DCFR iteration and 62 chunks of 4 M 9.8 s, at the same peak memory."""


class Closing:
    """A context manager that `close()`s its object at the end of the `with` block."""

    def close(self) -> None:
        """Releases what the object holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class BoardParts(Closing):
    """The blocks and chunks of a `RangeTree`'s boards, and the threads that walk them.

    Args:
      tree: the laid-out public tree.
      threads: threads a pass runs on, each on its own block of every round's boards; at most
        as many blocks as a round has boards.
      chunk_values: about how many (node, entry) values of the last round a thread holds at
        once (None: `CHUNK_VALUES`).

    With more than one thread it owns a thread pool: `close()` it, or use it as a context
    manager; one garbage-collected unclosed shuts its pool down then.
    """

    def __init__(self, tree: RangeTree, *, threads: int = 1, chunk_values: int | None = None):
        if threads < 1:
            raise ValueError(f"game {tree.name}: threads must be at least 1, got {threads}")
        self.tree, self.threads = tree, threads
        self.blocks = [lay.orbits.blocks(threads) for lay in tree.rounds]
        last = tree.rounds[-1]
        values = CHUNK_VALUES if chunk_values is None else chunk_values
        parts = -(-last.num_nodes * last.orbits.width // max(1, values))
        # a multiple of the threads, so that each thread takes as many chunks (3 chunks on 2
        # threads: one thread does two thirds of the round)
        self.chunks = last.orbits.blocks(threads * -(-parts // threads))
        self._pool = cf.ThreadPoolExecutor(threads) if threads > 1 else None
        self._close = (
            None if self._pool is None else weakref.finalize(self, self._pool.shutdown, wait=True)
        )
        self._local = threading.local()  # per thread: its chunk buffers (`chunk_buffer`)

    def close(self) -> None:
        """Shuts the thread pool down (a pass afterwards runs on this thread only)."""
        if self._close is not None:
            self._close()
        self._pool = None

    def each_block(self, r: int, work: Callable[[int, slice], None]) -> None:
        """work(i, boards) for every block i of round r's boards, on the walker's threads."""
        self._each(self.blocks[r], work)

    def each_chunk(
        self,
        work: Callable[[slice], None],
        *,
        only: Sequence[int] | None = None,
        stop: Callable[[], bool] | None = None,
    ) -> list[int]:
        """work(entries) for the chunks of the last round's boards, on the walker's threads.

        Every chunk, or those of the indices `only` (into `chunks`). With `stop`, a chunk not
        begun when stop() holds is left undone. Returns the indices of the chunks left, in
        order (a chunk's work depends on no other's, so they can be done later).
        """
        indices = list(range(len(self.chunks)) if only is None else only)
        left: list[int] = []

        def guarded(i: int, b: slice) -> None:
            if stop is not None and stop():
                left.append(indices[i])
            else:
                work(b)

        self._each([self.chunks[i] for i in indices], guarded)
        return sorted(left)

    def _each(self, parts: list[slice], work: Callable[[int, slice], None]) -> None:
        """work(i, part) for every part, on the pool's threads.

        If a part raises (or a KeyboardInterrupt reaches this thread), the parts not yet
        started are cancelled and those running finish before the exception goes on.
        OpenBLAS meanwhile on one thread (`runtime.blas`: its own would spin beside the pool's).
        """
        if self._pool is None or len(parts) == 1:
            for i, b in enumerate(parts):
                work(i, b)
            return
        with blas.single_threaded():
            futures = [self._pool.submit(work, i, b) for i, b in enumerate(parts)]
            try:
                for future in futures:
                    future.result()
            except BaseException:  # e.g. Ctrl-C: the parts not started are not started
                for future in futures:
                    future.cancel()
                cf.wait(futures)
                raise

    def chunk_buffer(self, slot: int, b: slice, dtype: DTypeLike) -> FloatArray:
        """A (nodes, entries) array of the last round for chunk b: this thread's `slot`.

        The memory is kept and reused from chunk to chunk (fresh memory costs page faults).
        """
        lay = self.tree.rounds[-1]
        width = b.stop - b.start
        key = (slot, np.dtype(dtype))
        buffers: dict[tuple[int, np.dtype], FloatArray]
        buffers = self._local.__dict__.setdefault("buffers", {})
        if key not in buffers:
            most = max(c.stop - c.start for c in self.chunks)
            buffers[key] = np.empty(lay.num_nodes * most, dtype=key[1])
        out: FloatArray = buffers[key][: lay.num_nodes * width].reshape(lay.num_nodes, width)
        return out
