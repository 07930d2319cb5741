"""Bots: a blueprint bot and the nested depth-limited solving bot.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 5 (nested solving) and Table 1 (the nested bot against the blueprint and against naive
single-valued solving); Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve
Subgame Solving in Imperfect-Information Games", Section 8.1 (nested depth-limited solving with
each gadget x prior).

`NestedSolvingBot` plays a compiled game. At each of its decisions that follows a new
opponent action (or leaves the region it last solved) it:

1. finds the public state of the current history (`subgames.subgames` at "after m player
   moves", m the moves so far; cached per m);
2. builds K continuation values at the depth limit "after m + depth moves" from its running
   profile (`strategy_sets.continuation_leaves`): the blueprint at first, then the blueprint
   with every earlier solution spliced in - the previous subgame's strategy is what the new
   gadget must not let the opponent exploit (Section 5);
3. solves the depth-limited gadget game of the public state (`gadget`: 'unsafe' at the start
   of the game, where no gadget is needed, the configured one below; any GGSE prior) with the
   configured solver and iteration budget, and splices the solution into the running profile;
4. samples its action from the running profile.

Opponent actions the blueprint never plays (off-tree actions of an action abstraction) need no
translation: the next decision solves the subgame that follows them (Section 5). Solutions are
cached per sequence of public states, so replaying a game costs nothing and a seed fixes the
play. `restart_at` starts a new game.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from ospiel_ext import policies
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited.compiled import strategy_sets
from ospiel_ext.algorithms.depth_limited.settings import NestedSettings
from ospiel_ext.algorithms.subgames import ggse, priors
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.runtime import interrupts
from ospiel_ext.sequence_form import TreeSequenceForm


class ProfileBot(pyspiel.Bot):
    """Samples `player`'s actions from behavioural arrays of a compiled game."""

    def __init__(
        self, sf: TreeSequenceForm, behavioural: policies.Behavioural, player: int, seed: int
    ):
        pyspiel.Bot.__init__(self)
        if player not in (0, 1):
            raise ValueError(f"game {sf.name}: a bot's player must be 0 or 1, got {player}")
        self.sf, self.player = sf, player
        self.behavioural = behavioural
        self._rng = np.random.default_rng(seed)
        tp = sf.treeplexes[player]
        self._local = np.full(sf.tree.num_infosets, -1, dtype=np.int64)
        self._local[tp.infoset_ids] = np.arange(tp.num_infosets)

    def player_id(self) -> int:
        """The pyspiel `Bot.player_id` API: the bot's player."""
        return self.player

    def restart(self) -> None:
        """A new game (`pyspiel.evaluate_bots` calls `restart`, not `restart_at`)."""
        self.restart_at(None)

    def restart_at(self, state: pyspiel.State | None) -> None:
        """The pyspiel `Bot.restart_at` API: nothing to forget."""

    def node(self, state: pyspiel.State) -> int:
        """The compiled tree's node of `state` (`GameTree.node_at` of its history)."""
        return self.sf.tree.node_at(state.history())

    def probabilities(self, node: int) -> np.ndarray:
        """The bot's action probabilities at `node` (its decision node)."""
        tree, tp = self.sf.tree, self.sf.treeplexes[self.player]
        local = int(self._local[tree.infoset[node]])
        start = int(tp.seq_start[local])
        return self.behavioural[self.player][start : start + int(tp.num_actions[local])]

    def step(self, state: pyspiel.State) -> int:
        """The pyspiel `Bot.step` API: an action sampled from the bot's strategy at `state`."""
        if state.current_player() != self.player:
            raise ValueError(
                f"game {self.sf.name}: player {self.player}'s bot asked to move for "
                f"player {state.current_player()}"
            )
        node = self.node(state)
        p = np.clip(self.probabilities(node), 0.0, None)
        actions = self.sf.tree.infoset_legal_actions[int(self.sf.tree.infoset[node])]
        return int(actions[self._rng.choice(len(actions), p=p / p.sum())])


