"""The public-tree sequence form against the explicit one: the same treeplexes, and
sequence values, expected values, reaches, CFR+ / DCFR iterates, best responses and
exploitability equal to 1e-12 on every poker game that compiles both ways. The reference is
always the explicit form (`sequence_form.for_game`, the compiled game tree's sparse payoff
matrix), an independent computation."""

import concurrent.futures

import numpy as np
import pytest
from helpers import random_behavioural

from ospiel_ext import evaluate, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.algorithms import forms as forms_lib
from ospiel_ext.algorithms.gameshrink import descriptions
from ospiel_ext.algorithms.poker import range_form

TOL = 1e-12
GAMES = [
    "kuhn_poker",
    "leduc_poker",
    "limit_leduc_poker(num_ranks=3)",
    "limit_leduc_poker(num_ranks=5,max_raises=1)",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1,ace_low=false)",
    "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
    descriptions.UNIVERSAL_POKER_EXAMPLES[0],
]
TREEPLEX_FIELDS = (
    "infoset_ids",
    "num_actions",
    "seq_start",
    "parent_seq",
    "seq_infoset",
    "seq_parent",
    "seq_action",
    "stable_ids",
)


@pytest.fixture(params=GAMES, scope="module")
def forms(request):
    return sf_lib.for_game(request.param), range_form.for_game(request.param)


def _random_plans(sf, seed):
    return [tp.realization_plan(b) for tp, b in zip(sf.treeplexes, random_behavioural(sf, seed))]


def test_treeplexes_are_numbered_as_the_explicit_form(forms):
    explicit, public = forms
    for p in (0, 1):
        for field in TREEPLEX_FIELDS:
            np.testing.assert_array_equal(
                getattr(public.treeplexes[p], field), getattr(explicit.treeplexes[p], field)
            )
        levels = zip(public.treeplexes[p].levels, explicit.treeplexes[p].levels, strict=True)
        for ours, theirs in levels:
            assert (ours.inf_lo, ours.inf_hi, ours.seq_lo, ours.seq_hi) == (
                theirs.inf_lo,
                theirs.inf_hi,
                theirs.seq_lo,
                theirs.seq_hi,
            )
        assert public.infoset_keys(p) == explicit.infoset_keys(p)


@pytest.mark.parametrize("seed", [0, 1])
def test_sequence_values_and_expected_value(forms, seed):
    explicit, public = forms
    x = _random_plans(explicit, seed)
    for p in (0, 1):
        expected = explicit.sequence_values(p, x[1 - p])
        assert np.abs(expected).max() > 1e-3  # the check could fail
        np.testing.assert_allclose(public.sequence_values(p, x[1 - p]), expected, rtol=0, atol=TOL)
    assert public.expected_value(*x) == pytest.approx(explicit.expected_value(*x), abs=TOL)


def test_sequence_values_from_several_threads(forms):
    # the form keeps per-call buffers; threads sharing the cached form must not mix them
    explicit, public = forms
    plans = [_random_plans(explicit, seed) for seed in range(8)]

    def values(x):
        for _ in range(20):
            got = [public.sequence_values(p, x[1 - p]) for p in (0, 1)]
        return got

    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(values, plans))
    for x, got in zip(plans, results):
        for p in (0, 1):
            np.testing.assert_allclose(got[p], explicit.sequence_values(p, x[1 - p]), atol=TOL)


def test_opponent_reach_and_explicit_matrices(forms):
    explicit, public = forms
    x = _random_plans(explicit, 2)
    for p in (0, 1):
        np.testing.assert_allclose(
            public.opponent_reach(p, x[1 - p]),
            explicit.opponent_reach(p, x[1 - p]),
            rtol=0,
            atol=TOL,
        )
        assert abs(public.reach_matrix(p) - explicit.reach_matrix(p)).max() < TOL
    assert abs(public.payoff - explicit.payoff).max() < TOL


# Games whose regret-matching steps never meet a rounding-level tie. Rhode Island's suits make
# action values equal in exact arithmetic; the two forms sum in different orders, so a regret
# that is exactly 0 in one is 1e-17 in the other, and regret matching (uniform at zero regret,
# pure at any positive one) turns that into different strategies: there the test below checks
# the values along one trajectory instead. DCFR's discounting amplifies rounding by about 1e3
# over 25 iterations, hence its looser tolerance (the pack's tolerance for iterates against
# OpenSpiel's).
WELL_CONDITIONED = [g for g in GAMES if not g.startswith("rhode_island")]


@pytest.mark.parametrize("game", WELL_CONDITIONED)
@pytest.mark.parametrize("solver_cls, tol", [(cfr.CFRPlusSolver, TOL), (cfr.DCFRSolver, 1e-9)])
def test_solver_iterates(game, solver_cls, tol):
    explicit, public = sf_lib.for_game(game), range_form.for_game(game)
    ours, theirs = solver_cls(public), solver_cls(explicit)
    for _ in range(25):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    for got, want in (
        (ours.current_behavioural(), theirs.current_behavioural()),
        (ours.average_behavioural(), theirs.average_behavioural()),
    ):
        for p in (0, 1):
            np.testing.assert_allclose(got[p], want[p], rtol=0, atol=tol)
    # the public form's own TabularPolicy (its layout: no game tree compiled)
    np.testing.assert_allclose(
        ours.average_policy().action_probability_array,
        theirs.average_policy().action_probability_array,
        rtol=0,
        atol=tol,
    )


