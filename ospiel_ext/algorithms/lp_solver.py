"""Drop-in for OpenSpiel's `open_spiel.python.algorithms.lp_solver`, on HiGHS.

OpenSpiel's module solves its LPs with cvxpy (ECOS or OSQP), which OpenSpiel's wheel does not
install: without cvxpy the module does not import at all. This one has the same names and
signatures and solves every LP with HiGHS through the pack's LP core (`highs_run`):

* `LinearProgram`: OpenSpiel's LP builder (labelled variables with bounds, labelled <=, >=
  and = constraints, an objective to maximise or minimise); `solve` returns the variables'
  values in the order they were added, or None when HiGHS finds no optimum (infeasible or
  unbounded), where OpenSpiel's returns cvxpy's None;
* `solve_zero_sum_matrix_game`: both players' maximin strategies and values of a two-player
  zero-sum matrix game, each from its own LP (Shoham & Leyton-Brown, "Multiagent Systems",
  2009, Section 4.1: max V such that the mixture earns at least V against every pure reply);
* `is_dominated` and `iterated_dominance`: strict, weak and very weak dominance of a pure
  strategy by a mixture, by one LP each, and the iterated elimination of dominated pure
  strategies (pure dominators first, then mixtures) in games of any number of players, as
  OpenSpiel's.

Two-player zero-sum matrix games only for `solve_zero_sum_matrix_game` (a ValueError names the
game and the property otherwise); the dominance functions take any normal-form game or payoff
tensor, as OpenSpiel's do.
"""

from __future__ import annotations

import enum
from collections.abc import Hashable
from typing import Any

import highspy
import numpy as np
import pyspiel
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ospiel_ext import highs_run
from ospiel_ext.arrays import FloatArray


class ObjectiveType(enum.Enum):
    """Maximise or minimise (OpenSpiel's values)."""

    OBJ_MAX = 1
    OBJ_MIN = 2


class ConstraintType(enum.Enum):
    """A constraint's sense (OpenSpiel's values)."""

    CONS_TYPE_LEQ = 1
    CONS_TYPE_GEQ = 2
    CONS_TYPE_EQ = 3


class DominanceType(enum.Enum):
    """Dominance of a pure strategy by a mixture (OpenSpiel's values).

    Strict: better against every opponent profile; very weak: at least as good against every
    one; weak: very weak and better against at least one.
    """

    DOMINANCE_STRICT = 1
    DOMINANCE_VERY_WEAK = 2
    DOMINANCE_WEAK = 3


