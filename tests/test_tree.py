"""GameTree: the walk matches pyspiel node for node; assumptions are checked."""

import math

import numpy as np
import pyspiel
import pytest
from helpers import subtree_utility_range

from ospiel_ext import tree as tree_lib
from ospiel_ext.algorithms.certificates.trunks import Trunk
from ospiel_ext.tree import (
    CHANCE,
    NO_NODE_CAP,
    GameTooLargeError,
    GameTree,
    TreeBuilder,
    estimate_num_nodes,
    subgame,
)


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


def _count_restricted(state, keep):
    """Independent recursive count of the histories an action filter keeps."""
    if state.is_terminal():
        return 1
    actions = state.legal_actions() if state.is_chance_node() else keep(state)
    return 1 + sum(_count_restricted(state.child(a), keep) for a in actions)


def test_action_filter_keeps_exactly_the_filtered_histories():
    game = pyspiel.load_game("leduc_poker")

    def no_raise(state):  # Leduc: 0 fold, 1 call, 2 raise
        return [a for a in state.legal_actions() if a != 2]

    tree = GameTree.from_game(game, actions=no_raise)
    assert tree.num_nodes == _count_restricted(game.new_initial_state(), no_raise)
    full = GameTree.from_game(game)
    assert set(tree.infoset_key) <= set(full.infoset_key)
    assert all(2 not in legal for legal in tree.infoset_legal_actions)
    # Every leaf pays what the game pays at the same history.
    leaves = np.flatnonzero(tree.is_leaf)
    for node in leaves[:: max(1, len(leaves) // 50)]:
        assert tree.lo[node] == tree.state(int(node)).returns()[0]


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


def test_flat_infoset_actions_are_each_infosets_legal_actions(small_game):
    tree = GameTree.from_game(small_game)
    start, ids = tree.infoset_action_start, tree.infoset_action_ids
    for i, legal in enumerate(tree.infoset_legal_actions):
        assert list(ids[start[i] : start[i + 1]]) == list(legal)
    assert len(ids) == start[-1] == tree.num_infoset_actions


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


def _node_signature(tree, node):
    """What a node is, independent of node ids: kind, infoset key, child actions, leaf bounds
    (a grown trunk keeps stale bounds at internal nodes; they mean nothing there)."""
    i = int(tree.infoset[node])
    kids = tree.children(node)
    leaf = bool(tree.is_leaf[node])
    return (
        int(tree.player[node]),
        tree.infoset_key[i] if i >= 0 else None,
        tuple(int(a) for a in tree.action[kids]),
        tuple(float(p) for p in tree.chance_prob[kids]),
        float(tree.lo[node]) if leaf else None,
        float(tree.hi[node]) if leaf else None,
    )


def _count_histories(state):
    if state.is_terminal():
        return 1
    return 1 + sum(_count_histories(state.child(a)) for a in state.legal_actions())


@pytest.mark.parametrize("game", ["leduc_poker", "liars_dice(numdice=1,dice_sides=4)"])
def test_copied_subtree_reproduces_the_subtree(game):
    tree = GameTree.from_game(game)
    by_history = {tuple(tree.history(n)): n for n in range(tree.num_nodes)}
    rng = np.random.default_rng(1)
    internal = np.flatnonzero(~tree.is_leaf)
    for source in [0, *rng.choice(internal, 5, replace=False)]:
        source = int(source)
        b = TreeBuilder(name="copy")
        copy = b.copy_subtree(tree, source, b.add_root())
        small = b.freeze()
        # Independent size: the histories below the source's pyspiel state.
        assert small.num_nodes == _count_histories(tree.state(source))
        prefix = tuple(tree.history(source))
        for n in range(small.num_nodes):
            original = by_history[prefix + tuple(small.history(n))]
            assert _node_signature(small, n) == _node_signature(tree, original)
            assert small.depth[n] == tree.depth[original] - tree.depth[source]
        assert copy.nodes[0] == 0 and copy.source_nodes[0] == source
        np.testing.assert_array_equal(small.lo[copy.nodes], tree.lo[copy.source_nodes])
        keys = [small.infoset_key[i] for i in copy.infosets]
        assert keys == [tree.infoset_key[i] for i in copy.source_infosets]
        assert sorted(copy.infosets) == list(range(small.num_infosets))
        small.check_perfect_recall()


def test_copy_cuts_rekeys_and_keeps_the_callers_edge():
    tree = GameTree.from_game("kuhn_poker")
    expand = tree.depth < 3  # the deals and player 0's first move
    lo, hi = subtree_utility_range(tree)
    b = TreeBuilder(name="gadget")
    first = b.expand_chance(b.add_root(), [7, 8], [0.5, 0.5])
    b.set_leaf(first, -5.0, -5.0)
    copy = b.copy_subtree(
        tree,
        0,
        first + 1,
        expand=expand,
        leaf_lo=lo,
        leaf_hi=hi,
        infoset_key=lambda i: "gadget " + tree.infoset_key[i],
    )
    b.set_chance_prob(first + 1, 0.25)  # an unnormalised reach, as in a gadget game
    small = b.freeze()
    assert small.chance_prob[first + 1] == 0.25 and small.action[first + 1] == 8
    copied = copy.nodes[1:]
    source = copy.source_nodes[1:]
    assert np.all(tree.depth[source] <= 3)
    cut = source[~expand[source] & ~tree.is_leaf[source]]
    assert len(cut) == 12  # player 1's first decision nodes become leaves
    np.testing.assert_array_equal(small.lo[copied], np.where(small.is_leaf[copied], lo[source], 0))
    np.testing.assert_array_equal(small.hi[copied], np.where(small.is_leaf[copied], hi[source], 0))
    for new, old in zip(copy.infosets, copy.source_infosets):
        assert small.infoset_key[new] == "gadget " + tree.infoset_key[old]
    with pytest.raises(ValueError, match="already expanded"):
        b.copy_subtree(tree, 0, first + 1)
    with pytest.raises(ValueError, match="not a chance outcome"):
        b.set_chance_prob(0, 0.5)


def test_subgame_roots_are_weighted_chance_outcomes():
    tree = GameTree.from_game("leduc_poker")
    roots = np.flatnonzero((tree.player == CHANCE) & (tree.depth > 2))
    small, copies = subgame(tree, roots)
    kids = small.children(0)
    np.testing.assert_allclose(
        small.chance_prob[kids] * tree.chance_reach[roots].sum(), tree.chance_reach[roots]
    )
    assert small.num_nodes == 1 + sum(len(c.nodes) for c in copies)
    raw, _ = subgame(tree, roots[:2], [2.0, 3.0], normalize=False)
    assert list(raw.chance_prob[raw.children(0)]) == [2.0, 3.0]
    with pytest.raises(ValueError, match="distinct"):
        subgame(tree, [roots[0], roots[0]])


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_fully_grown_trunk_is_the_game_tree(game):
    full = GameTree.from_game(game)
    by_history = {tuple(full.history(n)): n for n in range(full.num_nodes)}
    trunk = Trunk(game, bounds=lambda state: (-np.inf, np.inf))
    while trunk.frontier:
        trunk.expand(min(trunk.frontier))
    grown = trunk.tree()
    assert grown.num_nodes == full.num_nodes
    for n in range(grown.num_nodes):
        assert _node_signature(grown, n) == _node_signature(
            full, by_history[tuple(grown.history(n))]
        )


def test_passes_over_depth_levels(small_game):
    tree = GameTree.from_game(small_game)
    depth = tree.top_down(0, lambda nodes, up: up + 1)
    np.testing.assert_array_equal(depth, tree.depth)
    lo, hi = subtree_utility_range(tree)
    np.testing.assert_array_equal(tree.bottom_up(tree.lo, np.minimum), lo)
    np.testing.assert_array_equal(tree.bottom_up(tree.hi, np.maximum), hi)
    leaves_below = tree.bottom_up(tree.is_leaf.astype(np.int64))
    assert leaves_below[0] == tree.stats()["terminals"]
    two = tree.bottom_up(np.stack([tree.lo, 2 * tree.lo], axis=1), np.add, tree.chance_prob)
    np.testing.assert_allclose(two[:, 1], 2 * two[:, 0])


def test_default_cap_compiles_small_games():
    assert GameTree.from_game("leduc_poker").num_nodes == 9457
    assert GameTree.from_game("kuhn_poker", max_nodes=NO_NODE_CAP).num_nodes == 58


def test_walk_refusal_says_nodes_reached_cap_and_argument():
    # Leduc's seeded estimate (9.08e3 for its 9457 nodes) is below 9400: the walk must stop.
    with pytest.raises(GameTooLargeError) as err:
        GameTree.from_game("leduc_poker", max_nodes=9400)
    message = str(err.value)
    assert "reached 94" in message and "max_nodes=9400" in message
    assert "--max_nodes" in message and "NO_NODE_CAP" in message


@pytest.mark.parametrize("game", ["chess", "go"])
def test_huge_games_are_refused_from_the_estimate(game):
    with pytest.raises(GameTooLargeError, match=r"estimated from 64 random playouts") as err:
        GameTree.from_game(game)
    assert f"max_nodes={tree_lib.DEFAULT_MAX_NODES}" in str(err.value)


@pytest.mark.parametrize("max_nodes", [0, -3, 2.5, True, "100"])
def test_bad_caps_are_refused(max_nodes):
    with pytest.raises(ValueError, match="max_nodes"):
        GameTree.from_game("kuhn_poker", max_nodes=max_nodes)


def test_infinite_games_need_a_finite_cap():
    game = "limit_leduc_poker(num_ranks=3,max_raises=-1)"
    for cap in (None, NO_NODE_CAP):
        with pytest.raises(ValueError, match="infinite"):
            GameTree.from_game(game, max_nodes=cap)
    with pytest.raises(GameTooLargeError, match="max_nodes=500"):
        GameTree.from_game(game, max_nodes=500)


def test_knuth_estimate_is_exact_on_a_uniform_tree():
    estimate = estimate_num_nodes(pyspiel.load_game("matrix_mp"))  # 1 + 2 + 4 histories
    assert estimate.nodes == 7 and estimate.std_error == 0 and estimate.complete


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_knuth_estimate_is_unbiased(game):
    # Knuth 1975: the mean of the playout estimates converges to the number of histories.
    true = GameTree.from_game(game).num_nodes
    estimate = estimate_num_nodes(game, playouts=4000, seed=11)
    assert abs(estimate.nodes - true) < 4 * estimate.std_error
    assert math.log10(estimate.nodes) == pytest.approx(estimate.log10_nodes)


def test_knuth_estimate_of_a_cut_playout_is_a_lower_estimate():
    estimate = estimate_num_nodes("leduc_poker", max_steps=2)  # root and the first deal only
    assert estimate.nodes == 1 + 6 + 6 * 5 and not estimate.complete
    assert "lower estimate" in estimate.describe()
