"""GameTree: a two-player zero-sum extensive-form game walked once into flat arrays.

Every solver in ospiel_ext works on a `GameTree` (through `sequence_form.SequenceForm`), never
on `pyspiel.State` objects. A tree is built

* from a pyspiel game by `GameTree.from_game` (one iterative depth-first walk that keeps one
  pyspiel state per depth level, behind a node cap), or
* from another tree (trunks, gadget games, abstracted games) through `TreeBuilder`, which
  lets a caller add a root, expand leaves on demand and `freeze()` the result.

Node arrays (length `num_nodes`, node 0 is the root, a parent always precedes its children and
the children of a node are contiguous, in the order of its legal actions / chance outcomes):

  parent, action, depth, player (0, 1, CHANCE, or TERMINAL for every leaf), infoset (global
  information-set id of a decision node, -1 otherwise), chance_prob (probability of the edge
  into the node when its parent is a chance node, 1 otherwise), child_start, num_children,
  lo / hi (bounds on player 0's utility at a leaf: equal at a terminal history; a leaf of a
  trunk may carry an interval, as in Zhang & Sandholm 2021, "Finding and Certifying
  (Near-)Optimal Strategies in Black-Box Extensive-Form Games", Def. 3.1).

Information-set arrays (length `num_infosets`): infoset_player, infoset_key (the
`information_state_string`), infoset_legal_actions (tuple of action ids).

Tree surgery, written once for every algorithm:

* `TreeBuilder.expand_from_state`: one node from a pyspiel state (`from_game`, trunks);
* `TreeBuilder.copy_subtree` / `subgame`: a subtree of another tree under a node of a builder
  (subgames and gadget games, minimal certificates);
* `GameTree.top_down` / `GameTree.bottom_up`: vectorised passes over depth levels;
* values of a behavioural profile (`ospiel_ext.tree_values`): reaches, node values,
  counterfactual values and counterfactual best-response values.

The node cap (`from_game`'s `max_nodes`): None means `DEFAULT_MAX_NODES`; `NO_NODE_CAP`
(`math.inf`) removes the cap and must be asked for explicitly. Before walking, Knuth's
estimator (`estimate_num_nodes`) refuses games far over the cap at once.
"""

from __future__ import annotations

import array
import dataclasses
import functools
import itertools
import math
import random
import time
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import arrays, progress
from ospiel_ext.arrays import FloatArray, IntArray

CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)

# A game whose declared maximum length exceeds this is treated as infinite.
INFINITE_GAME_LENGTH = 2**30

# Default node cap of `GameTree.from_game`. Peak memory of from_game + SequenceForm (with its
# payoff matrices), measured with ru_maxrss: 212-224 bytes per node on liars_dice (295k
# nodes) and turn-based goofspiel(num_cards=6) (970k), 404 on tic_tac_toe (550k, one
# information set per decision node: keys, interning dict and legal-action tuples dominate).
# 20 million nodes are therefore 4-8 GB, a third of a 24 GB machine at worst.
DEFAULT_MAX_NODES = 20_000_000
# `max_nodes=NO_NODE_CAP` compiles a finite game of any size.
NO_NODE_CAP = math.inf
PROGRESS_STEP = 50_000  # nodes between updates of the compile progress bar
# Knuth's estimator before a capped walk: playouts, steps per playout, and the refinement of
# an estimate within ESTIMATE_REFINE_FACTOR of the cap (more playouts, up to a time budget).
ESTIMATE_PLAYOUTS = 64
ESTIMATE_MAX_STEPS = 10_000
ESTIMATE_REFINE_FACTOR = 10
ESTIMATE_REFINED_PLAYOUTS = 4096
ESTIMATE_REFINE_SECONDS = 2.0

ChanceOutcomes = Callable[[pyspiel.State], Sequence[tuple[int, float]]]
# An action abstraction: the actions kept at a decision state (a non-empty subset of its
# legal actions, the same for every state of an information set).
ActionFilter = Callable[[pyspiel.State], Sequence[int]]


def _frozen(a: np.ndarray) -> np.ndarray:
    """`a`, read-only (cached arrays are shared by all callers)."""
    a.flags.writeable = False
    return a


class GameTooLargeError(ValueError):
    """The game has more nodes than the `max_nodes` cap allows."""


CAP_HINT = (
    "raise it with max_nodes=... in Python or --max_nodes=... in scripts; "
    "max_nodes=ospiel_ext.tree.NO_NODE_CAP removes it"
)


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
    if not gtype.provides_information_state_string and not keyed_by_history(game):
        converted = gtype.short_name == "turn_based_simultaneous_game"
        raise ValueError(
            f"game {game} has imperfect information but no information_state_string, so its "
            "information sets cannot be recovered"
            + (" (a simultaneous-move game is one once turn-based)" if converted else "")
        )


HISTORY_KEY = "history: "
"""Prefix of the information-set keys of games keyed by their histories (`infoset_key`)."""