class LinearProgram:
    """OpenSpiel's LP builder: variables and constraints by label, solved by HiGHS.

    Args:
      objective: `ObjectiveType.OBJ_MAX` or `OBJ_MIN`.
    """

    def __init__(self, objective: ObjectiveType):
        if objective not in (ObjectiveType.OBJ_MAX, ObjectiveType.OBJ_MIN):
            raise ValueError(f"objective {objective!r} is not an ObjectiveType")
        self._objective = objective
        self._obj_coeffs: dict[Hashable, float] = {}
        self._vars: dict[Hashable, tuple[int, float | None, float | None]] = {}
        self._cons: dict[Hashable, tuple[int, ConstraintType]] = {}
        self._coeffs: list[dict[Hashable, float]] = []
        self._rhs: list[float | None] = []

    def add_or_reuse_variable(
        self, label: Hashable, lb: float | None = None, ub: float | None = None
    ) -> None:
        """Adds a variable with bounds (None: unbounded), or checks the bounds of one added."""
        if label in self._vars:
            _, old_lb, old_ub = self._vars[label]
            if (old_lb, old_ub) != (lb, ub):
                raise ValueError(f"variable {label!r} exists with bounds ({old_lb}, {old_ub})")
            return
        self._vars[label] = (len(self._vars), lb, ub)

    def add_or_reuse_constraint(self, label: Hashable, ctype: ConstraintType) -> None:
        """Adds a constraint of sense `ctype`, or checks the sense of one added."""
        if not isinstance(ctype, ConstraintType):
            raise ValueError(f"constraint type {ctype!r} is not a ConstraintType")
        if label in self._cons:
            if self._cons[label][1] != ctype:
                raise ValueError(f"constraint {label!r} exists as {self._cons[label][1]}")
            return
        self._cons[label] = (len(self._coeffs), ctype)
        self._coeffs.append({})
        self._rhs.append(None)

    def set_obj_coeff(self, var_label: Hashable, coeff: float) -> None:
        """Sets a variable's objective coefficient."""
        self._obj_coeffs[var_label] = coeff

    def set_cons_coeff(self, cons_label: Hashable, var_label: Hashable, coeff: float) -> None:
        """Sets a variable's coefficient in a constraint."""
        self._coeffs[self._cons[cons_label][0]][var_label] = coeff

    def add_to_cons_coeff(self, cons_label: Hashable, var_label: Hashable, add: float) -> None:
        """Adds to a variable's coefficient in a constraint."""
        row = self._coeffs[self._cons[cons_label][0]]
        row[var_label] = row.get(var_label, 0.0) + add

    def set_cons_rhs(self, cons_label: Hashable, value: float) -> None:
        """Sets a constraint's right-hand side (0 until set)."""
        self._rhs[self._cons[cons_label][0]] = value

    def get_var_id(self, label: Hashable) -> int:
        """The variable's position in `solve`'s result."""
        return self._vars[label][0]

    def get_num_cons(self) -> tuple[int, int]:
        """(inequality constraints, equality constraints)."""
        senses = [ctype for _, ctype in self._cons.values()]
        eq = senses.count(ConstraintType.CONS_TYPE_EQ)
        return len(senses) - eq, eq

    def model(self) -> highs_run.ModelArrays:
        """The LP as HiGHS's arrays (maximised: a minimisation's costs negated)."""
        n = len(self._vars)
        sign = 1.0 if self._objective == ObjectiveType.OBJ_MAX else -1.0
        cost, lower, upper = np.zeros(n), np.full(n, -np.inf), np.full(n, np.inf)
        for label, (j, lb, ub) in self._vars.items():
            cost[j] = sign * self._obj_coeffs.get(label, 0.0)
            lower[j] = -np.inf if lb is None else lb
            upper[j] = np.inf if ub is None else ub
        rows, cols, vals = [], [], []
        for i, coeffs in enumerate(self._coeffs):
            for label, value in coeffs.items():
                rows.append(i)
                cols.append(self._vars[label][0])
                vals.append(value)
        m = len(self._coeffs)
        rhs = np.array([0.0 if b is None else b for b in self._rhs])
        row_lower, row_upper = np.full(m, -np.inf), np.full(m, np.inf)
        for i, ctype in self._cons.values():
            if ctype != ConstraintType.CONS_TYPE_LEQ:
                row_lower[i] = rhs[i]
            if ctype != ConstraintType.CONS_TYPE_GEQ:
                row_upper[i] = rhs[i]
        a = sp.csc_matrix((vals, (rows, cols)), shape=(m, n), dtype=np.float64)
        return highs_run.ModelArrays(n, m, cost, lower, upper, row_lower, row_upper, a)

    def solve(self, solver: Any = None, solver_kwargs: Any = None, **kwargs: Any) -> Any:
        """The variables' values at an optimum (order of addition), or None if there is none.

        HiGHS's dual simplex solves it; OpenSpiel's `solver`, `solver_kwargs` and other cvxpy
        options are accepted and ignored.
        """
        del solver, solver_kwargs, kwargs
        run = highs_run.run_new_model(self.model(), None, None, "simplex")
        if run.failed or run.status != highspy.HighsModelStatus.kOptimal:
            return None
        return np.asarray(run.col_value, dtype=np.float64)


def solve_zero_sum_matrix_game(
    game: pyspiel.MatrixGame,
) -> tuple[FloatArray, FloatArray, float, float]:
    """Both players' maximin strategies and values of a two-player zero-sum matrix game.

    Returns (p0_sol, p1_sol, p0_sol_val, p1_sol_val) as OpenSpiel's: each player's mixture
    over its actions (from its own LP: max V such that the mixture earns at least V against
    each of the other's actions) and its value.

    Raises:
      ValueError: `game` is not a one-shot two-player zero-sum matrix game.
    """
    if not isinstance(game, pyspiel.MatrixGame):
        raise ValueError(f"game {game} is not a pyspiel.MatrixGame")
    game_type = game.get_type()
    if game_type.utility != pyspiel.GameType.Utility.ZERO_SUM:
        raise ValueError(f"game {game} is not zero-sum ({game_type.utility})")
    payoffs = np.stack([np.asarray(game.row_utilities()), np.asarray(game.col_utilities())])
    sol0, val0 = _maximin(payoffs[0])
    sol1, val1 = _maximin(payoffs[1].T)
    return sol0, sol1, val0, val1


