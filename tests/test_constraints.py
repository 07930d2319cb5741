"""Behavioural lower bounds: one object, and the LP, CFR basis matrices and EGT see the same
strategy space."""

import re

import numpy as np
import pytest
import scipy.optimize
from helpers import KUHN_VALUE, perturbed_lp_value

from ospiel_ext import constraints, lp, sequence_form
from ospiel_ext.algorithms import cfr, dilated_entropy
from ospiel_ext.constraints import BehaviouralLowerBounds

TOL = 1e-9


def _random_bounds(sf, seed, default=0.02, fraction=0.5):
    """The default on every action plus random vectors (sum up to 0.6) at a random half of
    both players' information sets."""
    rng = np.random.default_rng(seed)
    per = {}
    for p in (0, 1):
        tp, keys = sf.treeplexes[p], sf.infoset_keys(p)
        chosen = rng.choice(tp.num_infosets, int(fraction * tp.num_infosets), replace=False)
        for i in chosen:
            k = int(tp.num_actions[i])
            per[keys[i]] = rng.dirichlet(np.ones(k)) * rng.uniform(0.05, 0.6)
    return BehaviouralLowerBounds(default, per)


def _expected_lower(sf, p, bounds):
    """l per sequence built independently: walk the infosets and their legal actions."""
    tp, keys = sf.treeplexes[p], sf.infoset_keys(p)
    lower = np.zeros(tp.num_sequences)
    for i, key in enumerate(keys):
        s, k = int(tp.seq_start[i]), int(tp.num_actions[i])
        lower[s : s + k] = bounds.per_infoset.get(key, np.full(k, bounds.default))
    return lower


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_per_sequence_follows_the_keys(game):
    sf = sequence_form.for_game(game)
    bounds = _random_bounds(sf, seed=1)
    for p in (0, 1):
        np.testing.assert_array_equal(bounds.per_sequence(sf, p), _expected_lower(sf, p, bounds))


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
@pytest.mark.parametrize("seed", [0, 1])
def test_lp_strategies_satisfy_random_bounds(game, seed):
    sf = sequence_form.for_game(game)
    bounds = _random_bounds(sf, seed)
    solution = lp.solve(
        sf, constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds)
    )
    for p, (tp, x, b) in enumerate(zip(sf.treeplexes, solution.plans, solution.behavioural)):
        lower = _expected_lower(sf, p, bounds)
        assert np.all(x[1:] >= lower[1:] * x[tp.seq_parent[1:]] - TOL)
        reached = x[tp.seq_parent[1:]] > TOL
        assert np.all(b[1:][reached] >= lower[1:][reached] - 1e-7)
    other = lp.solve(
        sf,
        player=1,
        constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds),
    )
    assert other.value == pytest.approx(solution.value, abs=1e-7)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_uniform_bounds_match_the_perturbed_lp_reference(game):
    sf = sequence_form.for_game(game)
    xi = 0.04
    bounds = BehaviouralLowerBounds(xi)
    value = lp.solve(
        sf, constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds)
    ).value
    assert value == pytest.approx(perturbed_lp_value(sf, xi), abs=1e-9)
    # EGT's perturbed dilated entropy sees the same per-sequence bounds.
    for p, tp in enumerate(sf.treeplexes):
        np.testing.assert_array_equal(
            dilated_entropy.DilatedEntropy(tp, xi).xi_seq, bounds.per_sequence(sf, p)
        )


@pytest.mark.parametrize("k", [2, 3, 4])
def test_basis_columns_are_the_vertices_of_the_bounded_simplex(k):
    """B maps the simplex onto exactly {b >= l, sum b = 1}: every column is a vertex (k - 1
    bounds tight) and, for random directions c, max c^T b over the polytope (scipy's LP) is
    attained at a column, so the polytope is the convex hull of B's columns."""
    rng = np.random.default_rng(k)
    for _ in range(5):
        lower = rng.dirichlet(np.ones(k)) * rng.uniform(0.0, 0.95)
        basis = constraints.lower_bound_basis(lower)
        np.testing.assert_allclose(basis.sum(axis=0), 1.0, atol=1e-12)
        for j in range(k):
            col = basis[:, j]
            assert np.all(col >= lower - 1e-12)
            np.testing.assert_allclose(np.delete(col, j), np.delete(lower, j), atol=1e-12)
        for _ in range(10):
            c = rng.normal(size=k)
            res = scipy.optimize.linprog(
                -c, A_eq=np.ones((1, k)), b_eq=[1.0], bounds=[(lo, None) for lo in lower]
            )
            assert -res.fun == pytest.approx((c @ basis).max(), abs=1e-9)