def keyed_by_history(game: pyspiel.Game) -> bool:
    """True for a perfect-information game without `information_state_string` (backgammon,
    pig, breakthrough, ...): each decision node is its own information set, keyed by its
    history (`infoset_key`)."""
    gtype = game.get_type()
    return (
        not gtype.provides_information_state_string
        and gtype.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    )


def infoset_key(state: pyspiel.State, player: int) -> str:
    """The key of `player`'s information set at `state`: its `information_state_string`, or
    in a game `keyed_by_history`, "history: " and the history (`State.history_str`). Policies
    and policy files of the pack use these keys. (`key_function(game)` is the same, faster in
    loops over one game's states.)"""
    return key_function(state.get_game())(state, player)


def _history_key(state: pyspiel.State, player: int) -> str:
    del player  # every decision node is its own information set, for both players' views
    return HISTORY_KEY + state.history_str()


def _information_state_key(state: pyspiel.State, player: int) -> str:
    return state.information_state_string(player)


def key_function(game: pyspiel.Game) -> Callable[[pyspiel.State, int], str]:
    """`infoset_key` for the states of `game`, with the game's kind of key chosen once."""
    if game.get_type().provides_information_state_string:
        return _information_state_key
    return _history_key


def check_zero_sum_returns(
    game: pyspiel.Game, state: pyspiel.State, returns: Sequence[float], utility_sum: float
) -> None:
    """Raises ValueError unless a terminal's returns sum to the game's `utility_sum`."""
    if abs(returns[0] + returns[1] - utility_sum) > 1e-9:
        raise ValueError(
            f"game {game} is not zero-sum: returns {list(returns)} at history {state.history()}"
        )


@dataclasses.dataclass(frozen=True)
class NodeCountEstimate:
    """Knuth's estimate of the number of nodes (histories) of a game tree.

    Knuth 1975, "Estimating the efficiency of backtrack programs", Section 2: along a random
    root-to-leaf path choosing children uniformly, 1 + b_0 + b_0 b_1 + b_0 b_1 b_2 + ...
    (b_d the number of children at depth d) is an unbiased estimate of the number of nodes.

    Attributes:
      nodes: the mean over playouts (inf when it exceeds the float range).
      log10_nodes: log10 of the mean (finite even when `nodes` overflows).
      std_error: standard error of the mean (inf when the samples overflow floats).
      playouts: number of playouts.
      complete: every playout reached a terminal history; otherwise playouts were cut after
        `max_steps` steps and the estimate only counts the levels above the cut.
    """

    nodes: float
    log10_nodes: float
    std_error: float
    playouts: int
    complete: bool

    def describe(self) -> str:
        """E.g. 'about 3.1e+40 nodes, estimated from 64 random playouts'."""
        if self.log10_nodes < 15:
            count = f"{self.nodes:.3g}"
        else:
            exponent = math.floor(self.log10_nodes)
            count = f"{10 ** (self.log10_nodes - exponent):.1f}e+{exponent}"
        cut = "" if self.complete else " cut after a step limit (a lower estimate)"
        return f"about {count} nodes, estimated from {self.playouts} random playouts{cut}"


def estimate_num_nodes(
    game: pyspiel.Game | str,
    playouts: int = ESTIMATE_PLAYOUTS,
    seed: int = 0,
    max_steps: int = ESTIMATE_MAX_STEPS,
    time_budget: float | None = None,
) -> NodeCountEstimate:
    """Knuth's (1975) estimator of the number of histories of `game` from random playouts.

    Each playout picks children uniformly at random (chance outcomes too) and stops at a
    terminal history or after `max_steps` steps; products are exact Python integers, so
    games of 1e1000 nodes give a finite `log10_nodes`. With `time_budget`, playouts stop
    after that many seconds (at least two are made).

    Raises:
      ValueError: a non-terminal state without legal actions or chance outcomes.
    """
    if playouts < 2 or max_steps < 1:
        raise ValueError(f"need playouts >= 2 and max_steps >= 1, got {playouts}, {max_steps}")
    game = load(game)
    rng = random.Random(seed)
    samples: list[int] = []
    complete = True
    deadline = None if time_budget is None else time.perf_counter() + time_budget
    for _ in range(playouts):
        if deadline is not None and len(samples) >= 2 and time.perf_counter() > deadline:
            break
        state = game.new_initial_state()
        total = weight = 1
        for _ in range(max_steps):
            if state.is_terminal():
                break
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
            else:
                actions = state.legal_actions()
            if not actions:
                raise ValueError(
                    f"game {game} has a non-terminal state without "
                    f"{'outcomes' if state.is_chance_node() else 'legal actions'} "
                    f"(history {state.history()})"
                )
            weight *= len(actions)
            total += weight
            state.apply_action(actions[rng.randrange(len(actions))])
        else:
            complete = complete and state.is_terminal()
        samples.append(total)
    n = len(samples)
    total_sum = sum(samples)
    log10_nodes = math.log10(total_sum) - math.log10(n)
    nodes = total_sum / n if log10_nodes < 300 else math.inf
    if max(samples) < 10**150:  # squares stay finite
        std_error = float(np.std(np.array(samples, dtype=np.float64), ddof=1) / n**0.5)
    else:
        std_error = math.inf
    return NodeCountEstimate(nodes, log10_nodes, std_error, n, complete)


