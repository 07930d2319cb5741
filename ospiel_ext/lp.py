"""Sequence-form linear programs on HiGHS (highspy), for any SequenceForm.

The LP of Koller, Megiddo and von Stengel (1996), written for the maximising `player` with
payoff M (A for player 0, -A^T for player 1; rows: the player's sequences, columns: the
opponent's), own treeplex E x = e, opponent treeplex F y = f:

    max_{x, q, r}  (f + d)^T q + g_y^T r            (ggse_subgame_solving.md eq. 2a / 3a)
    s.t.           E x = e                            (2b)
                   M^T x - F^T q - G_y^T r >= 0       (2c)   duals: the opponent's plan y
                   G_x x >= g_x                       optional constraints on the player
                   x >= 0, r >= 0                     (2d)

`G_x x >= g_x` and `G_y y >= g_y` are optional linear constraints on either player's
realization plan (perturbed / behaviourally constrained strategy spaces, e.g. the
xi-perturbed treeplex of perturbed_egt_efpe.txt: x[s] >= xi x[parent(s)]); `d` perturbs the
opponent's constraint right-hand side as in ggse_subgame_solving.md eq. 3a. The opponent's
equilibrium plan is read from the duals of (2c), so one solve gives both strategies.

The constraint matrix is assembled in sparse CSC and passed to HiGHS in one `passModel`. A
solve can return its final basis keyed by stable sequence / information-set ids (`Basis`) and
start from such a basis of a smaller trunk of the same game (`warm_start`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence

import highspy
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ospiel_ext.sequence_form import SequenceForm, Treeplex

FloatArray = NDArray[np.float64]

_STATUS_MESSAGES = {
    highspy.HighsModelStatus.kNotset: "HiGHS did not run",
    highspy.HighsModelStatus.kLoadError: "HiGHS could not load the model",
    highspy.HighsModelStatus.kModelError: "the model is invalid",
    highspy.HighsModelStatus.kPresolveError: "presolve failed",
    highspy.HighsModelStatus.kSolveError: "the solver failed",
    highspy.HighsModelStatus.kPostsolveError: "postsolve failed",
    highspy.HighsModelStatus.kModelEmpty: "the model is empty",
    highspy.HighsModelStatus.kInfeasible: "the LP is infeasible (are the strategy "
    "constraints satisfiable?)",
    highspy.HighsModelStatus.kUnboundedOrInfeasible: "the LP is unbounded or infeasible",
    highspy.HighsModelStatus.kUnbounded: "the LP is unbounded",
    highspy.HighsModelStatus.kTimeLimit: "the time limit was reached",
    highspy.HighsModelStatus.kIterationLimit: "the iteration limit was reached",
    highspy.HighsModelStatus.kUnknown: "HiGHS ended in an unknown state",
    highspy.HighsModelStatus.kInterrupt: "the solve was interrupted",
}


class LPError(RuntimeError):
    """HiGHS ended with a status other than optimal."""


@dataclasses.dataclass(frozen=True)
class LinearConstraints:
    """G z >= g on a realization plan z."""

    matrix: sp.csr_matrix
    rhs: FloatArray


def behavioural_lower_bounds(tp: Treeplex, xi: float | FloatArray) -> LinearConstraints:
    """x[s] - xi[s] x[parent(s)] >= 0 for every non-empty sequence s (the perturbed treeplex
    Q^xi of perturbed_egt_efpe.txt, Section 3; xi may be a scalar or one value per sequence)."""
    n = tp.num_sequences
    xi = np.broadcast_to(np.asarray(xi, dtype=np.float64), (n,))[1:]
    rows = np.concatenate([np.arange(n - 1), np.arange(n - 1)])
    cols = np.concatenate([np.arange(1, n), tp.seq_parent[1:]])
    vals = np.concatenate([np.ones(n - 1), -xi])
    return LinearConstraints(sp.csr_matrix((vals, (rows, cols)), shape=(n - 1, n)), np.zeros(n - 1))


@dataclasses.dataclass(frozen=True)
class Basis:
    """The final simplex basis of an LP, keyed by what each column and row stands for, so
    that it can warm-start the LP of a grown trunk whose arrays are renumbered.

    Keys are `Treeplex.stable_ids` of sequences and creation-order ids of information sets,
    times 4 plus the kind (0: x column, 1: q column, 2: row of E, 3: row (2c)); `keys` is
    sorted and `status` holds the HiGHS basis status of each as an integer.
    """

    keys: NDArray[np.int64]
    status: NDArray[np.int8]


_STATUS = {int(v): v for v in highspy.HighsBasisStatus.__members__.values()}
_LOWER, _BASIC, _ZERO = (
    int(highspy.HighsBasisStatus.kLower),
    int(highspy.HighsBasisStatus.kBasic),
    int(highspy.HighsBasisStatus.kZero),
)


def _lp_keys(own: Treeplex, opp: Treeplex, kept) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Keys (see `Basis`) of the columns (x, q) and rows (E, constraints 2c) of the LP."""
    opp_infosets = np.concatenate([[0], 1 + opp.infoset_ids])
    own_infosets = np.concatenate([[0], 1 + own.infoset_ids])
    cols = np.concatenate([own.stable_ids * 4, opp_infosets * 4 + 1])
    rows = np.concatenate([own_infosets * 4 + 2, opp.stable_ids[kept] * 4 + 3])
    return cols, rows


