"""Sequence form: realization plans, constraints and payoffs against OpenSpiel."""

import numpy as np
import pytest
from open_spiel.python.algorithms import expected_game_score

from ospiel_ext import policies, sequence_form


def _random_behavioural(sf, seed):
    layout = policies.layout(sf)
    return layout.from_tabular(policies.random_policy(sf.tree.game, seed))


def test_realization_plans_satisfy_the_treeplex_constraints(small_game):
    sf = sequence_form.for_game(small_game)
    for tp, b in zip(sf.treeplexes, _random_behavioural(sf, 1)):
        e_mat, e = tp.constraints
        x = tp.realization_plan(b)
        np.testing.assert_allclose(e_mat @ x, e, atol=1e-12)
        assert x.min() >= 0
        reached = x[tp.seq_parent[1:]] > 0
        np.testing.assert_allclose(tp.behavioural(x)[1:][reached], b[1:][reached])


def test_expected_value_matches_openspiel(small_game):
    sf = sequence_form.for_game(small_game)
    pol = policies.random_policy(small_game, seed=3)
    b = policies.layout(sf).from_tabular(pol)
    x0, x1 = (tp.realization_plan(bp) for tp, bp in zip(sf.treeplexes, b))
    expected = expected_game_score.policy_value(small_game.new_initial_state(), [pol, pol])[0]
    assert sf.expected_value(x0, x1) == pytest.approx(expected, abs=1e-12)


def test_treeplex_levels_are_contiguous_and_complete(small_game):
    sf = sequence_form.for_game(small_game)
    for tp in sf.treeplexes:
        assert tp.levels[0].inf_lo == 0 and tp.levels[-1].inf_hi == tp.num_infosets
        assert tp.levels[0].seq_lo == 1 and tp.levels[-1].seq_hi == tp.num_sequences
        for a, b in zip(tp.levels, tp.levels[1:]):
            assert a.inf_hi == b.inf_lo and a.seq_hi == b.seq_lo
            assert tp.parent_seq[b.inf_lo : b.inf_hi].min() >= a.seq_lo  # parents one level up
        assert tp.num_sequences == 1 + tp.num_actions.sum()


def test_payoff_mass_is_the_chance_distribution(small_game):
    sf = sequence_form.for_game(small_game)
    # Summing chance reach over all leaves gives one per joint pure plan path: with both
    # players uniform the payoff of u == 1 everywhere is 1.
    ones = sf.leaf_matrix(np.ones(len(sf.leaves)))
    x0, x1 = (tp.realization_plan(tp.uniform) for tp in sf.treeplexes)
    assert x0 @ ones @ x1 == pytest.approx(1.0)


def test_compiled_games_are_cached():
    assert sequence_form.for_game("kuhn_poker") is sequence_form.for_game("kuhn_poker()")
