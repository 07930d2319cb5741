"""One strategy constraint for every solver: CFR+ and EGT given `BehaviouralLowerBounds`
play inside the bounded strategy space and reach the value of the sequence-form LP with the
same bounds (an independent reference)."""

import numpy as np
import pytest

from ospiel_ext import lp, sequence_form
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.constraints import BehaviouralLowerBounds

GAME = "kuhn_poker"


@pytest.fixture(scope="module")
def bounds():
    """Priors that differ by action at two infosets of each player, xi elsewhere."""
    sf = sequence_form.for_game(GAME)
    rng = np.random.default_rng(7)
    prior = {}
    for p in (0, 1):
        for key in sf.infoset_keys(p)[:2]:
            prior[key] = rng.dirichlet(np.ones(2))
    eps = 0.3
    return BehaviouralLowerBounds.from_prior(eps, prior, default=0.02)


def _lp_value(sf, bounds):
    return lp.solve(
        sf, constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds)
    ).value


def _check_inside(sf, bounds, behavioural):
    for p in (0, 1):
        assert np.all(behavioural[p][1:] >= bounds.per_sequence(sf, p)[1:] - 1e-12)


def test_cfr_plus_with_lower_bounds_reaches_the_bounded_lp_value(bounds):
    sf = sequence_form.for_game(GAME)
    solver = cfr.CFRPlusSolver(GAME, lower_bounds=bounds)
    for _ in range(3000):
        solver.evaluate_and_update_policy()
        if solver.iteration % 500 == 0:
            _check_inside(sf, bounds, solver.current_behavioural())
    average = solver.average_behavioural()
    _check_inside(sf, bounds, average)
    x, y = (tp.realization_plan(b) for tp, b in zip(sf.treeplexes, average))
    assert sf.expected_value(x, y) == pytest.approx(_lp_value(sf, bounds), abs=1e-3)


def test_egt_with_lower_bounds_that_differ_by_action_reaches_the_bounded_lp_value(bounds):
    sf = sequence_form.for_game(GAME)
    # dgf_weight as tuned for Kuhn elsewhere in the tests; EGT's default weight 1 is slow here.
    solver = egt.EGTSolver(GAME, lower_bounds=bounds, dgf_weight=0.05)
    for _ in range(1000):
        solver.evaluate_and_update_policy()
    profile = solver.average_behavioural()
    _check_inside(sf, bounds, profile)
    x, y = (tp.realization_plan(b) for tp, b in zip(sf.treeplexes, profile))
    assert sf.expected_value(x, y) == pytest.approx(_lp_value(sf, bounds), abs=1e-3)


@pytest.mark.parametrize("solver_cls", [cfr.CFRPlusSolver, egt.EGTSolver])
def test_xi_is_shorthand_for_a_default_bound(solver_cls):
    a = solver_cls(GAME, xi=0.05)
    b = solver_cls(GAME, lower_bounds=BehaviouralLowerBounds(0.05))
    for _ in range(20):
        a.evaluate_and_update_policy()
        b.evaluate_and_update_policy()
    for pa, pb in zip(a.average_behavioural(), b.average_behavioural()):
        np.testing.assert_array_equal(pa, pb)


@pytest.mark.parametrize("solver_cls", [cfr.CFRPlusSolver, egt.EGTSolver])
def test_xi_and_lower_bounds_together_are_refused(solver_cls):
    with pytest.raises(ValueError, match="either xi or lower_bounds"):
        solver_cls(GAME, xi=0.05, lower_bounds=BehaviouralLowerBounds(0.05))
