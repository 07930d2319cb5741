"""Values of behavioural profiles on a GameTree against a brute-force walk of pyspiel states."""

import collections

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response

from ospiel_ext import tree_values, walk
from ospiel_ext.tree_builder import TreeBuilder, subgame

# Information sets spanning depths: player 0's X lies at depths 1 and 2, Y at 3 and 4, so a
# best response cannot be computed depth level by depth level.
SPREAD_EFG = """EFG 2 R "spread" { "P0" "P1" }
""
c "" 1 "deal" { "L" 1/3 "R" 2/3 } 0
p "" 2 1 "P1 first" { "u" "v" } 0
p "" 1 1 "X" { "a" "b" } 0
p "" 2 3 "P1 third" { "g" "h" } 0
p "" 1 2 "Y" { "e" "f" } 0
t "" 1 "o1" { 3, -3 }
t "" 2 "o2" { -1, 1 }
t "" 3 "o3" { 2, -2 }
t "" 4 "o4" { -2, 2 }
t "" 5 "o5" { 1, -1 }
p "" 1 1 "X" { "a" "b" } 0
p "" 2 2 "P1 second" { "c" "d" } 0
p "" 1 2 "Y" { "e" "f" } 0
t "" 6 "o6" { 4, -4 }
t "" 7 "o7" { -3, 3 }
t "" 8 "o8" { 0, 0 }
t "" 9 "o9" { 1, -1 }
"""

GAMES = ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=4)", "spread"]


def _load(name):
    return pyspiel.load_efg_game(SPREAD_EFG) if name == "spread" else pyspiel.load_game(name)


def _random_profile(tree, seed):
    """A random behavioural profile in the flat layout, with some zero probabilities."""
    rng = np.random.default_rng(seed)
    parts = []
    for actions in tree.infoset_legal_actions:
        p = rng.random(len(actions))
        if len(actions) > 1 and rng.random() < 0.3:
            p[rng.integers(len(actions))] = 0.0
        parts.append(p / p.sum())
    return np.concatenate(parts)


def _table(tree, profile):
    """{(player, information_state_string): {action: probability}}."""
    out = {}
    for i, key in enumerate(tree.infoset_key):
        s = tree.infoset_action_start[i]
        probs = profile[s : s + len(tree.infoset_legal_actions[i])]
        out[int(tree.infoset_player[i]), key] = dict(zip(tree.infoset_legal_actions[i], probs))
    return out


class BruteForce:
    """Reaches, values and counterfactual (best-response) values by recursion on states.

    `roots` are (state, chance weight) pairs: the game's initial state, or the root histories
    of a subgame with their weights.
    """

    def __init__(self, roots, table):
        self.table = table
        self.nodes = {}  # history -> (reach0, reach1, reach_chance, value0)
        self.cfv = collections.defaultdict(float)  # (player, key) -> v_i(I)
        self.cf_reach = collections.defaultdict(float)
        self.root_infosets = {0: set(), 1: set()}  # infosets with no own move above
        for state, weight in roots:
            self._walk(state, 1.0, 1.0, weight, [False, False])
        self.cfbr = {}
        for player in (0, 1):
            self._members = collections.defaultdict(list)
            for state, weight in roots:
                self._collect(state, player, weight)
            self._memo, self._best = {}, {}
            for key, members in self._members.items():
                self.cfbr[key] = max(
                    sum(q * self._br_value(s.child(a), player) for s, q in members)
                    for a in members[0][0].legal_actions()
                )

    def _walk(self, state, r0, r1, rc, moved):
        history = tuple(state.history())
        if state.is_terminal():
            self.nodes[history] = (r0, r1, rc, state.returns()[0])
            return state.returns()[0]
        if state.is_chance_node():
            value = sum(
                p * self._walk(state.child(a), r0, r1, rc * p, moved)
                for a, p in state.chance_outcomes()
            )
        else:
            player = state.current_player()
            key = (player, state.information_state_string(player))
            if not moved[player]:
                self.root_infosets[player].add(key)
            row = self.table[key]
            now = [moved[0] or player == 0, moved[1] or player == 1]
            value = sum(
                row[a]
                * self._walk(
                    state.child(a),
                    r0 * (row[a] if player == 0 else 1),
                    r1 * (row[a] if player == 1 else 1),
                    rc,
                    now,
                )
                for a in state.legal_actions()
            )
            q = (r1 if player == 0 else r0) * rc
            self.cfv[key] += q * (value if player == 0 else -value)
            self.cf_reach[key] += q
        self.nodes[history] = (r0, r1, rc, value)
        return value

    def _collect(self, state, player, q):
        """The nodes of every infoset of `player` with their counterfactual reach."""
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, p in state.chance_outcomes():
                self._collect(state.child(a), player, q * p)
            return
        mover = state.current_player()
        key = (mover, state.information_state_string(mover))
        if mover == player:
            self._members[key].append((state, q))
        for a in state.legal_actions():
            self._collect(state.child(a), player, q if mover == player else q * self.table[key][a])

    def _br_value(self, state, player):
        """Player's utility from `state` when it best-responds (per infoset) below."""
        history = tuple(state.history())
        if history in self._memo:
            return self._memo[history]
        if state.is_terminal():
            value = state.returns()[player]
        elif state.is_chance_node():
            value = sum(
                p * self._br_value(state.child(a), player) for a, p in state.chance_outcomes()
            )
        else:
            mover = state.current_player()
            key = (mover, state.information_state_string(mover))
            if mover == player:
                if key not in self._best:
                    members = self._members[key]
                    self._best[key] = max(
                        state.legal_actions(),
                        key=lambda a: sum(
                            q * self._br_value(s.child(a), player) for s, q in members
                        ),
                    )
                value = self._br_value(state.child(self._best[key]), player)
            else:
                value = sum(
                    self.table[key][a] * self._br_value(state.child(a), player)
                    for a in state.legal_actions()
                )
        self._memo[history] = value
        return value


