"""The core's Monte Carlo rollouts (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for
Imperfect-Information Games", Section 4's "Monte Carlo simulations"): estimates within 4
standard errors of the exact values, replayable for a seed, and the draws of a playout step."""

import numpy as np
import pytest

from ospiel_ext import lp, policies, sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.rollouts import _draw


def test_rollouts_within_four_standard_errors():
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = lp.solve(sf).behavioural
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    strategies = dl.pure_continuations(sf, limit, blueprint[1], player=1)
    exact = dl.exact_values(sf, limit, blueprint, player=0, strategies=strategies)
    layout = policies.layout(sf)
    pols = [layout.to_tabular((blueprint[0], s)) for s in strategies]
    histories = [sf.tree.history(int(h)) for h in limit.nodes]
    est = dl.rollout_values(
        sf.tree.game, histories, pols[0], player=0, strategies=pols, samples=400, seed=1
    )
    assert est.mean.shape == exact.values.shape
    z = np.abs(est.mean - exact.values) / np.maximum(est.stderr, 1e-12)
    assert np.all(z[est.stderr > 0] < 4)
    deterministic = est.stderr == 0
    np.testing.assert_allclose(est.mean[deterministic], exact.values[deterministic], atol=1e-12)
    again = dl.rollout_values(
        sf.tree.game, histories, pols[0], player=0, strategies=pols, samples=400, seed=1
    )
    np.testing.assert_array_equal(again.mean, est.mean)


def test_playout_draws_follow_the_weights():
    """`rollouts._draw` picks index i for u in [c_(i-1), c_i) / total: on a fine grid of u the
    share of each index is its weight's share, a zero weight is never drawn (not even at u = 0
    or u just below 1), and all-zero weights are refused."""
    weights = (0.0, 0.2, 0.0, 0.5, 0.3, 0.0)
    grid = (np.arange(100_000) + 0.5) / 100_000
    counts = np.bincount([_draw(weights, u) for u in grid], minlength=len(weights))
    np.testing.assert_allclose(counts / len(grid), weights, atol=1e-4)
    assert _draw(weights, 0.0) == 1 and _draw(weights, np.nextafter(1.0, 0.0)) == 4
    assert _draw((3.0,), 0.7) == 0
    with pytest.raises(ValueError, match="sum to 0"):
        _draw((0.0, 0.0), 0.5)
