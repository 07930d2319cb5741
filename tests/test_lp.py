"""Sequence-form LP on HiGHS: values from theory, both strategies, bounds, constraints."""

import numpy as np
import pyspiel
import pytest
from conftest import KUHN_VALUE, LEDUC_VALUE
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, lp, policies, sequence_form
from ospiel_ext.tree import TreeBuilder


@pytest.mark.parametrize(
    "game, value, tol",
    [
        ("kuhn_poker", KUHN_VALUE, 1e-12),
        ("leduc_poker", LEDUC_VALUE, 1e-6),
        ("matrix_rps", 0.0, 1e-12),
    ],
)
@pytest.mark.parametrize("player", [0, 1])
def test_values_and_equilibria(game, value, tol, player):
    game = pyspiel.load_game(game)
    sf = sequence_form.for_game(game)
    solution = lp.solve(sf, player=player)
    assert solution.value == pytest.approx(value, abs=tol)
    pol = policies.layout(sf).to_tabular(solution.behavioural)
    assert os_exploitability.exploitability(sf.tree.game, pol) < 1e-9
    for tp, x in zip(sf.treeplexes, solution.plans):
        e_mat, e = tp.constraints
        np.testing.assert_allclose(e_mat @ x, e, atol=1e-9)


def _bounded_matching_pennies(width):
    """Matching pennies whose leaves carry [u - width, u + width]."""
    b = TreeBuilder(name="interval matching pennies")
    first = b.expand_decision(b.add_root(), 0, "p0", [0, 1])
    for a in range(2):
        leaf = b.expand_decision(first + a, 1, "p1", [0, 1])
        for c in range(2):
            u = 1.0 if a == c else -1.0
            b.set_leaf(leaf + c, u - width, u + width)
    return sequence_form.TreeSequenceForm(b.freeze())


def test_leaf_bounds_give_the_lo_and_hi_games():
    sf = _bounded_matching_pennies(0.5)
    assert sf.has_bounds
    assert lp.solve(sf, bound="lo").value == pytest.approx(-0.5)
    assert lp.solve(sf, bound="hi").value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="intervals"):
        lp.solve(sf)


def test_behavioural_lower_bounds_hold_and_perturb_the_value():
    sf = sequence_form.for_game("kuhn_poker")
    xi = 0.05
    cons = [lp.behavioural_lower_bounds(tp, xi) for tp in sf.treeplexes]
    solution = lp.solve(sf, own_constraints=cons[0], opponent_constraints=cons[1])
    for tp, x in zip(sf.treeplexes, solution.plans):
        assert np.all(x[1:] >= xi * x[tp.seq_parent[1:]] - 1e-9)
    # The same perturbed game solved from player 1's side has the same value.
    other = lp.solve(sf, player=1, own_constraints=cons[1], opponent_constraints=cons[0])
    assert other.value == pytest.approx(solution.value, abs=1e-9)
    # Each strategy is a best response within the perturbed space: check via the value.
    assert evaluate.evaluate_plans(sf, *solution.plans).on_policy_values[0] == pytest.approx(
        solution.value, abs=1e-9
    )


def test_infeasible_constraints_raise_lp_error():
    sf = sequence_form.for_game("kuhn_poker")
    cons = lp.behavioural_lower_bounds(sf.treeplexes[0], 0.6)  # two actions, 0.6 each
    with pytest.raises(lp.LPError, match="infeasible"):
        lp.solve(sf, own_constraints=cons)


def test_rhs_perturbation_shifts_the_objective():
    sf = sequence_form.for_game("kuhn_poker")
    f_rows = sf.treeplexes[1].constraints[1].shape[0]
    base = lp.solve(sf)
    zero = lp.solve(sf, rhs_perturbation=np.zeros(f_rows))
    assert zero.value == pytest.approx(base.value, abs=1e-12)


def test_bad_arguments_are_refused():
    sf = sequence_form.for_game("kuhn_poker")
    with pytest.raises(ValueError, match="bound must be"):
        lp.solve(sf, bound="middle")
    with pytest.raises(ValueError, match="player must be"):
        lp.solve(sf, player=2)


def test_warm_start_from_a_smaller_trunk_gives_the_same_value():
    from ospiel_ext.algorithms.certificates.trunks import Trunk

    trunk = Trunk("kuhn_poker")
    for _ in range(3):  # grow the trunk breadth-first
        for node in list(trunk.frontier):
            trunk.expand(node)
    small = sequence_form.TreeSequenceForm(trunk.tree())
    first = lp.solve(small, bound="lo", return_basis=True)
    again = lp.solve(small, bound="lo", warm_start=first.basis)
    assert again.simplex_iterations == 0 and again.value == pytest.approx(first.value)
    for node in list(trunk.frontier):
        trunk.expand(node)
    grown = sequence_form.TreeSequenceForm(trunk.tree())
    warm = lp.solve(grown, bound="lo", warm_start=first.basis)
    cold = lp.solve(grown, bound="lo")
    assert warm.value == pytest.approx(cold.value, abs=1e-12)
