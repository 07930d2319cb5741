"""Depth-limited solving of games too large to compile, from pyspiel states and rollouts.

The tree is walked from pyspiel states down to the depth limit only, and the leaf values come
from Monte Carlo rollouts.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4: "one can use Monte Carlo simulations to approximate the values ... in real time,
the value of a state could be estimated via Monte Carlo rollouts". Rooted at the start of the
game (no gadget is needed there, Proposition 1), for solving player i:

1. `walk` expands the game from its initial state (the core's `walk.expand_below`) until
   `depth` player moves (or a predicate on states); terminal states keep their returns, the
   states at the limit become multi-valued leaves of the opponent, keyed by its information
   state there (`leaves.LEAF_PREFIX`);
2. each leaf state's K values are estimated by `rollouts.rollout_values` under <blueprint
   policy for i, continuation policy n for the opponent> (any OpenSpiel policies, e.g. an
   MCCFR average policy; `BiasedPolicy` biases a policy as Section 4's bias approach does, and
   `bias_set` is the set the nested bot of `sampled.bot` uses), with standard errors;
   `values` may instead be any function of the leaf histories (e.g. a trained value network);
3. `solve_from_states` solves the depth-limited tree by the gadget solvers (CFR+, the LP or
   EGT: `ggse.solve`, as the unsafe subgame at the start of the game), and
   `DepthLimitedPolicy` plays the solution in the solved information sets and the blueprint
   everywhere else - an ordinary OpenSpiel policy of the full game (the nested solving bot of
   `sampled.bot` plays through the same class).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, policies, tree_values
from ospiel_ext import walk as walk_lib
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited import rollouts
from ospiel_ext.algorithms.subgames import gadgets, ggse
from ospiel_ext.arrays import FloatArray
from ospiel_ext.loading import DEFAULT_MAX_NODES, check_two_player_zero_sum
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder

# (leaf histories) -> (values (leaves, K) in player 0's utility, standard errors or None)
LeafValueFunction = Callable[[Sequence[Sequence[int]]], tuple[FloatArray, FloatArray | None]]


@dataclasses.dataclass(frozen=True, eq=False)
class Walk:
    """The game expanded down to the depth limit.

    Attributes:
      builder: the tree so far (leaf states not yet expanded).
      leaves: builder node ids of the states at the limit.
      histories: their action histories.
      keys: the opponent's information state at each (the leaf information set).
    """

    builder: TreeBuilder
    leaves: list[int]
    histories: list[list[int]]
    keys: list[str]


def walk(
    game: pyspiel.Game,
    player: int,
    depth: int,
    *,
    at_limit: Callable[[pyspiel.State], bool] | None = None,
    max_nodes: int = DEFAULT_MAX_NODES,
) -> Walk:
    """Expands `game` breadth first down to `depth` player moves.

    Or down to the first states where `at_limit` holds; ValueError if more than `max_nodes`
    nodes or no state reaches the limit.
    """
    check_two_player_zero_sum(game)
    if player not in (0, 1) or depth < 1:
        raise ValueError(f"game {game}: player must be 0 or 1 and depth >= 1")
    builder = TreeBuilder(name=f"depth-limited({game}, player {player})", game=None)
    root = [(builder.add_root(), game.new_initial_state())]
    nodes, states, _ = walk_lib.expand_below(
        builder, root, depth, at_limit=at_limit, max_nodes=max_nodes
    )
    if not nodes:
        raise ValueError(f"game {game}: no state reaches the depth limit ({depth} moves)")
    histories = [list(s.history()) for s in states]
    keys = [leaves_lib.LEAF_PREFIX + loading.infoset_key(s, 1 - player) for s in states]
    return Walk(builder, nodes, histories, keys)


def rollout_value_function(
    game: pyspiel.Game,
    blueprint: policy_lib.Policy,
    player: int,
    *,
    strategies: Sequence[policy_lib.Policy],
    samples: int,
    seed: int,
) -> LeafValueFunction:
    """Leaf values by `rollouts.rollout_values` (mean and standard error)."""

    def values(histories: Sequence[Sequence[int]]) -> tuple[FloatArray, FloatArray | None]:
        est = rollouts.rollout_values(
            game,
            histories,
            blueprint,
            player=player,
            strategies=strategies,
            samples=samples,
            seed=seed,
        )
        return est.mean, est.stderr

    return values


class BiasedPolicy(policy_lib.Policy):
    """`policy` with `player`'s actions of one class made more likely (Section 4's bias).

    The probability of `player`'s actions of the class is multiplied by `factor` and
    renormalised. The class: the actions whose lower-cased action string contains one of
    `words`, the action ids in `actions`, and the legal actions at `ranks` of the state's
    legal action ids in increasing order (0: the lowest, -1: the highest - e.g. the smallest
    raise and the call of Liar's dice).
    """

    def __init__(
        self,
        policy: policy_lib.Policy,
        player: int,
        words: Sequence[str] = (),
        *,
        factor: float = 10.0,
        actions: Sequence[int] = (),
        ranks: Sequence[int] = (),
    ):
        super().__init__(policy.game, [player])
        self.policy, self.player, self.factor = policy, player, factor
        self.words, self.actions = tuple(words), frozenset(int(a) for a in actions)
        self.ranks = tuple(int(r) for r in ranks)

    def _members(self, state: pyspiel.State, actions: Iterable[int]) -> set[int]:
        """The actions of `actions` in the biased class at `state`."""
        out = {a for a in actions if a in self.actions}
        if self.ranks:
            legal = state.legal_actions(self.player)
            out.update(legal[r] for r in self.ranks if -len(legal) <= r < len(legal))
        if self.words:
            for a in actions:
                text = state.action_to_string(self.player, a).lower()
                if any(w in text for w in self.words):
                    out.add(a)
        return out

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """OpenSpiel's `Policy.action_probabilities`: {action: probability} at `state`."""
        probs = dict(self.policy.action_probabilities(state, player_id))
        if state.current_player() == self.player:
            for a in self._members(state, probs).intersection(probs):
                probs[a] *= self.factor
            total = sum(probs.values())
            probs = {a: p / total for a, p in probs.items()}
        return probs


def bias_set(
    blueprint: policy_lib.Policy, opponent: int, num_values: int, game: pyspiel.Game
) -> tuple[list[policy_lib.Policy], list[str]]:
    """The opponent's blueprint and K - 1 biased copies (Section 4's bias, factor 10).

    Each copy favours the legal action of one rank at every decision: the lowest, the
    highest, the second lowest, the second highest, ... Ranks rather than action ids: in
    games whose legal actions move with the history (Liar's dice bids, Goofspiel cards) a
    fixed id is soon illegal, and its copy would equal the blueprint.
    """
    if num_values > 1 + game.num_distinct_actions():
        raise ValueError(
            f"game {game}: the bias set has {1 + game.num_distinct_actions()} strategies, "
            f"K = {num_values} asked"
        )
    out, labels = [blueprint], ["blueprint"]
    for k in range(num_values - 1):
        rank = k // 2 if k % 2 == 0 else -(k // 2) - 1  # 0, -1, 1, -2, 2, ...
        out.append(BiasedPolicy(blueprint, opponent, ranks=[rank]))
        labels.append(f"bias legal rank {rank}")
    return out, labels


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class LargeGameSolution:
    """A depth-limited game of a large game, solved.

    Attributes:
      tree: the depth-limited tree (no pyspiel game behind it).
      sf: its sequence form.
      player: the solving player.
      values: the leaf values (leaves, K), player 0's utility; stderr their standard errors.
      behavioural: both players' strategies on `sf`.
      value: player i's value of the depth-limited game under `behavioural`.
    """

    tree: GameTree
    sf: TreeSequenceForm
    player: int
    values: FloatArray
    stderr: FloatArray | None
    behavioural: tuple[FloatArray, FloatArray]
    value: float

    def table(self) -> policies.Table:
        """{information state: {action: probability}} of the solving player.

        The table of `policies.behavioural_to_table`.
        """
        return policies.behavioural_to_table(self.sf, self.behavioural)[self.player]


def solve_from_states(
    w: Walk,
    player: int,
    values: LeafValueFunction,
    *,
    method: ggse.Method = "cfr",
    iterations: int = 1000,
    time_limit: float | None = None,
) -> LargeGameSolution:
    """Solves the walk's depth-limited game for `player` with the leaf values of `values`.

    Attaches the K leaf values of `values(w.histories)` to the walk's leaves and solves the
    depth-limited game for `player` by the gadget solvers' one dispatch (`ggse.solve`: 'cfr'
    CFR+, 'lp' the LP, 'egt' EGT; `ggse.SOLVER_METHODS` maps the commands' names to these),
    as the unsafe subgame at the start of the game (`gadgets.start_of_game`).
    """
    v, stderr = values(w.histories)
    v = np.asarray(v, dtype=np.float64)
    if v.ndim != 2 or v.shape[0] != len(w.leaves) or v.shape[1] < 1:
        raise ValueError(f"leaf values have shape {v.shape}, expected ({len(w.leaves)}, K >= 1)")
    builder = w.builder
    for node, key, row in zip(w.leaves, w.keys, v):
        leaves_lib.set_multi_valued_leaf(builder, node, 1 - player, key=key, values=row)
    tree = builder.freeze()
    game = gadgets.start_of_game(tree, player, tuple(dict.fromkeys(w.keys)))
    solution = ggse.solve(game, None, method, iterations=iterations, time_limit=time_limit)
    behavioural = solution.behavioural
    root = tree_values.node_values(tree, game.sf.tree_profile(behavioural))[0]
    value = float(root if player == 0 else -root)
    return LargeGameSolution(
        tree=tree,
        sf=game.sf,
        player=player,
        values=v,
        stderr=stderr,
        behavioural=behavioural,
        value=value,
    )


class DepthLimitedPolicy(policy_lib.Policy):
    """`fallback` (the blueprint: any OpenSpiel policy) with the solved information sets overridden.

    An OpenSpiel policy of the full game that plays the depth-limited solutions where they
    have a strategy and the blueprint everywhere else.

    Args:
      fallback: the policy of every information set without an override.
      tables: per player, {information state key (`loading.infoset_key`): {action:
        probability}}; read live, so a bot that solves as it plays adds to them
        (`sampled.bot.LargeNestedSolvingBot`).
    """

    def __init__(
        self,
        fallback: policy_lib.Policy,
        tables: Mapping[int, Mapping[str, Mapping[int, float]]],
    ):
        super().__init__(fallback.game, list(range(fallback.game.num_players())))
        self.fallback, self.tables = fallback, tables
        self._key = loading.key_function(fallback.game)

    @classmethod
    def of_solutions(
        cls, fallback: policy_lib.Policy, solutions: Sequence[LargeGameSolution]
    ) -> DepthLimitedPolicy:
        """The solutions' strategies (one per solving player) over `fallback`."""
        return cls(fallback, {s.player: s.table() for s in solutions})

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """OpenSpiel's `Policy.action_probabilities`: {action: probability} at `state`."""
        player = state.current_player() if player_id is None else player_id
        row = self.tables.get(player, {}).get(self._key(state, player))
        if row is None:
            fallback: dict[int, float] = self.fallback.action_probabilities(state, player)
            return fallback
        return dict(row)
