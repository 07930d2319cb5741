"""GameTree: a two-player zero-sum extensive-form game walked once into flat arrays.

Every solver in ospiel_ext works on a `GameTree` (through `sequence_form.SequenceForm`), never
on `pyspiel.State` objects. A tree is built

* from a pyspiel game by `GameTree.from_game` (one iterative depth-first walk), or
* from another tree (trunks, gadget games, abstracted games) through `TreeBuilder`, which
  lets a caller add a root, expand leaves on demand and `freeze()` the result.

Node arrays (length `num_nodes`, node 0 is the root, a parent always precedes its children and
the children of a node are contiguous, in the order of its legal actions / chance outcomes):

  parent, action, depth, player (0, 1, CHANCE, or TERMINAL for every leaf), infoset (global
  information-set id of a decision node, -1 otherwise), chance_prob (probability of the edge
  into the node when its parent is a chance node, 1 otherwise), child_start, num_children,
  lo / hi (bounds on player 0's utility at a leaf: equal at a terminal history; a leaf of a
  trunk may carry an interval, as in certificates_black_box_games.txt Def. 3.1).

Information-set arrays (length `num_infosets`): infoset_player, infoset_key (the
`information_state_string`), infoset_legal_actions (tuple of action ids).
"""

from __future__ import annotations

import array
import dataclasses
import functools
from collections.abc import Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)

# A game whose declared maximum length exceeds this is treated as infinite.
INFINITE_GAME_LENGTH = 2**30


def _frozen(a: np.ndarray) -> np.ndarray:
    """`a`, read-only (cached arrays are shared by all callers)."""
    a.flags.writeable = False
    return a


class GameTooLargeError(ValueError):
    """The game has more nodes than the `max_nodes` budget allows."""


def load(game: pyspiel.Game | str) -> pyspiel.Game:
    """Returns a sequential pyspiel game from a game or a `load_game` string.

    Simultaneous-move games are converted with `pyspiel.convert_to_turn_based`.

    Raises:
      ValueError: the string names no registered game or has bad parameters.
    """
    if isinstance(game, str):
        name = game.split("(", 1)[0].strip()
        if name not in pyspiel.registered_names():
            raise ValueError(
                f"unknown game {name!r} in {game!r} (pyspiel.registered_names() lists "
                "the games; ours register on `import ospiel_ext.games`)"
            )
        try:
            game = pyspiel.load_game(game)
        except pyspiel.SpielError as e:
            first_line = str(e).strip().splitlines()[0] if str(e).strip() else "bad parameters"
            raise ValueError(f"cannot load game {game!r}: {first_line}") from None
    if not isinstance(game, pyspiel.Game):
        raise TypeError(f"expected a pyspiel.Game or a load_game string, got {type(game)}")
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


def check_two_player_zero_sum(game: pyspiel.Game) -> None:
    """Raises ValueError unless `game` is a sequential two-player zero/constant-sum game."""
    gtype = game.get_type()
    if game.num_players() != 2:
        raise ValueError(f"game {game} has {game.num_players()} players; two are required")
    if gtype.utility not in (
        pyspiel.GameType.Utility.ZERO_SUM,
        pyspiel.GameType.Utility.CONSTANT_SUM,
    ):
        raise ValueError(f"game {game} is not zero-sum or constant-sum (utility: {gtype.utility})")
    if gtype.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"game {game} is not sequential (dynamics: {gtype.dynamics})")
    if not gtype.provides_information_state_string:
        raise ValueError(
            f"game {game} does not provide information_state_string, which "
            "perfect-recall information sets are built from"
        )


