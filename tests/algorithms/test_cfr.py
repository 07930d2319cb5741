"""CFR family: identical to OpenSpiel's Python solvers, converges, honours basis matrices."""

import numpy as np
import pyspiel
import pytest
from conftest import KUHN_VALUE, check_solver, perturbed_lp_value
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr

from ospiel_ext import evaluate, sequence_form
from ospiel_ext.algorithms import cfr

PAIRS = [
    (cfr.CFRSolver, os_cfr.CFRSolver),
    (cfr.CFRPlusSolver, os_cfr.CFRPlusSolver),
    (cfr.DCFRSolver, os_dcfr.DCFRSolver),
]


@pytest.mark.parametrize("ours", [cfr.CFRSolver, cfr.CFRPlusSolver, cfr.DCFRSolver])
def test_solver_api(ours, small_game):
    check_solver(ours, small_game, iterations=5)


@pytest.mark.parametrize("ours, theirs", PAIRS)
@pytest.mark.parametrize("game, iterations", [("kuhn_poker", 30), ("leduc_poker", 8)])
def test_same_iterates_as_openspiel_python(ours, theirs, game, iterations):
    # Both implement the same update rules; floating-point summation order differs, and RM+
    # amplifies such differences after ~100 iterations, so compare early iterates.
    game = pyspiel.load_game(game)
    a, b = ours(game), theirs(game)
    for _ in range(iterations):
        a.evaluate_and_update_policy()
        b.evaluate_and_update_policy()
    for ma, mb in [(a.average_policy, b.average_policy), (a.current_policy, b.current_policy)]:
        np.testing.assert_allclose(
            ma().action_probability_array, mb().action_probability_array, atol=1e-9
        )


@pytest.mark.parametrize("solver_cls", [cfr.CFRPlusSolver, cfr.DCFRSolver])
def test_converges_to_the_kuhn_value(solver_cls):
    solver = solver_cls("kuhn_poker")
    for _ in range(2000):
        solver.evaluate_and_update_policy()
    result = evaluate.evaluate_profile(solver.sequence_form, solver.average_behavioural())
    assert result.exploitability < 1e-3
    assert result.on_policy_values[0] == pytest.approx(KUHN_VALUE, abs=2e-3)


def test_lower_bounds_are_respected_and_reach_the_perturbed_lp_value():
    xi = 0.05
    solver = cfr.CFRPlusSolver("kuhn_poker", lower_bound=xi)
    for _ in range(3000):
        solver.evaluate_and_update_policy()
        for b in solver.current_behavioural():
            assert b.min() >= xi - 1e-12
    sf = solver.sequence_form
    perturbed = perturbed_lp_value(sf, xi)
    x0, x1 = (tp.realization_plan(b) for tp, b in zip(sf.treeplexes, solver.average_behavioural()))
    assert sf.expected_value(x0, x1) == pytest.approx(perturbed, abs=2e-3)
    assert perturbed != pytest.approx(KUHN_VALUE, abs=1e-4)  # the perturbation matters


def test_identity_basis_changes_nothing():
    game = pyspiel.load_game("kuhn_poker")
    plain = cfr.CFRPlusSolver(game)
    key = sequence_form.for_game(game).tree.infoset_key[0]
    with_basis = cfr.CFRPlusSolver(game, basis={key: np.eye(2)})
    for _ in range(50):
        plain.evaluate_and_update_policy()
        with_basis.evaluate_and_update_policy()
    np.testing.assert_allclose(
        plain.average_policy().action_probability_array,
        with_basis.average_policy().action_probability_array,
        atol=1e-12,
    )


def test_basis_matrix_mixes_in_a_prior():
    # ggse_subgame_solving.md eq. 6: B = (1 - eps) I + eps P, P's columns the prior.
    game = pyspiel.load_game("kuhn_poker")
    tree = sequence_form.for_game(game).tree
    key = tree.infoset_key[0]
    eps, prior = 0.3, np.array([0.9, 0.1])
    basis = cfr.lower_bound_basis(eps * prior)
    np.testing.assert_allclose(basis, (1 - eps) * np.eye(2) + eps * np.outer(prior, [1, 1]))
    solver = cfr.CFRSolver(game, basis={key: basis})
    tp = solver.sequence_form.treeplexes[tree.infoset_player[0]]
    local = list(tp.infoset_ids).index(0)
    s = tp.seq_start[local]
    for _ in range(20):
        solver.evaluate_and_update_policy()
        played = solver.current_behavioural()[tree.infoset_player[0]][s : s + 2]
        assert np.all(played >= eps * prior - 1e-12)


@pytest.mark.parametrize(
    "basis, message",
    [
        ({"no such infoset": np.eye(2)}, "names 0 information sets"),
        (None, "columns summing to one"),
    ],
)
def test_bad_basis_is_refused(basis, message):
    game = pyspiel.load_game("kuhn_poker")
    if basis is None:
        basis = {sequence_form.for_game(game).tree.infoset_key[0]: np.full((2, 2), 0.7)}
    with pytest.raises(ValueError, match=message):
        cfr.CFRSolver(game, basis=basis)