def refuse_by_estimate(game: pyspiel.Game, cap: int | float) -> NodeCountEstimate | None:
    """Refuses, in about a second, a game whose walk would pass the node cap `cap`.

    Knuth's estimate from `ESTIMATE_PLAYOUTS` seeded playouts; one within a factor
    `ESTIMATE_REFINE_FACTOR` of the cap is refined with up to `ESTIMATE_REFINED_PLAYOUTS`
    playouts (at most `ESTIMATE_REFINE_SECONDS`). The game is refused when the estimate
    exceeds the cap: the estimate is unbiased but, in the heavy-tailed trees of games, far
    more often below the true count than above it (liars_dice: 2.2e5 for 2.9e5 nodes), so an
    estimate above the cap rarely wrongs a game that fits.

    Returns:
      The estimate (None for an infinite cap), for a progress display's total.

    Raises:
      GameTooLargeError: the estimate exceeds the cap.
    """
    if cap == NO_NODE_CAP:
        return None
    estimate = estimate_num_nodes(game)
    distance = abs(estimate.log10_nodes - math.log10(cap))
    if distance < math.log10(ESTIMATE_REFINE_FACTOR):  # near the cap: refine
        estimate = estimate_num_nodes(
            game, ESTIMATE_REFINED_PLAYOUTS, time_budget=ESTIMATE_REFINE_SECONDS
        )
    if estimate.log10_nodes > math.log10(cap):
        raise GameTooLargeError(
            f"game {game} has {estimate.describe()}: more than the cap max_nodes={cap} ({CAP_HINT})"
        )
    return estimate


def node_cap(
    game: pyspiel.Game,
    max_nodes: int | float | None,
    default: int = DEFAULT_MAX_NODES,
    walk_whole_game: bool = True,
) -> int | float:
    """The cap a walk runs under: `max_nodes`, `default` for None, none for `NO_NODE_CAP`.
    A walk of the whole game (`walk_whole_game`; not a certificate search's trunk) refuses an
    infinite game unless a finite cap is given."""
    if max_nodes is None:
        cap: int | float = default
    elif max_nodes == NO_NODE_CAP:
        cap = NO_NODE_CAP
    elif isinstance(max_nodes, (int, np.integer)) and not isinstance(max_nodes, bool):
        if max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {max_nodes} (game {game})")
        return int(max_nodes)
    else:
        raise ValueError(
            f"max_nodes must be None (the default cap {default}), a positive int "
            f"or NO_NODE_CAP, got {max_nodes!r} (game {game})"
        )
    if walk_whole_game and game.max_game_length() >= INFINITE_GAME_LENGTH:
        raise ValueError(
            f"game {game} is infinite (max_game_length {game.max_game_length()}); "
            "it cannot be compiled in full (certificate search can explore it)"
        )
    return cap


