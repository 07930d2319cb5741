"""Games of the papers: pyspiel API, sizes from the papers, known equilibria, bad parameters."""

import collections
import itertools

import numpy as np
import pyspiel
import pytest
from helpers import LEDUC_VALUE, check_game

from ospiel_ext import lp, sequence_form, walk
from ospiel_ext.poker_hands import three_card_value

SMALL_INSTANCES = [
    "sequential_goofspiel(num_cards=3)",
    "sequential_goofspiel(num_cards=3,info=perfect)",
    "sequential_goofspiel(num_cards=3,points_order=random)",
    "sequential_goofspiel(num_cards=3,points_order=ascending)",
    "limit_leduc_poker(num_ranks=3,max_raises=2)",
    "limit_leduc_poker(num_ranks=2,max_raises=1)",
    "search_game(rows=2,cols=2,time_limit=3)",
    "rhode_island_holdem(num_ranks=2,num_suits=2,max_raises=1)",
    "rps_plus",
    "forfeit_matching_pennies",
    "sequential_rps",
    "three_state_matching_pennies",
    "bonus_three_state_matching_pennies",
    "repeated_matching_pennies(rounds=3)",
]


@pytest.mark.parametrize("game", SMALL_INSTANCES)
def test_game_api_tree_and_bounds(game):
    check_game(game)


@pytest.mark.parametrize(
    "game, nodes, infosets",
    [
        # Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box
        # Extensive-Form Games", AAAI 2021, Table 1
        ("sequential_goofspiel(num_cards=4)", 2229, 738),
        ("sequential_goofspiel(num_cards=4,info=perfect)", 2229, 1653),
        ("sequential_goofspiel(num_cards=3,points_order=random)", 1066, 426),
    ],
)
def test_sizes_match_the_certificate_paper(game, nodes, infosets):
    stats = walk.game_tree(game).stats()
    assert stats["histories"] == nodes
    assert stats["infosets_0"] + stats["infosets_1"] == infosets


def test_three_rank_limit_leduc_has_openspiel_leducs_value():
    # Same deck and betting as OpenSpiel's leduc_poker (fold when not facing a bet is
    # dominated, so the value is unchanged).
    value = lp.solve(sequence_form.for_game("limit_leduc_poker(num_ranks=3,max_raises=2)")).value
    assert value == pytest.approx(LEDUC_VALUE, abs=1e-6)


def test_limit_leduc_deal_probabilities():
    state = pyspiel.load_game("limit_leduc_poker(num_ranks=4)").new_initial_state()
    deal = dict(state.chance_outcomes())
    # two cards per rank, 8 cards: P(ranks (a, b)) = 2/8 * 2/7 if a != b else 2/8 * 1/7
    assert deal[0 * 4 + 1] == pytest.approx(2 / 8 * 2 / 7)
    assert deal[2 * 4 + 2] == pytest.approx(2 / 8 * 1 / 7)
    state.apply_action(2 * 4 + 2)
    public = dict(state.chance_outcomes())
    assert 2 not in public and public[0] == pytest.approx(2 / 6)


def test_unlimited_leduc_is_playable_but_not_compiled():
    game = pyspiel.load_game("limit_leduc_poker(num_ranks=3,max_raises=-1)")
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
    with pytest.raises(ValueError, match="infinite"):
        walk.game_tree(game)
    state = game.new_initial_state()
    state.apply_action(0)
    for _ in range(50):  # raising forever stays legal
        assert 2 in state.legal_actions()
        state.apply_action(2)


def _lp(game):
    return lp.solve(sequence_form.for_game(game))


@pytest.mark.parametrize(
    "game, value, strategy0, strategy1",
    [
        ("rps_plus", 0.0, [0.4, 0.4, 0.2], [0.4, 0.4, 0.2]),
        ("forfeit_matching_pennies", 0.5, [0.0, 0.5, 0.5], [0.5, 0.5]),
        ("sequential_rps", 0.0, [1 / 3] * 3, [1 / 3] * 3),
    ],
)
def test_example_equilibria(game, value, strategy0, strategy1):
    # The equilibria are unique (papers), so the LP must find exactly them.
    solution = _lp(game)
    assert solution.value == pytest.approx(value, abs=1e-9)
    np.testing.assert_allclose(solution.behavioural[0][1:], strategy0, atol=1e-9)
    np.testing.assert_allclose(solution.behavioural[1][1:], strategy1, atol=1e-9)


def test_three_state_matching_pennies_information_structure():
    tree = walk.game_tree("three_state_matching_pennies")
    _nodes, offsets = tree.infoset_nodes
    sizes = {
        tree.infoset_key[i]: int(offsets[i + 1] - offsets[i]) for i in range(tree.num_infosets)
    }
    # player 0: {1}, {2, 3}; player 1 (after each of player 0's 2 actions): {1, 2}, {3}
    assert sizes == {
        "p0 cell:0 own:": 1,
        "p0 cell:1 own:": 2,
        "p1 cell:0 own:": 4,
        "p1 cell:1 own:": 2,
    }


