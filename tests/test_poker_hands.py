"""poker_hands: the standard hand order, checked against poker rules and against the showdowns
of OpenSpiel's universal_poker (the ACPC evaluator)."""

import itertools

import numpy as np
import pytest

from ospiel_ext import poker_hands
from ospiel_ext.algorithms.gameshrink import descriptions

RANKS = "23456789TJQKA"
SUITS = "cdhs"
HOLDEM = (
    "universal_poker(betting=limit,numPlayers=2,numRounds=4,blind=1 2,raiseSize=2 2 4 4,"
    "firstPlayer=2 1 1 1,maxRaises=3 4 4 4,numSuits=4,numRanks=13,numHoleCards=2,"
    "numBoardCards=0 3 1 1)"
)


def _cards(hand: str) -> list[int]:
    return [RANKS.index(c[0]) * 4 + SUITS.index(c[1]) for c in hand.split()]


def _value(hand: str) -> int:
    return int(poker_hands.hand_values(np.array([_cards(hand)]), 13, 4)[0])


# Strictly increasing by the rules of poker (best five of seven cards).
ASCENDING = [
    "2c 3d 4h 5s 7c 8d 9h",  # nine high
    "2c 3d 4h 5s 7c 8d Kh",  # king high (with an ace this would be a wheel)
    "2c 2d 4h 5s 7c 8d 9h",  # pair of twos
    "2c 2d 4h 5s 7c 8d Kh",  # pair of twos, better kicker
    "3c 3d 4h 5s 7c 8d 9h",  # pair of threes
    "3c 3d 2h 2s 7c 8d 9h",  # threes and twos
    "3c 3d 2h 2s 7c 8d Th",  # ... ten kicker (8 8 would be a third pair, not a kicker)
    "4c 4d 2h 2s 3c 3d 9h",  # fours and threes, nine kicker (three pairs)
    "2c 2d 2h 5s 7c 8d 9h",  # trip twos
    "Ac 2d 3h 4s 5c 8d 9h",  # wheel
    "2c 3d 4h 5s 6c Jd Kh",  # six-high straight
    "9c Td Jh Qs Kc Ad 2h",  # ace-high straight
    "2c 3c 4c 5c 7c 8d 9h",  # seven-high flush
    "2c 2d 2h 5s 5c 8d 9h",  # twos full of fives
    "2c 2d 2h 5s 5c 8d 8h",  # twos full of eights (two pairs to choose from)
    "3c 3d 3h 2s 2c 8d 9h",  # threes full of twos
    "3c 3d 3h 4s 4c 4d 9h",  # fours full of threes (two trips)
    "2c 2d 2h 2s 5c 8d 9h",  # quad twos
    "Ac 2c 3c 4c 5c 8d 9h",  # steel wheel
    "Tc Jc Qc Kc Ac 8d 9h",  # royal flush
]


def test_hands_in_poker_order():
    values = [_value(h) for h in ASCENDING]
    assert all(a < b for a, b in itertools.pairwise(values))
    assert _value("2c 3d 4h 5s 7c 8d 9h") == _value("2d 3c 4s 5h 7d 8c 9s")  # suits never count
    assert _value("2c 2d 9h 9s Ac Kd 3h") == _value("2h 2s 9c 9d Ah Kc 4h")  # kicker is the A


def test_short_hands():
    two = poker_hands.hand_values(np.array([[0, 4], [0, 1], [8, 4]]), 13, 4)  # 2 3, 2 2, 4 3
    assert two[1] > two[2] > two[0]


@pytest.mark.parametrize(
    "game",
    [
        HOLDEM,
        HOLDEM.replace("numSuits=4,numRanks=13", "numSuits=2,numRanks=6"),
        "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=1 2,firstPlayer=2 1,"
        "numSuits=3,numRanks=5,numHoleCards=2,numBoardCards=0 3,stack=20 20)",
    ],
)
def test_outcomes_match_universal_poker_showdowns(game):
    """Random deals, checked down to the showdown: the sign of universal_poker's payoff (ACPC's
    hand evaluator) is the described outcome."""
    og = descriptions.describe(game)
    rng = np.random.default_rng(0)
    for _ in range(500):
        cards = rng.permutation(og.num_cards)[: og.num_slots]
        deal = np.concatenate([np.sort(cards[s : s + n]) for s, n in og.slots])
        state, round_ = og.game.new_initial_state(), 0
        for a in og.chance_actions(deal, 0):
            state.apply_action(a)
        while not state.is_terminal():
            if state.is_chance_node():
                round_ += 1
                for a in og.chance_actions(deal, round_):
                    state.apply_action(a)
            else:
                state.apply_action(1)  # check / call
        assert np.sign(state.returns()[0]) == og.outcome(deal[None])[0], deal
