"""OpenSpiel's own policy_aggregator_test.py, run unchanged against
ospiel_ext.algorithms.policy_aggregator (Kuhn, Leduc and tic-tac-toe: every case)."""

import sys

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import policy_aggregator as os_aggregator
from openspiel_tests import with_module_swapped

from ospiel_ext.algorithms import policy_aggregator

_NAME = "open_spiel.python.algorithms.policy_aggregator"
_MODULE = with_module_swapped(_NAME + "_test", _NAME, policy_aggregator)
PolicyAggregatorTest = _MODULE.PolicyAggregatorTest
_VARIADIC = "test_policy_aggregation_variadic_tic_tac_toe"  # compiles 549,946 nodes
setattr(
    PolicyAggregatorTest,
    _VARIADIC,
    pytest.mark.slow(getattr(PolicyAggregatorTest, _VARIADIC)),
)


def test_the_openspiel_file_runs_against_ours():
    assert sys.modules[PolicyAggregatorTest.__module__].policy_aggregator is policy_aggregator


def _random_policy(game, seed):
    pol = policy_lib.TabularPolicy(game)
    probs = np.random.default_rng(seed).random(pol.action_probability_array.shape)
    probs *= pol.legal_actions_mask
    pol.action_probability_array = probs / probs.sum(axis=1, keepdims=True)
    return pol


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_a_mixture_of_random_policies_is_openspiels(game):
    game = pyspiel.load_game(game)
    pool = [[_random_policy(game, 3 * p + k) for k in range(3)] for p in range(2)]
    weights = [[0.5, 0.3, 0.2], [0.1, 0.0, 0.9]]
    ours = policy_aggregator.PolicyAggregator(game).aggregate([0, 1], pool, weights)
    theirs = os_aggregator.PolicyAggregator(game).aggregate([0, 1], pool, weights)
    for p in (0, 1):
        assert set(ours.policy[p]) == set(theirs.policy[p])
        for key, probs in theirs.policy[p].items():
            for action, prob in probs.items():
                assert ours.policy[p][key][action] == pytest.approx(prob, abs=1e-12)