def _lookup(basis: Basis, keys: NDArray[np.int64], default: NDArray[np.int8]) -> list:
    """HiGHS statuses of `keys` from `basis`, `default` where it does not know a key."""
    pos = np.minimum(np.searchsorted(basis.keys, keys), len(basis.keys) - 1)
    found = basis.keys[pos] == keys
    codes = np.where(found, basis.status[pos], default)
    return [_STATUS[c] for c in codes.tolist()]


@dataclasses.dataclass(frozen=True)
class LPSolution:
    """Result of a sequence-form LP.

    Attributes:
      value: the game value for player 0 (of the LP's game: lo/hi bounds, perturbations).
      plans: realization plans (player 0, player 1); the solving player's from the primal, the
        opponent's from the duals of the best-response constraints.
      behavioural: the same strategies in behavioural form.
      seconds: HiGHS wall time.
      simplex_iterations: HiGHS simplex iteration count.
    """

    value: float
    plans: tuple[FloatArray, FloatArray]
    behavioural: tuple[FloatArray, FloatArray]
    seconds: float
    simplex_iterations: int
    basis: Basis | None = None


def lp_size(
    num_infosets: Sequence[int], num_sequences: Sequence[int], payoff_nonzeros: int
) -> dict[str, int]:
    """Rows, columns and nonzeros of `solve`'s LP for player 0 (no extra constraints): rows
    E x = e (infosets + 1) and the opponent's sequences; columns x and the opponent's infoset
    values q (infosets + 1); nonzeros of E, A and F (one per sequence and per infoset each)."""
    (i0, i1), (s0, s1) = num_infosets, num_sequences
    return {
        "lp_rows": i0 + 1 + s1,
        "lp_columns": s0 + i1 + 1,
        "lp_nonzeros": s0 + i0 + payoff_nonzeros + s1 + i1,
    }


def solve(
    sf: SequenceForm,
    *,
    bound: str = "value",
    player: int = 0,
    own_constraints: LinearConstraints | None = None,
    opponent_constraints: LinearConstraints | None = None,
    rhs_perturbation: FloatArray | None = None,
    payoff: sp.csr_matrix | None = None,
    excluded_opponent_sequences: NDArray[np.bool_] | None = None,
    warm_start: Basis | None = None,
    return_basis: bool = False,
    time_limit: float | None = None,
) -> LPSolution:
    """Solves the sequence-form LP of `sf` (see the module docstring).

    Args:
      sf: the sequence form.
      bound: 'value' (leaves carry values), 'lo' or 'hi' (the game whose leaves take the lower /
        upper end of their utility interval).
      player: the maximising player whose LP is written (its plan is primal).
      own_constraints: G_x x >= g_x on the player's plan.
      opponent_constraints: G_y y >= g_y on the opponent's plan.
      rhs_perturbation: d, added to the opponent's constraint right-hand side f in the objective.
      payoff: an explicit player-0 payoff matrix A, replacing `bound`'s.
      excluded_opponent_sequences: mask of opponent sequences whose constraint (2c) is dropped,
        i.e. that the opponent never plays (their dual, the opponent's plan, is 0): the "bad
        sequences" of certificates_black_box_games.txt, Section 6.4 (eq. 6.10).
      warm_start: the `basis` of an earlier solve of a smaller trunk of the same game; columns
        and rows it does not know start nonbasic at zero and basic, respectively, and HiGHS
        repairs the rest (an "alien" basis).
      return_basis: return the final basis in `LPSolution.basis`.
      time_limit: seconds for HiGHS.

    Raises:
      LPError: HiGHS did not find an optimal solution.
    """
    if bound not in ("value", "lo", "hi"):
        raise ValueError(f"bound must be 'value', 'lo' or 'hi', got {bound!r}")
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")
    if payoff is not None:
        matrix = payoff
    elif bound == "value":
        matrix = sf.payoff  # raises if leaves carry intervals
    else:
        matrix = sf.payoff_lo if bound == "lo" else sf.payoff_hi
    own, opp = sf.treeplexes[player], sf.treeplexes[1 - player]
    kept = np.arange(opp.num_sequences)
    if excluded_opponent_sequences is not None:
        kept = np.flatnonzero(~excluded_opponent_sequences)
    m_t = (matrix.T if player == 0 else -matrix).tocsr()[kept]  # opponent x player sequences
    e_mat, e = own.constraints
    f_mat, f = opp.constraints
    n_x, n_q = own.num_sequences, f_mat.shape[0]
    g_y = opponent_constraints
    n_r = 0 if g_y is None else g_y.matrix.shape[0]

    blocks = [
        [e_mat, None, None],
        [m_t, -f_mat.T.tocsr()[kept], None if g_y is None else -g_y.matrix.T.tocsr()[kept]],
    ]
    lower = [e, np.zeros(len(kept))]
    upper = [e, np.full(len(kept), np.inf)]
    if own_constraints is not None:
        blocks.append([own_constraints.matrix, None, None])
        lower.append(own_constraints.rhs)
        upper.append(np.full(len(own_constraints.rhs), np.inf))
    if n_r == 0:
        blocks = [row[:2] for row in blocks]
    # Give every column block its width even where all its entries are empty.
    blocks[0][1] = sp.csr_matrix((e_mat.shape[0], n_q))
    if n_r:
        blocks[0][2] = sp.csr_matrix((e_mat.shape[0], n_r))
    a = sp.bmat(blocks, format="csc")

    cost = np.zeros(n_x + n_q + n_r)
    cost[n_x : n_x + n_q] = f if rhs_perturbation is None else f + rhs_perturbation
    if n_r:
        cost[n_x + n_q :] = g_y.rhs
    col_lower = np.concatenate([np.zeros(n_x), np.full(n_q, -np.inf), np.zeros(n_r)])
    col_upper = np.full(n_x + n_q + n_r, np.inf)

    keys = None
    if warm_start is not None or return_basis:
        if own_constraints is not None or opponent_constraints is not None:
            raise ValueError("warm starts are not supported with extra strategy constraints")
        keys = _lp_keys(own, opp, kept)
    start_basis = None if warm_start is None else _start_basis(warm_start, keys, n_x, n_q)
    solution, objective, seconds, iterations, final_basis = _run_highs(
        cost,
        col_lower,
        col_upper,
        a,
        np.concatenate(lower),
        np.concatenate(upper),
        time_limit,
        start_basis,
    )
    x = np.maximum(solution.col_value[:n_x], 0.0)
    rows = slice(e_mat.shape[0], e_mat.shape[0] + len(kept))
    # HiGHS reports non-positive duals for the >= rows of a maximisation: y = -dual.
    y = np.zeros(opp.num_sequences)
    y[kept] = np.maximum(-np.asarray(solution.row_dual[rows]), 0.0)
    plans = (x, y) if player == 0 else (y, x)
    value = objective if player == 0 else -objective
    behavioural = tuple(tp.behavioural(z) for tp, z in zip(sf.treeplexes, plans))
    basis = _keyed_basis(keys, final_basis) if return_basis else None
    return LPSolution(value, plans, behavioural, seconds, iterations, basis)


