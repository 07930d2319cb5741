"""The small example games of the papers.

Two-stage games (`TwoStageSpec`): chance picks a hidden state, the first mover acts, then the
second mover acts without observing that action; each player observes only its own cell of
a partition of the states.

* `rps_plus` - Rock-Paper-Scissors+ (Brown, Sandholm & Amos, "Depth-Limited Solving for
  Imperfect-Information Games", NeurIPS 2018, Section 2, Figure 1a): player 0 moves first,
  unobserved; a win or loss involving Scissors is worth 2.
  Unique equilibrium: both players play (R, P, S) = (0.4, 0.4, 0.2); value 0.
* `forfeit_matching_pennies` - Kubíček, Lisý & Sandholm, "Equilibrium Refinements Improve
  Subgame Solving in Imperfect-Information Games", 2025, Section 3, Figure 1a: player 1 chooses
  H or T; player 0, unaware, chooses Forfeit (-1), H or T (1 on a match, 0 otherwise).
  Unique equilibrium: both mix H/T 0.5 and player 0 never forfeits; value 0.5.
* `sequential_rps` - Kubíček, Lisý & Sandholm 2025, Observation 2 (Figure 8): player 1 chooses
  R/P/S first, then player 0 chooses without observing it; uniform equilibrium, value 0.
* `three_state_matching_pennies` - Kubíček, Lisý & Sandholm 2025, Observation 3 (Figure 11):
  chance picks one of three states uniformly; player 0 cannot tell states 2 and 3 apart, player 1
  cannot tell states 1 and 2 apart; each state is a matching-pennies game (player 0 moves
  first, unobserved) paying 1 on a match and 0 otherwise (the convention of the paper's
  Figure 1a), except that player 0 gets 2 for (H, H) in state 1 and 3 for (T, T) in state 2.

* `bonus_three_state_matching_pennies` - Kubíček, Lisý & Sandholm 2025, Observation 1
  (Figure 5): the information structure of `three_state_matching_pennies`; states 2 and 3 are
  matching pennies, state 1 pays player 0 one more than matching pennies except for (T, H)
  (player 0's T, player 1's H). Unique equilibrium: player 0 plays H with 2/3 in {1} and 1/2
  in {2, 3}, player 1 plays H with 1/3 in {1, 2} and 2/3 in {3}; value 7/9.

`repeated_matching_pennies(rounds=T)` - Zhang & Sandholm, "Finding and Certifying (Near-)Optimal
Strategies in Black-Box Extensive-Form Games", AAAI 2021, Section 4 (Theorem 4.5): T rounds of
matching pennies worth 1/T each (player 0 gains 1/T on a match, loses 1/T otherwise); player 0
moves first in a round; after each round player 1 learns player 0's action, player 0 never learns
player 1's. Value 0; N = 2^(2T) terminals.

Player 0 is the papers' maximising "Player 1"; player 1 their "Player 2".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel

from ospiel_ext.games import _common


@dataclasses.dataclass(frozen=True, kw_only=True)
class TwoStageSpec:
    """A hidden state, then two moves, the second made without seeing the first."""

    short_name: str
    long_name: str
    first_mover: int
    actions: tuple[tuple[str, ...], tuple[str, ...]]  # action names of player 0, player 1
    payoff: np.ndarray  # [state, action0, action1] -> u0
    state_probs: tuple[float, ...] = (1.0,)
    partitions: tuple[tuple[int, ...], tuple[int, ...]] = ((0,), (0,))  # cell of each state


_R, _P, _S = 0, 1, 2
_RPS = np.array([[0, -1, 1], [1, 0, -1], [-1, 1, 0]], dtype=float)
_RPS_PLUS = _RPS * np.array([[1, 1, 2], [1, 1, 2], [2, 2, 2]])
_MP = np.array([[1.0, 0.0], [0.0, 1.0]])  # match pays 1 (Kubíček et al. 2025's convention)

SPECS = {
    "rps_plus": TwoStageSpec(
        short_name="rps_plus",
        long_name="Rock-Paper-Scissors+",
        first_mover=0,
        actions=(("R", "P", "S"), ("R", "P", "S")),
        payoff=_RPS_PLUS[None],
    ),
    "forfeit_matching_pennies": TwoStageSpec(
        short_name="forfeit_matching_pennies",
        long_name="Forfeit matching pennies",
        first_mover=1,
        actions=(("F", "H", "T"), ("H", "T")),
        payoff=np.array([[[-1.0, -1.0], [1.0, 0.0], [0.0, 1.0]]]),
    ),
    "sequential_rps": TwoStageSpec(
        short_name="sequential_rps",
        long_name="Sequential rock-paper-scissors",
        first_mover=1,
        actions=(("R", "P", "S"), ("R", "P", "S")),
        payoff=_RPS[None],
    ),
    "bonus_three_state_matching_pennies": TwoStageSpec(
        short_name="bonus_three_state_matching_pennies",
        long_name="Bonus three-state matching pennies",
        first_mover=0,
        actions=(("H", "T"), ("H", "T")),
        payoff=np.array([[[2.0, 1.0], [0.0, 2.0]], _MP, _MP]),
        state_probs=(1 / 3, 1 / 3, 1 / 3),
        partitions=((0, 1, 1), (0, 0, 1)),
    ),
    "three_state_matching_pennies": TwoStageSpec(
        short_name="three_state_matching_pennies",
        long_name="Three-state matching pennies",
        first_mover=0,
        actions=(("H", "T"), ("H", "T")),
        payoff=np.array([[[2.0, 0.0], [0.0, 1.0]], [[1.0, 0.0], [0.0, 3.0]], _MP]),
        state_probs=(1 / 3, 1 / 3, 1 / 3),
        partitions=((0, 1, 1), (0, 0, 1)),
    ),
}


class TwoStageGame(_common.Game):
    """A game described by a TwoStageSpec."""

    spec: TwoStageSpec

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        spec = self.spec
        chance = len(spec.state_probs) > 1
        info = _common.game_info(
            max(len(a) for a in spec.actions),
            len(spec.state_probs),
            float(np.abs(spec.payoff).max()),
            2 + chance,
        )
        super().__init__(
            _common.game_type(spec.short_name, spec.long_name, {}, chance=chance),
            info,
            params or {},
        )

    def new_initial_state(self) -> TwoStageState:
        """The state before chance picks the hidden state (pyspiel `Game.new_initial_state`)."""
        return TwoStageState(self)


class TwoStageState(_common.State):
    """Chosen state (-1 before chance) and the moves made."""

    def __init__(self, game: TwoStageGame) -> None:
        super().__init__(game)
        self.hidden = -1 if len(game.spec.state_probs) > 1 else 0
        self.moves: tuple[int, ...] = ()

    @property
    def _spec(self) -> TwoStageSpec:
        game: TwoStageGame = self.get_game()
        return game.spec

    def current_player(self) -> int:
        """Chance, the first mover, the second, or terminal (pyspiel `State.current_player`)."""
        if self.hidden < 0:
            return int(pyspiel.PlayerId.CHANCE)
        if len(self.moves) == 2:
            return int(pyspiel.PlayerId.TERMINAL)
        first = self._spec.first_mover
        return first if not self.moves else 1 - first

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(len(self._spec.actions[player])))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every hidden state with its probability (pyspiel `State.chance_outcomes`)."""
        return list(enumerate(self._spec.state_probs))

    def _apply_action(self, action: int) -> None:
        if self.hidden < 0:
            self.hidden = action
        else:
            self.moves += (action,)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"state {action + 1}"
        return self._spec.actions[player][action]

    def is_terminal(self) -> bool:
        """True once both players have moved (pyspiel `State.is_terminal`)."""
        return len(self.moves) == 2

    def returns(self) -> list[float]:
        """The spec's payoff to player 0, negated for 1, zeros before the end (`State.returns`)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        first = self._spec.first_mover
        a0, a1 = self.moves if first == 0 else self.moves[::-1]
        u = float(self._spec.payoff[self.hidden, a0, a1])
        return [u, -u]

    def information_state(self, player: int) -> str:
        """The player's cell of the hidden state and its own move."""
        cell = self._spec.partitions[player][self.hidden] if self.hidden >= 0 else "-"
        mine = "".join(
            self._spec.actions[player][a]
            for i, a in enumerate(self.moves)
            if (i == 0) == (self._spec.first_mover == player)
        )
        return f"p{player} cell:{cell} own:{mine}"

    def __str__(self) -> str:
        return f"state {self.hidden} moves {self.moves}"


