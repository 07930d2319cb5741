"""A zero-sum pursuit-evasion search game on a graph, in the style of Bosansky & Cermak (2015).

As used in Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box
Extensive-Form Games", AAAI 2021, Section 7 (1).

The paper gives no rules beyond the reference, so this module fixes its own; node counts are
therefore not the paper's (docs/games.md compares them).

Graph (default `rows=3, cols=2`): a start node S, a goal node G and a grid of rows x cols
nodes (r, c). Edges: S - (r, 0) for every row; (r, c) - (r, c + 1); (r, c) - (r + 1, c);
(r, cols - 1) - G. Node ids: S = 0, (r, c) = 1 + r cols + c, G = rows cols + 1.

Players. Player 0 is the evader, starting at S; player 1 is the patroller, one unit that
starts on grid node (rows // 2, cols // 2) and moves on the grid only.

A step (at most `time_limit` steps):
1. The evader moves along an edge or stays (action: the id of its next node). Entering the
   node held by the unit means capture; reaching G means escape.
2. The patroller moves the unit along a grid edge or keeps it (action: the id of its next
   node). Moving onto the evader's node captures.
3. The unit reports whether its node carries the evader's flag: the evader leaves a flag on
   every grid node it has visited.

Information. The evader observes nothing of the patroller (it knows its own path). The
patroller knows its own moves and the flag reports, never the evader's position.

Utility (player 0): +1 on escape, -1 on capture or when time runs out (win-loss, zero-sum).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pyspiel

from ospiel_ext.games import _common

_DEFAULTS = {"rows": 3, "cols": 2, "time_limit": 4}
_GAME_TYPE = _common.game_type(
    "search_game", "Pursuit-evasion search game", _DEFAULTS, chance=False
)


class SearchGame(_common.Game):
    """Evader (player 0) against a one-unit patroller (player 1) on a grid graph."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        p = _common.params_with_defaults(_GAME_TYPE, params)
        self.rows, self.cols = int(p["rows"]), int(p["cols"])
        self.time_limit = int(p["time_limit"])
        _common.check(
            self.rows >= 1 and self.cols >= 1,
            "search_game",
            f"rows and cols must be >= 1, got {self.rows}, {self.cols}",
        )
        _common.check(
            self.time_limit >= 1, "search_game", f"time_limit must be >= 1, got {self.time_limit}"
        )
        self.num_graph_nodes = self.rows * self.cols + 2
        self.goal = self.num_graph_nodes - 1
        self.neighbours = self._build_graph()
        self.goal_distance = self._distances_to_goal()
        self.unit_start = self.cell(self.rows // 2, self.cols // 2)
        info = _common.game_info(self.num_graph_nodes, 0, 1.0, 2 * self.time_limit)
        super().__init__(_GAME_TYPE, info, p)

    def cell(self, row: int, col: int) -> int:
        """The node id of grid node (row, col): 1 + row cols + col."""
        return 1 + row * self.cols + col

    def is_grid(self, node: int) -> bool:
        """Whether `node` is a grid node (neither S nor G)."""
        return 0 < node < self.goal

    def _build_graph(self) -> tuple[tuple[int, ...], ...]:
        edges: list[set[int]] = [set() for _ in range(self.num_graph_nodes)]

        def link(a: int, b: int) -> None:
            edges[a].add(b)
            edges[b].add(a)

        for r in range(self.rows):
            link(0, self.cell(r, 0))
            link(self.cell(r, self.cols - 1), self.goal)
            for c in range(self.cols):
                if c + 1 < self.cols:
                    link(self.cell(r, c), self.cell(r, c + 1))
                if r + 1 < self.rows:
                    link(self.cell(r, c), self.cell(r + 1, c))
        return tuple(tuple(sorted(e)) for e in edges)

    def _distances_to_goal(self) -> tuple[int, ...]:
        dist = {self.goal: 0}
        frontier = [self.goal]
        while frontier:
            nxt = []
            for a in frontier:
                for b in self.neighbours[a]:
                    if b not in dist:
                        dist[b] = dist[a] + 1
                        nxt.append(b)
            frontier = nxt
        return tuple(dist[n] for n in range(self.num_graph_nodes))

    def new_initial_state(self) -> SearchGameState:
        """The first state: evader at S, unit at its start (pyspiel `Game.new_initial_state`)."""
        return SearchGameState(self)


class SearchGameState(_common.State):
    """Evader path, unit position, flag reports; see the module docstring for the rules."""

    def __init__(self, game: SearchGame) -> None:
        super().__init__(game)
        # Immutable attributes only: pyspiel clones a Python state by deep-copying each attribute.
        self.path: tuple[int, ...] = (0,)  # evader's nodes, one per step taken
        self.patrol: tuple[int, ...] = (game.unit_start,)  # unit's nodes, one per step
        self.reports = ""  # per step: "F" flag seen, "." none
        self.outcome = 0  # +1 escape, -1 capture / time up, 0 running
        self._player = 0

    @property
    def _game(self) -> SearchGame:
        # not an attribute: pyspiel deep-copies attributes on clone
        game: SearchGame = self.get_game()
        return game

    @property
    def step(self) -> int:
        """Steps completed (the patroller's moves so far)."""
        return len(self.patrol) - 1

    def current_player(self) -> int:
        """The evader, the patroller, or terminal (pyspiel `State.current_player`)."""
        return self._player

    def _legal_actions(self, player: int) -> list[int]:
        g = self._game
        here = self.path[-1] if player == 0 else self.patrol[-1]
        moves = (here, *g.neighbours[here])
        return sorted(m for m in moves if player == 0 or g.is_grid(m))

    def _apply_action(self, action: int) -> None:
        g = self._game
        if self._player == 0:
            self.path += (action,)
            if action == self.patrol[-1]:
                self.outcome = -1
            elif action == g.goal:
                self.outcome = 1
            self._player = pyspiel.PlayerId.TERMINAL if self.outcome else 1
            return
        self.patrol += (action,)
        if self.path[-1] == action:
            self.outcome = -1
        self.reports += "F" if action in self.path else "."
        if not self.outcome and self.step == g.time_limit:
            self.outcome = -1  # time is up
        self._player = pyspiel.PlayerId.TERMINAL if self.outcome else 0

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{'evader' if player == 0 else 'unit'} to {action}"

    def is_terminal(self) -> bool:
        """True on escape, capture or time up (pyspiel `State.is_terminal`)."""
        return self._player == int(pyspiel.PlayerId.TERMINAL)

    def returns(self) -> list[float]:
        """The outcome for player 0 (0 while running), negated for 1 (pyspiel `State.returns`)."""
        return [float(self.outcome), -float(self.outcome)]

    def utility_bounds(self) -> tuple[float, float]:
        """Capture stays possible until the end; escape only while G is within reach."""
        if self.is_terminal():
            return float(self.outcome), float(self.outcome)
        steps_left = self._game.time_limit - self.step
        reachable = self._game.goal_distance[self.path[-1]] <= steps_left
        return -1.0, 1.0 if reachable else -1.0

    def information_state(self, player: int) -> str:
        """The evader's path, or the patroller's moves and flag reports."""
        if player == 0:
            return "p0 path:" + ",".join(map(str, self.path))
        return f"p1 moves:{','.join(map(str, self.patrol))} reports:{self.reports}"

    def __str__(self) -> str:
        return f"path {self.path} unit {self.patrol} reports {self.reports} outcome {self.outcome}"


pyspiel.register_game(_GAME_TYPE, SearchGame)
