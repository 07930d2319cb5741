"""Walks of pyspiel states: the whole game (`walk.game_tree`, behind its node cap, with an
action abstraction) and the part below given states (`walk.expand_below`), against independent
recursive counts."""

import numpy as np
import pyspiel
import pytest

from ospiel_ext import loading, walk
from ospiel_ext.loading import NO_NODE_CAP, GameTooLargeError
from ospiel_ext.tree_builder import TreeBuilder


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

    tree = walk.game_tree(game, actions=no_raise)
    assert tree.num_nodes == _count_restricted(game.new_initial_state(), no_raise)
    full = walk.game_tree(game)
    assert set(tree.infoset_key) <= set(full.infoset_key)
    assert all(2 not in legal for legal in tree.infoset_legal_actions)
    # Every leaf pays what the game pays at the same history.
    leaves = np.flatnonzero(tree.is_leaf)
    for node in leaves[:: max(1, len(leaves) // 50)]:
        assert tree.lo[node] == tree.state(int(node)).returns()[0]


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
        walk.game_tree(game)


def test_max_nodes_guard():
    with pytest.raises(GameTooLargeError, match="max_nodes=100"):
        walk.game_tree("leduc_poker", max_nodes=100)
    assert walk.game_tree("kuhn_poker", max_nodes=58).num_nodes == 58


def test_simultaneous_game_is_converted():
    tree = walk.game_tree("matrix_mp")
    assert tree.stats()["terminals"] == 4
    assert "turn_based_simultaneous_game" in tree.name


def test_default_cap_compiles_small_games():
    assert walk.game_tree("leduc_poker").num_nodes == 9457
    assert walk.game_tree("kuhn_poker", max_nodes=NO_NODE_CAP).num_nodes == 58


def test_walk_refusal_says_nodes_reached_cap_and_argument():
    # Leduc's seeded estimate (9.08e3 for its 9457 nodes) is below 9400: the walk must stop.
    with pytest.raises(GameTooLargeError) as err:
        walk.game_tree("leduc_poker", max_nodes=9400)
    message = str(err.value)
    assert "reached 94" in message and "max_nodes=9400" in message
    assert "--max_nodes" in message and "NO_NODE_CAP" in message


@pytest.mark.parametrize("game", ["chess", "go"])
def test_huge_games_are_refused_from_the_estimate(game):
    with pytest.raises(GameTooLargeError, match=r"estimated from 64 random playouts") as err:
        walk.game_tree(game)
    assert f"max_nodes={loading.DEFAULT_MAX_NODES}" in str(err.value)


@pytest.mark.parametrize("max_nodes", [0, -3, 2.5, True, "100"])
def test_bad_caps_are_refused(max_nodes):
    with pytest.raises(ValueError, match="max_nodes"):
        walk.game_tree("kuhn_poker", max_nodes=max_nodes)


def test_infinite_games_need_a_finite_cap():
    game = "limit_leduc_poker(num_ranks=3,max_raises=-1)"
    for cap in (None, NO_NODE_CAP):
        with pytest.raises(ValueError, match="infinite"):
            walk.game_tree(game, max_nodes=cap)
    with pytest.raises(GameTooLargeError, match="max_nodes=500"):
        walk.game_tree(game, max_nodes=500)


def test_expand_below_stops_at_the_depth_and_keeps_the_returns():
    """Below Kuhn's deals, one player move: the bets of the first player are expanded, the
    states after them are left at the limit, and no terminal is reached yet; two moves reach
    the terminals after pass-pass, bet-call and bet-fold (3 of the 4 second-move outcomes)."""
    game = pyspiel.load_game("kuhn_poker")
    root = game.new_initial_state()
    deal = root.child(0).child(1)  # player 0 holds J, player 1 holds Q
    b = TreeBuilder(name="below a deal")
    nodes, states, infosets = walk.expand_below(b, [(b.add_root(), deal)], depth=1)
    assert [s.history() for s in states] == [[0, 1, 0], [0, 1, 1]]
    assert list(infosets) == [deal.information_state_string(0)]
    assert b.num_nodes == 3 and nodes == [1, 2]
    b = TreeBuilder(name="two moves")
    nodes, states, infosets = walk.expand_below(b, [(b.add_root(), deal)], depth=2)
    tree = b.freeze()
    leaves = np.flatnonzero(tree.is_leaf)
    terminal = [int(n) for n in leaves if int(n) not in nodes]
    # pass-bet is left at the limit; pass-pass (J < Q: -1), bet-fold (+1), bet-call (-2).
    assert sorted(tree.lo[terminal].tolist()) == [-2.0, -1.0, 1.0]
    assert [s.history() for s in states] == [[0, 1, 0, 1]]
    assert len(infosets) == 3


def test_expand_below_refuses_more_nodes_than_asked():
    game = pyspiel.load_game("kuhn_poker")
    b = TreeBuilder(name="capped")
    with pytest.raises(ValueError, match="more than 4 nodes"):
        walk.expand_below(b, [(b.add_root(), game.new_initial_state())], 3, max_nodes=4)