@dataclasses.dataclass(frozen=True)
class NodeLevel:
    """The nodes of one depth d >= 1 in id order; the children of a node are contiguous.

    Attributes:
      nodes: the nodes of the level.
      parents: the parent of each group of siblings (each internal node of depth d - 1 once).
      starts: offset of each group of siblings in `nodes` (`ufunc.reduceat` offsets).
    """

    nodes: IntArray
    parents: IntArray
    starts: IntArray


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
    def levels(self) -> tuple[NodeLevel, ...]:
        """The depth levels 1, 2, ... (`levels[d - 1]` holds depth d), computed once."""
        order, offsets = self.depth_order
        out = []
        for d in range(1, len(offsets) - 1):
            nodes = order[offsets[d] : offsets[d + 1]]
            par = self.parent[nodes]
            starts = np.flatnonzero(np.concatenate([[True], par[1:] != par[:-1]]))
            out.append(NodeLevel(nodes, _frozen(par[starts].astype(np.int64)), _frozen(starts)))
        return tuple(out)

    def top_down(
        self, root_value: ArrayLike, step: Callable[[IntArray, np.ndarray], np.ndarray]
    ) -> np.ndarray:
        """A pass from the root down, one vectorised call per depth level.

        `out[0] = root_value`; then for each depth d = 1, 2, ... with nodes `nodes`:
        `out[nodes] = step(nodes, out[parent[nodes]])`. `root_value` may be an array (then
        `out` has shape (num_nodes, *root_value.shape)); `out` takes its dtype.
        """
        root = np.asarray(root_value)
        out = np.empty((self.num_nodes, *root.shape), dtype=root.dtype)
        out[0] = root
        for lv in self.levels:
            out[lv.nodes] = step(lv.nodes, out[self.parent[lv.nodes]])
        return out

    def bottom_up(
        self,
        leaf_values: ArrayLike,
        reduce: np.ufunc = np.add,
        edge_weight: FloatArray | None = None,
    ) -> np.ndarray:
        """A pass from the deepest level up, one `reduce.reduceat` per depth level.

        Returns `out`, a copy of `leaf_values` (shape (num_nodes, ...)) in which every internal
        node p is replaced by `reduce` over its children c of `edge_weight[c] * out[c]`
        (of `out[c]` without weights): e.g. expected values (np.add, edge probabilities) or
        the range of leaf values below each node (np.minimum / np.maximum).
        """
        out = np.array(leaf_values, copy=True)
        if out.shape[:1] != (self.num_nodes,):
            raise ValueError(f"{self.name}: expected values over {self.num_nodes} nodes")
        for lv in reversed(self.levels):
            vals = out[lv.nodes]
            if edge_weight is not None:
                w = edge_weight[lv.nodes]
                vals = vals * w.reshape(w.shape + (1,) * (vals.ndim - 1))
            out[lv.parents] = reduce.reduceat(vals, lv.starts, axis=0)
        return out

    @functools.cached_property
    def chance_reach(self) -> FloatArray:
        """Product of the chance probabilities from the root to each node (read-only)."""
        return _frozen(self.top_down(1.0, lambda nodes, up: up * self.chance_prob[nodes]))

    @functools.cached_property
    def child_index(self) -> IntArray:
        """Index of each node among its siblings (0 for the root; read-only)."""
        index = np.arange(self.num_nodes) - self.child_start[np.maximum(self.parent, 0)]
        index[0] = 0
        return _frozen(index)

    @functools.cached_property
    def infoset_action_start(self) -> IntArray:
        """Offsets of each infoset's actions in the flat infoset-action layout of behavioural
        profiles: infoset i's actions are `infoset_action_start[i] : infoset_action_start[i+1]`,
        in the order of `infoset_legal_actions[i]` (read-only, length num_infosets + 1)."""
        sizes = np.fromiter(map(len, self.infoset_legal_actions), np.int64)
        return _frozen(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64))

    @functools.cached_property
    def infoset_action_ids(self) -> IntArray:
        """`infoset_legal_actions` flattened: the action id of every entry of the flat
        infoset-action layout (`infoset_action_start`; read-only)."""
        return _frozen(
            np.fromiter(
                itertools.chain.from_iterable(self.infoset_legal_actions),
                np.int64,
                count=self.num_infoset_actions,
            )
        )

    @property
    def num_infoset_actions(self) -> int:
        return int(self.infoset_action_start[-1])

    @functools.cached_property
    def edge_index(self) -> IntArray:
        """For a node whose parent is a decision node, the index of the edge into it in the
        flat infoset-action layout; -1 for the root and chance outcomes (read-only)."""
        par_infoset = self.infoset[np.maximum(self.parent, 0)]
        edge = np.where(
            par_infoset >= 0,
            self.infoset_action_start[np.maximum(par_infoset, 0)] + self.child_index,
            -1,
        )
        edge[0] = -1
        return _frozen(edge)

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
    def from_game(
        cls,
        game: pyspiel.Game | str,
        max_nodes: int | float | None = None,
        actions: ActionFilter | None = None,
    ) -> GameTree:
        """Walks a two-player zero-sum pyspiel game once, depth first and iteratively.

        The walk keeps one pyspiel state per depth level (children are generated lazily, and
        only the state being descended into is cloned), so its memory beyond the tree itself
        is O(depth).

        Args:
          game: a `pyspiel.Game` or a `load_game` string; simultaneous games are converted.
          max_nodes: the node cap. None: `DEFAULT_MAX_NODES`; a positive int: that cap;
            `NO_NODE_CAP` (math.inf): none. A finite cap is checked twice: first Knuth's
            estimate refuses games estimated above the cap within about a second
            (`refuse_by_estimate`; of the unrestricted game: skipped when `actions` is
            given), then the walk stops as soon as the tree passes the cap; meanwhile a
            progress bar (or, when stderr is not a terminal, a log line every 10 s:
            `progress.Counter`) shows the nodes against the estimate. Infinite games are
            refused unless an int cap is given.
          actions: an action abstraction (`ActionFilter`): only these actions are expanded
            at each decision state; infosets keep the game's keys, so a policy of the
            restricted tree is a policy of the game on the states it reaches (e.g. a
            no-limit poker game restricted to a few pot-fraction bets).

        Raises:
          ValueError: not two players, not zero/constant-sum, imperfect recall, infinite game.
          GameTooLargeError: more than `max_nodes` nodes (estimated or counted).
        """
        game = load(game)
        check_two_player_zero_sum(game)
        cap = node_cap(game, max_nodes)
        estimate = refuse_by_estimate(game, cap) if actions is None else None
        utility_sum = game.utility_sum()
        builder = TreeBuilder(name=str(game), game=game, utility_sum=utility_sum)
        node, state = builder.add_root(), game.new_initial_state()
        # One frame per internal node on the current path: [its state, its first child,
        # its child actions, the next child to visit]. Children are visited last first (the
        # order of earlier versions, so node ids are unchanged); all but child 0 get a clone,
        # child 0 takes over the parent's state once the frame is done.
        stack: list[list] = []
        total = None if estimate is None else estimate.nodes
        with progress.Counter(f"compiling {game}", total, unit="node") as counter:
            shown = 0
            while True:
                if builder.num_nodes - shown >= PROGRESS_STEP:
                    shown = builder.num_nodes
                    counter.update_to(shown)
                if state.is_terminal():
                    returns = state.returns()
                    check_zero_sum_returns(game, state, returns, utility_sum)
                    builder.set_leaf(node, returns[0], returns[0])
                else:
                    first, children = builder.expand_from_state(node, state, actions=actions)
                    if builder.num_nodes > cap:
                        raise GameTooLargeError(
                            f"game {game} has more nodes than the cap max_nodes={cap}: the walk "
                            f"reached {builder.num_nodes} nodes ({CAP_HINT})"
                        )
                    stack.append([state, first, children, len(children) - 1])
                if not stack:
                    break
                frame = stack[-1]
                parent_state, first, children, k = frame
                node = first + k
                if k:
                    frame[3] = k - 1
                    state = parent_state.child(children[k])
                else:
                    stack.pop()
                    parent_state.apply_action(children[0])
                    state = parent_state
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
            self._own_last_moves[player] = _frozen(self._compute_own_last_move(player))
        return self._own_last_moves[player]

    def own_moves(self, player: int) -> NDArray[np.bool_]:
        """For every node, whether the edge into it is a move of `player`."""
        par_infoset = self.infoset[np.maximum(self.parent, 0)]
        moved = (par_infoset >= 0) & (self.infoset_player[np.maximum(par_infoset, 0)] == player)
        moved[0] = False
        return moved

    def _compute_own_last_move(self, player: int) -> NDArray[np.int64]:
        mine = self.infoset_player == player
        if not mine.any():
            return np.zeros(self.num_nodes, dtype=np.int64)
        counts = np.where(mine, np.diff(self.infoset_action_start), 0)
        offset = np.concatenate([[0], np.cumsum(counts)[:-1]])
        moved = self.own_moves(player)
        par_infoset = np.maximum(self.infoset[np.maximum(self.parent, 0)], 0)
        code = np.where(moved, offset[par_infoset] + self.child_index + 1, 0)
        return self.top_down(np.int64(0), lambda nodes, up: np.where(moved[nodes], code[nodes], up))

    def check_perfect_recall(self) -> None:
        """Raises ValueError unless all nodes of each infoset share their owner's sequence
        (on a partial tree such as a trunk: among the nodes it has)."""
        nodes, offsets = self.infoset_nodes
        for p in (0, 1):
            last = self.own_last_move(p)[nodes]
            owner = self.infoset_player[self.infoset[nodes]] == p
            first_of_infoset = np.repeat(offsets[:-1], np.diff(offsets))
            bad = np.flatnonzero(owner & (last != last[first_of_infoset]))
            if len(bad):
                node, other = int(nodes[bad[0]]), int(nodes[first_of_infoset[bad[0]]])
                raise ValueError(
                    imperfect_recall_message(
                        self.game if self.game is not None else self.name,
                        p,
                        self.infoset_key[int(self.infoset[node])],
                        (self.history(other), self.history(node)),
                    )
                )


