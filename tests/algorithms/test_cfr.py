"""CFR family: identical to OpenSpiel's Python solvers, converges, honours basis matrices."""

import itertools

import numpy as np
import pyspiel
import pytest
from helpers import KUHN_VALUE, check_solver, perturbed_lp_value
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import constraints, evaluate, policies, sequence_form
from ospiel_ext.algorithms import cfr, cfr_rules, cfr_variants

PAIRS = [
    (cfr.CFRSolver, os_cfr.CFRSolver),
    (cfr.CFRPlusSolver, os_cfr.CFRPlusSolver),
    (cfr.DCFRSolver, os_dcfr.DCFRSolver),
    (cfr.LCFRSolver, os_dcfr.LCFRSolver),
]
FLAGS = list(itertools.product([True, False], repeat=3))


@pytest.mark.parametrize("ours", list(cfr.SOLVERS.values()))
def test_solver_api(ours, small_game):
    check_solver(ours, small_game, iterations=5)


def _assert_same_policies(a, b):
    for ma, mb in [(a.average_policy, b.average_policy), (a.current_policy, b.current_policy)]:
        np.testing.assert_allclose(
            ma().action_probability_array, mb().action_probability_array, atol=1e-9
        )


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
    _assert_same_policies(a, b)
    # the presets by name (`ospiel-ext solve --suits`) are those of the drop-ins of that name
    assert cfr_rules.PRESETS.keys() == cfr.SOLVERS.keys()
    for name, solver_cls in cfr.SOLVERS.items():
        assert solver_cls(game).config == cfr_rules.PRESETS[name], name


@pytest.mark.parametrize("alternating, linear, plus", FLAGS)
@pytest.mark.parametrize("keywords", [False, True])
def test_cfr_flags_as_openspiel(alternating, linear, plus, keywords):
    """_CFRSolver(game, alternating_updates, linear_averaging, regret_matching_plus), positional
    or keyword: the same iterates as OpenSpiel's _CFRSolver with the same flags."""
    game = pyspiel.load_game("leduc_poker")
    flags = dict(
        alternating_updates=alternating, linear_averaging=linear, regret_matching_plus=plus
    )
    ours = cfr._CFRSolver(game, **flags) if keywords else cfr._CFRSolver(game, *flags.values())
    assert ours.config == cfr_variants.CFRConfig(plus, alternating, linear)
    theirs = os_cfr._CFRSolver(game, **flags)
    for _ in range(4):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    _assert_same_policies(ours, theirs)


@pytest.mark.parametrize("linear", [True, False])
@pytest.mark.parametrize("alpha, beta, gamma", [(1.5, 0.0, 2.0), (2.0, 0.5, 3.0)])
def test_dcfr_flags_as_openspiel(linear, alpha, beta, gamma):
    """_DCFRSolver with alternating updates: OpenSpiel's iterates, with the average weighted by
    t^gamma (linear_averaging) or uniformly (gamma unused)."""
    game = pyspiel.load_game("kuhn_poker")
    args = (True, linear, False, alpha, beta, gamma)
    ours, theirs = cfr._DCFRSolver(game, *args), os_dcfr._DCFRSolver(game, *args)
    for _ in range(30):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    _assert_same_policies(ours, theirs)
    assert (ours.alpha, ours.beta, ours.gamma) == (alpha, beta, gamma)


def test_simultaneous_dcfr_updates_where_openspiel_does_not():
    # OpenSpiel's _DCFRSolver(alternating_updates=False) never updates (documented difference);
    # ours discounts simultaneous CFR updates and converges.
    game = pyspiel.load_game("kuhn_poker")
    theirs = os_dcfr._DCFRSolver(game, False, True, False, 1.5, 0.0, 2.0)
    ours = cfr._DCFRSolver(game, False, True, False, 1.5, 0.0, 2.0)
    for _ in range(300):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    uniform = policies.uniform_policy(game)
    assert os_exploitability.exploitability(game, theirs.average_policy()) == pytest.approx(
        os_exploitability.exploitability(game, uniform)
    )
    assert os_exploitability.exploitability(game, ours.average_policy()) < 2e-2