class NestedSolvingBot(ProfileBot):
    """Nested depth-limited solving (module docstring).

    Args:
      sf: the compiled game.
      blueprint: the blueprint's behavioural arrays.
      player: the bot's player.
      settings: the depth, K, strategy set, solver, iterations, time limit and GGSE tremble
        (`settings.NestedSettings`; its defaults if None).
      gadget: the gadget below the start of the game ('resolving', 'max_margin',
        'reach_max_margin' or 'unsafe').
      prior: the GGSE prior ('none', 'uniform', 'blueprint').
      seed: seeds the bot's action sampling.
    """

    def __init__(
        self,
        sf: TreeSequenceForm,
        blueprint: policies.Behavioural,
        player: int,
        *,
        settings: NestedSettings | None = None,
        gadget: GadgetKind = "resolving",
        prior: priors.PriorKind = "none",
        seed: int = 0,
    ):
        super().__init__(sf, blueprint, player, seed)
        s = NestedSettings() if settings is None else settings
        depth, num_values = s.depth, s.num_values
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"game {sf.name}: the depth must be an int >= 1, got {depth}")
        strategy_sets.check_set(sf, s.strategy_set, num_values, 1 - player)
        if gadget == "unsafe" and prior != "none":
            raise ValueError(f"game {sf.name}: the unsafe subgame takes no prior, got {prior!r}")
        self.blueprint, self.settings = blueprint, s
        self.depth, self.num_values, self.strategy_set = depth, num_values, s.strategy_set
        self.gadget, self.prior, self.method, self.iterations = (
            gadget,
            prior,
            s.method,
            s.iterations,
        )
        self.time_limit = s.time_limit
        self.solves = 0
        self._subgames: dict[int, tuple[ss.Subgame, ...]] = {}
        self._limits: dict[int, leaves_lib.DepthLimit | None] = {}
        tree = sf.tree
        moved = np.zeros(tree.num_nodes, dtype=bool)
        moved[1:] = tree.player[tree.parent[1:]] >= 0  # the edge into the node is a move
        moves = tree.top_down(np.int64(0), lambda nodes, up: up + moved[nodes])
        self._max_moves = int(moves[~tree.is_leaf].max(initial=0))
        self._cache: dict[tuple, policies.Behavioural] = {}
        self.restart_at(None)

    def restart_at(self, state: pyspiel.State | None) -> None:
        """The pyspiel `Bot.restart_at` API: back to the blueprint, nothing solved."""
        self.behavioural = self.blueprint
        self._path: tuple[tuple[int, int], ...] = ()
        self._region: np.ndarray | None = None
        self._opponent_moves = -1

    def _public_state(self, node: int, moves: int) -> ss.Subgame:
        if moves not in self._subgames:
            self._subgames[moves] = ss.subgames(self.sf.tree, ss.Cut.after_moves(moves))
        for sub in self._subgames[moves]:
            if np.any(sub.roots == node):
                return sub
        raise AssertionError(f"node {node} is not a root after {moves} moves")

    def _limit(self, moves: int) -> leaves_lib.DepthLimit | None:
        """The depth limit `depth` moves below; None when the game always ends before it."""
        m = moves + self.depth
        if m not in self._limits:
            deep_enough = m <= self._max_moves  # some non-terminal state has m moves
            cut = ss.Cut.after_moves(m)
            self._limits[m] = leaves_lib.depth_limit(self.sf.tree, cut) if deep_enough else None
        return self._limits[m]

    def _solve(self, node: int, moves: int) -> None:
        sub = self._public_state(node, moves)
        self._path += ((moves, sub.index),)
        limit = self._limit(moves)
        key = self._path
        if key not in self._cache:
            q = ss.BlueprintQuantities.compute(self.sf, self.behavioural)
            gadget: GadgetKind = "unsafe" if moves == 0 else self.gadget
            prior = "none" if gadget == "unsafe" else self.prior
            if limit is None or not np.any(limit.row[sub.nodes] >= 0):  # ends before it
                game = ss.gadget_game(gadget, q, sub, player=self.player)
            else:
                values = strategy_sets.continuation_leaves(
                    q,
                    [sub],
                    limit,
                    player=self.player,
                    kind=self.strategy_set,
                    num_values=self.num_values,
                    gadget=gadget,
                    method=self.method,
                    iterations=self.iterations,
                )
                game = leaves_lib.depth_limited_game(q, sub, values, gadget)
            pi = priors.gadget_prior(game, prior)
            solution = ggse.solve(
                game,
                pi,
                self.method,
                eps=self.settings.eps,
                iterations=self.iterations,
                time_limit=self.time_limit,
            )
            profile = ss.splice(self.sf, self.behavioural, [solution])
            mine = list(self.behavioural)
            mine[self.player] = profile[self.player]
            self._cache[key] = (mine[0], mine[1])
            self.solves += 1
        self.behavioural = self._cache[key]
        region = np.zeros(self.sf.tree.num_nodes, dtype=bool)
        region[sub.nodes] = True
        self._region = region if limit is None else region & limit.expand

    def step(self, state: pyspiel.State) -> int:
        """The pyspiel `Bot.step` API: solves if needed (module docstring), then samples."""
        node = self.node(state)
        history = state.full_history()
        opponent_moves = sum(1 for h in history if h.player == 1 - self.player)
        inside = self._region is not None and bool(self._region[node])
        if opponent_moves != self._opponent_moves or not inside:
            moves = sum(1 for h in history if h.player >= 0)
            self._solve(node, moves)
            interrupts.check()  # a solve cut short by Ctrl-C ends the game, unplayed
            self._opponent_moves = opponent_moves
        return super().step(state)
