"""OpenSpiel's own lp_solver_test.py, run unchanged against ospiel_ext.algorithms.lp_solver.

OpenSpiel's `lp_solver` imports cvxpy, which its wheel does not install, so its own module
does not import here. Its test file is loaded with only the import changed: the name
`open_spiel.python.algorithms.lp_solver` is bound to ours before the test module imports it,
and every test case of the file runs (the 3-player and general-sum dominance cases too: the
dominance functions take any normal-form game, as OpenSpiel's).
"""

import re
import sys

import pyspiel
import pytest
from openspiel_tests import with_module_swapped

from ospiel_ext.algorithms import lp_solver

_NAME = "open_spiel.python.algorithms.lp_solver"

LPSolversTest = with_module_swapped(_NAME + "_test", _NAME, lp_solver).LPSolversTest


def test_the_openspiel_file_runs_against_ours():
    assert sys.modules[LPSolversTest.__module__].lp_solver is lp_solver


@pytest.mark.parametrize(
    "game, message",
    [
        (pyspiel.load_matrix_game("matrix_pd"), "is not zero-sum"),
        (pyspiel.load_game("kuhn_poker"), "is not a pyspiel.MatrixGame"),
    ],
)
def test_other_games_are_refused_naming_the_game(game, message):
    with pytest.raises(ValueError, match=f"game {re.escape(str(game))} {message}"):
        lp_solver.solve_zero_sum_matrix_game(game)


def test_an_infeasible_program_solves_to_none():
    lp = lp_solver.LinearProgram(lp_solver.ObjectiveType.OBJ_MAX)
    lp.add_or_reuse_variable("x", lb=0.0)
    lp.add_or_reuse_constraint("c", lp_solver.ConstraintType.CONS_TYPE_LEQ)
    lp.set_cons_coeff("c", "x", 1.0)
    lp.set_cons_rhs("c", -1.0)
    assert lp.solve() is None


def test_a_tensor_game_is_reduced_as_its_payoff_tensor():
    payoffs = [[[1.0, 2.0], [3.0, 4.0]], [[0.0, 1.0], [1.0, 0.0]]]
    game = pyspiel.create_tensor_game(payoffs)
    _, live = lp_solver.iterated_dominance(game, lp_solver.DominanceType.DOMINANCE_STRICT)
    _, want = lp_solver.iterated_dominance(payoffs, lp_solver.DominanceType.DOMINANCE_STRICT)
    assert (
        [a.tolist() for a in live] == [a.tolist() for a in want] == [[False, True], [True, False]]
    )
