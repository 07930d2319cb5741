"""Pot-fraction action abstractions of no-limit universal_poker, against bet sizes worked out
by hand from the no-limit rules (a bet of f x the pot after calling; raise-to amounts)."""

import pyspiel
import pytest

from ospiel_ext import walk
from ospiel_ext.games import poker_actions as pa

# Antes 2 each (pot 4), stacks 12, one private card, one public card, 3 ranks x 2 suits.
NO_LIMIT = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=2 2,firstPlayer=1 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=12 12,"
    "bettingAbstraction=fullgame)"
)


def _dealt():
    state = pyspiel.load_game(NO_LIMIT).new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    return state


def test_labels_follow_the_pot_fractions():
    state = _dealt()  # pot 4, nothing to call: a bet of f x 4 raises to 2 + 4f
    with_bet = pa.PotFractionAbstraction(extra=pa.first_bet_extra(0, {"0.75p": 0.75}))
    assert with_bet.labels(state) == {"call": 1, "0.5p": 4, "0.75p": 5, "1p": 6, "all-in": 12}
    # After a raise to 5: 3 to call, pot 10 after calling; 0.5p raises to 5 + 5 = 10, 1p to
    # 15 > 12 (dropped). After a raise to 4: 0.5p to 4 + 4 = 8, 1p to 12 = all-in (labelled
    # all-in). After 6: 0.5p to 6 + 6 = 12 = all-in.
    assert with_bet.labels(state.child(5)) == {"fold": 0, "call": 1, "all-in": 12, "0.5p": 10}
    assert with_bet.labels(state.child(4)) == {"fold": 0, "call": 1, "all-in": 12, "0.5p": 8}
    assert with_bet.labels(state.child(6)) == {"fold": 0, "call": 1, "all-in": 12}
    # The extra bet is the first player's first decision only.
    assert "0.75p" not in with_bet.labels(state.child(1))


def test_translate_matches_labels():
    ab = pa.PotFractionAbstraction()
    state = _dealt()
    assert ab.translate(state.child(5), 10, state.child(4)) == 8  # 0.5p -> 0.5p
    assert ab.translate(state.child(5), 12, state.child(6)) == 12  # all-in -> all-in
    assert ab.translate(state.child(5), 10, state.child(6)) is None  # no 0.5p after 6
    assert ab.translate(state.child(5), 9, state.child(4)) is None  # 9 is not kept


def test_abstraction_compiles_a_smaller_game_with_the_games_keys():
    game = pyspiel.load_game(NO_LIMIT)
    tree = walk.game_tree(game, actions=pa.PotFractionAbstraction())
    full = walk.game_tree(game)
    assert tree.num_nodes < full.num_nodes
    assert set(tree.infoset_key) <= set(full.infoset_key)
    assert max(map(len, tree.infoset_legal_actions)) <= 5


@pytest.mark.parametrize("bad", [lambda s: [], lambda s: [99]])
def test_filter_that_is_not_a_subset_of_the_legal_actions_is_refused(bad):
    with pytest.raises(ValueError, match="action abstraction keeps"):
        walk.game_tree("kuhn_poker", actions=bad)
