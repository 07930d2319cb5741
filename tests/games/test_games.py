"""Games of the papers: pyspiel API, sizes from the papers, known equilibria, bad parameters."""

import itertools

import numpy as np
import pyspiel
import pytest
from conftest import LEDUC_VALUE, check_game

from ospiel_ext import lp, sequence_form
from ospiel_ext.games.rhode_island_holdem import hand_value
from ospiel_ext.tree import GameTree

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
    stats = GameTree.from_game(game).stats()
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
        GameTree.from_game(game)
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
    tree = GameTree.from_game("three_state_matching_pennies")
    nodes, offsets = tree.infoset_nodes
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
    tree = GameTree.from_game(f"repeated_matching_pennies(rounds={rounds})")
    assert tree.stats()["terminals"] == 2 ** (2 * rounds)  # N = 2^(2T), Section 4
    assert _lp(f"repeated_matching_pennies(rounds={rounds})").value == pytest.approx(0.0)


def test_rhode_island_hand_ranking():
    def card(rank, suit):
        return rank * 4 + suit

    straight_flush = (card(2, 0), card(3, 0), card(4, 0))
    trips = (card(12, 0), card(12, 1), card(12, 2))
    straight = (card(10, 0), card(11, 1), card(12, 2))
    flush = (card(0, 3), card(5, 3), card(12, 3))
    pair = (card(12, 0), card(12, 1), card(11, 2))
    high = (card(12, 0), card(10, 1), card(3, 2))
    order = [straight_flush, trips, straight, flush, pair, high]
    values = [hand_value(h, 4) for h in order]
    assert values == sorted(values, reverse=True) and len(set(values)) == 6
    assert hand_value((card(5, 0), card(5, 1), card(9, 2)), 4) > hand_value(
        (card(5, 2), card(5, 3), card(8, 0)), 4
    )  # kicker breaks the tie
    assert hand_value((card(0, 0), card(1, 1), card(12, 2)), 4)[0] == 0  # no wrap-around


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
