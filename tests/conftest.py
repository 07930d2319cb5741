"""Shared test games and API checks (STYLE.md: one check_game / check_solver for all tests)."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as os_exploitability

GOOFSPIEL_4 = ("turn_based_simultaneous_game(game=goofspiel(num_cards=4,imp_info=True,"
               "points_order=descending))")

# The games the foundation must agree with OpenSpiel on (issue 2).
SMALL_GAMES = ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=4)", GOOFSPIEL_4]

KUHN_VALUE = -1.0 / 18.0           # player 0's value of Kuhn poker (theory)
LEDUC_VALUE = -0.0856064            # player 0's value of Leduc poker (DESIGN.md reference)


@pytest.fixture(params=SMALL_GAMES)
def small_game(request):
  return pyspiel.load_game(request.param)


def check_solver(solver_cls, game, iterations=10, **kwargs):
  """Every solver: OpenSpiel's shape, fresh TabularPolicy objects, valid distributions."""
  solver = solver_cls(game, **kwargs)
  for _ in range(iterations):
    solver.evaluate_and_update_policy()
  for make in (solver.current_policy, solver.average_policy):
    first, second = make(), make()
    assert isinstance(first, policy_lib.TabularPolicy)
    assert first is not second
    first.action_probability_array[:] = 0.0          # mutating one leaves the solver intact
    probs = second.action_probability_array
    mask = second.legal_actions_mask.astype(bool)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)
    assert np.all(probs[~mask] == 0.0)
    assert np.all(probs >= 0.0)
    os_exploitability.exploitability(game, second)   # OpenSpiel accepts it
  return solver