@dataclasses.dataclass(eq=False)
class GameTree:
    """Flat-array game tree; see the module docstring for the meaning of each array."""

    parent: NDArray[np.int32]
    action: NDArray[np.int64]
    depth: NDArray[np.int32]
    player: NDArray[np.int32]
    infoset: NDArray[np.int32]
    chance_prob: NDArray[np.float64]
    child_start: NDArray[np.int32]
    num_children: NDArray[np.int32]
    lo: NDArray[np.float64]
    hi: NDArray[np.float64]
    infoset_player: NDArray[np.int32]
    infoset_key: list[str]
    infoset_legal_actions: list[tuple[int, ...]]
    utility_sum: float = 0.0
    game: pyspiel.Game | None = None
    name: str = "tree"

    @property
    def num_nodes(self) -> int:
        return len(self.parent)

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_player)

    @property
    def is_leaf(self) -> NDArray[np.bool_]:
        return self.num_children == 0

    def children(self, node: int) -> range:
        start = int(self.child_start[node])
        return range(start, start + int(self.num_children[node]))

    def history(self, node: int) -> list[int]:
        """The action ids from the root to `node`."""
        actions = []
        while node > 0:
            actions.append(int(self.action[node]))
            node = int(self.parent[node])
        return actions[::-1]

    def state(self, node: int) -> pyspiel.State:
        """Replays the history of `node` in the source game."""
        if self.game is None:
            raise ValueError(f"{self.name} was not built from a pyspiel game")
        state = self.game.new_initial_state()
        for a in self.history(node):
            state.apply_action(a)
        return state

    @functools.cached_property
    def depth_order(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Nodes sorted by depth and the offsets of each depth: `order[offsets[d]:offsets[d+1]]`
        (computed once per tree; a GameTree's arrays are not changed after it is built)."""
        order = np.argsort(self.depth, kind="stable")
        offsets = np.searchsorted(self.depth[order], np.arange(self.depth.max() + 2))
        return _frozen(order), _frozen(offsets)

    @functools.cached_property
    def infoset_nodes(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Decision nodes grouped by infoset: `nodes[offsets[i]:offsets[i+1]]` lie in infoset i
        (computed once per tree)."""
        decision = np.flatnonzero(self.infoset >= 0)
        nodes = decision[np.argsort(self.infoset[decision], kind="stable")]
        offsets = np.searchsorted(self.infoset[nodes], np.arange(self.num_infosets + 1))
        return _frozen(nodes), _frozen(offsets)

    def stats(self) -> dict[str, int]:
        """Node and information-set counts (histories, terminals, chance, decision, max depth)."""
        leaves = self.is_leaf
        return {
            "histories": self.num_nodes,
            "terminals": int(np.count_nonzero(leaves)),
            "chance_nodes": int(np.count_nonzero(self.player == CHANCE)),
            "decision_nodes": int(np.count_nonzero(self.infoset >= 0)),
            "infosets_0": int(np.count_nonzero(self.infoset_player == 0)),
            "infosets_1": int(np.count_nonzero(self.infoset_player == 1)),
            "max_depth": int(self.depth.max()),
        }

    @classmethod
    def from_game(cls, game: pyspiel.Game | str, max_nodes: int | None = None) -> GameTree:
        """Walks a two-player zero-sum pyspiel game once, depth first and iteratively.

        Args:
          game: a `pyspiel.Game` or a `load_game` string; simultaneous games are converted.
          max_nodes: raise `GameTooLargeError` as soon as the tree exceeds this many nodes.

        Raises:
          ValueError: not two players, not zero/constant-sum, imperfect recall, infinite game.
          GameTooLargeError: more than `max_nodes` nodes.
        """
        game = load(game)
        check_two_player_zero_sum(game)
        if max_nodes is None and game.max_game_length() >= INFINITE_GAME_LENGTH:
            raise ValueError(
                f"game {game} is infinite (max_game_length {game.max_game_length()}); "
                "it cannot be compiled in full (certificate search can explore it)"
            )
        utility_sum = game.utility_sum()
        builder = TreeBuilder(name=str(game), game=game, utility_sum=utility_sum)
        stack = [(builder.add_root(), game.new_initial_state())]
        while stack:
            node, state = stack.pop()
            if state.is_terminal():
                returns = state.returns()
                if abs(returns[0] + returns[1] - utility_sum) > 1e-9:
                    raise ValueError(
                        f"game {game} is not zero-sum: returns {returns} at "
                        f"history {state.history()}"
                    )
                builder.set_leaf(node, returns[0], returns[0])
                continue
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                first = builder.expand_chance(
                    node, [a for a, _ in outcomes], [p for _, p in outcomes]
                )
                actions = [a for a, _ in outcomes]
            else:
                player = state.current_player()
                actions = state.legal_actions()
                first = builder.expand_decision(
                    node, player, state.information_state_string(player), actions
                )
            if max_nodes is not None and builder.num_nodes > max_nodes:
                raise GameTooLargeError(f"game {game} has more than max_nodes={max_nodes} nodes")
            # Clone for all children but the last, which takes over the parent's state.
            stack.extend((first + k, state.child(a)) for k, a in enumerate(actions[:-1]))
            state.apply_action(actions[-1])
            stack.append((first + len(actions) - 1, state))
        tree = builder.freeze()
        tree.check_perfect_recall()
        return tree

    @functools.cached_property
    def _own_last_moves(self) -> dict[int, NDArray[np.int64]]:
        return {}

    def own_last_move(self, player: int) -> NDArray[np.int64]:
        """For every node, player's last (infoset, action) pair above it, as one integer.

        The pair is encoded as `offset[infoset] + action_index + 1` where `offset` is the
        cumulative number of actions of the player's infosets in id order; 0 means none (the
        empty sequence). This is the sequence of `player` leading to the node, computed by one
        top-down pass over depth levels.
        """
        if player not in self._own_last_moves:
            last = self._compute_own_last_move(player)
            last.flags.writeable = False
            self._own_last_moves[player] = last
        return self._own_last_moves[player]

    def _compute_own_last_move(self, player: int) -> NDArray[np.int64]:
        mine = self.infoset_player == player
        counts = np.where(mine, [len(a) for a in self.infoset_legal_actions], 0)
        offset = np.concatenate([[0], np.cumsum(counts)[:-1]])
        last = np.zeros(self.num_nodes, dtype=np.int64)
        if not mine.any():
            return last
        order, offsets = self.depth_order
        child_index = np.arange(self.num_nodes) - self.child_start[np.maximum(self.parent, 0)]
        for d in range(1, len(offsets) - 1):
            nodes = order[offsets[d] : offsets[d + 1]]
            par = self.parent[nodes]
            par_infoset = self.infoset[par]
            moved = (par_infoset >= 0) & (self.infoset_player[np.maximum(par_infoset, 0)] == player)
            last[nodes] = np.where(
                moved, offset[np.maximum(par_infoset, 0)] + child_index[nodes] + 1, last[par]
            )
        return last

    def check_perfect_recall(self) -> None:
        """Raises ValueError unless all nodes of each infoset share their owner's sequence."""
        nodes, offsets = self.infoset_nodes
        for p in (0, 1):
            last = self.own_last_move(p)[nodes]
            owner = self.infoset_player[self.infoset[nodes]] == p
            first = np.repeat(last[offsets[:-1]], np.diff(offsets))
            bad = np.flatnonzero(owner & (last != first))
            if len(bad):
                i = int(self.infoset[nodes[bad[0]]])
                raise ValueError(
                    f"game {self.name} does not have perfect recall: player {p} reaches "
                    f"information set {self.infoset_key[i]!r} after different own "
                    "sequences of moves"
                )


class TreeBuilder:
    """Grows a GameTree node by node: root first, then leaves expanded on demand.

    Used by `GameTree.from_game` and by every algorithm that builds a tree of its own
    (certificate trunks, gadget games, abstracted games). Infosets are interned by
    (player, key); all nodes of one infoset must have the same legal actions.
    """

    def __init__(
        self, name: str = "tree", game: pyspiel.Game | None = None, utility_sum: float = 0.0
    ):
        self.name, self.game, self.utility_sum = name, game, utility_sum
        # Compact typed buffers (array.array), turned into numpy arrays by freeze().
        self._parent = array.array("i")
        self._action = array.array("q")
        self._depth = array.array("i")
        self._player = array.array("i")
        self._infoset = array.array("i")
        self._chance_prob = array.array("d")
        self._child_start = array.array("i")
        self._num_children = array.array("i")
        self._lo = array.array("d")
        self._hi = array.array("d")
        self._infoset_ids: dict[tuple[int, str], int] = {}
        self.infoset_player: list[int] = []
        self.infoset_key: list[str] = []
        self.infoset_legal_actions: list[tuple[int, ...]] = []

    @property
    def num_nodes(self) -> int:
        return len(self._parent)

    def _add(self, parent: int, action: int, depth: int, prob: float) -> None:
        self._parent.append(parent)
        self._action.append(action)
        self._depth.append(depth)
        self._player.append(TERMINAL)
        self._infoset.append(-1)
        self._chance_prob.append(prob)
        self._child_start.append(0)
        self._num_children.append(0)
        self._lo.append(0.0)
        self._hi.append(0.0)

    def depth(self, node: int) -> int:
        return self._depth[node]

    def add_root(self) -> int:
        if self._parent:
            raise ValueError("the tree already has a root")
        self._add(-1, -1, 0, 1.0)
        return 0

    def set_leaf(self, node: int, lo: float, hi: float) -> None:
        """Makes `node` a leaf whose player-0 utility lies in [lo, hi]."""
        if lo > hi:
            raise ValueError(f"leaf bounds lo={lo} > hi={hi}")
        self._lo[node], self._hi[node] = lo, hi

    def _expand(self, node: int, actions: Sequence[int], probs: Sequence[float]) -> int:
        if self._num_children[node]:
            raise ValueError(f"node {node} is already expanded")
        if not actions:
            raise ValueError(f"node {node} is expanded with no actions")
        first = len(self._parent)
        depth = self._depth[node] + 1
        for a, p in zip(actions, probs):
            self._add(node, int(a), depth, float(p))
        self._child_start[node], self._num_children[node] = first, len(actions)
        return first

    def expand_chance(self, node: int, actions: Sequence[int], probs: Sequence[float]) -> int:
        """Makes `node` a chance node; returns the id of its first child."""
        if abs(sum(probs) - 1.0) > 1e-9:
            raise ValueError(f"chance probabilities at node {node} sum to {sum(probs)}, not 1")
        self._player[node] = CHANCE
        return self._expand(node, actions, probs)

    def expand_decision(self, node: int, player: int, key: str, actions: Sequence[int]) -> int:
        """Makes `node` a decision node of `player` in information set `key`."""
        if player not in (0, 1):
            raise ValueError(f"player {player} at node {node} is not 0 or 1")
        actions = tuple(int(a) for a in actions)
        infoset = self._infoset_ids.setdefault((player, key), len(self.infoset_key))
        if infoset == len(self.infoset_key):
            self.infoset_player.append(player)
            self.infoset_key.append(key)
            self.infoset_legal_actions.append(actions)
        elif self.infoset_legal_actions[infoset] != actions:
            raise ValueError(
                f"game {self.name}: information set {key!r} has nodes with different "
                f"legal actions {self.infoset_legal_actions[infoset]} and {actions}"
            )
        self._player[node] = player
        self._infoset[node] = infoset
        return self._expand(node, actions, [1.0] * len(actions))

    def freeze(self) -> GameTree:
        """Returns the arrays built so far as a GameTree (the builder may keep growing)."""
        if not self._parent:
            raise ValueError("the tree has no root")
        return GameTree(
            parent=np.array(self._parent, dtype=np.int32),
            action=np.array(self._action, dtype=np.int64),
            depth=np.array(self._depth, dtype=np.int32),
            player=np.array(self._player, dtype=np.int32),
            infoset=np.array(self._infoset, dtype=np.int32),
            chance_prob=np.array(self._chance_prob, dtype=np.float64),
            child_start=np.array(self._child_start, dtype=np.int32),
            num_children=np.array(self._num_children, dtype=np.int32),
            lo=np.array(self._lo, dtype=np.float64),
            hi=np.array(self._hi, dtype=np.float64),
            infoset_player=np.array(self.infoset_player, dtype=np.int32),
            infoset_key=list(self.infoset_key),
            infoset_legal_actions=list(self.infoset_legal_actions),
            utility_sum=self.utility_sum,
            game=self.game,
            name=self.name,
        )
