"""No-limit `universal_poker` with every bet size (`bettingAbstraction=fullgame`) restricted to an
action abstraction (`games.poker_actions.PotFractionAbstraction`) on the range layout.

The reference is the compiled game restricted by the same filter (`walk.game_tree(game,
actions=...)`) and the pack's sequence-form evaluation and CFR, independent of the range layout:
the games of the depth-limited paper's Section 6.1 (an abstraction of 0.5x and 1x pot bets and
all-in, and the same with an off-tree 0.75x bet at the start)."""

import functools

import numpy as np
import pytest
from helpers import profile_rows, random_behavioural

from ospiel_ext import evaluate, walk
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr_rules, cfr_variants
from ospiel_ext.algorithms.poker import (
    public_tree,
    range_cfr,
    range_form,
    range_policy,
    range_tree,
    range_walker,
    structure,
)
from ospiel_ext.algorithms.poker.range_numbering import SequenceIndex
from ospiel_ext.games import poker_actions

ONE_CARD = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=100 50,firstPlayer=2 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=1000 1000,"
    "bettingAbstraction=fullgame)"
)
TWO_CARDS = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=2 1,firstPlayer=2 1,"
    "numSuits=1,numRanks=6,numHoleCards=2,numBoardCards=0 2,stack=12 12,"
    "bettingAbstraction=fullgame)"
)
ABSTRACTION = poker_actions.PotFractionAbstraction((0.5, 1.0))
WITH_OFF_TREE = poker_actions.PotFractionAbstraction(
    (0.5, 1.0), extra=poker_actions.first_bet_extra(1, {"0.75p": 0.75})
)


@functools.cache
def _explicit(game, actions):
    """The compiled game restricted by `actions` (kept for the module: compiled once)."""
    return sf_lib.TreeSequenceForm(walk.game_tree(game, actions=actions))


def _forms(game, actions):
    """The restricted compiled game's sequence form, the restricted public-tree form, its
    range layout and the index between them (one-card games: the public tree numbers them)."""
    explicit = _explicit(game, actions)
    ps = structure.detect(game, actions=actions)
    public = range_form.PublicTreeSequenceForm(public_tree.PublicTree(ps))
    tree = range_tree.RangeTree(ps)
    return explicit, public, tree, SequenceIndex(public.public_tree, tree)


@pytest.mark.parametrize(
    "game, actions",
    [(ONE_CARD, ABSTRACTION), (ONE_CARD, WITH_OFF_TREE), (TWO_CARDS, WITH_OFF_TREE)],
    ids=["one-card", "one-card-off-tree", "two-cards-off-tree"],
)
def test_the_restricted_layout_is_the_restricted_compiled_game(game, actions):
    """A random profile's values and best responses equal to 1e-10."""
    explicit = _explicit(game, actions)
    tree = range_tree.RangeTree(structure.detect(game, actions=actions))
    for seed in (0, 1):
        profile = random_behavioural(explicit, seed)
        theirs = evaluate.evaluate_profile(explicit, profile)
        arrays = range_policy.arrays_from_tabular(tree, profile_rows(explicit, profile))
        ours = range_walker.RangeWalker(tree).evaluate(tree.contract(arrays))
        np.testing.assert_allclose(ours.on_policy_values, theirs.on_policy_values, atol=1e-10)
        np.testing.assert_allclose(
            ours.best_response_values, theirs.best_response_values, atol=1e-10
        )


def test_the_off_tree_bet_is_at_the_first_decision_only():
    """The 0.75x bet adds one action at the root of the betting, nowhere else."""
    plain = structure.detect(ONE_CARD, actions=ABSTRACTION).betting
    off = structure.detect(ONE_CARD, actions=WITH_OFF_TREE).betting
    assert len(off.actions) == len(plain.actions) + 1
    extra = sorted(set(off.actions) - set(plain.actions))
    assert len(extra) == 1
    shared = {a: c for a, c in zip(off.actions, off.children) if a not in extra}
    for a, child in zip(plain.actions, plain.children):
        assert _keys(child) == _keys(shared[a])


def _keys(node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append((n.key, n.actions))
        stack.extend(n.children)
    return sorted(out)


@pytest.mark.parametrize("variant", ["cfr_plus", "dcfr"])
def test_range_cfr_on_the_restricted_layout_runs_the_compiled_games_iterates(variant):
    config = cfr_rules.with_tie_rule(cfr_rules.PRESETS[variant])
    explicit, _, tree, index = _forms(ONE_CARD, WITH_OFF_TREE)
    reference = cfr_variants.CFRVariantSolver(explicit, config)
    ours = range_cfr.RangeCFRSolver(tree, config)
    for _ in range(10):
        reference.evaluate_and_update_policy()
        ours.evaluate_and_update_policy()
    for got, want in zip(
        index.behavioural(ours.average_strategy()), reference.average_behavioural()
    ):
        np.testing.assert_allclose(got, want, atol=1e-9)


def test_an_abstraction_that_depends_on_the_cards_is_refused():
    def peeks(state):
        legal = state.legal_actions()
        cards = str(state).count("2c")  # keeps the fold only with one private card
        return legal[:1] if cards else legal[:2]

    with pytest.raises(ValueError, match=r"kept actions at betting .* depend on the signals"):
        structure.detect(ONE_CARD, actions=peeks)


def test_an_abstraction_that_keeps_an_illegal_action_is_refused():
    def illegal(state):
        return [*state.legal_actions()[:2], 10**6]

    with pytest.raises(ValueError, match="not a non-empty subset of the legal actions"):
        structure.detect(ONE_CARD, actions=illegal)


def test_a_state_outside_the_abstraction_is_named():
    """A policy row at a betting the abstraction leaves out: a ValueError, not a KeyError."""
    explicit = _explicit(ONE_CARD, WITH_OFF_TREE)
    tree = range_tree.RangeTree(structure.detect(ONE_CARD, actions=ABSTRACTION))
    rows = profile_rows(explicit, random_behavioural(explicit, 0))
    with pytest.raises(ValueError, match="not in the range layout's betting tree"):
        range_policy.arrays_from_tabular(tree, rows)