def _start_basis(warm: Basis, keys, n_x: int, n_q: int):
    """(column, row) HiGHS statuses from an earlier basis; unknown columns nonbasic at zero
    (x at its lower bound, free q at zero), unknown rows basic; None if `warm` is empty."""
    if not len(warm.keys):
        return None
    cols, rows = keys
    nonbasic = np.concatenate([np.full(n_x, _LOWER), np.full(n_q, _ZERO)]).astype(np.int8)
    return (
        _lookup(warm, cols, nonbasic),
        _lookup(warm, rows, np.full(len(rows), _BASIC, dtype=np.int8)),
    )


def _keyed_basis(keys, final) -> Basis:
    """The final (column, row) statuses as a Basis."""
    all_keys = np.concatenate(keys)
    codes = np.fromiter(map(int, final[0] + final[1]), dtype=np.int8)
    order = np.argsort(all_keys, kind="stable")
    return Basis(all_keys[order], codes[order])


def _run_highs(
    cost,
    col_lower,
    col_upper,
    a: sp.csc_matrix,
    row_lower,
    row_upper,
    time_limit: float | None,
    start_basis=None,
):
    """Maximises cost^T z under row_lower <= a z <= row_upper and column bounds, from
    `start_basis` (column and row statuses) if given; returns solution, objective, seconds,
    simplex iterations and the final (column, row) statuses."""
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = a.shape[1], a.shape[0]
    lp.sense_ = highspy.ObjSense.kMaximize
    lp.col_cost_ = cost
    lp.col_lower_, lp.col_upper_ = col_lower, col_upper
    lp.row_lower_, lp.row_upper_ = row_lower, row_upper
    lp.a_matrix_.format_ = highspy.MatrixFormat.kColwise
    lp.a_matrix_.start_ = a.indptr
    lp.a_matrix_.index_ = a.indices
    lp.a_matrix_.value_ = a.data
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.passModel(lp)
    if start_basis is not None:
        basis = highspy.HighsBasis()
        basis.col_status, basis.row_status = start_basis
        basis.alien = True
        basis.valid = True
        h.setBasis(basis)
    start = time.perf_counter()
    h.run()
    seconds = time.perf_counter() - start
    status = h.getModelStatus()
    if status != highspy.HighsModelStatus.kOptimal:
        raise LPError(f"sequence-form LP not solved: {_STATUS_MESSAGES.get(status, str(status))}")
    info = h.getInfo()
    final = h.getBasis()
    return (
        h.getSolution(),
        info.objective_function_value,
        seconds,
        int(info.simplex_iteration_count),
        (list(final.col_status), list(final.row_status)),
    )