# Registered games whose information states forget a player's own moves (found by a walk of
# every registered two-player zero-sum game), and what has perfect recall instead
# (`imperfect_recall_message`).
_RECALL_FIXES = {
    "goofspiel": "goofspiel(imp_info=True) keeps each player's own bids",
    "liars_dice_ir": "liars_dice is the perfect-recall game",
    "phantom_ttt_ir": "phantom_ttt is the perfect-recall game",
}


def short_name(game: pyspiel.Game | str) -> str:
    """The registered name of `game`, or of the game inside a turn-based conversion."""
    if isinstance(game, str):
        return game.split("(", 1)[0].strip()
    name = game.get_type().short_name
    inner = game.get_parameters().get("game") if name == "turn_based_simultaneous_game" else None
    return inner["name"] if isinstance(inner, dict) and "name" in inner else name


def readable_key(key: str, limit: int = 200) -> str:
    """An information-state string on one line: its lines joined by ' / ', cut to `limit`
    characters."""
    text = " / ".join(line.strip() for line in key.splitlines() if line.strip())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def imperfect_recall_message(
    game: pyspiel.Game | str, player: int, key: str, histories: tuple[list[int], list[int]]
) -> str:
    """The one-line refusal of a game without perfect recall: the information set, two
    histories in it after different own moves, and the fix where one is known."""
    fix = _RECALL_FIXES.get(short_name(game))
    return (
        f"game {game} does not have perfect recall: player {player} reaches information set "
        f"{readable_key(key)} after different own sequences of moves (histories "
        f"{histories[0]} and {histories[1]}); the algorithms here need perfect recall"
        + (f" ({fix})" if fix else "")
    )


