"""Sequence-form linear programs on HiGHS (highspy), for any SequenceForm, in one call.

`solve` writes the sequence-form LP (2a-2d) of Koller, Megiddo and von Stengel (1996) in the
numbering of Kubicek, Lisy & Sandholm (2024), "Equilibrium Refinements Improve Subgame Solving
in Imperfect-Information Games", Section 7.1 (`lp_model.sequence_form_lp`), adds the blocks an
`LPConstraints` asks for, runs HiGHS once and reads both strategies (`lp_model.LPSolution`):
the player's plan from the primal, the opponent's from the duals. The blocks: optional linear
constraints `G_x x >= g_x` and `G_y y >= g_y` on either player's realization plan, e.g.
behavioural lower bounds x[s] >= l[s] x[parent(s)] (`constraints.BehaviouralLowerBounds`,
`behavioural_lower_bounds`: the xi-perturbed treeplex of Kroer, Farina & Sandholm 2017,
"Smoothing Method for Approximate Extensive-Form Perfect Equilibrium", Section 2.3, or GGSE's
eps * prior), and the perturbation d of the opponent's right-hand side (eq. 3a). A final basis
(`Basis`) can warm-start the LP of a grown trunk of the same game (falling back to a cold solve
where HiGHS fails from it). `lp_size` gives the LP's size without building it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import numpy as np
import pyspiel
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.constraints import BehaviouralLowerBounds, LinearConstraints, sequence_lower_bounds
from ospiel_ext.highs import Basis, Block, HighsResult, LPError
from ospiel_ext.lp_model import LPSolution, SequenceFormLP, sequence_form_lp
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.treeplex import Treeplex

__all__ = [
    "Basis",
    "Block",
    "HighsResult",
    "LPConstraints",
    "LPError",
    "LinearConstraints",
    "behavioural_lower_bounds",
    "game_value",
    "lp_size",
    "solve",
]


def behavioural_lower_bounds(tp: Treeplex, xi: float | ArrayLike) -> LinearConstraints:
    """Constraints x[s] - xi[s] x[parent(s)] >= 0 for every sequence s with xi[s] > 0.

    The perturbed treeplex of Kroer, Farina & Sandholm 2017, Section 2.3; xi a scalar or one
    value per sequence. `BehaviouralLowerBounds.linear_constraints` gives the same rows from
    bounds keyed by information state.
    """
    return sequence_lower_bounds(tp, xi)


@dataclasses.dataclass(frozen=True, kw_only=True)
class LPConstraints:
    """What `solve` adds to the LP (2a-2d) of `sequence_form_lp`; nothing by default.

    Attributes:
      own: G_x x >= g_x on the player's plan (`SequenceFormLP.add_own_constraints`).
      opponent: G_y y >= g_y on the opponent's plan (`SequenceFormLP.add_opponent_constraints`).
      own_lower_bounds: behavioural lower bounds on the player's strategy (keys of the other
        player's information sets are skipped; `SequenceFormLP.add_lower_bounds`).
      opponent_lower_bounds: behavioural lower bounds on the opponent's strategy, likewise.
      rhs_perturbation: d, added to the opponent's constraint right-hand side f in the
        objective (eq. 3a; `SequenceFormLP.perturb_rhs`).
    """

    own: LinearConstraints | None = None
    opponent: LinearConstraints | None = None
    own_lower_bounds: BehaviouralLowerBounds | None = None
    opponent_lower_bounds: BehaviouralLowerBounds | None = None
    rhs_perturbation: ArrayLike | None = None

    def apply(self, model: SequenceFormLP) -> SequenceFormLP:
        """`model` with the blocks asked for added (in the order of the attributes)."""
        if self.own is not None:
            model = model.add_own_constraints(self.own)
        if self.opponent is not None:
            model = model.add_opponent_constraints(self.opponent)
        if self.own_lower_bounds is not None:
            model = model.add_lower_bounds(self.own_lower_bounds, own=True)
        if self.opponent_lower_bounds is not None:
            model = model.add_lower_bounds(self.opponent_lower_bounds, own=False)
        if self.rhs_perturbation is not None:
            model = model.perturb_rhs(self.rhs_perturbation)
        return model


def solve(
    sf: SequenceForm | pyspiel.Game | str,
    *,
    bound: str = "value",
    player: int = 0,
    constraints: LPConstraints = LPConstraints(),
    payoff: sp.csr_matrix | None = None,
    excluded_opponent_sequences: NDArray[np.bool_] | None = None,
    warm_start: Basis | None = None,
    return_basis: bool = False,
    time_limit: float | None = None,
    method: str = "simplex",
) -> LPSolution:
    """Solves the sequence-form LP of `sf` (see the module docstring).

    `sequence_form_lp`, the blocks asked for (`LPConstraints.apply`), `SequenceFormLP.run`
    and `SequenceFormLP.solution`.

    Args:
      sf: the sequence form, or a game (a `pyspiel.Game` or a load_game string), compiled by
        `sequence_form.for_game`.
      bound: as `sequence_form_lp`.
      player: as `sequence_form_lp`.
      constraints: what is added to the LP: constraints on the player's or the opponent's
        plan (G_x x >= g_x, G_y y >= g_y), behavioural lower bounds on either strategy, the
        right-hand-side perturbation d (`LPConstraints`; nothing by default).
      payoff: as `sequence_form_lp`.
      excluded_opponent_sequences: as `sequence_form_lp`.
      warm_start: the `basis` of an earlier solve, e.g. of a smaller trunk of the same game
        (columns and rows it does not know start nonbasic at a bound and basic).
      return_basis: return the final basis in `LPSolution.basis`.
      time_limit: seconds for HiGHS.
      method: HiGHS's algorithm, "simplex" or "ipm" (interior point and crossover; no warm
        start): `highs.METHODS`.

    Raises:
      LPError: HiGHS did not find an optimal solution (`LPError.status` says why, e.g.
        "kTimeLimit" or "kInfeasible").
      interrupts.Interrupted: Ctrl-C, SIGTERM or a deadline stopped HiGHS (a
        KeyboardInterrupt; an interrupted LP has no solution so far).
    """
    sf = sf if isinstance(sf, SequenceForm) else sf_lib.for_game(sf)
    model = sequence_form_lp(
        sf,
        player,
        bound=bound,
        payoff=payoff,
        excluded_opponent_sequences=excluded_opponent_sequences,
    )
    model = constraints.apply(model)
    return model.solution(model.run(time_limit, warm_start, method), return_basis)


def game_value(sf: SequenceForm) -> float:
    """Player 0's value of the game: the sequence-form LP (`solve`)."""
    return solve(sf).value


def lp_size(
    num_infosets: Sequence[int], num_sequences: Sequence[int], payoff_nonzeros: int
) -> dict[str, int]:
    """Rows, columns and nonzeros of `solve`'s LP for player 0 (no extra constraints).

    Rows: E x = e (infosets + 1) and the opponent's sequences; columns: x and the opponent's
    infoset values q (infosets + 1); nonzeros: those of E, A and F (one per sequence and per
    infoset each).
    """
    (i0, i1), (s0, s1) = num_infosets, num_sequences
    return {
        "lp_rows": i0 + 1 + s1,
        "lp_columns": s0 + i1 + 1,
        "lp_nonzeros": s0 + i0 + payoff_nonzeros + s1 + i1,
    }
