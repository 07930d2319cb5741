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


def test_segment_ranks_and_indices():
    sizes = np.array([2, 0, 3])
    np.testing.assert_array_equal(arrays.segment_ranks(sizes), [0, 1, 0, 1, 2])
    np.testing.assert_array_equal(
        arrays.segment_indices(np.array([10, 4, 7]), sizes), [10, 11, 7, 8, 9]
    )
    empty = np.zeros(0, dtype=np.int64)
    assert len(arrays.segment_ranks(empty)) == len(arrays.segment_indices(empty, empty)) == 0
