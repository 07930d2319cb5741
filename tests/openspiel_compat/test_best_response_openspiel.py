"""OpenSpiel's own best_response_test.py, run unchanged against
ospiel_ext.algorithms.best_response.

The test file is loaded with only the import changed (`openspiel_tests.with_module_swapped`).
Left out, with the reason:
- the 3-player Kuhn case of `test_cpp_and_python_value_are_identical`: ours is two-player
  zero-sum only;
- `test_best_response_prisoner_dilemma_simultaneous_game`: the iterated prisoner's dilemma is
  general-sum (ours is two-player zero-sum only; the zero-sum simultaneous-move case, Oshi-Zumo,
  runs);
- `TabularBestResponseMDPTest`: OpenSpiel's C++ `TabularBestResponseMDP`, not this module.
"""

import sys
import zlib

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import exploitability
from openspiel_tests import skipped, with_module_swapped

from ospiel_ext.algorithms import best_response

_NAME = "open_spiel.python.algorithms.best_response"
_MODULE = with_module_swapped(_NAME + "_test", _NAME, best_response)
_LEFT_OUT = {
    "test_cpp_and_python_value_are_identical1": "3-player Kuhn: ours is two-player only",
    "test_best_response_prisoner_dilemma_simultaneous_game": "general-sum: ours is zero-sum",
}


class BestResponseTest(_MODULE.BestResponseTest):
    """OpenSpiel's cases, but those listed in the module docstring (skipped below)."""


for _case, _reason in _LEFT_OUT.items():
    assert hasattr(BestResponseTest, _case), _case
    setattr(BestResponseTest, _case, skipped(_reason))
del _MODULE.BestResponseTest, _MODULE.TabularBestResponseMDPTest
_TIC_TAC_TOE = "test_best_response_tic_tac_toe_value_is_consistent"  # compiles 549,946 nodes
setattr(BestResponseTest, _TIC_TAC_TOE, pytest.mark.slow(getattr(BestResponseTest, _TIC_TAC_TOE)))


def test_the_openspiel_file_runs_against_ours():
    module = sys.modules[BestResponseTest.__mro__[1].__module__]
    assert module.best_response is best_response


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_values_at_every_state_are_openspiels(game):
    """Ours against OpenSpiel's own (Python) BestResponsePolicy at every decision state of a
    random policy: the same value and q-values, and the best response's value is the one
    OpenSpiel's exploitability adds up."""
    game = pyspiel.load_game(game)
    pol = policy_lib.TabularPolicy(game)
    rng = np.random.default_rng(0)
    pol.action_probability_array = rng.random(pol.action_probability_array.shape)
    pol.action_probability_array *= pol.legal_actions_mask
    pol.action_probability_array /= pol.action_probability_array.sum(axis=1, keepdims=True)
    for player in (0, 1):
        ours = best_response.BestResponsePolicy(game, player, pol)
        theirs = os_best_response.BestResponsePolicy(game, player, pol)
        root = game.new_initial_state()
        assert ours.value(root) == pytest.approx(theirs.value(root), abs=1e-12)
        for state in list(pol.states)[:200]:
            if state.current_player() == player:
                for a in state.legal_actions():
                    assert ours.q_value(state, a) == pytest.approx(
                        theirs.q_value(state, a), abs=1e-12
                    )
    nash_conv = exploitability.nash_conv(game, pol)
    on_policy = 0.0  # zero-sum: the on-policy values cancel
    brs = [
        best_response.BestResponsePolicy(game, p, pol).value(game.new_initial_state())
        for p in (0, 1)
    ]
    assert sum(brs) - on_policy == pytest.approx(nash_conv, abs=1e-9)


@pytest.mark.parametrize(
    "game, message",
    [("kuhn_poker(players=3)", "3 players"), ("matrix_pd", "zero-sum")],
)
def test_other_games_are_refused_naming_the_game(game, message):
    game = pyspiel.load_game(game)
    with pytest.raises(ValueError, match=message):
        best_response.BestResponsePolicy(game, 0, policy_lib.UniformRandomPolicy(game))


def test_a_root_state_inside_the_game_is_refused():
    game = pyspiel.load_game("kuhn_poker")
    state = game.new_initial_state().child(0)
    with pytest.raises(ValueError, match="root_state other than the initial state"):
        best_response.BestResponsePolicy(game, 0, policy_lib.UniformRandomPolicy(game), state)


def test_a_policy_missing_states_is_refused_naming_the_state():
    game = pyspiel.load_game("leduc_poker")
    kuhn = policy_lib.TabularPolicy(pyspiel.load_game("kuhn_poker"))
    with pytest.raises(ValueError, match="the policy does not cover information state"):
        best_response.BestResponsePolicy(game, 0, kuhn)


def test_a_policy_of_the_other_player_alone_is_enough():
    """OpenSpiel's best response asks the policy at the other player's states only."""
    game = pyspiel.load_game("leduc_poker")
    other = policy_lib.TabularPolicy(game, players=[1])
    ours = best_response.BestResponsePolicy(game, 0, other)
    theirs = os_best_response.BestResponsePolicy(game, 0, other)
    root = game.new_initial_state()
    assert ours.value(root) == pytest.approx(theirs.value(root), abs=1e-12)


class _SeededPolicy(policy_lib.Policy):
    """A fixed random distribution over the player's legal actions per (state key, player)
    (a TabularPolicy of Oshi-Zumo shares one row between the players, whose information
    strings are equal and whose legal actions are not)."""

    def action_probabilities(self, state, player_id=None):
        player = state.current_player() if player_id is None else player_id
        legal = state.legal_actions(player)
        seed = zlib.crc32(f"{player}|{state.information_state_string(player)}".encode())
        weights = np.random.default_rng(seed).random(len(legal)) ** 3
        return dict(zip(legal, weights / weights.sum()))


def test_a_policy_of_a_simultaneous_game_gets_openspiels_best_response():
    """A random policy of Oshi-Zumo asked at the simultaneous game's states: both players'
    values and every best-response action (keyed by the simultaneous game's information
    states) as OpenSpiel's walk."""
    game = pyspiel.load_game("oshi_zumo(horizon=3,coins=4)")
    pol = _SeededPolicy(game, [0, 1])
    root = game.new_initial_state()
    for player in (0, 1):
        ours = best_response.BestResponsePolicy(game, player, pol)
        theirs = os_best_response.BestResponsePolicy(game, player, pol)
        assert ours.value(root) == pytest.approx(theirs.value(root), abs=1e-12)
        assert ours.best_response_actions
        for key, action in ours.best_response_actions.items():
            assert theirs.best_response_action(key) == action, key