def _extend(buffer: array.array, values: np.ndarray) -> None:
    """Appends a numpy array to a typed buffer in one call."""
    dtype = {"i": np.int32, "q": np.int64, "d": np.float64}[buffer.typecode]
    buffer.frombytes(np.ascontiguousarray(values, dtype=dtype).tobytes())


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
        self._key = None if game is None else key_function(game)
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

    def depth(self, node: int) -> int:
        return self._depth[node]

    def is_expanded(self, node: int) -> bool:
        return self._num_children[node] > 0

    def add_root(self) -> int:
        if self._parent:
            raise ValueError("the tree already has a root")
        self._append_children(-1, 0, [-1], [1.0])
        return 0

    def set_leaf(self, node: int, lo: float, hi: float) -> None:
        """Makes `node` a leaf whose player-0 utility lies in [lo, hi]."""
        if lo > hi:
            raise ValueError(f"leaf bounds lo={lo} > hi={hi}")
        self._lo[node], self._hi[node] = lo, hi

    def set_chance_prob(self, node: int, prob: float) -> None:
        """Overrides the probability of the chance edge into `node`, e.g. with an unnormalised
        reach: a gadget game's root chance weights need not sum to 1 (Kubicek, Lisy &
        Sandholm 2024, "Equilibrium Refinements Improve Subgame Solving in
        Imperfect-Information Games", Section 3)."""
        parent = self._parent[node]
        if parent < 0 or self._player[parent] != CHANCE:
            raise ValueError(f"node {node} is not a chance outcome")
        if not prob >= 0:
            raise ValueError(f"chance probability {prob} at node {node} is not >= 0")
        self._chance_prob[node] = prob

    def _append_children(
        self, node: int, depth: int, actions: Sequence[int], probs: Sequence[float]
    ) -> int:
        n, first = len(actions), len(self._parent)
        self._parent.extend([node] * n)
        self._action.extend(actions)
        self._depth.extend([depth] * n)
        self._player.extend([TERMINAL] * n)
        self._infoset.extend([-1] * n)
        self._chance_prob.extend(probs)
        self._child_start.extend([0] * n)
        self._num_children.extend([0] * n)
        self._lo.extend([0.0] * n)
        self._hi.extend([0.0] * n)
        return first

    def _expand(self, node: int, actions: Sequence[int], probs: Sequence[float]) -> int:
        if self._num_children[node]:
            raise ValueError(f"node {node} is already expanded")
        if len(actions) == 0:
            raise ValueError(f"node {node} is expanded with no actions")
        first = self._append_children(node, self._depth[node] + 1, actions, probs)
        self._child_start[node], self._num_children[node] = first, len(actions)
        return first

    def expand_chance(self, node: int, actions: Sequence[int], probs: Sequence[float]) -> int:
        """Makes `node` a chance node; returns the id of its first child."""
        if abs(sum(probs) - 1.0) > 1e-9:
            raise ValueError(f"chance probabilities at node {node} sum to {sum(probs)}, not 1")
        self._player[node] = CHANCE
        return self._expand(node, [int(a) for a in actions], [float(p) for p in probs])

    def _intern_infoset(self, player: int, key: str, actions: Sequence[int]) -> int:
        """The id of `player`'s information set `key` (created on first use); ValueError if
        it was created with other legal actions."""
        if player not in (0, 1):
            raise ValueError(f"player {player} of information set {key!r} is not 0 or 1")
        legal = tuple(map(int, actions))
        infoset = self._infoset_ids.setdefault((player, key), len(self.infoset_key))
        if infoset == len(self.infoset_key):
            self.infoset_player.append(player)
            self.infoset_key.append(key)
            self.infoset_legal_actions.append(legal)
        elif self.infoset_legal_actions[infoset] != legal:
            raise ValueError(
                f"game {self.name}: information set {key!r} has nodes with different "
                f"legal actions {self.infoset_legal_actions[infoset]} and {legal}"
            )
        return infoset

    def expand_decision(self, node: int, player: int, key: str, actions: Sequence[int]) -> int:
        """Makes `node` a decision node of `player` in information set `key`."""
        infoset = self._intern_infoset(player, key, actions)
        legal = self.infoset_legal_actions[infoset]
        self._player[node] = player
        self._infoset[node] = infoset
        return self._expand(node, legal, [1.0] * len(legal))

    def expand_from_state(
        self,
        node: int,
        state: pyspiel.State,
        chance_outcomes: ChanceOutcomes | None = None,
        actions: ActionFilter | None = None,
    ) -> tuple[int, list[int]]:
        """Expands `node` like the non-terminal pyspiel `state`: a chance node with its
        outcomes (from `chance_outcomes(state)` if given, e.g. sampled), or a decision node
        in the current player's `information_state_string` with its legal actions (or the
        subset `actions(state)` of them: an action abstraction).

        Returns:
          (first child id, the children's actions in order).
        """
        if state.is_chance_node():
            outcomes = (chance_outcomes or _chance_outcomes)(state)
            chance_actions = [a for a, _ in outcomes]
            first = self.expand_chance(node, chance_actions, [p for _, p in outcomes])
            return first, chance_actions
        if state.is_terminal():
            raise ValueError(f"node {node}: a terminal state has no children")
        player = state.current_player()
        key = (self._key or key_function(state.get_game()))(state, player)
        legal = state.legal_actions()
        if actions is None:
            kept = legal
        else:
            kept = sorted(set(map(int, actions(state))))
            if not kept or not set(kept) <= set(legal):
                raise ValueError(
                    f"game {self.name}: the action abstraction keeps {kept} in information "
                    f"set {key!r}, not a non-empty subset of the legal actions {legal}"
                )
        return self.expand_decision(node, player, key, kept), kept

    def set_multi_valued_leaf(
        self, node: int, player: int, key: str, values: Sequence[float]
    ) -> int:
        """A depth-limit leaf with several values (Brown, Sandholm & Amos 2018, "Depth-Limited
        Solving for Imperfect-Information Games", Section 4): `player` (the opponent) picks,
        in information set `key`, one of k continuation strategies; action n leads to a
        terminal leaf worth `values[n]` to player 0. Returns the first of those leaves."""
        if len(values) == 0:
            raise ValueError(f"node {node}: a multi-valued leaf needs at least one value")
        first = self.expand_decision(node, player, key, range(len(values)))
        for k, v in enumerate(values):
            self.set_leaf(first + k, float(v), float(v))
        return first

    def copy_subtree(
        self,
        tree: GameTree,
        source: int,
        target: int,
        *,
        expand: NDArray[np.bool_] | None = None,
        leaf_lo: FloatArray | None = None,
        leaf_hi: FloatArray | None = None,
        infoset_key: Callable[[int], str] | None = None,
    ) -> SubtreeCopy:
        """Makes the unexpanded `target` a copy of `tree`'s subtree at `source`.

        The edge into `target` (its action and chance probability) stays the builder's: the
        caller chose it when expanding target's parent (`set_chance_prob` rescales it). Copied
        nodes are appended level by level (breadth first) in a handful of numpy calls per
        level; copied infosets keep the source's key, so they map back to the source tree's
        (and game's) information sets, unless `infoset_key` re-keys them.

        Args:
          tree: the source tree.
          source: the root of the copied subtree.
          target: a node of this builder, not yet expanded.
          expand: a mask over `tree`'s nodes; internal nodes outside it are copied as leaves
            (default: all internal nodes are expanded).
          leaf_lo, leaf_hi: player 0's utility bounds of every node copied as a leaf, over
            `tree`'s nodes (default `tree.lo`, `tree.hi`).
          infoset_key: the key of the copy of each source infoset id (default: the same key).

        Returns:
          The copied source nodes, their new ids, and the copied infosets' new and source ids.
        """
        if self._num_children[target]:
            raise ValueError(f"node {target} is already expanded")
        lo = tree.lo if leaf_lo is None else np.asarray(leaf_lo, dtype=np.float64)
        hi = tree.hi if leaf_hi is None else np.asarray(leaf_hi, dtype=np.float64)
        internal = ~tree.is_leaf if expand is None else (~tree.is_leaf & expand)
        # Breadth first: positions level_start[k] .. level_start[k + 1] - 1 hold level k.
        src_parts, parent_pos, level_start = [np.array([source], dtype=np.int64)], [], [0, 1]
        while True:
            local = np.flatnonzero(internal[src_parts[-1]])
            if not len(local):
                break
            parents = src_parts[-1][local]
            sizes = tree.num_children[parents].astype(np.int64)
            src_parts.append(arrays.segment_indices(tree.child_start[parents], sizes))
            parent_pos.append(np.repeat(level_start[-2] + local, sizes))
            level_start.append(level_start[-1] + int(sizes.sum()))
        src = np.concatenate(src_parts)
        base = self.num_nodes
        new = np.concatenate([[target], base + np.arange(len(src) - 1)]).astype(np.int64)
        # Fields of every copied node (position 0 is the target).
        is_internal = internal[src]
        sizes = np.where(is_internal, tree.num_children[src], 0).astype(np.int64)
        first_child_pos = 1 + np.concatenate([[0], np.cumsum(sizes)[:-1]])
        child_start = np.where(is_internal, new[np.minimum(first_child_pos, len(src) - 1)], 0)
        player = np.where(is_internal, tree.player[src], TERMINAL)
        src_infoset = np.where(is_internal, tree.infoset[src], -1)
        leaf_lo_values = np.where(is_internal, 0.0, lo[src])
        leaf_hi_values = np.where(is_internal, 0.0, hi[src])
        bad = np.flatnonzero(leaf_lo_values > leaf_hi_values)
        if len(bad):
            n = int(src[bad[0]])
            raise ValueError(f"leaf bounds lo={lo[n]} > hi={hi[n]} at source node {n}")
        # Infosets, interned in order of first appearance.
        decision = np.flatnonzero(src_infoset >= 0)
        uniq, first_seen = np.unique(src_infoset[decision], return_index=True)
        source_infosets = uniq[np.argsort(first_seen, kind="stable")]
        new_infosets = np.array(
            [
                self._intern_infoset(
                    int(tree.infoset_player[i]),
                    tree.infoset_key[i] if infoset_key is None else infoset_key(int(i)),
                    tree.infoset_legal_actions[i],
                )
                for i in source_infosets
            ],
            dtype=np.int64,
        )
        infoset = np.full(len(src), -1, dtype=np.int64)
        if len(decision):
            remap = np.searchsorted(uniq, src_infoset[decision])
            infoset[decision] = new_infosets[np.argsort(source_infosets)][remap]
        # Target (already in the builder), then the appended nodes.
        self._player[target], self._infoset[target] = int(player[0]), int(infoset[0])
        self._child_start[target], self._num_children[target] = int(child_start[0]), int(sizes[0])
        self._lo[target], self._hi[target] = float(leaf_lo_values[0]), float(leaf_hi_values[0])
        rest = src[1:]
        if len(rest):
            depth_shift = self._depth[target] - int(tree.depth[source])
            _extend(self._parent, new[np.concatenate(parent_pos)])
            _extend(self._action, tree.action[rest])
            _extend(self._depth, tree.depth[rest] + depth_shift)
            _extend(self._player, player[1:])
            _extend(self._infoset, infoset[1:])
            _extend(self._chance_prob, tree.chance_prob[rest])
            _extend(self._child_start, child_start[1:])
            _extend(self._num_children, sizes[1:])
            _extend(self._lo, leaf_lo_values[1:])
            _extend(self._hi, leaf_hi_values[1:])
        return SubtreeCopy(src, new, new_infosets, source_infosets)

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