def _register(spec: TwoStageSpec) -> type:
    cls = type(f"{spec.short_name.title().replace('_', '')}Game", (TwoStageGame,), {"spec": spec})
    pyspiel.register_game(
        _common.game_type(spec.short_name, spec.long_name, {}, chance=len(spec.state_probs) > 1),
        cls,
    )
    return cls


for _spec in SPECS.values():
    _register(_spec)


_RMP_DEFAULTS = {"rounds": 2}
_RMP_TYPE = _common.game_type(
    "repeated_matching_pennies", "Repeated matching pennies", _RMP_DEFAULTS, chance=False
)


class RepeatedMatchingPenniesGame(_common.Game):
    """T rounds of matching pennies; player 1 sees player 0's past actions, not vice versa."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        p = _common.params_with_defaults(_RMP_TYPE, params)
        self.rounds = int(p["rounds"])
        _common.check(
            self.rounds >= 1, "repeated_matching_pennies", f"rounds must be >= 1, got {self.rounds}"
        )
        info = _common.game_info(2, 0, 1.0, 2 * self.rounds)
        super().__init__(_RMP_TYPE, info, p)

    def new_initial_state(self) -> RepeatedMatchingPenniesState:
        """The state before the first round (pyspiel `Game.new_initial_state`)."""
        return RepeatedMatchingPenniesState(self)


class RepeatedMatchingPenniesState(_common.State):
    """The actions so far, alternating player 0, player 1."""

    def __init__(self, game: RepeatedMatchingPenniesGame) -> None:
        super().__init__(game)
        self._rounds = game.rounds
        self.moves = ""

    def current_player(self) -> int:
        """Player 0, player 1 in turn, then terminal (pyspiel `State.current_player`)."""
        if len(self.moves) == 2 * self._rounds:
            return int(pyspiel.PlayerId.TERMINAL)
        return len(self.moves) % 2

    def _legal_actions(self, player: int) -> list[int]:
        return [0, 1]

    def _apply_action(self, action: int) -> None:
        self.moves += "HT"[action]

    def _action_to_string(self, player: int, action: int) -> str:
        return "HT"[action]

    def is_terminal(self) -> bool:
        """True once every round is played (pyspiel `State.is_terminal`)."""
        return len(self.moves) == 2 * self._rounds

    def returns(self) -> list[float]:
        """Player 0 wins 1/T per match, loses 1/T per mismatch (pyspiel `State.returns`)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        u = (
            sum(
                1.0 if self.moves[i] == self.moves[i + 1] else -1.0
                for i in range(0, len(self.moves), 2)
            )
            / self._rounds
        )
        return [u, -u]

    def utility_bounds(self) -> tuple[float, float]:
        """Rounds played are settled; each remaining round moves the score by 1/T either way."""
        done = len(self.moves) // 2
        settled = (
            sum(1.0 if self.moves[i] == self.moves[i + 1] else -1.0 for i in range(0, 2 * done, 2))
            / self._rounds
        )
        left = (self._rounds - done) / self._rounds
        return settled - left, settled + left

    def information_state(self, player: int) -> str:
        """Player 0's own moves; player 1's completed rounds and whether one is under way."""
        if player == 0:
            return "p0 own:" + self.moves[0::2]
        complete = len(self.moves) - len(self.moves) % 2
        return "p1 seen:" + self.moves[:complete] + " current:?" * (len(self.moves) % 2)

    def __str__(self) -> str:
        return self.moves


pyspiel.register_game(_RMP_TYPE, RepeatedMatchingPenniesGame)
