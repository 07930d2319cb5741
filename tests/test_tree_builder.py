"""TreeBuilder: trees by hand (bounds, checks), copies of subtrees and subgames node for node
against the source tree, and a certificate trunk grown to the full game."""

import numpy as np
import pytest
from helpers import subtree_utility_range

from ospiel_ext import walk
from ospiel_ext.algorithms.certificates.trunks import Trunk
from ospiel_ext.tree import CHANCE
from ospiel_ext.tree_builder import TreeBuilder, subgame


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
    tree = walk.game_tree(game)
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
    tree = walk.game_tree("kuhn_poker")
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


def _arrays(tree):
    names = ("parent", "action", "depth", "player", "infoset", "chance_prob", "child_start")
    names += ("num_children", "lo", "hi", "infoset_player", "infoset_key")
    return {name: np.asarray(getattr(tree, name)) for name in names}


@pytest.mark.parametrize("game", ["leduc_poker", "liars_dice(numdice=1,dice_sides=4)"])
@pytest.mark.parametrize("options", ["plain", "cut"])
def test_batched_copies_equal_one_copy_at_a_time(game, options):
    tree = walk.game_tree(game)
    rng = np.random.default_rng(2)
    sources = rng.choice(tree.num_nodes, 40, replace=False)
    sources = np.concatenate([sources, sources[:3], [0]])  # repeated sources, the root
    kwargs = {}
    if options == "cut":
        lo, hi = subtree_utility_range(tree)
        kwargs = {
            "expand": tree.depth < 4,
            "leaf_lo": lo - 0.5,
            "leaf_hi": hi,
            "infoset_key": lambda i: "copy " + tree.infoset_key[i],
        }
    one, batched = TreeBuilder(name="copies"), TreeBuilder(name="copies")
    targets = []
    for b in (one, batched):
        first = b.expand_chance(
            b.add_root(), range(len(sources)), [1 / len(sources)] * len(sources)
        )
        b.set_leaf(first, -1.0, 1.0)  # a leaf before the targets; targets in shuffled order
        targets = first + 1 + rng.permutation(len(sources) - 1)
    singles = [one.copy_subtree(tree, int(s), int(t), **kwargs) for s, t in zip(sources, targets)]
    copies = batched.copy_subtrees(tree, sources[: len(targets)], targets, **kwargs)
    expected, actual = _arrays(one.freeze()), _arrays(batched.freeze())
    for name, values in expected.items():
        np.testing.assert_array_equal(actual[name], values, err_msg=name)
    for k, single in enumerate(singles):
        source_nodes, nodes = copies.block(k)
        np.testing.assert_array_equal(source_nodes, single.source_nodes)
        np.testing.assert_array_equal(nodes, single.nodes)
    # every copied infoset once, in order of first appearance
    pairs = [(int(n), int(o)) for c in singles for n, o in zip(c.infosets, c.source_infosets)]
    assert list(zip(copies.infosets.tolist(), copies.source_infosets.tolist())) == list(
        dict.fromkeys(pairs)
    )
    with pytest.raises(ValueError, match="already expanded"):
        batched.copy_subtrees(tree, [0], [0])
    with pytest.raises(ValueError, match="not distinct"):
        batched.copy_subtrees(tree, [0, 0], [1, 1])
    with pytest.raises(ValueError, match="sources for"):
        batched.copy_subtrees(tree, [0, 0], [1])


def test_subgame_roots_are_weighted_chance_outcomes():
    tree = walk.game_tree("leduc_poker")
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
    full = walk.game_tree(game)
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
