"""Array helpers shared by the core and the algorithms.

Grouping, first occurrences, ranks inside segments, distinct rows. Pure numpy, no game
knowledge.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence

import numpy as np
from numpy.typing import NDArray

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]
BoolArray = NDArray[np.bool_]


def group_by(keys: NDArray, num_keys: int) -> tuple[IntArray, IntArray]:
    """(order, bounds): the indices with key k are order[bounds[k] : bounds[k + 1]]."""
    order = np.argsort(keys, kind="stable")
    return order, np.searchsorted(keys[order], np.arange(num_keys + 1))


def weighted_bincount(index: NDArray, weights: NDArray, size: int) -> FloatArray:
    """The sums of `weights` per value of `index`: sums[k] = weights[index == k].sum().

    For k in 0 .. size - 1 (`np.bincount` with weights; numpy's stub types that result as
    integers, hence the no-copy cast).
    """
    return np.bincount(index, weights=weights, minlength=size).astype(np.float64, copy=False)


def first_index(labels: NDArray, num_labels: int) -> IntArray:
    """The first index at which each label 0 .. num_labels - 1 occurs."""
    first = np.zeros(num_labels, dtype=np.int64)
    first[labels[::-1]] = np.arange(len(labels))[::-1]
    return first


def unique_codes(codes: NDArray, bound: int) -> tuple[IntArray, IntArray]:
    """`np.unique(codes, return_inverse=True)` for integers in 0 .. bound - 1, without a sort.

    Returns (the distinct codes ascending, each code's index among them). When `bound` is at
    most a few times `len(codes)`, a table of `bound` entries marks the codes present (O(n +
    bound) instead of numpy's O(n log n) argsort: 8.6 of the 17 s in the published Rhode
    Island abstraction's joint classes); otherwise numpy's sort.
    """
    codes = np.asarray(codes).ravel()
    if bound > 4 * len(codes) + 1024:
        uniq, index = np.unique(codes, return_inverse=True)
        return uniq.astype(np.int64, copy=False), index.ravel().astype(np.int64, copy=False)
    present = np.zeros(bound, dtype=np.bool_)
    present[codes] = True
    uniq = np.flatnonzero(present)
    rank = np.zeros(bound, dtype=np.int64)
    rank[uniq] = np.arange(len(uniq))
    return uniq, rank[codes]


def unique_rows(rows: NDArray) -> tuple[IntArray, IntArray]:
    """The first index of each distinct row and each row's distinct-row id.

    Returns (first index of each distinct row, each row's distinct-row id), distinct rows in
    lexicographic order: `np.unique(rows, axis=0, return_index=True, return_inverse=True)` for
    a 2-D array of non-negative integers, but on one int64 per row (`unique_codes` instead of
    a row sort) when the columns' ranges multiply to less than 2**62.
    """
    rows = np.asarray(rows)
    spans = [int(m) + 1 for m in rows.max(axis=0)] if len(rows) else []
    if len(rows) and rows.min() >= 0 and math.prod(spans) < 2**62:
        code = np.zeros(len(rows), dtype=np.int64)
        for j, span in enumerate(spans):  # mixed radix, first column most significant
            code = code * span + rows[:, j]
        uniq, inverse = unique_codes(code, math.prod(spans))
        return first_index(inverse, len(uniq)), inverse
    else:
        _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    return first, inverse.ravel()


_ROW_HASH = 0x9E3779B97F4A7C15  # an odd 64-bit multiplier (2**64 / golden ratio)


def row_classes(rows: NDArray, multiplier: int = _ROW_HASH) -> IntArray:
    """Each row's class 0, 1, .. (equal rows, equal classes) of a 2-D integer array.

    Classes are numbered in order of first occurrence. Each row is hashed to one uint64 (a
    polynomial in `multiplier`, wrapping mod 2**64) and classed by a 1-D sort of the hashes;
    every row is then compared with the first row of its hash class, and if two distinct rows
    share a hash, `unique_rows` classes them instead. Exact either way; for wide rows much
    faster than `np.unique(rows, axis=0)`.
    """
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    if rows.ndim != 2:
        raise ValueError(f"row_classes takes a 2-D array, got shape {rows.shape}")
    width = rows.shape[1]
    powers = np.array([pow(multiplier, width - 1 - j, 2**64) for j in range(width)], np.uint64)
    h = rows.view(np.uint64) @ powers  # integer products wrap mod 2**64
    _, first, inverse = np.unique(h, return_index=True, return_inverse=True)
    if not np.array_equal(rows, rows[first[inverse]]):
        first, inverse = unique_rows(rows)
    number = np.empty(len(first), dtype=np.int64)
    number[np.argsort(first)] = np.arange(len(first))
    classes: IntArray = number[inverse.ravel()]
    return classes


def segment_ranks(sizes: IntArray) -> IntArray:
    """[0..sizes[0]), [0..sizes[1]), ... concatenated."""
    starts = np.cumsum(sizes) - sizes  # also right for no segments at all
    return np.arange(int(sizes.sum())) - np.repeat(starts, sizes)


def segment_indices(starts: NDArray[np.integer], sizes: IntArray) -> IntArray:
    """The flat indices of segments given by their first index and length.

    That is starts[0] .. starts[0] + sizes[0] - 1, starts[1] .. , ... concatenated.
    """
    return np.repeat(starts, sizes) + segment_ranks(sizes)


def intern(keys: Sequence[Hashable]) -> IntArray:
    """Ids 0, 1, .. of the distinct keys, in order of first appearance, one per key."""
    ids: dict[Hashable, int] = {}
    return np.array([ids.setdefault(k, len(ids)) for k in keys], dtype=np.int64)
