"""An independent check of GameShrink's abstracted game Γ_f (Gilpin & Sandholm, "Finding
Equilibria in Large Sequential Games of Imperfect Information", ACM EC 2006, Section 3.2 and
Theorem 2), from OpenSpiel and scipy only: none of ospiel_ext's sequence form, abstract game,
LP or evaluation code is used.

* Γ_f as a game OpenSpiel walks (`FilteredGame`): the original pyspiel game in which each
  player's information state is replaced by the filtered one - (round, class of the player's
  view under the filter, betting). Its sequence form is Γ_f's: Γ_f only groups the chance
  deals of one class pair into one node and averages their payoffs, which leaves every
  payoff-matrix entry sum_z chance(z) u(z) unchanged.
* Its sequence form from `open_spiel.python.algorithms.sequence_form_utils`, and its LP
  max_{x, q} f'q s.t. F'q <= A'x, Ex = e, x >= 0 (and the same for player 1: Koller, Megiddo
  & von Stengel's sequence-form LP) solved by `scipy.optimize.linprog`.
* Each player's LP strategy lifted to the original game with the abstraction's class map
  (an information set of the original plays the strategy of its filtered information state)
  as an OpenSpiel `TabularPolicy`, measured by `open_spiel.python.algorithms.exploitability`.

Prints the check for Leduc's two filters when run as a script:

  PYTHONPATH=$PWD python tests/algorithms/gameshrink/openspiel_reference.py
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms import sequence_form_utils as sfu
from scipy.optimize import linprog

from ospiel_ext.algorithms.gameshrink import shrink, stage_games


class FilteredGame:
    """The original game with information states filtered (what OpenSpiel's sequence-form
    code needs of a game: `new_initial_state`, `num_players`)."""

    def __init__(self, abstraction: shrink.Abstraction):
        self.abstraction = abstraction
        self.game = abstraction.og.game
        self._classes: dict[tuple[tuple[int, ...], int, int], int] = {}

    def num_players(self) -> int:
        return 2

    def new_initial_state(self) -> FilteredState:
        return FilteredState(self, self.game.new_initial_state())

    def _class(self, chance: tuple[int, ...], player: int, round_: int) -> int:
        """The class of `player`'s round `round_` view after chance actions `chance`."""
        key = (chance, player, round_)
        if key not in self._classes:
            deal = self.abstraction.og.deal_from_chance(list(chance))
            self._classes[key] = self.abstraction.class_of(deal, player, round_)
        return self._classes[key]

    def filtered_key(self, state: pyspiel.State, player: int) -> str:
        """(round, the class of `player`'s view, betting) of a state of the original game."""
        round_, betting = stage_games.betting_key(state)
        chance = tuple(stage_games.chance_actions_of(state))
        return f"round {round_} class {self._class(chance, player, round_)} betting {betting}"


@dataclasses.dataclass
class FilteredState:
    """A state of the original game seen through the filter."""

    game: FilteredGame
    state: pyspiel.State

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return self.state.is_chance_node()

    def returns(self) -> list[float]:
        return self.state.returns()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.state.chance_outcomes()

    def current_player(self) -> int:
        return self.state.current_player()

    def legal_actions(self, player: int | None = None) -> list[int]:
        return self.state.legal_actions()

    def child(self, action: int) -> FilteredState:
        return FilteredState(self.game, self.state.child(action))

    def information_state_string(self, player: int) -> str:
        return self.game.filtered_key(self.state, player)


@dataclasses.dataclass(frozen=True)
class Check:
    """The check's figures: Γ_f's value from each player's LP (player 0's payoff), and the
    exploitability in the original game of the lifted LP profile (OpenSpiel's measure)."""

    value_player_0_lp: float
    value_player_1_lp: float
    lifted_exploitability: float
    sequences: tuple[int, int]


def _solve(a: np.ndarray, e: np.ndarray, e_rhs: np.ndarray, f: np.ndarray, f_rhs: np.ndarray):
    """max_x min_y x'Ay over Ex = e_rhs, Fy = f_rhs, x, y >= 0: (x, value), via the dual of
    the inner problem: max f_rhs'q s.t. F'q - A'x <= 0, Ex = e_rhs, x >= 0, q free."""
    n, m = a.shape[0], f.shape[0]
    cost = np.concatenate([np.zeros(n), -f_rhs])
    a_ub = np.hstack([-a.T, f.T])
    a_eq = np.hstack([e, np.zeros((e.shape[0], m))])
    bounds = [(0, None)] * n + [(None, None)] * m
    res = linprog(
        cost, A_ub=a_ub, b_ub=np.zeros(a.shape[1]), A_eq=a_eq, b_eq=e_rhs, bounds=bounds,
        method="highs",
    )  # fmt: skip
    if res.status != 0:
        raise RuntimeError(f"scipy's linprog failed: {res.message}")
    return res.x[:n], -res.fun


def check(abstraction: shrink.Abstraction) -> Check:
    """Solves Γ_f of `abstraction` with OpenSpiel's sequence form and scipy's LP, lifts the
    profile to the original game and measures it with OpenSpiel (module docstring)."""
    filtered = FilteredGame(abstraction)
    _infosets, isa_to_seq, isa_maps, parents, payoff, _ = sfu.construct_vars(filtered)
    constraints = sfu.construct_constraint_vars(parents, isa_to_seq, isa_maps)
    (e, e_rhs), (f, f_rhs) = constraints[0], constraints[1]
    a = payoff[0]
    x, value0 = _solve(a, e, e_rhs, f, f_rhs)
    y, neg_value1 = _solve(-a.T, f, f_rhs, e, e_rhs)  # player 1 maximises -x'Ay
    plans = (x, y)
    behaviour: dict[str, dict[int, float]] = {}
    for p in (0, 1):
        for info_state, isa_keys in isa_maps[p].items():
            if sfu.is_root(info_state, p):
                continue
            weights = np.array([plans[p][isa_to_seq[p][k]] for k in isa_keys])
            weights = np.clip(weights, 0.0, None)
            total = weights.sum()
            probs = weights / total if total > 1e-12 else np.full(len(weights), 1 / len(weights))
            actions = [sfu.get_action_from_key(k) for k in isa_keys]
            behaviour[f"p{p} {info_state}"] = dict(zip(actions, probs.tolist()))
    game = abstraction.og.game
    lifted = policy_lib.TabularPolicy(game)
    for state in lifted.states:
        player = state.current_player()
        row = behaviour[f"p{player} {filtered.filtered_key(state, player)}"]
        probs = lifted.policy_for_key(state.information_state_string(player))
        probs[:] = 0.0
        for action, p_a in row.items():
            probs[action] = p_a
    expl = float(os_exploitability.exploitability(game, lifted))
    return Check(value0, -neg_value1, expl, (len(isa_to_seq[0]), len(isa_to_seq[1])))


if __name__ == "__main__":
    for transformation in shrink.TRANSFORMATIONS:
        result = check(shrink.gameshrink("leduc_poker", transformation=transformation))
        print(f"leduc_poker, {transformation} filter: {result}")
