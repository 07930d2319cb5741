"""Independent parts below public chance: the split, and the LP value it preserves."""

import numpy as np
import pytest

from ospiel_ext import lp, walk
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import CHANCE
from ospiel_ext.tree_builder import TreeBuilder
from ospiel_ext.tree_parts import independent_parts

RANDOM_GOOFSPIEL = "sequential_goofspiel(num_cards=3,points_order=random)"


def _nested(shared_key: bool):
    """Chance (0.5 / 0.5), then chance (0.3 / 0.7), then a decision of each player.

    Player 0 moves, player 1 answers not seeing the move (matching pennies with a payoff
    scaled per branch). With `shared_key`, player 1's information set below the two outcomes
    of each second chance node is one: those chance nodes are not public, the first still is.
    """
    b = TreeBuilder(name="nested chance")
    root = b.add_root()
    first = b.expand_chance(root, [0, 1], [0.5, 0.5])
    for i in range(2):
        second = b.expand_chance(first + i, [0, 1], [0.3, 0.7])
        for j in range(2):
            node = second + j
            move = b.expand_decision(node, 0, f"p0 {i}{j}", [0, 1])
            key = f"p1 {i}" if shared_key else f"p1 {i}{j}"
            for a in range(2):
                reply = b.expand_decision(move + a, 1, key, [0, 1])
                for r in range(2):
                    u = (1 + i + 2 * j) * (1.0 if a == r else -1.0)
                    b.set_leaf(reply + r, u, u)
    return b.freeze()


def test_public_chance_splits_into_its_subgames_with_their_reach():
    tree = walk.game_tree(RANDOM_GOOFSPIEL)
    parts = independent_parts(tree)
    assert [p.root for p in parts] == list(tree.children(0))
    assert [p.reach for p in parts] == pytest.approx([1 / 3] * 3)
    covered = np.concatenate([p.nodes for p in parts])
    assert np.array_equal(np.sort(covered), np.arange(1, tree.num_nodes))  # all but the root
    for p in parts:
        assert p.tree.num_nodes == len(p.nodes)
        assert np.array_equal(p.tree.lo, tree.lo[p.nodes])
        keys = [tree.infoset_key[i] for i in tree.infoset[p.nodes] if i >= 0]
        assert [p.tree.infoset_key[i] for i in p.tree.infoset if i >= 0] == keys


def test_the_parts_values_sum_to_the_games_lp_value():
    tree = walk.game_tree(RANDOM_GOOFSPIEL)
    whole = lp.game_value(TreeSequenceForm(tree))
    parts = sum(p.reach * lp.game_value(p.sequence_form) for p in independent_parts(tree))
    assert parts == pytest.approx(whole, abs=1e-9)


def test_private_chance_is_not_split():
    tree = walk.game_tree("kuhn_poker")  # player 1 does not see player 0's card
    (part,) = independent_parts(tree)
    assert part.tree is tree and part.reach == 1.0


@pytest.mark.parametrize(
    ("shared_key", "roots_at_depth", "reach"),
    [(False, 2, [0.15, 0.35, 0.15, 0.35]), (True, 1, [0.5, 0.5])],
)
def test_nested_public_chance_gives_the_finest_split(shared_key, roots_at_depth, reach):
    tree = _nested(shared_key)
    parts = independent_parts(tree)
    assert [int(tree.depth[p.root]) for p in parts] == [roots_at_depth] * len(reach)
    assert [p.reach for p in parts] == pytest.approx(reach)
    whole = lp.game_value(TreeSequenceForm(tree))
    assert sum(p.reach * lp.game_value(p.sequence_form) for p in parts) == pytest.approx(whole)
    if shared_key:
        assert all(p.tree.player[0] == CHANCE for p in parts)


def test_sequences_map_onto_the_whole_trees():
    tree = walk.game_tree(RANDOM_GOOFSPIEL)
    sf = TreeSequenceForm(tree)
    for player in (0, 1):
        seen = [p.sequence_map(sf, player) for p in independent_parts(tree)]
        assert all(m[0] == 0 for m in seen)  # the empty sequence is shared
        rest = np.concatenate([m[1:] for m in seen])
        assert np.array_equal(np.sort(rest), np.arange(1, sf.shape[player]))  # each once
