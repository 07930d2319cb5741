"""OpenSpiel's own expected_game_score_test.py, run unchanged against
ospiel_ext.algorithms.expected_game_score (its two cases: Kuhn on the compiled arrays; the
iterated prisoner's dilemma, general-sum and simultaneous, through OpenSpiel's own walk)."""

import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score as os_score
from openspiel_tests import with_module_swapped

from ospiel_ext.algorithms import expected_game_score

_NAME = "open_spiel.python.algorithms.expected_game_score"

PolicyValueTest = with_module_swapped(_NAME + "_test", _NAME, expected_game_score).PolicyValueTest


def test_the_openspiel_file_runs_against_ours():
    assert sys.modules[PolicyValueTest.__module__].expected_game_score is expected_game_score


@pytest.mark.parametrize("game", ["leduc_poker", "liars_dice(dice_sides=3)"])
def test_values_from_inner_states_are_openspiels(game):
    game = pyspiel.load_game(game)
    pols = []
    for seed in (0, 1):
        pol = policy_lib.TabularPolicy(game)
        probs = np.random.default_rng(seed).random(pol.action_probability_array.shape)
        probs *= pol.legal_actions_mask
        pol.action_probability_array = probs / probs.sum(axis=1, keepdims=True)
        pols.append(pol)
    for state in [game.new_initial_state(), *list(pols[0].states)[:50]]:
        ours = expected_game_score.policy_value(state, pols)
        np.testing.assert_allclose(ours, os_score.policy_value(state, pols), atol=1e-12)


def test_policies_of_one_player_each_are_asked_at_their_own_states_only():
    """As OpenSpiel's walk: policies[p] is asked at player p's states, so a policy of that
    player alone (a TabularPolicy over one player's states) is enough."""
    game = pyspiel.load_game("leduc_poker")
    pols = [policy_lib.TabularPolicy(game, players=[p]) for p in (0, 1)]
    for p, pol in enumerate(pols):
        probs = np.random.default_rng(p).random(pol.action_probability_array.shape)
        probs *= pol.legal_actions_mask
        pol.action_probability_array = probs / probs.sum(axis=1, keepdims=True)
    root = game.new_initial_state()
    np.testing.assert_allclose(
        expected_game_score.policy_value(root, pols), os_score.policy_value(root, pols), atol=1e-12
    )