def test_basis_matrix_holds_the_basis_blocks():
    sf = sequence_form.for_game("leduc_poker")
    bounds = _random_bounds(sf, seed=3, default=0.0)
    for p, tp in enumerate(sf.treeplexes):
        matrix = bounds.basis_matrix(sf, p).toarray()
        blocks = bounds.basis_blocks(sf, p)
        expected = np.eye(tp.num_sequences)
        lower = _expected_lower(sf, p, bounds)
        for i, block in blocks.items():
            s, k = int(tp.seq_start[i]), int(tp.num_actions[i])
            np.testing.assert_allclose(block, constraints.lower_bound_basis(lower[s : s + k]))
            expected[s : s + k, s : s + k] = block
        np.testing.assert_allclose(matrix, expected, atol=1e-15)
        assert set(blocks) == set(np.flatnonzero(tp.segment_sum(lower) > 0).tolist())
        # Any behavioural pi is mapped into the bounded strategies.
        pi = np.random.default_rng(p).random(tp.num_sequences)
        pi[1:] /= tp.spread(tp.segment_sum(pi))[1:]
        played = matrix @ pi
        assert np.all(played[1:] >= lower[1:] - 1e-12)
        np.testing.assert_allclose(tp.segment_sum(played), 1.0, atol=1e-12)


def test_cfr_with_the_basis_blocks_reaches_the_lp_value():
    """CFR+ run with the object's basis blocks (eq. 4-5) and the LP with its rows solve the
    same constrained game."""
    sf = sequence_form.for_game("kuhn_poker")
    bounds = _random_bounds(sf, seed=5, default=0.03)
    basis = {}
    for p in (0, 1):
        keys = sf.infoset_keys(p)
        basis.update({keys[i]: b for i, b in bounds.basis_blocks(sf, p).items()})
    solver = cfr.CFRPlusSolver(sf, basis=basis)
    for _ in range(3000):
        solver.evaluate_and_update_policy()
    x = [tp.realization_plan(b) for tp, b in zip(sf.treeplexes, solver.average_behavioural())]
    for p, tp in enumerate(sf.treeplexes):
        lower = bounds.per_sequence(sf, p)
        assert np.all(x[p][1:] >= lower[1:] * x[p][tp.seq_parent[1:]] - 1e-9)
    value = lp.solve(
        sf, constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds)
    ).value
    assert sf.expected_value(*x) == pytest.approx(value, abs=1e-4)
    assert value != pytest.approx(KUHN_VALUE, abs=1e-2)  # the bounds matter


def test_from_prior_is_epsilon_times_the_prior():
    sf = sequence_form.for_game("kuhn_poker")
    key = sf.infoset_keys(1)[0]
    eps, prior = 0.3, np.array([0.9, 0.1])
    bounds = BehaviouralLowerBounds.from_prior(eps, {key: prior})
    block = bounds.basis_blocks(sf, 1)[0]
    # Kubíček, Lisý & Sandholm (2025), eq. 6: B = (1 - eps) I + eps P, P's columns the prior.
    np.testing.assert_allclose(block, (1 - eps) * np.eye(2) + eps * np.outer(prior, [1, 1]))
    assert bounds.basis_blocks(sf, 0) == {}
    assert len(bounds.linear_constraints(sf, 0).rhs) == 0
    half = bounds.scaled(0.5)
    np.testing.assert_allclose(half.per_infoset[key], 0.15 * prior)
    with pytest.raises(ValueError, match="must be a distribution"):
        BehaviouralLowerBounds.from_prior(0.1, {key: [0.5, 0.4]})
    with pytest.raises(ValueError, match="epsilon must be"):
        BehaviouralLowerBounds.from_prior(1.0, {key: prior})


def test_bad_bounds_are_refused_naming_the_key_and_the_game():
    sf = sequence_form.for_game("leduc_poker")
    key = sf.infoset_keys(0)[0]
    with pytest.raises(ValueError, match="'no such infoset' is not an infoset of leduc_poker"):
        BehaviouralLowerBounds(0.0, {"no such infoset": [0.1, 0.1]}).validate(sf)
    k = int(sf.treeplexes[0].num_actions[0])
    with pytest.raises(ValueError, match=f"{k} legal actions"):
        BehaviouralLowerBounds(0.0, {key: [0.1] * (k + 1)}).validate(sf)
    with pytest.raises(ValueError, match="sum to"):
        BehaviouralLowerBounds(0.0, {key: [0.5] * k})
    with pytest.raises(ValueError, match="non-negative"):
        BehaviouralLowerBounds(0.0, {key: [-0.1] + [0.0] * (k - 1)})
    with pytest.raises(ValueError, match="information state strings"):
        BehaviouralLowerBounds(0.0, {3: [0.1, 0.1]})
    with pytest.raises(ValueError, match="default lower bound must be"):
        BehaviouralLowerBounds(1.0)
    # 0.4 is feasible on two actions but not on Leduc's three.
    three = next(i for i, n in enumerate(sf.treeplexes[0].num_actions) if n == 3)
    with pytest.raises(
        ValueError, match=re.escape(f"{sf.infoset_keys(0)[three]!r} of leduc_poker()")
    ):
        BehaviouralLowerBounds(0.4).per_sequence(sf, 0)
    # An explicit vector replaces the default, so it may rescue such an infoset.
    fixed = {
        k: [0.1] * 3 for k, n in zip(sf.infoset_keys(0), sf.treeplexes[0].num_actions) if n == 3
    }
    BehaviouralLowerBounds(0.4, fixed).per_sequence(sf, 0)


def test_bounds_are_immutable():
    bounds = BehaviouralLowerBounds(0.0, {"a": [0.1, 0.2]})
    with pytest.raises(TypeError):
        bounds.per_infoset["b"] = np.zeros(2)
    with pytest.raises(ValueError):
        bounds.per_infoset["a"][0] = 0.5
