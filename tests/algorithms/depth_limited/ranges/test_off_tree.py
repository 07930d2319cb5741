"""The off-tree action on the range layout against the compiled stack (`compiled.off_tree`).

A no-limit game small enough to compile (one card each from 3 ranks x 2 suits, a one-card
flop), every bet size restricted to 0.5x / 1x pot and all-in, and the same with player 1's
0.75x opening bet: the range layout's RPAT strategy has the responder exploitability the
compiled stack's RPAT profile has, for any blueprint."""

import numpy as np
import pytest
from helpers import profile_rows, random_behavioural

from ospiel_ext import evaluate, walk
from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms.depth_limited import translation
from ospiel_ext.algorithms.depth_limited.compiled import off_tree as compiled
from ospiel_ext.algorithms.depth_limited.ranges import off_tree
from ospiel_ext.algorithms.poker import (
    range_cfr,
    range_policy,
    range_tree,
    range_walker,
    structure,
)
from ospiel_ext.games import poker_actions as pa
from ospiel_ext.sequence_form import TreeSequenceForm

GAME = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=100 50,firstPlayer=2 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=1000 1000,"
    "bettingAbstraction=fullgame)"
)
BETTOR, RESPONDER = 1, 0
ABSTRACTION = pa.PotFractionAbstraction((0.5, 1.0))
WITH_BET = pa.PotFractionAbstraction((0.5, 1.0), extra=pa.first_bet_extra(BETTOR, {"0.75p": 0.75}))
P = translation.pseudo_harmonic(0.75, 0.5, 1.0)


def _replacements(state):
    labels = ABSTRACTION.labels(state)
    return [labels["0.5p"], labels["1p"]]


def _range_arrays(off, compiled_off, blueprint):
    """The compiled abstraction's blueprint as the range layout's per-entry arrays."""
    rows = profile_rows(compiled_off.abstract, blueprint)
    return off.abstract.contract(range_policy.arrays_from_tabular(off.abstract, rows))


@pytest.fixture(scope="module")
def both():
    """The compiled stack's OffTree and the range layout's."""
    abstract = TreeSequenceForm(walk.game_tree(GAME, actions=ABSTRACTION))
    full = TreeSequenceForm(walk.game_tree(GAME, actions=WITH_BET))
    kwargs = dict(replacements=_replacements, weights=(P, 1 - P), translate=WITH_BET.translate)
    compiled_off = compiled.find_off_tree(full, abstract, RESPONDER, **kwargs)
    ranges_off = off_tree.OffTree.find(
        range_tree.RangeTree(structure.detect(GAME, actions=WITH_BET)),
        range_tree.RangeTree(structure.detect(GAME, actions=ABSTRACTION)),
        **kwargs,
    )
    return compiled_off, ranges_off


def test_the_off_tree_bet_is_the_bettors_first_action(both):
    compiled_off, off = both
    assert off.player == RESPONDER
    assert len(off.roots) == 1 and all(off.roots[0] in m for m in off.maps)
    bet = int(off.roots[0].rstrip(",").split(",")[-1])  # one betting, after every deal
    assert set(compiled_off.game.tree.action[compiled_off.roots].tolist()) == {bet}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rpat_has_the_compiled_stacks_exploitability(both, seed):
    """Player 1's best response to the responder's RPAT strategy: the same value in both."""
    compiled_off, off = both
    blueprint = random_behavioural(compiled_off.abstract, seed)
    theirs = evaluate.evaluate_profile(
        compiled_off.game, compiled.rpat_profile(compiled_off, blueprint)
    )
    arrays = _range_arrays(off, compiled_off, blueprint)
    ours = range_walker.RangeWalker(off.game).evaluate(off_tree.rpat_strategy(off, arrays))
    np.testing.assert_allclose(
        ours.best_response_values[BETTOR], theirs.best_response_values[BETTOR], atol=1e-9
    )


def test_lifting_keeps_the_blueprint_outside_the_off_tree_subtree(both):
    """Without the off-tree bet (its probability 0 everywhere) the lifted blueprint is worth
    what the blueprint is worth in the abstraction."""
    compiled_off, off = both
    blueprint = random_behavioural(compiled_off.abstract, 3)
    arrays = _range_arrays(off, compiled_off, blueprint)
    lifted = range_walker.RangeWalker(off.game).evaluate(off_tree.lift(off, arrays))
    plain = range_walker.RangeWalker(off.abstract).evaluate(arrays)
    assert lifted.on_policy_values[0] == pytest.approx(plain.on_policy_values[0], abs=1e-10)


@pytest.mark.parametrize(
    "which, weights, message",
    [
        ("game", (0.5, 0.6), "sum to 1"),
        ("abstract", (P, 1 - P), "no action outside the abstraction"),
    ],
)
def test_bad_weights_and_layouts_without_an_off_tree_action_are_refused(
    both, which, weights, message
):
    _, off = both
    with pytest.raises(ValueError, match=message):
        off_tree.OffTree.find(
            getattr(off, which),
            off.abstract,
            replacements=_replacements,
            weights=weights,
            translate=WITH_BET.translate,
        )


def test_rpat_with_suit_orbits_is_rpat_per_hand():
    """One entry per suit orbit (`suits=True`) against one per hand: the same CFR+ blueprint
    (suit-symmetric), the same RPAT exploitability."""
    got = []
    for suits in (False, True):
        abstract = range_tree.RangeTree(structure.detect(GAME, actions=ABSTRACTION), suits=suits)
        game = range_tree.RangeTree(structure.detect(GAME, actions=WITH_BET), suits=suits)
        solver = range_cfr.RangeCFRSolver(abstract, cfr_rules.CFR_PLUS)
        for _ in range(30):
            solver.evaluate_and_update_policy()
        off = off_tree.OffTree.find(
            game,
            abstract,
            replacements=_replacements,
            weights=(P, 1 - P),
            translate=WITH_BET.translate,
        )
        blueprint = abstract.contract(solver.average_strategy())
        ev = range_walker.RangeWalker(game).evaluate(off_tree.rpat_strategy(off, blueprint))
        got.append(ev.best_response_values[BETTOR])
    assert got[1] == pytest.approx(got[0], abs=1e-9)
