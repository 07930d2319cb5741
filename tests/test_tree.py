"""GameTree: its arrays match pyspiel node for node, and its level passes match an independent
computation."""

import numpy as np
import pytest
from helpers import subtree_utility_range

from ospiel_ext import walk
from ospiel_ext.tree import CHANCE


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
    tree = walk.game_tree(small_game)
    counts = dict.fromkeys(["histories", "terminals", "chance_nodes", "decision_nodes"], 0)
    _count(small_game.new_initial_state(), counts)
    stats = tree.stats()
    for key, value in counts.items():
        assert stats[key] == value, key


def test_nodes_replay_to_the_same_states(small_game):
    tree = walk.game_tree(small_game)
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
        assert tree.node_at(state.history()) == node  # a state's node, found by its history


def test_a_history_the_tree_lacks_is_refused(small_game):
    tree = walk.game_tree(small_game)
    leaf = int(np.flatnonzero(tree.is_leaf)[0])
    with pytest.raises(ValueError, match="has no node for history"):
        tree.node_at([*tree.history(leaf), 0])


def test_flat_infoset_actions_are_each_infosets_legal_actions(small_game):
    tree = walk.game_tree(small_game)
    start, ids = tree.infoset_action_start, tree.infoset_action_ids
    for i, legal in enumerate(tree.infoset_legal_actions):
        assert list(ids[start[i] : start[i + 1]]) == list(legal)
    assert len(ids) == start[-1] == tree.num_infoset_actions


def test_children_follow_parents(small_game):
    tree = walk.game_tree(small_game)
    assert np.all(tree.parent[1:] < np.arange(1, tree.num_nodes))
    assert np.all(tree.depth[1:] == tree.depth[tree.parent[1:]] + 1)


def test_passes_over_depth_levels(small_game):
    tree = walk.game_tree(small_game)
    depth = tree.top_down(0, lambda nodes, up: up + 1)
    np.testing.assert_array_equal(depth, tree.depth)
    lo, hi = subtree_utility_range(tree)
    np.testing.assert_array_equal(tree.bottom_up(tree.lo, np.minimum), lo)
    np.testing.assert_array_equal(tree.bottom_up(tree.hi, np.maximum), hi)
    leaves_below = tree.bottom_up(tree.is_leaf.astype(np.int64))
    assert leaves_below[0] == tree.stats()["terminals"]
    two = tree.bottom_up(np.stack([tree.lo, 2 * tree.lo], axis=1), np.add, tree.chance_prob)
    np.testing.assert_allclose(two[:, 1], 2 * two[:, 0])