def _check_against(tree, brute, histories, profile):
    r = tree_values.reaches(tree, profile)
    v0 = tree_values.node_values(tree, profile)
    v1 = tree_values.node_values(tree, profile, player=1)
    for node, history in enumerate(histories):
        expected = brute.nodes[history]
        got = (r.player0[node], r.player1[node], r.chance[node], v0[node])
        np.testing.assert_allclose(got, expected, atol=1e-12, err_msg=str(history))
        assert v1[node] == pytest.approx(tree.utility_sum - v0[node], abs=1e-12)
    keys = [(int(p), k) for p, k in zip(tree.infoset_player, tree.infoset_key)]
    cfv = tree_values.counterfactual_values(tree, profile)
    np.testing.assert_allclose(cfv, [brute.cfv[k] for k in keys], atol=1e-12)
    normalized = tree_values.counterfactual_values(tree, profile, normalized=True)
    weights = np.array([brute.cf_reach[k] for k in keys])
    expected = np.where(weights > 0, cfv / np.where(weights > 0, weights, 1), 0.0)
    np.testing.assert_allclose(normalized, expected, atol=1e-12)
    cfbr = tree_values.counterfactual_best_response_values(tree, profile)
    np.testing.assert_allclose(cfbr, [brute.cfbr[k] for k in keys], atol=1e-12)
    assert np.all(cfbr >= cfv - 1e-12)  # a best response is at least the profile


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("seed", [0, 1])
def test_values_match_a_brute_force_walk(game_name, seed):
    game = _load(game_name)
    tree = walk.game_tree(game)
    profile = _random_profile(tree, seed)
    brute = BruteForce([(game.new_initial_state(), 1.0)], _table(tree, profile))
    histories = [tuple(tree.history(n)) for n in range(tree.num_nodes)]
    _check_against(tree, brute, histories, profile)


@pytest.mark.parametrize("normalize", [True, False])
def test_values_of_a_leduc_subgame_after_the_public_card(normalize):
    # Chance in the middle: the subgame's roots are the public-card chance nodes, weighted by
    # the blueprint's reach (Kubicek et al. 2024, Section 2.1), under a new chance root.
    game = pyspiel.load_game("leduc_poker")
    tree = walk.game_tree(game)
    blueprint = _random_profile(tree, 7)
    roots = np.flatnonzero((tree.player == -1) & (tree.depth > 2))
    weights = tree_values.reaches(tree, blueprint).total[roots]
    small, _ = subgame(tree, roots, weights, normalize=normalize)
    scale = weights / weights.sum() if normalize else weights
    profile = _random_profile(small, 3)
    table = _table(small, profile)
    brute = BruteForce([(tree.state(int(h)), w) for h, w in zip(roots, scale)], table)
    root_history = {k: tree.history(int(h)) for k, h in enumerate(roots)}
    histories = [()] + [
        tuple(root_history[small.history(n)[0]] + small.history(n)[1:])
        for n in range(1, small.num_nodes)
    ]
    root_value = sum(w * brute.nodes[tuple(root_history[k])][3] for k, w in enumerate(scale))
    brute.nodes[()] = (1.0, 1.0, 1.0, root_value)
    _check_against(small, brute, histories, profile)


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
def test_root_best_response_values_sum_to_openspiel_best_response(game_name):
    # Independent anchor: with no leaf above a player's first move, its best-response value
    # is the sum of the counterfactual best-response values of its root infosets.
    game = pyspiel.load_game(game_name)
    tree = walk.game_tree(game)
    profile = _random_profile(tree, 5)
    table = _table(tree, profile)
    pol = policy_lib.TabularPolicy(game)
    for player in (0, 1):
        for key in pol.states_per_player[player]:
            row = pol.action_probability_array[pol.state_lookup[key]]
            row[:] = 0.0
            for a, p in table[player, key].items():
                row[a] = p
    brute = BruteForce([(game.new_initial_state(), 1.0)], table)
    cfbr = tree_values.counterfactual_best_response_values(tree, profile)
    for player in (0, 1):
        value = best_response.BestResponsePolicy(game, player, pol).value(game.new_initial_state())
        roots = [
            i
            for i, k in enumerate(tree.infoset_key)
            if (int(tree.infoset_player[i]), k) in brute.root_infosets[player]
        ]
        assert cfbr[roots].sum() == pytest.approx(value, abs=1e-12)


def test_profiles_are_checked():
    tree = walk.game_tree("kuhn_poker")
    uniform = tree_values.uniform_profile(tree)
    assert np.allclose(np.add.reduceat(uniform, tree.infoset_action_start[:-1]), 1.0)
    with pytest.raises(ValueError, match="one probability per infoset action"):
        tree_values.reaches(tree, uniform[:-1])
    bad = uniform.copy()
    bad[0] = 0.9
    who = f"player {tree.infoset_player[0]}'s strategy at information set {tree.infoset_key[0]!r}"
    with pytest.raises(ValueError, match=f"{who} is not a probability distribution"):
        tree_values.node_values(tree, bad)


def test_interval_leaves_need_explicit_values():
    b = TreeBuilder(name="trunk")
    first = b.expand_chance(b.add_root(), [0, 1], [0.5, 0.5])
    b.set_leaf(first, -1.0, 2.0)
    b.set_leaf(first + 1, 4.0, 4.0)
    tree = b.freeze()
    with pytest.raises(ValueError, match="intervals"):
        tree_values.node_values(tree, np.zeros(0))
    assert tree_values.node_values(tree, np.zeros(0), leaf_values=tree.hi)[0] == pytest.approx(3.0)
