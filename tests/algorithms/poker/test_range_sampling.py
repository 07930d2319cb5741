"""Public chance sampling on the range layout (`poker.range_cfr`, `sample_boards`).

References independent of the sampling: the full walk (itself tested against the explicit
sequence form, `test_range_cfr`), and `cfr_rules`' per-iteration discounts applied one
iteration at a time."""

import itertools

import numpy as np
import pytest

from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms.poker import range_cfr, range_tree, structure

RI_3X3 = "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)"


@pytest.fixture(scope="module")
def tree():
    return range_tree.RangeTree(structure.detect(RI_3X3), suits=True)


def _states(solver):
    return list(itertools.chain(*solver.current_strategy(), *solver.average_strategy()))


def test_drawing_every_chunk_gives_the_iterates_of_the_full_walk(tree):
    """A fraction that rounds to every chunk takes the sampling path (draws, weights 1,
    catch-up of no skipped iteration) and gives DCFR's iterates of a full walk."""
    full = range_cfr.RangeCFRSolver(tree, cfr_rules.DCFR, chunk_values=1)
    drawn = range_cfr.RangeCFRSolver(tree, cfr_rules.DCFR, chunk_values=1, sample_boards=0.999)
    assert drawn._sampling is not None and drawn._sampling.weight == 1.0
    for _ in range(5):
        full.evaluate_and_update_policy()
        drawn.evaluate_and_update_policy()
    for x, y in zip(_states(full), _states(drawn)):
        np.testing.assert_allclose(x, y, rtol=0, atol=1e-13)


def test_a_sampled_pass_is_an_unbiased_estimate_of_the_full_pass(tree):
    """One chunk drawn of C, weighted by C: over the C possible draws, the mean of the first
    round's regrets after one iteration (CFR, both players against the uniform profile: the
    instantaneous regrets, linear in the values below) is the full walk's, and the sum of the
    last round's is the full walk's (each draw fills its own chunk)."""
    config = cfr_rules.CFRConfig(alternating_updates=False)
    full = range_cfr.RangeCFRSolver(tree, config, chunk_values=1)
    full.evaluate_and_update_policy()
    chunks = len(full.walker.chunks)
    assert chunks > 4
    first = [np.zeros_like(a) for a in full._regrets[0]]
    last = [np.zeros_like(a) for a in full._regrets[-1]]
    for i in range(chunks):
        one = range_cfr.RangeCFRSolver(tree, config, chunk_values=1, sample_boards=1 / chunks)
        assert one._sampling is not None and one._sampling.weight == chunks
        one._sampling.draw = lambda i=i: [i]
        one.evaluate_and_update_policy()
        for total, a in zip(first, one._regrets[0]):
            total += a / chunks
        for total, a in zip(last, one._regrets[-1]):
            total += a
    for got, want in zip(first + last, full._regrets[0] + full._regrets[-1]):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    assert any(np.abs(a).max() > 1e-3 for a in full._regrets[0])  # not vacuous


@pytest.mark.parametrize("config", [cfr_rules.DCFR, cfr_rules.LCFR, cfr_rules.CFR_PLUS])
@pytest.mark.parametrize("last", [0, 1, 4])
def test_skipped_discounts_are_the_discounts_of_the_iterations_one_by_one(config, last):
    """`skipped_discounts(last, t)` = `finish_regrets` and `average_weights`' decay at
    iterations last + 1 ... t - 1 with no regret added."""
    rng = np.random.default_rng(last)
    t = 9
    regrets = rng.normal(size=200)
    average = rng.random(200)
    stepped, decayed = regrets.copy(), average.copy()
    for s in range(last + 1, t):
        if config.discount is not None:  # (RM+ clipping is no discount: it acts when added)
            cfr_rules.finish_regrets(config, stepped, s)
        decayed *= cfr_rules.average_weights(config, s)[0]
    positive, negative, decay = cfr_rules.skipped_discounts(config, last, t)
    np.testing.assert_allclose(np.where(regrets > 0, positive, negative) * regrets, stepped)
    np.testing.assert_allclose(decay * average, decayed)


@pytest.mark.parametrize("fraction", [0.0, -0.5, 1.5])
def test_a_fraction_outside_0_1_is_refused_naming_the_game(tree, fraction):
    with pytest.raises(ValueError, match=r"rhode_island_holdem.*sample_boards"):
        range_cfr.RangeCFRSolver(tree, sample_boards=fraction)
