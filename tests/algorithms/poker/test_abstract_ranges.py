"""Γ_f's strategies on the range layout (`poker.abstract_ranges`) against the compiled game.

The reference is independent of the range layout: `gameshrink.lifting.LiftedPolicy` (Theorem
2's construction, asked state by state through pyspiel) laid out on the original game's
compiled sequence form and evaluated there by `evaluate.evaluate_profile`."""

import numpy as np
import pyspiel
import pytest

from ospiel_ext import evaluate, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr_variants, gameshrink
from ospiel_ext.algorithms.gameshrink import abstract_game, lifting
from ospiel_ext.algorithms.poker import range_tree, range_walker, structure
from ospiel_ext.algorithms.poker.abstract_ranges import RangeLift

TOL = 1e-12
GAMES = [
    "leduc_poker",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)",
    "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1,ace_low=false)",
]


def _abstract_profile(game, transformation, iterations=20):
    shrunk = abstract_game.AbstractGame.of(
        gameshrink.gameshrink(game, transformation=transformation)
    )
    solver = cfr_variants.CFRVariantSolver(shrunk.sequence_form)
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return shrunk, solver.average_behavioural()


@pytest.mark.parametrize("transformation", ["coarsest", "paper"])
@pytest.mark.parametrize(
    "game, suits",
    [(g, suits) for g in GAMES for suits in (False, True)]
    + [("limit_leduc_poker(num_ranks=3)", False)],  # cards of one rank in two copies
)
def test_the_lifted_strategy_is_evaluated_as_in_the_compiled_game(game, transformation, suits):
    """Value and both best responses of Γ_f's strategy played in the original game."""
    game = pyspiel.load_game(game)
    shrunk, b = _abstract_profile(game, transformation)
    explicit = sf_lib.for_game(game)
    want = evaluate.evaluate_profile(
        explicit, policies.layout(explicit).from_policy(lifting.LiftedPolicy(shrunk, b))
    )
    tree = range_tree.RangeTree(structure.detect(game), suits=suits)
    got = range_walker.RangeWalker(tree).evaluate(
        tree.contract(RangeLift(tree, shrunk).strategy(b))
    )
    assert want.exploitability > 1e-2  # 20 iterations: far from an equilibrium
    assert abs(got.on_policy_values[0] - want.on_policy_values[0]) < TOL
    np.testing.assert_allclose(
        got.best_response_values, want.best_response_values, rtol=0, atol=TOL
    )


@pytest.mark.parametrize("game", GAMES[1:3])
def test_lossless_and_not(game):
    """Theorems 2-3 for the coarsest filter: Γ_f's exploitability is the lifted one; the
    paper's transformation (not lossless on multi-round games) exploitable beyond Γ_f's."""
    game = pyspiel.load_game(game)
    tree = range_tree.RangeTree(structure.detect(game), suits=True)
    walker = range_walker.RangeWalker(tree)
    gaps = {}
    for transformation in ("coarsest", "paper"):
        shrunk, b = _abstract_profile(game, transformation, iterations=200)
        in_abstraction = evaluate.evaluate_profile(shrunk.sequence_form, b).exploitability
        lifted = walker.evaluate(tree.contract(RangeLift(tree, shrunk).strategy(b))).exploitability
        gaps[transformation] = lifted - in_abstraction
    assert abs(gaps["coarsest"]) < 1e-9
    assert gaps["paper"] > 1e-2


def test_a_filter_that_sees_suits_is_refused_with_suit_isomorphism():
    """The identity filter keeps suit-isomorphic views apart: the canonical boards cannot
    stand for the others, so suits=True refuses and suits=False lifts."""
    game = pyspiel.load_game("leduc_poker")
    shrunk = abstract_game.AbstractGame.of(gameshrink.identity_filter(gameshrink.gameshrink(game)))
    with pytest.raises(ValueError, match="suit-isomorphic views"):
        RangeLift(range_tree.RangeTree(structure.detect(game), suits=True), shrunk)
    RangeLift(range_tree.RangeTree(structure.detect(game)), shrunk)


def test_another_game_is_refused():
    tree = range_tree.RangeTree(structure.detect(pyspiel.load_game("leduc_poker")))
    shrunk = abstract_game.AbstractGame.of(
        gameshrink.gameshrink("rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)")
    )
    with pytest.raises(ValueError, match="not the same game"):
        RangeLift(tree, shrunk)