def test_bonus_three_state_matching_pennies_has_the_unique_equilibrium_of_observation_1():
    # Kubíček, Lisý & Sandholm 2025, App. A, Observation 1: value 7/9; player 0 plays H with
    # 2/3 in {1} and 1/2 in {2, 3}; player 1 plays H with 1/3 in {1, 2} and 2/3 in {3}. The
    # equilibrium is unique, so the LP of either player finds it.
    sf = sequence_form.for_game("bonus_three_state_matching_pennies")
    expected = {
        "p0 cell:0 own:": [2 / 3, 1 / 3],
        "p0 cell:1 own:": [1 / 2, 1 / 2],
        "p1 cell:0 own:": [1 / 3, 2 / 3],
        "p1 cell:1 own:": [2 / 3, 1 / 3],
    }
    for player in (0, 1):
        solution = lp.solve(sf, player=player)
        assert solution.value == pytest.approx(7 / 9, abs=1e-9)
        for p, tp in enumerate(sf.treeplexes):
            for i, key in enumerate(sf.infoset_keys(p)):
                s = tp.seq_start[i]
                got = solution.behavioural[p][s : s + 2]
                np.testing.assert_allclose(got, expected[key], atol=1e-9)
    game, payoff = pyspiel.load_game("bonus_three_state_matching_pennies"), {}
    for hidden, a0, a1 in itertools.product((0, 1, 2), (0, 1), (0, 1)):
        state = game.new_initial_state()
        for a in (hidden, a0, a1):
            state.apply_action(a)
        payoff[hidden, "HT"[a0] + "HT"[a1]] = state.returns()[0]
    # state 1: matching pennies plus one except (T, H); states 2, 3: matching pennies
    assert [payoff[0, m] for m in ("HH", "HT", "TH", "TT")] == [2, 1, 0, 2]
    assert [payoff[1, m] for m in ("HH", "HT", "TH", "TT")] == [1, 0, 0, 1]


@pytest.mark.parametrize("rounds", [1, 2, 3])
def test_repeated_matching_pennies(rounds):
    tree = walk.game_tree(f"repeated_matching_pennies(rounds={rounds})")
    assert tree.stats()["terminals"] == 2 ** (2 * rounds)  # N = 2^(2T), Section 4
    assert _lp(f"repeated_matching_pennies(rounds={rounds})").value == pytest.approx(0.0)


_RANK_CHARS = "23456789TJQKA"


def _ri_hand(text: str, num_suits: int = 4) -> tuple[int, int, int]:
    """'As 2c 3d' -> card ids of rhode_island_holdem (rank * num_suits + suit; ranks 2..A are
    0..12, suits c d h s are 0..3)."""
    cards = [_RANK_CHARS.index(t[0]) * num_suits + "cdhs".index(t[1]) for t in text.split()]
    return cards[0], cards[1], cards[2]


# Rhode Island hands, best first, written from the rules (straight flush > three of a kind >
# straight > flush > pair > high card; an ace makes Queen-King-Ace and Ace-two-three, whose
# high card is the three). Hands on one line are equal (suits never break ties).
RI_ORDER_ACE_LOW = [
    ["Ks As Qs", "Qh Kh Ah"],  # straight flushes: the highest, ace high
    ["Ks Qs Js"],
    ["4c 3c 2c"],
    ["3d 2d Ad", "Ah 2h 3h"],  # the lowest straight flush: A-2-3, high card the three
    ["Ac Ad Ah"],  # three of a kind
    ["Kc Kd Ks"],
    ["2c 2d 2h", "2s 2d 2c"],
    ["Ac Kd Qh", "Qc Kc Ad"],  # straights
    ["Kc Qd Jh"],
    ["4c 3d 2h"],
    ["3c 2d Ah", "Ac 2h 3s"],  # the lowest straight
    ["Ah Kh Jh", "Jc Kc Ac"],  # flushes: highest card, then the second, then the third
    ["Ah Kh Th"],
    ["Ah Qh Jh"],
    ["Ah 4h 2h"],  # A-4-2 suited: no straight
    ["Kh Qh Th"],
    ["5c 3c 2c"],
    ["Ac Ad Kh"],  # pairs: the pair's rank, then the kicker
    ["Ac Ad 2h"],
    ["Kc Kd Ah"],
    ["Kc Kd Qh"],
    ["2c 2d Ah"],
    ["2c 2d 3h", "2h 2s 3c"],
    ["Ac Kd Jh", "Ad Kc Js"],  # high card: highest, second, third
    ["Ac Kd Th"],
    ["Ac Qd Jh"],
    ["Ac 4d 2h"],
    ["Kc Qd Th"],
    ["5c 3d 2h"],  # the lowest hand
]


def _check_order(order: list[list[str]], num_suits: int, num_ranks: int, ace_low: bool):
    values = [
        [three_card_value(_ri_hand(h, num_suits), num_suits, num_ranks, ace_low) for h in line]
        for line in order
    ]
    for line, vs in zip(order, values):
        assert len(set(vs)) == 1, line  # equal hands
    for (a, va), (b, vb) in itertools.pairwise(zip(order, values)):
        assert va[0] > vb[0], (a, b)


