"""The core's leaves (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for
Imperfect-Information Games", Section 4): leaf values against a brute-force walk of pyspiel
states (also at a round-end limit, whose leaves are the chance nodes before the public card),
weakening against a hand computation, the checks, and a multi-valued leaf in a tree."""

import numpy as np
import pytest

from ospiel_ext import policies, sequence_form, tree_values
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.tree_builder import TreeBuilder


def _walk_value(state, policy_by_player):
    """Player 0's expected return from `state` by a brute-force walk."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
    else:
        p = state.current_player()
        outcomes = policy_by_player[p].action_probabilities(state, p).items()
    return sum(prob * _walk_value(state.child(a), policy_by_player) for a, prob in outcomes)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_exact_values_against_a_brute_force_walk(game):
    sf = sequence_form.for_game(game)
    layout = policies.layout(sf)
    rng = np.random.default_rng(3)
    blueprint = ss.load_blueprint(sf, policies.random_policy(sf.tree.game, 5))
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(2))
    strategies, _ = dl.bias_strategies(sf, blueprint, 0)
    leaves = dl.exact_values(sf, limit, blueprint, player=1, strategies=strategies)
    for r in rng.choice(len(limit.nodes), size=min(12, len(limit.nodes)), replace=False):
        state = sf.tree.state(int(limit.nodes[r]))
        for n, s in enumerate(strategies):
            pol = layout.to_tabular((s, blueprint[1]))
            expected = _walk_value(state, {0: pol, 1: pol})
            assert leaves.values[r, n] == pytest.approx(expected, abs=1e-12)


def test_weaken_lowers_only_what_beats_the_blueprint():
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    strategies = dl.pure_continuations(sf, limit, blueprint[1], player=1)
    leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=strategies)
    beliefs = dl.leaf_beliefs(sf, limit, blueprint, 0)
    weak = dl.weaken(leaves, beliefs)
    # Player 1's (the opponent's) value per leaf information set, by hand.
    keys = np.array(leaves.keys)
    for key in set(leaves.keys):
        rows = keys == key
        w = beliefs[rows] / beliefs[rows].sum()
        v1 = -(w @ leaves.values[rows])  # per continuation
        v1_weak = -(w @ weak.values[rows])
        np.testing.assert_allclose(v1_weak, np.minimum(v1, v1[0]), atol=1e-12)
    np.testing.assert_array_equal(weak.values[:, 0], leaves.values[:, 0])


def test_leaves_checks():
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    with pytest.raises(ValueError, match="leaf values have shape"):
        dl.MultiValuedLeaves(limit=limit, player=0, values=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="at least one continuation"):
        dl.exact_values(sf, limit, blueprint, player=0, strategies=[])
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    leaves = dl.exact_values(sf, limit, blueprint, player=1, strategies=[blueprint[0]])
    (sub,) = ss.subgames(sf.tree, ss.Cut.after_moves(1))[:1]
    with pytest.raises(ValueError, match="strictly below"):
        dl.depth_limited_game(q, sub, leaves, "resolving")
    with pytest.raises(ValueError, match="leaves are player 1's"):
        ss.resolving_gadget(q, sub, 0, leaves)


def test_parse_limit_knows_round_end():
    assert dl.parse_limit("round_end") == ss.Cut.before_public_chance()
    assert dl.parse_limit("public_chance") == ss.Cut.after_public_chance()
    assert dl.parse_limit("after_moves=2") == ss.Cut.after_moves(2)
    with pytest.raises(ValueError, match="round_end"):
        dl.parse_limit("end_of_round")


def test_round_end_leaves_are_the_chance_nodes_with_values_from_a_walk():
    """Leduc: the leaves are the 150 flop chance nodes, each keyed by the opponent's
    information state string there; each value is the expectation over the public card,
    checked against a brute-force walk of pyspiel states."""
    sf = sequence_form.for_game("leduc_poker")
    layout = policies.layout(sf)
    blueprint = ss.load_blueprint(sf, policies.random_policy(sf.tree.game, 7))
    limit = dl.depth_limit(sf.tree, dl.parse_limit("round_end"))
    assert len(limit.nodes) == 150
    strategies, _ = dl.bias_strategies(sf, blueprint, 1)
    leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=strategies)
    rng = np.random.default_rng(0)
    for r in rng.choice(len(limit.nodes), size=12, replace=False):
        state = sf.tree.state(int(limit.nodes[r]))
        assert state.is_chance_node()
        assert leaves.keys[r] == "depth_limit:" + state.information_state_string(1)
        for n, s in enumerate(strategies):
            pol = layout.to_tabular((blueprint[0], s))
            expected = _walk_value(state, {0: pol, 1: pol})
            assert leaves.values[r, n] == pytest.approx(expected, abs=1e-12)


def test_multi_valued_leaf_lets_the_opponent_choose():
    # Brown, Sandholm & Amos 2018, Section 4: at the depth limit player 1 picks the value.
    b = TreeBuilder(name="depth-limited")
    first = b.expand_decision(b.add_root(), 0, "root", [0, 1])
    b.set_leaf(first, 1.0, 1.0)
    leaf = leaves_lib.set_multi_valued_leaf(b, first + 1, 1, key="leaf", values=[3.0, -2.0, 0.5])
    tree = b.freeze()
    assert list(tree.lo[leaf : leaf + 3]) == [3.0, -2.0, 0.5]
    profile = np.array([0.25, 0.75, 0.2, 0.5, 0.3])  # root (2 actions), leaf (3 values)
    cfbr = tree_values.counterfactual_best_response_values(tree, profile)
    # Player 1 best-responds with -2 (value 2 for it), reached with player 0's 0.75.
    assert cfbr[1] == pytest.approx(0.75 * 2.0)
    # Player 0 against the mix 0.2 * 3 - 0.5 * 2 + 0.3 * 0.5 = -0.25 prefers the value 1.
    assert cfbr[0] == pytest.approx(1.0)
    assert tree_values.node_values(tree, profile)[0] == pytest.approx(0.25 - 0.75 * 0.25)
