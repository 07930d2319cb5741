"""OpenSpiel's discounted_cfr_test.py, run against ospiel_ext.algorithms.cfr.

Mirrors open_spiel/python/algorithms/discounted_cfr_test.py (OpenSpiel 2.0.2): the same test
cases and assertions, with `discounted_cfr` bound to our `cfr` module (which holds
`_DCFRSolver`, `DCFRSolver` and `LCFRSolver` beside the other CFR variants). No case is left
out: both are two-player.
"""

import numpy as np
import pyspiel
from absl.testing import absltest
from open_spiel.python import policy
from open_spiel.python.algorithms import expected_game_score, exploitability

from ospiel_ext.algorithms import cfr as discounted_cfr


class DiscountedCfrTest(absltest.TestCase):
    def test_discounted_cfr_on_kuhn(self):
        game = pyspiel.load_game("kuhn_poker")
        solver = discounted_cfr.DCFRSolver(game)
        for _ in range(300):
            solver.evaluate_and_update_policy()
        average_policy = solver.average_policy()
        average_policy_values = expected_game_score.policy_value(
            game.new_initial_state(), [average_policy] * 2
        )
        # 1/18 is the Nash value. See https://en.wikipedia.org/wiki/Kuhn_poker
        np.testing.assert_allclose(average_policy_values, [-1 / 18, 1 / 18], atol=1e-3)

    def test_discounted_cfr_runs_against_leduc(self):
        game = pyspiel.load_game("leduc_poker")
        solver = discounted_cfr.DCFRSolver(game)
        for _ in range(10):
            solver.evaluate_and_update_policy()
        average = solver.average_policy()
        # OpenSpiel's case only runs the solver; ours also checks that the average improves
        # on the uniform policy, by OpenSpiel's own exploitability
        uniform = exploitability.exploitability(game, policy.UniformRandomPolicy(game))
        assert exploitability.exploitability(game, average) < uniform / 2


if __name__ == "__main__":
    absltest.main()
