"""OpenSpiel's own sequence_form_lp_test.py, run unchanged against
ospiel_ext.algorithms.sequence_form_lp.

OpenSpiel's `sequence_form_lp` imports cvxpy (through its `lp_solver`), which its wheel does not
install, so its own module does not import here. Its test file is loaded with only the import
changed (`openspiel_tests.with_module_swapped`). Left out, with the reason:
- the cases on `efg_game` files (`test_kuhn_poker_efg`, `test_sequential_equilibrium_runs`,
  `test_sequential_equilibrium_guess_the_ace`, `test_sequential_equilibrium_kuhn_poker`):
  OpenSpiel's wheel ships no .efg files (`file_utils.find_file` finds none). Guess the ace, the
  game of the sequential-equilibrium case, is written out below and checked the same way;
- `test_tictactoe` and `test_liars_dice`: skipped by OpenSpiel itself.
"""

import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability
from openspiel_tests import skipped, with_module_swapped

from ospiel_ext.algorithms import sequence_form_lp

_NAME = "open_spiel.python.algorithms.sequence_form_lp"
_MODULE = with_module_swapped(_NAME + "_test", _NAME, sequence_form_lp)
_NO_EFG_FILES = "OpenSpiel's wheel ships no .efg files"


class SFLPTest(_MODULE.SFLPTest):
    """OpenSpiel's cases, but those that read .efg files it does not ship (skipped below)."""


for _case in dir(SFLPTest):
    if _case.startswith(("test_kuhn_poker_efg", "test_sequential_equilibrium")):
        setattr(SFLPTest, _case, skipped(_NO_EFG_FILES))


del _MODULE.SFLPTest  # collected once, as the subclass above


# Miltersen & Sørensen (SODA 2006), Section 1's example as OpenSpiel's test describes it: the
# dealer's top card is the ace of spades with probability 1/52; player 1 stops (0) or plays;
# then player 2, who does not see the card, guesses it and wins 1000 if right.
GUESS_THE_ACE = """EFG 2 R "Guess the ace" { "P1" "P2" } ""
c "dealer" 1 "" { "AS" 1/52 "Other" 51/52 } 0
p "" 1 2 "" { "Stop" "Play" } 0
t "" 1 "" { 0, 0 }
p "" 2 1 "" { "Guess AS" "Guess Other" } 0
t "" 2 "" { -1000, 1000 }
t "" 3 "" { 0, 0 }
p "" 1 1 "" { "Stop" "Play" } 0
t "" 4 "" { 0, 0 }
p "" 2 1 "" { "Guess AS" "Guess Other" } 0
t "" 5 "" { 0, 0 }
t "" 6 "" { -1000, 1000 }
"""


def test_the_openspiel_file_runs_against_ours():
    assert sys.modules[SFLPTest.__mro__[1].__module__].sequence_form_lp is sequence_form_lp


def test_the_perturbed_lp_finds_guess_the_aces_sequential_equilibrium(tmp_path):
    """Player 2's information set is reached only if player 1 errs; the perturbed LP makes
    player 2 guess the likelier card there (its sequential equilibrium), and both LPs let
    player 1 stop."""
    path = tmp_path / "guess_the_ace.efg"
    path.write_text(GUESS_THE_ACE)
    game = pyspiel.load_game(f"efg_game(filename={path})")
    val, _, pi1, pi2 = sequence_form_lp.solve_perturbed_zero_sum_game(game, eps=1e-6)
    assert val == pytest.approx(0.0, abs=1e-3)
    guesses = pi2.action_probability_array[pi2.state_lookup[_p2_key(game)]]
    np.testing.assert_allclose(guesses[list(_legal(game, 1))], [0.0, 1.0], atol=1e-2)
    merged = policy_lib.merge_tabular_policies([pi1, pi2], game)
    assert exploitability.exploitability(game, merged) == pytest.approx(0.0, abs=1e-3)


def _p2_key(game):
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[1])  # play
    return state.information_state_string()


def _legal(game, player):
    state = game.new_initial_state()
    state.apply_action(state.legal_actions()[0])
    state.apply_action(state.legal_actions()[1])
    return state.legal_actions()


@pytest.mark.parametrize(
    "game, message",
    [
        ("kuhn_poker(players=3)", "3 players"),
        ("matrix_pd", "zero-sum"),
    ],
)
def test_other_games_are_refused_naming_the_game(game, message):
    with pytest.raises(ValueError, match=message):
        sequence_form_lp.solve_zero_sum_game(pyspiel.load_game(game))