def _maximin(payoff: FloatArray) -> tuple[FloatArray, float]:
    """The row player's maximin mixture of `payoff` (rows: own actions) and its value."""
    rows, cols = payoff.shape
    lp = LinearProgram(ObjectiveType.OBJ_MAX)
    for r in range(rows):
        lp.add_or_reuse_variable(("x", r), lb=0.0)
    lp.add_or_reuse_variable("v")
    lp.set_obj_coeff("v", 1.0)
    for c in range(cols):
        lp.add_or_reuse_constraint(("reply", c), ConstraintType.CONS_TYPE_GEQ)
        for r in range(rows):
            lp.set_cons_coeff(("reply", c), ("x", r), float(payoff[r, c]))
        lp.set_cons_coeff(("reply", c), "v", -1.0)
    lp.add_or_reuse_constraint("sum", ConstraintType.CONS_TYPE_EQ)
    lp.set_cons_rhs("sum", 1.0)
    for r in range(rows):
        lp.set_cons_coeff("sum", ("x", r), 1.0)
    solution = lp.solve()
    if solution is None:
        raise ValueError("HiGHS found no optimum of a matrix game's LP")
    return solution[:rows], float(solution[rows])


def _payoffs(game_or_payoffs: pyspiel.NormalFormGame | ArrayLike) -> FloatArray:
    """(players, actions of each player ...) payoffs of a normal-form game or a tensor."""
    if isinstance(game_or_payoffs, pyspiel.MatrixGame):
        return np.stack(
            [np.asarray(game_or_payoffs.row_utilities()), game_or_payoffs.col_utilities()]
        ).astype(np.float64)
    if isinstance(game_or_payoffs, pyspiel.NormalFormGame):
        tensor = game_or_payoffs
        if not isinstance(tensor, pyspiel.TensorGame):
            tensor = pyspiel.extensive_to_tensor_game(tensor)
        players = range(tensor.num_players())
        return np.stack([np.asarray(tensor.player_utilities(p)) for p in players])
    return np.asarray(game_or_payoffs, dtype=np.float64)


def is_dominated(  # noqa: PLR0917 (OpenSpiel's positional signature)
    action: int,
    game_or_payoffs: pyspiel.NormalFormGame | ArrayLike,
    player: int,
    mode: DominanceType = DominanceType.DOMINANCE_STRICT,
    tol: float = 1e-7,
    return_mixture: bool = False,
) -> Any:
    """Whether the player's pure strategy `action` is dominated by a mixture of the others.

    Args:
      action: the player's action.
      game_or_payoffs: a matrix or normal-form game, or the player's payoff tensor (one axis
        per player).
      player: whose action.
      mode: strict, weak or very weak dominance.
      tol: the margin below which a difference counts as none.
      return_mixture: return a dominating mixture (or None) instead of a bool.

    One LP over mixtures x of the other actions (x_action = 0), own payoff P (rows: own
    actions, columns: the others' profiles): strict, min sum x such that x (P - m) >= P_a - m
    with P shifted by m below its minimum (a solution with sum x < 1 scales to a mixture that
    is better everywhere); very weak, any mixture with x P >= P_a; weak, the one that
    maximises the total payoff, dominating when its total exceeds P_a's.
    """
    if isinstance(game_or_payoffs, pyspiel.NormalFormGame):
        payoff = _payoffs(game_or_payoffs)[player]
    else:
        payoff = np.asarray(game_or_payoffs, dtype=np.float64)
    payoff = np.moveaxis(payoff, player, 0).reshape(payoff.shape[player], -1)
    x = _dominance_lp(payoff, action, mode).solve()
    mixture = None
    if x is not None:
        if mode == DominanceType.DOMINANCE_STRICT:
            mixture = x / x.sum() if x.sum() < 1 - tol else None
        elif mode == DominanceType.DOMINANCE_WEAK:
            mixture = x if (x @ payoff - payoff[action]).sum() > tol else None
        else:
            mixture = x
    return mixture if return_mixture else mixture is not None


