"""The sequence-form LP as named blocks of a HiGHS linear program, and its two strategies.

The LP of Koller, Megiddo & von Stengel, "Efficient Computation of Equilibria for Extensive
Two-Person Games" (Games and Economic Behavior, 1996), written for the maximising `player` with
payoff M (A for player 0, -A^T for player 1; rows: the player's sequences, columns: the
opponent's), own treeplex E x = e and opponent treeplex F y = f, numbered as in Kubicek, Lisy
& Sandholm (2024), "Equilibrium Refinements Improve Subgame Solving in Imperfect-Information
Games", Section 7.1:

    max_{x, q, r}  (f + d)^T q + g_y^T r            eq. 2a (d = 0), 3a (d = eps p)
    s.t.           E x = e                            2b
                   M^T x - F^T q - G_y^T r >= 0       2c   duals: the opponent's plan y
                   G_x x >= g_x                       optional constraints on the player
                   x >= 0, r >= 0                     2d

`sequence_form_lp` builds (2a-2d) as a `SequenceFormLP`: a `highs.LinearProgram` of named
column blocks ("x", "q") and row blocks ("E", "2c") plus what reading the strategies needs.
Other LPs add blocks to it: `G_x x >= g_x` and `G_y y >= g_y`, optional linear constraints on
either player's realization plan (`SequenceFormLP.add_own_constraints`,
`add_opponent_constraints`), e.g. the behavioural lower bounds x[s] >= l[s] x[parent(s)] of
the xi-perturbed treeplex of Kroer, Farina & Sandholm 2017, "Smoothing Method for Approximate
Extensive-Form Perfect Equilibrium", Section 2.3, or GGSE's eps * prior (`add_lower_bounds`);
the perturbation d of the opponent's right-hand side, whose dual then reads F y = f + d
(`perturb_rhs`: the perturbed LP 3a-3d); a max-margin LP's blocks (kinds from
`FIRST_FREE_KIND`). `SequenceFormLP.run` calls HiGHS once and returns its status, values,
duals and final basis keyed by stable sequence / information-set ids (`highs.Basis`), which can
warm-start the LP of a grown trunk of the same game; `SequenceFormLP.solution` reads both
strategies as an `LPSolution`: the opponent's plan is the duals of (2c), so one solve gives
both. `lp.solve` does it all in one call.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.constraints import BehaviouralLowerBounds, LinearConstraints
from ospiel_ext.highs import Basis, Block, HighsResult, LinearProgram, LPError
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.treeplex import Treeplex

# `Basis` kinds of the blocks below; further blocks (e.g. a max-margin LP's) use
# FIRST_FREE_KIND to highs.NUM_KINDS - 1.
KIND_X, KIND_Q, KIND_E, KIND_2C, KIND_OWN, KIND_OPP, KIND_OWN_BOUNDS, KIND_OPP_BOUNDS = range(8)
FIRST_FREE_KIND = 8


@dataclasses.dataclass(frozen=True, kw_only=True)
class LPSolution:
    """Result of a sequence-form LP.

    Attributes:
      value: the game value for player 0 (of the LP's game: lo/hi bounds, perturbations).
      plans: realization plans (player 0, player 1); the solving player's from the primal, the
        opponent's from the duals of the best-response constraints.
      behavioural: the same strategies in behavioural form.
      seconds: HiGHS wall time.
      simplex_iterations: HiGHS simplex iteration count.
      basis: the final basis (if asked for).
      cold_restart: HiGHS failed from the warm-start basis and solved again from scratch.
    """

    value: float
    plans: tuple[FloatArray, FloatArray]
    behavioural: tuple[FloatArray, FloatArray]
    seconds: float
    simplex_iterations: int
    basis: Basis | None = None
    cold_restart: bool = False


@dataclasses.dataclass(frozen=True, eq=False)
class SequenceFormLP:
    """A sequence-form LP (see the module docstring); build it with `sequence_form_lp`.

    Attributes:
      sequence_form: the game.
      player: the maximising player, whose plan is the column block "x".
      program: the blocks: columns "x" (the player's plan), "q" (the opponent's infoset
        values), rows "E" (2b) and "2c", and any added ones.
      opponent_sequences: the opponent sequence of each (2c) row; their duals are its plan.
    """

    sequence_form: SequenceForm
    player: int
    program: LinearProgram
    opponent_sequences: IntArray

    def add_rows(self, block: Block, entries: Mapping[str, sp.spmatrix]) -> SequenceFormLP:
        """This LP with the rows `block`, whose coefficients on column block c are entries[c]."""
        return dataclasses.replace(self, program=self.program.add_rows(block, entries))

    def add_columns(self, block: Block, entries: Mapping[str, sp.spmatrix]) -> SequenceFormLP:
        """This LP with the columns `block`, whose coefficients in row block r are entries[r]."""
        return dataclasses.replace(self, program=self.program.add_columns(block, entries))

    def _treeplex(self, own: bool) -> Treeplex:
        return self.sequence_form.treeplexes[self.player if own else 1 - self.player]

    def _check(self, cons: LinearConstraints, own: bool) -> None:
        tp = self._treeplex(own)
        if cons.matrix.shape[1] != tp.num_sequences:
            raise ValueError(
                f"constraints on player {tp.player} of {self.sequence_form.name} must have "
                f"{tp.num_sequences} columns (one per sequence), got {cons.matrix.shape[1]}"
            )

    def add_own_constraints(
        self, cons: LinearConstraints, kind: int = KIND_OWN, name: str = "own constraints"
    ) -> SequenceFormLP:
        """G_x x >= g_x: rows on the player's plan."""
        self._check(cons, own=True)
        rows = Block(
            name=name,
            kind=kind,
            ids=cons.row_ids,
            lower=cons.rhs,
            upper=np.full(len(cons.rhs), np.inf),
        )
        return self.add_rows(rows, {"x": cons.matrix})

    def add_opponent_constraints(
        self, cons: LinearConstraints, kind: int = KIND_OPP, name: str = "opponent constraints"
    ) -> SequenceFormLP:
        """Adds G_y y >= g_y on the opponent's plan (the duals).

        Columns r >= 0 with cost g_y and coefficients -G_y^T in the (2c) rows.
        """
        self._check(cons, own=False)
        m = len(cons.rhs)
        cols = Block(
            name=name,
            kind=kind,
            ids=cons.row_ids,
            lower=np.zeros(m),
            upper=np.full(m, np.inf),
            cost=cons.rhs,
        )
        return self.add_columns(cols, {"2c": -cons.matrix.T.tocsr()[self.opponent_sequences]})

    def add_lower_bounds(self, bounds: BehaviouralLowerBounds, own: bool) -> SequenceFormLP:
        """Behavioural lower bounds on the player's (`own`) or the opponent's strategy."""
        cons = bounds.linear_constraints(self.sequence_form, self._treeplex(own).player)
        if own:
            return self.add_own_constraints(cons, KIND_OWN_BOUNDS, "own lower bounds")
        return self.add_opponent_constraints(cons, KIND_OPP_BOUNDS, "opponent lower bounds")

    def perturb_rhs(self, d: ArrayLike) -> SequenceFormLP:
        """Eq. 3a: the objective f^T q becomes (f + d)^T q (d per row of F: root, infosets)."""
        return dataclasses.replace(self, program=self.program.shift_cost("q", d))

    def run(
        self,
        time_limit: float | None = None,
        warm_start: Basis | None = None,
        method: str = "simplex",
    ) -> HighsResult:
        """HiGHS's answer (`LinearProgram.run`: status, values, duals, basis; cold fallback)."""
        return self.program.run(time_limit, warm_start, method)

    def solution(self, result: HighsResult, return_basis: bool = True) -> LPSolution:
        """Both strategies from an optimal run: x from the primal, y from the (2c) duals.

        Raises:
          LPError: the run was not optimal (`LPError.status` is HiGHS's status).
        """
        if not result.optimal:
            raise LPError(f"sequence-form LP not solved: {result.message}", result.status)
        sf = self.sequence_form
        x = np.maximum(result.column_values[self.program.column_range("x")], 0.0)
        # HiGHS reports non-positive duals for the >= rows of a maximisation: y = -dual.
        y = np.zeros(self._treeplex(own=False).num_sequences)
        y[self.opponent_sequences] = np.maximum(-result.row_duals[self.program.row_range("2c")], 0)
        plans = (x, y) if self.player == 0 else (y, x)
        value = result.objective if self.player == 0 else -result.objective
        tp0, tp1 = sf.treeplexes
        behavioural = (tp0.behavioural(plans[0]), tp1.behavioural(plans[1]))
        return LPSolution(
            value=value,
            plans=plans,
            behavioural=behavioural,
            seconds=result.seconds,
            simplex_iterations=result.simplex_iterations,
            basis=result.basis if return_basis else None,
            cold_restart=result.cold_restart,
        )


def sequence_form_lp(
    sf: SequenceForm,
    player: int = 0,
    *,
    bound: str = "value",
    payoff: sp.csr_matrix | None = None,
    excluded_opponent_sequences: NDArray[np.bool_] | None = None,
) -> SequenceFormLP:
    """The LP (2a-2d) of `sf` for the maximising `player`.

    Args:
      sf: the sequence form.
      player: the maximising player whose LP is written (its plan is primal).
      bound: 'value' (leaves carry values), 'lo' or 'hi' (the game whose leaves take the lower /
        upper end of their utility interval).
      payoff: an explicit player-0 payoff matrix A, replacing `bound`'s.
      excluded_opponent_sequences: mask of opponent sequences whose constraint (2c) is dropped,
        i.e. that the opponent never plays (their dual, the opponent's plan, is 0): the "bad
        sequences" of Zhang & Sandholm (2021), "Finding and Certifying (Near-)Optimal
        Strategies in Black-Box Extensive-Form Games", Section 6.4 (eq. 6.10).
    """
    if bound not in ("value", "lo", "hi"):
        raise ValueError(f"bound must be 'value', 'lo' or 'hi', got {bound!r}")
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player}")
    own, opp = sf.treeplexes[player], sf.treeplexes[1 - player]
    if payoff is not None:
        if payoff.shape != sf.shape:
            raise ValueError(f"payoff of {sf.name} must be {sf.shape}, got {payoff.shape}")
        matrix = payoff
    elif bound == "value":
        matrix = sf.payoff  # raises if leaves carry intervals
    else:
        matrix = sf.payoff_lo if bound == "lo" else sf.payoff_hi
    kept = np.arange(opp.num_sequences)
    if excluded_opponent_sequences is not None:
        excluded = np.asarray(excluded_opponent_sequences, dtype=bool)
        if excluded.shape != (opp.num_sequences,):
            raise ValueError(
                f"excluded_opponent_sequences of {sf.name} must have {opp.num_sequences} "
                f"entries, got shape {excluded.shape}"
            )
        kept = np.flatnonzero(~excluded)
    m_t = (matrix.T if player == 0 else -matrix).tocsr()[kept]  # opponent x player sequences
    e_mat, e = own.constraints
    f_mat, f = opp.constraints
    n_x, n_q, n_kept = own.num_sequences, f_mat.shape[0], len(kept)
    own_infosets = np.concatenate([[0], 1 + own.infoset_ids])
    opp_infosets = np.concatenate([[0], 1 + opp.infoset_ids])
    inf = np.inf
    program = LinearProgram(
        sf.name,
        columns=(
            Block(
                name="x",
                kind=KIND_X,
                ids=own.stable_ids,
                lower=np.zeros(n_x),
                upper=np.full(n_x, inf),
                cost=np.zeros(n_x),
            ),
            Block(
                name="q",
                kind=KIND_Q,
                ids=opp_infosets,
                lower=np.full(n_q, -inf),
                upper=np.full(n_q, inf),
                cost=f.copy(),
            ),
        ),
        rows=(
            Block(name="E", kind=KIND_E, ids=own_infosets, lower=e, upper=e),
            Block(
                name="2c",
                kind=KIND_2C,
                ids=opp.stable_ids[kept],
                lower=np.zeros(n_kept),
                upper=np.full(n_kept, inf),
            ),
        ),
        entries=(
            ("E", "x", e_mat.tocsr()),
            ("2c", "x", m_t),
            ("2c", "q", -f_mat.T.tocsr()[kept]),
        ),
    )
    return SequenceFormLP(sf, player, program, kept)