def _chance_outcomes(state: pyspiel.State) -> Sequence[tuple[int, float]]:
    return state.chance_outcomes()


@dataclasses.dataclass(frozen=True)
class SubtreeCopy:
    """What `TreeBuilder.copy_subtree` copied.

    Attributes:
      source_nodes: the copied nodes of the source tree (breadth first, the source first).
      nodes: their ids in the builder, aligned with `source_nodes` (the target first).
      infosets: the builder's ids of the copied information sets.
      source_infosets: the source tree's ids of the same information sets, aligned.
    """

    source_nodes: IntArray
    nodes: IntArray
    infosets: IntArray
    source_infosets: IntArray


def subgame(
    tree: GameTree,
    roots: Sequence[int],
    weights: ArrayLike | None = None,
    normalize: bool = True,
    name: str | None = None,
) -> tuple[GameTree, list[SubtreeCopy]]:
    """A new tree whose root is a chance node over copies of the subtrees at `roots`.

    This is the subgame of Kubíček, Lisý & Sandholm 2025 ("Equilibrium Refinements Improve
    Subgame Solving in Imperfect-Information Games"), Section 2.1: a chance node chooses
    between the histories of a public state with probability proportional to their reach.
    Outcome k of the new root leads to the copy of `roots[k]`.

    Args:
      tree: the source tree.
      roots: the subgame's root nodes (distinct, none an ancestor of another).
      weights: the weight of each root (default: `tree.chance_reach[roots]`; a caller with a
        blueprint passes its reach probabilities).
      normalize: divide the weights by their sum (a proper chance node); False keeps them as
        they are (a gadget game's root, whose weights need not sum to 1, Section 3).
      name: of the new tree.
    """
    root_ids = np.asarray(roots, dtype=np.int64)
    if len(root_ids) == 0 or len(np.unique(root_ids)) != len(root_ids):
        raise ValueError(f"{tree.name}: a subgame needs distinct root nodes, got {root_ids}")
    w = tree.chance_reach[root_ids] if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != root_ids.shape or np.any(w < 0) or w.sum() <= 0:
        raise ValueError(f"{tree.name}: subgame weights {w} are not >= 0 with a positive sum")
    builder = TreeBuilder(
        name=name or f"subgame of {tree.name}", game=tree.game, utility_sum=tree.utility_sum
    )
    first = builder.expand_chance(
        builder.add_root(), range(len(root_ids)), [1 / len(root_ids)] * len(root_ids)
    )
    copies = []
    for k, (root, weight) in enumerate(zip(root_ids, w / w.sum() if normalize else w)):
        builder.set_chance_prob(first + k, float(weight))
        copies.append(builder.copy_subtree(tree, int(root), first + k))
    return builder.freeze(), copies