def _dominance_lp(payoff: FloatArray, action: int, mode: DominanceType) -> LinearProgram:
    """`is_dominated`'s LP for the row `action` of `payoff` (rows: own actions)."""
    rows, cols = payoff.shape
    strict = mode == DominanceType.DOMINANCE_STRICT
    lp = LinearProgram(ObjectiveType.OBJ_MIN if strict else ObjectiveType.OBJ_MAX)
    for r in range(rows):
        lp.add_or_reuse_variable(r, lb=0.0, ub=0.0 if r == action else None)
    shifted = payoff - (payoff.min() - 1.0 if strict else 0.0)
    for c in range(cols):
        lp.add_or_reuse_constraint(("c", c), ConstraintType.CONS_TYPE_GEQ)
        lp.set_cons_rhs(("c", c), float(shifted[action, c]))
        for r in range(rows):
            if r != action:
                lp.set_cons_coeff(("c", c), r, float(shifted[r, c]))
    if strict:
        for r in range(rows):
            lp.set_obj_coeff(r, 1.0)
        return lp
    lp.add_or_reuse_constraint("sum", ConstraintType.CONS_TYPE_EQ)
    lp.set_cons_rhs("sum", 1.0)
    for r in range(rows):
        lp.set_cons_coeff("sum", r, 1.0)
        if mode == DominanceType.DOMINANCE_WEAK:
            lp.set_obj_coeff(r, float(payoff[r].sum()))
    return lp


def _dominated_by(advantage: FloatArray, mode: DominanceType, tol: float) -> np.ndarray:
    """Per row of advantages (a dominator's payoff minus each action's): dominated or not."""
    if mode == DominanceType.DOMINANCE_STRICT:
        return np.asarray((advantage > tol).all(axis=1))
    at_least = (advantage >= -tol).all(axis=1)
    if mode == DominanceType.DOMINANCE_WEAK:
        return np.asarray(at_least & (advantage.sum(axis=1) > tol))
    return np.asarray(at_least)


def iterated_dominance(
    game_or_payoffs: pyspiel.NormalFormGame | ArrayLike, mode: DominanceType, tol: float = 1e-7
) -> tuple[Any, list[np.ndarray]]:
    """Iterated elimination of dominated pure strategies.

    Rounds until nothing changes: for each player, against the others' surviving actions,
    first the actions a surviving pure action dominates, then each action a mixture of the
    others dominates (`is_dominated`) with the actions that mixture dominates outside its
    support. A player keeps at least one action.

    Returns:
      (reduced game, live actions): a `pyspiel.MatrixGame` of the surviving actions (with
      their names) for a matrix game, else the reduced payoff tensor; per player a bool array
      over its actions, True where the action survived.
    """
    payoffs = _payoffs(game_or_payoffs)
    live = [np.ones(n, dtype=bool) for n in payoffs.shape[1:]]
    changed = True
    while changed:
        changed = False
        for player in range(len(live)):
            for method in ("pure", "mixed"):
                if live[player].sum() == 1:
                    break
                own = payoffs[player]
                for other in range(len(live)):
                    if other != player:
                        own = own.compress(live[other], axis=other)
                own = np.moveaxis(own, player, 0).reshape(own.shape[player], -1)
                eliminate = _eliminate_pure if method == "pure" else _eliminate_mixed
                changed |= eliminate(own, live[player], mode, tol)
    reduced = payoffs
    for player, alive in enumerate(live):
        reduced = reduced.compress(alive, axis=player + 1)
    if isinstance(game_or_payoffs, pyspiel.MatrixGame):
        g = game_or_payoffs
        names = (
            [g.row_action_name(int(a)) for a in np.flatnonzero(live[0])],
            [g.col_action_name(int(a)) for a in np.flatnonzero(live[1])],
        )
        return pyspiel.MatrixGame(g.get_type(), g.get_parameters(), *names, *reduced), live
    return reduced, live


def _eliminate_pure(own: FloatArray, alive: np.ndarray, mode: DominanceType, tol: float) -> bool:
    """Removes from `alive` (in place) the actions a surviving action dominates (rows of own)."""
    changed = False
    for action in range(len(alive)):
        if alive[action] and alive.sum() > 1:
            dominated = _dominated_by(own[action] - own, mode, tol) & alive
            dominated[action] = False
            changed |= bool(dominated.any())
            alive &= ~dominated
    return changed


def _eliminate_mixed(own: FloatArray, alive: np.ndarray, mode: DominanceType, tol: float) -> bool:
    """Removes (in place) each action a mixture of the survivors dominates.

    With it go the actions outside the mixture's support that the mixture dominates too.
    """
    changed = False
    for action in range(len(alive)):
        if not alive[action] or alive.sum() == 1:
            continue
        index = int(alive[:action].sum())
        mixture = is_dominated(index, own[alive], 0, mode, tol, return_mixture=True)
        if mixture is None:
            continue
        beaten = _dominated_by(mixture @ own[alive] - own[alive], mode, tol)
        beaten[mixture > tol] = False
        beaten[index] = True
        alive[np.flatnonzero(alive)] = ~beaten
        changed = True
    return changed
