"""Drop-in for OpenSpiel's `open_spiel.python.algorithms.sequence_form_lp`, on HiGHS.

OpenSpiel's module builds the sequence-form LPs of Koller, Megiddo & von Stengel, "Efficient
Computation of Equilibria for Extensive Two-Person Games" (Games and Economic Behavior, 1996)
state by state in Python dictionaries and solves them with cvxpy, which its wheel does not
install (without cvxpy the module does not import). This one has the same functions and
returns, on the pack's compiled sequence form and its HiGHS LP (`ospiel_ext.lp.solve`: one LP,
the solving player's plan from the primal and the opponent's from the duals):

* `solve_zero_sum_game(game, solver=None)`: (player 0's value, player 1's value, player 0's
  policy, player 1's policy), the policies `TabularPolicy` objects of the whole game;
* `solve_perturbed_zero_sum_game(game, solver=None, eps=0.0)`: the same with every sequence's
  realization weight bounded below by eps^d in both players' plans, d the number of the
  player's own actions in the sequence (Miltersen & Sørensen, "Computing Sequential
  Equilibria for Two-Player Games", SODA 2006, Section 3: the perturbed LPs whose limit as eps
  goes to 0 is a sequential equilibrium; OpenSpiel's eps ** (depth + 1)).

Differences, on purpose: cvxpy's `solver` is accepted and ignored; player 1's value is
`utility_sum - player 0's value` of the one LP (OpenSpiel solves a second LP for it, equal up
to its solver's tolerance); both returned policies hold both players' strategies (OpenSpiel
fills only the player's own states of each and leaves the other's uniform), so that either
one, or `policy.merge_tabular_policies`, plays the equilibrium; a game that is not two-player
zero-sum with perfect recall is refused with a ValueError naming it (OpenSpiel asserts).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
import scipy.sparse as sp
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, lp, policies, sequence_form
from ospiel_ext.constraints import LinearConstraints
from ospiel_ext.treeplex import Treeplex


def solve_zero_sum_game(
    game: pyspiel.Game, solver: Any = None
) -> tuple[float, float, policy_lib.TabularPolicy, policy_lib.TabularPolicy]:
    """Both players' values and equilibrium policies from the sequence-form LP (docstring).

    Raises:
      ValueError: the game is not two-player zero-sum with perfect recall, or too large to
        compile (`sequence_form.for_game`).
    """
    return solve_perturbed_zero_sum_game(game, solver, eps=0.0)


def solve_perturbed_zero_sum_game(
    game: pyspiel.Game, solver: Any = None, eps: float = 0.0
) -> tuple[float, float, policy_lib.TabularPolicy, policy_lib.TabularPolicy]:
    """`solve_zero_sum_game` with realization weights >= eps^d in both plans (docstring).

    Raises:
      ValueError: as `solve_zero_sum_game`, or eps outside [0, 1).
    """
    del solver
    if not 0.0 <= eps < 1.0:
        raise ValueError(f"eps={eps}: a perturbation in [0, 1)")
    sf = sequence_form.for_game(game)
    constraints = lp.LPConstraints()
    if eps > 0:
        own, opponent = (realization_lower_bounds(tp, eps) for tp in sf.treeplexes)
        constraints = lp.LPConstraints(own=own, opponent=opponent)
    solution = lp.solve(sf, constraints=constraints)
    layout = policies.layout(sf)
    value = float(solution.value)
    utility_sum = float(loading.load(game).utility_sum())
    return (
        value,
        utility_sum - value,
        layout.to_tabular(solution.behavioural),
        layout.to_tabular(solution.behavioural),
    )


def realization_lower_bounds(tp: Treeplex, eps: float) -> LinearConstraints:
    """Constraints x[s] >= eps^d(s) for every sequence s but the empty one.

    d(s) is the number of the player's actions in s (its depth in the treeplex); rows keyed by
    the sequences' `stable_ids`.
    """
    n = tp.num_sequences
    depth = np.zeros(n, dtype=np.int64)
    for d, level in enumerate(tp.levels, start=1):  # a level's sequences hold d own actions
        depth[level.seq_lo : level.seq_hi] = d
    seqs = np.arange(1, n)
    matrix = sp.csr_matrix((np.ones(n - 1), (np.arange(n - 1), seqs)), shape=(n - 1, n))
    return LinearConstraints(matrix, eps ** depth[1:].astype(np.float64), tp.stable_ids[seqs])
