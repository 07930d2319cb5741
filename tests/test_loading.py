"""Loading games, and Knuth's estimate of their size (Knuth 1975, "Estimating the efficiency of
backtrack programs") against exact counts."""

import math
import re
import subprocess
import sys

import pyspiel
import pytest

from ospiel_ext import loading, walk
from ospiel_ext.loading import estimate_num_nodes


def test_load_accepts_games_and_strings():
    game = pyspiel.load_game("kuhn_poker")
    assert loading.load(game) is game
    assert str(loading.load("kuhn_poker")) == str(game)


@pytest.mark.parametrize(
    "params, message",
    [
        ("numSuits=5", "numSuits=5: universal_poker allows 1 to 4"),
        ("numRanks=0", "numRanks=0: universal_poker allows 1 to 13"),
        ("numHoleCards=4,numRanks=13", "numHoleCards=4: universal_poker allows 1 to 3"),
        ("numPlayers=1", "numPlayers=1: universal_poker allows 2 to 10"),
        ("numRounds=3", "one count for each of the 3 rounds"),
        ("numRounds=2,numBoardCards=0 8,numRanks=13", "at most 7 cards in all"),
        ("numRanks=2,numSuits=1", "it deals 3 cards from a deck of 2"),
        (
            "numHoleCards=2,numBoardCards=0 3,numRanks=2,numSuits=3",
            "deals 7 cards from a deck of 6",
        ),
        ("blind=100 50,stack=20 20", "a blind above its stack"),
        ("stack=100 100", "every blind is its player's whole stack"),
        ("numPlayers=3", "a stack and a blind for each of the 3 players"),
        ("firstPlayer=3 1", "firstPlayer='3 1': players are 1 to 2"),
        ("betting=limit,raiseSize=100 100,numRounds=3,numBoardCards=0 1 1", "raiseSize needs"),
    ],
)
def test_universal_poker_definitions_the_acpc_parser_rejects_are_refused(params, message):
    """pyspiel crashes on them (a segmentation fault; `stack=100 100` loops for ever at the
    first decision), so they are refused before it sees them."""
    with pytest.raises(ValueError, match=re.escape(message)):
        loading.load(f"universal_poker({params})")


@pytest.mark.parametrize(
    "params",
    [
        "numRanks=3,numSuits=1,numBoardCards=0 1",  # every card dealt
        "numHoleCards=3,numRanks=13,numSuits=4,numBoardCards=0 4",
        "stack=100 1200",  # one player all-in with its blind, the other acts
        "betting=limit,blind=100 50,stack=20 20,raiseSize=100 100,maxRaises=1 1",  # no stacks
        "blind=100 50,stack=100 100,numPlayers=2,firstPlayer=2 1",
    ],
)
def test_universal_poker_definitions_within_the_acpc_rules_load(params):
    game = loading.load(f"universal_poker({params})")
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert state.legal_actions()


def test_a_malformed_universal_poker_string_is_refused_as_any_other():
    with pytest.raises(ValueError, match=r"cannot load game .*: Missing closing bracket"):
        loading.load("universal_poker(numRanks=")


def test_pyspiel_crashes_on_a_deck_too_small():
    """Why the definitions above are refused: pyspiel does not raise, the process dies."""
    code = "import pyspiel; pyspiel.load_game('universal_poker(numRanks=2,numSuits=1)')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode < 0 and "too many hole and board cards" in proc.stderr


def test_knuth_estimate_is_exact_on_a_uniform_tree():
    estimate = estimate_num_nodes(pyspiel.load_game("matrix_mp"))  # 1 + 2 + 4 histories
    assert estimate.nodes == 7 and estimate.std_error == 0 and estimate.complete


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_knuth_estimate_is_unbiased(game):
    # Knuth 1975: the mean of the playout estimates converges to the number of histories.
    true = walk.game_tree(game).num_nodes
    estimate = estimate_num_nodes(game, playouts=4000, seed=11)
    assert abs(estimate.nodes - true) < 4 * estimate.std_error
    assert math.log10(estimate.nodes) == pytest.approx(estimate.log10_nodes)


def test_knuth_estimate_of_a_cut_playout_is_a_lower_estimate():
    estimate = estimate_num_nodes("leduc_poker", max_steps=2)  # root and the first deal only
    assert estimate.nodes == 1 + 6 + 6 * 5 and not estimate.complete
    assert "lower estimate" in estimate.describe()
