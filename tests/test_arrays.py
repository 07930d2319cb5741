"""Array helpers against numpy's plain versions."""

import numpy as np
import pytest

from ospiel_ext import arrays


@pytest.mark.parametrize("high", [3, 2**40])  # packed into one int64 / too wide to pack
def test_unique_rows_is_numpys_row_unique(high):
    rng = np.random.default_rng(1)
    rows = rng.integers(0, 3, size=(500, 4)) * (high // 3 + 1)
    first, inverse = arrays.unique_rows(rows)
    _, np_first, np_inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    np.testing.assert_array_equal(first, np_first)
    np.testing.assert_array_equal(inverse, np_inverse.ravel())


@pytest.mark.parametrize("multiplier", [arrays._ROW_HASH, 0, 1])
def test_row_classes_are_classes_of_equal_rows_in_first_occurrence_order(multiplier):
    """Against np.unique's row classes renumbered by first occurrence; multipliers 0 and 1
    make distinct rows share hashes (last column / row sum), so the exact fallback runs."""
    rng = np.random.default_rng(2)
    rows = rng.integers(0, 3, size=(600, 5)) * np.array([1, 7, 10**12, 1, 3])
    _, first, inverse = np.unique(rows, axis=0, return_index=True, return_inverse=True)
    expected = np.argsort(np.argsort(first))[inverse.ravel()]
    np.testing.assert_array_equal(arrays.row_classes(rows, multiplier), expected)
    assert arrays.row_classes(np.zeros((0, 3), dtype=np.int64)).shape == (0,)


def test_segment_ranks_and_indices():
    sizes = np.array([2, 0, 3])
    np.testing.assert_array_equal(arrays.segment_ranks(sizes), [0, 1, 0, 1, 2])
    np.testing.assert_array_equal(
        arrays.segment_indices(np.array([10, 4, 7]), sizes), [10, 11, 7, 8, 9]
    )
    empty = np.zeros(0, dtype=np.int64)
    assert len(arrays.segment_ranks(empty)) == len(arrays.segment_indices(empty, empty)) == 0


@pytest.mark.parametrize("bound", [1, 7, 5000, 10**9])  # the table and numpy's sort
def test_unique_codes_is_numpys_unique(bound):
    codes = np.random.default_rng(bound).integers(0, bound, size=3000)
    uniq, index = arrays.unique_codes(codes, bound)
    want_uniq, want_index = np.unique(codes, return_inverse=True)
    np.testing.assert_array_equal(uniq, want_uniq)
    np.testing.assert_array_equal(index, want_index.ravel())