def test_values_along_a_cfr_plus_trajectory(forms):
    """What every CFR+ iteration reads (both players' sequence values against the current
    plans) agrees to 1e-12 along the explicit solver's 25 iterations."""
    explicit, public = forms
    solver = cfr.CFRPlusSolver(explicit)
    for _ in range(25):
        solver.evaluate_and_update_policy()
        b = solver.current_behavioural()
        x = [tp.realization_plan(b[p]) for p, tp in enumerate(explicit.treeplexes)]
        for p in (0, 1):
            np.testing.assert_allclose(
                public.sequence_values(p, x[1 - p]),
                explicit.sequence_values(p, x[1 - p]),
                rtol=0,
                atol=TOL,
            )


def test_best_responses_and_exploitability(forms):
    explicit, public = forms
    behavioural = random_behavioural(explicit, 3)
    ours = evaluate.evaluate_profile(public, behavioural)
    theirs = evaluate.evaluate_profile(explicit, behavioural)
    assert theirs.exploitability > 1e-3
    np.testing.assert_allclose(ours.on_policy_values, theirs.on_policy_values, rtol=0, atol=TOL)
    np.testing.assert_allclose(
        ours.best_response_values, theirs.best_response_values, rtol=0, atol=TOL
    )
    assert ours.exploitability == pytest.approx(theirs.exploitability, abs=TOL)
    x = [tp.realization_plan(b) for tp, b in zip(explicit.treeplexes, behavioural)]
    for p, tp in enumerate(explicit.treeplexes):
        value, pure = tp.best_response(public.sequence_values(p, x[1 - p]))
        want_value, want_pure = tp.best_response(explicit.sequence_values(p, x[1 - p]))
        assert value == pytest.approx(want_value, abs=TOL)
        np.testing.assert_array_equal(pure, want_pure)


def test_infoset_regrets(forms):
    explicit, public = forms
    behavioural = random_behavioural(explicit, 4)
    for p in (0, 1):
        ours = evaluate.infoset_regrets(public, behavioural, p)
        theirs = evaluate.infoset_regrets(explicit, behavioural, p)
        np.testing.assert_allclose(ours.reach, theirs.reach, rtol=0, atol=TOL)
        np.testing.assert_allclose(ours.regret, theirs.regret, rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize(
    "game, prop",
    [
        ("liars_dice", "no description of its deal and showdown"),
        (descriptions.UNIVERSAL_POKER_EXAMPLES[2], "hands or boards of several cards"),
        ("tic_tac_toe", "no description"),
    ],
)
def test_games_without_the_structure_are_refused(game, prop):
    with pytest.raises(ValueError, match="has no public-tree poker structure") as info:
        range_form.for_game(game)
    assert prop in str(info.value)
    assert game.split("(")[0] in str(info.value)


def test_solvers_take_form_public_tree():
    """`form="public_tree"` in Python: the solver runs on the public-tree form, and its
    policies are the explicit solver's, keyed by the same information states."""
    ours = cfr.CFRPlusSolver("leduc_poker", form="public_tree")
    theirs = cfr.CFRPlusSolver("leduc_poker")
    assert isinstance(ours.sequence_form, range_form.PublicTreeSequenceForm)
    assert ours.sequence_form is forms_lib.sequence_form("leduc_poker", form="public_tree")
    for _ in range(10):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    got, want = ours.current_policy(), theirs.current_policy()
    assert got.state_lookup == want.state_lookup
    np.testing.assert_allclose(
        got.action_probability_array, want.action_probability_array, rtol=0, atol=TOL
    )
    layout = policies.layout(ours.sequence_form)
    back = layout.from_policy(ours.average_policy())  # queried state by state
    for b, want_b in zip(back, ours.average_behavioural()):
        np.testing.assert_allclose(b, want_b, rtol=0, atol=TOL)


def test_an_unknown_form_is_refused():
    with pytest.raises(ValueError, match="form must be one of explicit, public_tree"):
        cfr.DCFRSolver("kuhn_poker", form="implicit")


def test_max_abs_payoff_without_the_matrix(forms):
    """max |A_ij| (EGT's scale) read from the public tree equals the explicit matrix's, and
    reading it builds no payoff matrix."""
    explicit, public = forms
    fresh = range_form.PublicTreeSequenceForm(public.public_tree)  # A never built
    assert fresh.max_abs_payoff() == explicit.max_abs_payoff() > 0
    assert "_explicit_payoff" not in vars(fresh)


def test_egt_runs_on_the_public_tree_form_as_on_the_explicit_one():
    """EGT's iterates on the public-tree form equal the explicit form's, with no payoff matrix
    built (its products walk the public tree; its scale is `max_abs_payoff`)."""
    game = "leduc_poker"
    public = range_form.PublicTreeSequenceForm(range_form.for_game(game).public_tree)
    ours, theirs = egt.EGTSolver(public), egt.EGTSolver(sf_lib.for_game(game))
    for _ in range(20):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    for got, want in zip(ours.behavioural(), theirs.behavioural()):
        np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)
    assert "_explicit_payoff" not in vars(public)
    by_name = egt.EGTSolver(game, form="public_tree").sequence_form
    assert isinstance(by_name, range_form.PublicTreeSequenceForm)
    with pytest.raises(ValueError, match="form must be one of"):
        egt.EGTSolver(game, form="compiled")
