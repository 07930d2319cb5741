"""GameTree: the walk matches pyspiel node for node; assumptions are checked."""

import numpy as np
import pyspiel
import pytest

from ospiel_ext import tree as tree_lib
from ospiel_ext.tree import CHANCE, GameTooLargeError, GameTree, TreeBuilder


def _count(state, counts):
    """Independent recursive count of histories by kind."""
    counts["histories"] += 1
    if state.is_terminal():
        counts["terminals"] += 1
        return
    counts["chance_nodes" if state.is_chance_node() else "decision_nodes"] += 1
    for a in state.legal_actions():
        _count(state.child(a), counts)


def test_counts_match_recursive_walk(small_game):
    tree = GameTree.from_game(small_game)
    counts = dict.fromkeys(["histories", "terminals", "chance_nodes", "decision_nodes"], 0)
    _count(small_game.new_initial_state(), counts)
    stats = tree.stats()
    for key, value in counts.items():
        assert stats[key] == value, key


def test_nodes_replay_to_the_same_states(small_game):
    tree = GameTree.from_game(small_game)
    rng = np.random.default_rng(0)
    for node in rng.choice(tree.num_nodes, size=min(60, tree.num_nodes), replace=False):
        state = tree.state(int(node))
        if tree.is_leaf[node]:
            assert state.is_terminal()
            assert tree.lo[node] == tree.hi[node] == state.returns()[0]
        elif tree.player[node] == CHANCE:
            outcomes = state.chance_outcomes()
            kids = tree.children(int(node))
            assert [a for a, _ in outcomes] == list(tree.action[kids])
            np.testing.assert_allclose([p for _, p in outcomes], tree.chance_prob[kids])
        else:
            p = state.current_player()
            assert tree.player[node] == p
            assert tree.infoset_key[tree.infoset[node]] == state.information_state_string(p)
            assert list(tree.action[tree.children(int(node))]) == state.legal_actions()
        assert np.all(tree.parent[tree.children(int(node))] == node)


def test_children_follow_parents(small_game):
    tree = GameTree.from_game(small_game)
    assert np.all(tree.parent[1:] < np.arange(1, tree.num_nodes))
    assert np.all(tree.depth[1:] == tree.depth[tree.parent[1:]] + 1)


@pytest.mark.parametrize(
    "game, message",
    [
        ("kuhn_poker(players=3)", "3 players"),
        ("matrix_pd", "not zero-sum"),
        ("liars_dice_ir", "perfect recall"),
        ("no_such_game", "unknown game"),
        ("leduc_poker(no_such_param=1)", "Unknown parameter"),
    ],
)
def test_bad_games_are_refused_with_a_reason(game, message):
    with pytest.raises(ValueError, match=message):
        GameTree.from_game(game)


def test_max_nodes_guard():
    with pytest.raises(GameTooLargeError, match="max_nodes=100"):
        GameTree.from_game("leduc_poker", max_nodes=100)
    assert GameTree.from_game("kuhn_poker", max_nodes=58).num_nodes == 58


def test_simultaneous_game_is_converted():
    tree = GameTree.from_game("matrix_mp")
    assert tree.stats()["terminals"] == 4
    assert "turn_based_simultaneous_game" in tree.name


def test_builder_grows_a_trunk_with_bounds():
    b = TreeBuilder(name="trunk")
    root = b.add_root()
    first = b.expand_decision(root, 0, "p0", [0, 1])
    b.set_leaf(first, -1.0, 2.0)
    second = b.expand_chance(first + 1, [0, 1], [0.25, 0.75])
    b.set_leaf(second, 3.0, 3.0)
    b.set_leaf(second + 1, 0.0, 1.0)
    tree = b.freeze()
    assert tree.num_nodes == 5
    assert list(tree.lo[tree.is_leaf]) == [-1.0, 3.0, 0.0]
    assert list(tree.hi[tree.is_leaf]) == [2.0, 3.0, 1.0]
    with pytest.raises(ValueError, match="already expanded"):
        b.expand_chance(first + 1, [0], [1.0])
    with pytest.raises(ValueError, match="sum to"):
        b.expand_chance(second, [0, 1], [0.5, 0.6])
    with pytest.raises(ValueError, match="lo=2"):
        b.set_leaf(second, 2.0, 1.0)


def test_load_accepts_games_and_strings():
    game = pyspiel.load_game("kuhn_poker")
    assert tree_lib.load(game) is game
    assert str(tree_lib.load("kuhn_poker")) == str(game)
