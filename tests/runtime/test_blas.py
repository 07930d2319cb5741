"""`runtime.blas`: OpenBLAS on one thread inside the block, its count restored after."""

import threading

import pytest

from ospiel_ext.algorithms.poker import range_tree, range_walker, structure
from ospiel_ext.runtime import blas

needs_openblas = pytest.mark.skipif(not blas.num_threads(), reason="no OpenBLAS loaded")


@needs_openblas
def test_one_thread_inside_and_the_count_restored_after_nested_blocks():
    before = blas.num_threads()
    with blas.single_threaded():
        with blas.single_threaded():
            assert set(blas.num_threads()) == {1}
        assert set(blas.num_threads()) == {1}  # the outer block still holds
    assert blas.num_threads() == before


@needs_openblas
def test_the_walkers_threads_run_with_openblas_on_one_thread():
    tree = range_tree.RangeTree(
        structure.detect("rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)")
    )
    seen, before = [], blas.num_threads()
    with range_walker.RangeWalker(tree, threads=2) as walker:
        walker.each_block(1, lambda i, b: seen.append((threading.get_ident(), blas.num_threads())))
    assert len(seen) == 2 and all(set(counts) == {1} for _, counts in seen)
    assert blas.num_threads() == before