def test_simultaneous_lcfr_is_openspiels_simultaneous_linear_cfr_discounted_by_hand():
    # Independent reference: OpenSpiel's simultaneous linear-averaging CFR, with every
    # cumulative regret multiplied by t / (t + 1) after iteration t (alpha = beta = 1).
    game = pyspiel.load_game("kuhn_poker")
    ours = cfr._DCFRSolver(game, False, True, False, 1.0, 1.0, 1.0)
    ref = os_cfr._CFRSolver(game, False, True, False)
    for t in range(1, 21):
        ours.evaluate_and_update_policy()
        ref.evaluate_and_update_policy()
        for node in ref._info_state_nodes.values():
            for a in node.cumulative_regret:
                node.cumulative_regret[a] *= t / (t + 1)
    _assert_same_policies(ours, ref)


def test_dcfr_with_regret_matching_plus_clips_regrets():
    # OpenSpiel's _DCFRSolver ignores regret_matching_plus; ours clips before discounting.
    # Independent reference: OpenSpiel's DCFR with every cumulative regret clipped at zero after
    # each iteration (the same, as clipping commutes with the sign-wise discount and regret
    # matching ignores negative regrets).
    game = pyspiel.load_game("kuhn_poker")
    ours = cfr._DCFRSolver(game, True, True, True, 1.5, 0.0, 2.0)
    ref = os_dcfr._DCFRSolver(game, True, True, True, 1.5, 0.0, 2.0)
    plain = os_dcfr._DCFRSolver(game, True, True, False, 1.5, 0.0, 2.0)
    for _ in range(30):
        ours.evaluate_and_update_policy()
        ref.evaluate_and_update_policy()
        plain.evaluate_and_update_policy()
        for node in ref._info_state_nodes.values():
            for a, r in node.cumulative_regret.items():
                node.cumulative_regret[a] = max(r, 0.0)
    _assert_same_policies(ours, ref)
    assert not np.allclose(  # and clipping matters
        ours.average_policy().action_probability_array,
        plain.average_policy().action_probability_array,
        atol=1e-6,
    )


def test_cfr_solver_with_simultaneous_updates_is_openspiels():
    game = pyspiel.load_game("kuhn_poker")
    ours = cfr.CFRSolver(game, alternating_updates=False)
    theirs = os_cfr._CFRSolver(game, False, False, False)
    for _ in range(20):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    _assert_same_policies(ours, theirs)


def test_presets_are_the_configs():
    game = "kuhn_poker"
    assert cfr.CFRSolver(game).config == cfr_variants.CFR
    assert cfr.CFRPlusSolver(game).config == cfr_variants.CFR_PLUS
    assert cfr.DCFRSolver(game).config == cfr_variants.DCFR
    assert cfr.LCFRSolver(game).config == cfr_variants.LCFR
    a, b = cfr_variants.CFRVariantSolver(game, cfr_variants.LCFR), cfr.LCFRSolver(game)
    for _ in range(10):
        a.evaluate_and_update_policy()
        b.evaluate_and_update_policy()
    _assert_same_policies(a, b)


def test_policies_are_fresh_and_never_mutated():
    # Documented difference from OpenSpiel (which returns one object updated in place).
    solver = cfr.CFRPlusSolver("kuhn_poker")
    solver.evaluate_and_update_policy()
    kept = solver.current_policy()
    before = kept.action_probability_array.copy()
    for _ in range(5):
        solver.evaluate_and_update_policy()
    np.testing.assert_array_equal(kept.action_probability_array, before)
    assert not np.allclose(solver.current_policy().action_probability_array, before)


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
    solver = cfr.CFRPlusSolver("kuhn_poker", xi=xi)
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
    # Kubicek, Lisy & Sandholm 2025, eq. 6: B = (1 - eps) I + eps P, P's columns the prior.
    game = pyspiel.load_game("kuhn_poker")
    tree = sequence_form.for_game(game).tree
    key = tree.infoset_key[0]
    eps, prior = 0.3, np.array([0.9, 0.1])
    basis = constraints.lower_bound_basis(eps * prior)
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


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(alpha=float("nan")), r"three finite numbers, got \(nan, 0.0, 2.0\)"),
        (dict(beta=float("inf")), "three finite numbers"),
        (dict(gamma=-1), "gamma must be >= 0, got -1.0"),
    ],
)
def test_dcfr_parameters_are_checked_at_construction(kwargs, message):
    """A NaN discount made every regret NaN (a solver that never learns) and gamma = -1
    divided by zero at the first iteration; both are refused, naming the game."""
    with pytest.raises(ValueError, match=message) as e:
        cfr.DCFRSolver("kuhn_poker", **kwargs)
    assert "kuhn_poker" in str(e.value)
    cfr.DCFRSolver("kuhn_poker", alpha=np.float32(1.5), beta=np.int64(0))  # numbers from numpy
