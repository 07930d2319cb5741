"""GGSE by three solvers (Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve
Subgame Solving in Imperfect-Information Games", Definition 2, Section 7): the perturbed LP,
CFR+ with basis matrices and EGT reach the same refined root values; the LP's eps schedule
(Section 7.1) stops at the first eps whose solution stays optimal at eps = 0."""

import doctest

import numpy as np
import pytest

from ospiel_ext import evaluate, lp, policies, sequence_form
from ospiel_ext.algorithms import subgames as subgames_package
from ospiel_ext.algorithms.subgames import blueprints, combine, gadgets, ggse, priors
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames

OBS1 = "bonus_three_state_matching_pennies"


def _root_values(q, solution):
    """Player i's counterfactual best-response values at the opponent's root information sets
    after splicing the solution into the blueprint."""
    sf, g = q.sf, solution.gadget
    after = blueprints.BlueprintQuantities.compute(sf, combine.splice(sf, q.blueprint, [solution]))
    return combine.root_improvements(q, after, g.subgame, g.player).after


@pytest.fixture(scope="module")
def kuhn():
    sf = sequence_form.for_game("kuhn_poker")
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, 0))
    return q, subgames(sf.tree, Cut.after_moves(1))


@pytest.fixture(scope="module")
def observation1():
    sf = sequence_form.for_game(OBS1)
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, 0))
    return q, subgames(sf.tree, Cut.after_moves(0))


@pytest.mark.parametrize("kind", ["resolving", "max_margin"])
@pytest.mark.parametrize("player", [0, 1])
def test_cfr_plus_and_lp_ggse_agree_on_kuhn(kuhn, kind, player):
    q, subs = kuhn
    g = gadgets.gadget_game(kind, q, subs[0], player=player)
    prior = priors.gadget_prior(g, "uniform")
    exact = ggse.solve_lp(g, prior)
    assert exact.optimal_at_zero and exact.value == pytest.approx(exact.lp_value, abs=1e-9)
    approx = ggse.solve_cfr(g, prior, eps=1e-3, iterations=20000)
    assert approx.iterations == 20000 and approx.eps == 1e-3
    assert approx.value == pytest.approx(exact.value, abs=1e-3)
    np.testing.assert_allclose(_root_values(q, approx), _root_values(q, exact), atol=1e-2)


@pytest.fixture(scope="module")
def observation1_paper():
    """Observation 1's blueprint: T in {1}, uniform in {2, 3}, player 1 uniform."""
    sf = sequence_form.for_game(OBS1)
    b = [tp.uniform.copy() for tp in sf.treeplexes]
    tp = sf.treeplexes[0]
    s = tp.seq_start[sf.infoset_keys(0).index("p0 cell:0 own:")]
    b[0][s : s + 2] = [0.0, 1.0]
    q = blueprints.BlueprintQuantities.compute(sf, (b[0], b[1]))
    return q, subgames(sf.tree, Cut.after_moves(0))


@pytest.mark.parametrize("kind", ["resolving", "max_margin"])
def test_the_three_solvers_agree_on_observation1(observation1_paper, kind):
    # each reaches the game's equilibrium (E = 0, App. A) up to its tolerance
    q, (sub,) = observation1_paper
    g = gadgets.gadget_game(kind, q, sub, player=0)
    prior = priors.gadget_prior(g, "uniform")
    exact = ggse.solve_lp(g, prior)
    value0 = lp.game_value(q.sf)
    for sol in (
        ggse.solve_cfr(g, prior, iterations=20000),
        ggse.solve_egt(g, prior, iterations=5000, dgf_weight=0.01),
    ):
        np.testing.assert_allclose(_root_values(q, sol), _root_values(q, exact), atol=1e-2)
        spliced = combine.splice(q.sf, q.blueprint, [sol])
        assert evaluate.player_exploitability(q.sf, spliced[0], 0, value0) <= 1e-3


def test_the_eps_schedule_decreases_until_the_solution_stays_optimal(observation1):
    q, (sub,) = observation1
    g = gadgets.max_margin_gadget(q, sub, 0)
    prior = priors.gadget_prior(g, "uniform")
    # eps = 0.5 trembles too much (the solution is not optimal at eps = 0); 0.05 does not
    sol = ggse.solve_lp(g, prior, eps0=0.5)
    assert sol.eps == pytest.approx(0.05) and sol.optimal_at_zero
    assert sol.value == pytest.approx(sol.lp_value, abs=1e-9)
    stuck = ggse.solve_lp(g, prior, eps0=0.5, max_decreases=0)
    assert not stuck.optimal_at_zero and stuck.value < stuck.lp_value - 1e-6
    stable = ggse.solve_lp(g, prior, eps0=0.5, require_stable=True)
    assert stable.optimal_at_zero and stable.eps <= 0.05
    plain = ggse.solve_lp(g, None)
    assert plain.eps == 0.0 and plain.prior is None
    assert plain.value == pytest.approx(sol.lp_value, abs=1e-12)


def test_solutions_are_frozen_and_inputs_checked(observation1):
    q, (sub,) = observation1
    g = gadgets.resolving_gadget(q, sub, 0)
    prior = priors.gadget_prior(g, "uniform")
    sol = ggse.solve(g, prior, "cfr", iterations=10)
    with pytest.raises(AttributeError):
        sol.value = 0.0
    assert sol.unnormalised_value == pytest.approx(g.scale * sol.value)
    for eps in (0.0, 1.0, -0.1):
        with pytest.raises(ValueError, match="eps must be in"):
            ggse.solve_cfr(g, prior, eps=eps, iterations=10)
    with pytest.raises(ValueError, match="not an auxiliary"):
        ggse.solve_lp(g, {"p0 cell:0 own:": [0.5, 0.5]})
    with pytest.raises(ValueError, match="iterations"):
        ggse.solve_egt(g, prior, iterations=0)
    with pytest.raises(ValueError, match="unknown method"):
        ggse.solve(g, prior, "simplex")


def test_the_package_docstring_example_runs():
    failures, tried = doctest.testmod(subgames_package)
    assert tried > 0 and failures == 0