def test_rhode_island_hand_ranking_ace_low():
    _check_order(RI_ORDER_ACE_LOW, 4, 13, ace_low=True)


def test_rhode_island_hand_ranking_ace_high_only():
    """With ace_low=false, Ace-two-three is no straight: suited it is an ace-high flush (between
    A-K-J and A-4-2... below A-Q-J), off-suit an ace-high high card; the rest is unchanged."""
    order = [line for line in RI_ORDER_ACE_LOW if line[0] not in ("3d 2d Ad", "3c 2d Ah")]
    at = order.index(["Ah 4h 2h"]) + 1
    order.insert(at, ["Ah 3h 2h", "2d 3d Ad"])  # A-3-2 flush, below A-4-2
    at = order.index(["Ac 4d 2h"]) + 1
    order.insert(at, ["Ac 3d 2h", "3c 2d Ah"])  # A-3-2 high card, below A-4-2
    _check_order(order, 4, 13, ace_low=False)


def test_rhode_island_ace_is_the_top_rank_of_a_small_deck():
    """num_ranks=4 (ranks 2 3 4 5; the 5 is the ace): {5, 2, 3} is the lowest straight with
    ace_low and a high card without; with 3 ranks {2, 3, 4} reads as 2-3-4 (high card 4, the
    higher reading) either way; with 2 ranks there are no straights."""
    order4 = [["5c 4d 3h"], ["4c 3d 2h"], ["5c 2d 3h", "2s 3c 5d"], ["5c 4c 2c"], ["5c 5d 4h"]]
    _check_order(order4, 4, 4, ace_low=True)
    assert three_card_value(_ri_hand("5c 2d 3h"), 4, 4, ace_low=False) == (0, 3, 1, 0)
    for ace_low in (True, False):
        assert three_card_value(_ri_hand("4c 3d 2h"), 4, 3, ace_low) == (3, 2)
        assert three_card_value(_ri_hand("4c 3c 2c"), 4, 3, ace_low) == (5, 2)
        assert three_card_value(_ri_hand("3c 3d 2h"), 4, 2, ace_low) == (1, 1, 0)


@pytest.mark.parametrize("ace_low, straight_flushes", [(True, 48), (False, 44)])
def test_rhode_island_hand_probabilities_of_gilpins_table(ace_low, straight_flushes):
    """Gilpin's description of the Rhode Island Hold'em GameShrink solved ("Game Shrink
    Interactive", http://www.cs.cmu.edu/~gilpin/gsi.html) lists the probability of each hand
    over the 22,100 three-card hands: straight flush 0.00217, three of a kind 0.00235, straight
    0.03258, flush 0.04959, pair 0.16941, high card 0.74389. Only the ace-low rule gives them
    (12 straights per suit pattern; ace high only: 11, straight flush 44 / 22,100 = 0.00199)."""
    counts = collections.Counter(
        three_card_value(h, 4, 13, ace_low)[0] for h in itertools.combinations(range(52), 3)
    )
    assert sum(counts.values()) == 22_100 and counts[5] == straight_flushes
    published = {5: 0.00217, 4: 0.00235, 3: 0.03258, 2: 0.04959, 1: 0.16941, 0: 0.74389}
    matches = all(abs(counts[c] / 22_100 - p) < 5e-6 for c, p in published.items())
    assert matches == ace_low


@pytest.mark.parametrize("ace_low", [True, False])
def test_rhode_island_showdown_follows_ace_low(ace_low):
    """The game's own showdown, both players checking down: player 0's ace on a 2-3 board is
    the A-2-3 straight with ace_low (beats player 1's pair of twos), ace-high otherwise (loses
    to it)."""
    game = pyspiel.load_game(f"rhode_island_holdem(ace_low={str(ace_low).lower()})")
    state = game.new_initial_state()
    for card in _ri_hand("Ac 2d 2h") + _ri_hand("3s 4s 5s")[:1]:  # p0, p1, flop, turn
        state.apply_action(card)
        while not (state.is_chance_node() or state.is_terminal()):
            state.apply_action(1)  # check
    assert state.returns()[0] == (5.0 if ace_low else -5.0)  # the ante


def test_full_rhode_island_loads_and_plays():
    game = pyspiel.load_game("rhode_island_holdem")
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
    state = game.new_initial_state()
    assert len(state.chance_outcomes()) == 52


@pytest.mark.parametrize(
    "game, message",
    [
        ("sequential_goofspiel(num_cards=0)", "num_cards must be >= 1"),
        ("sequential_goofspiel(info=foo)", "info must be"),
        ("sequential_goofspiel(points_order=sideways)", "points_order must be"),
        ("limit_leduc_poker(max_raises=-2)", "max_raises must be >= -1"),
        ("limit_leduc_poker(num_ranks=0)", "num_ranks must be >= 1"),
        ("search_game(time_limit=0)", "time_limit must be >= 1"),
        ("rhode_island_holdem(num_ranks=1,num_suits=2)", "at least 4 cards"),
        ("repeated_matching_pennies(rounds=0)", "rounds must be >= 1"),
    ],
)
def test_bad_parameters(game, message):
    with pytest.raises(ValueError, match=message):
        pyspiel.load_game(game)
