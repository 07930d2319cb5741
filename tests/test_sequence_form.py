"""Sequence form: realization plans, constraints and payoffs against OpenSpiel."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import expected_game_score

from ospiel_ext import policies, sequence_form, tree_values
from ospiel_ext.tree_builder import TreeBuilder


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


def test_tree_profile_agrees_with_realization_plans(small_game):
    # The flat profile of tree_values gives the reaches and the value the plans give.
    sf = sequence_form.for_game(small_game)
    b = _random_behavioural(sf, 4)
    profile = sf.tree_profile(b)
    plans = [tp.realization_plan(bp) for tp, bp in zip(sf.treeplexes, b)]
    r = tree_values.reaches(sf.tree, profile)
    for p in (0, 1):
        np.testing.assert_allclose(r.player(p), plans[p][sf.node_seq[p]], atol=1e-12)
    value = tree_values.node_values(sf.tree, profile)[0]
    assert value == pytest.approx(sf.expected_value(*plans), abs=1e-12)
    with pytest.raises(ValueError, match="one entry per sequence"):
        sf.tree_profile((b[0][1:], b[1]))


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


def _brute_force_reach(game, pol):
    """{(player, information state): sum over its histories of the opponent's and chance's
    reach}, by a recursive walk of pyspiel states (independent of the arrays)."""
    out = {}

    def walk(state, reach):  # reach[p] = chance x everyone's but p's probability
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, p in state.chance_outcomes():
                walk(state.child(a), reach * p)
            return
        cur = state.current_player()
        key = (cur, state.information_state_string(cur))
        out[key] = out.get(key, 0.0) + reach[cur]
        probs = pol.action_probabilities(state)
        for a in state.legal_actions():
            step = np.array([probs[a], probs[a]])
            step[cur] = 1.0
            walk(state.child(a), reach * step)

    walk(game.new_initial_state(), np.ones(2))
    return out


@pytest.mark.parametrize("game_name", ["kuhn_poker", "leduc_poker"])
@pytest.mark.parametrize("seed", [0, 5])
def test_reach_matrix_sums_the_reach_of_each_infosets_histories(game_name, seed):
    game = pyspiel.load_game(game_name)
    sf = sequence_form.for_game(game)
    pol = policies.random_policy(game, seed, alpha=0.5)
    b = policies.layout(sf).from_tabular(pol)
    expected = _brute_force_reach(game, pol)
    for p in (0, 1):
        x_opp = sf.treeplexes[1 - p].realization_plan(b[1 - p])
        reach = sf.opponent_reach(p, x_opp)
        assert reach.shape == (sf.treeplexes[p].num_infosets,)
        want = [expected[p, key] for key in sf.infoset_keys(p)]
        np.testing.assert_allclose(reach, want, rtol=0, atol=1e-14)


def _unbounded_tree():
    """Chance (1/4, 3/4) then player 0 stops ([0, 1]) or continues to player 1, whose leaves
    are [-inf, 2] and [1, inf]: infinite bounds that only count where they are reached."""
    b = TreeBuilder(name="unbounded")
    first = b.expand_chance(b.add_root(), [0, 1], [0.25, 0.75])
    for c in range(2):
        mine = b.expand_decision(first + c, 0, f"p0 {c}", [0, 1])
        b.set_leaf(mine, 0.0, 1.0)
        theirs = b.expand_decision(mine + 1, 1, "p1", [0, 1])
        b.set_leaf(theirs, -np.inf, 2.0 + c)
        b.set_leaf(theirs + 1, 1.0 - c, np.inf)
    return sequence_form.TreeSequenceForm(b.freeze())


def test_a_sequence_form_is_its_fields():
    """A SequenceForm filled with a tree-backed form's fields (no tree) gives the same bounded
    sequence values, including infinite leaves (the tree form sums them leaf by leaf)."""
    tree_sf = _unbounded_tree()
    sf = sequence_form.SequenceForm(
        name="fields",
        treeplexes=tree_sf.treeplexes,
        payoff_lo=tree_sf.payoff_lo,
        payoff_hi=tree_sf.payoff_hi,
        infoset_keys=tree_sf.infoset_keys,
        build_reach=tree_sf.build_reach,
    )
    assert sf.has_bounds and tree_sf.has_bounds
    with pytest.raises(ValueError, match="fields has leaves with utility intervals"):
        _ = sf.payoff
    plans = {
        0: [np.array([1.0, 1.0, 0.0, 0.0, 1.0]), np.array([1.0, 0.5, 0.5, 0.3, 0.7])],
        1: [np.array([1.0, 1.0, 0.0]), np.array([1.0, 0.0, 1.0]), np.array([1.0, 0.4, 0.6])],
    }
    for player in (0, 1):
        for plan in plans[1 - player]:
            for bound in ("lo", "hi"):
                np.testing.assert_allclose(
                    sf.bound_sequence_values(player, plan, bound),
                    tree_sf.bound_sequence_values(player, plan, bound),
                    rtol=0,
                    atol=1e-15,
                )
    # Player 1 never continuing: player 0's values in the optimistic game are finite.
    assert np.isfinite(sf.bound_sequence_values(0, plans[0][0], "hi")).all()
    # Player 1's one infoset: chance 1/4 and 3/4 times player 0 continuing after each card.
    tp0, x0 = sf.treeplexes[0], plans[0][1]
    cont = {k: x0[tp0.seq_start[i] + 1] for i, k in enumerate(sf.infoset_keys(0))}
    np.testing.assert_allclose(
        sf.opponent_reach(1, x0), [0.25 * cont["p0 0"] + 0.75 * cont["p0 1"]], rtol=1e-15
    )


def test_sequence_form_fields_are_checked():
    tree_sf = _unbounded_tree()
    with pytest.raises(ValueError, match="bad: payoff_hi must be a sparse matrix of shape"):
        sequence_form.SequenceForm(
            name="bad",
            treeplexes=tree_sf.treeplexes,
            payoff_lo=tree_sf.payoff_lo,
            payoff_hi=tree_sf.payoff_hi[:, :2],
            infoset_keys=tree_sf.infoset_keys,
            build_reach=tree_sf.build_reach,
        )
    sf = sequence_form.SequenceForm(
        name="bad reach",
        treeplexes=tree_sf.treeplexes,
        payoff_lo=tree_sf.payoff_lo,
        payoff_hi=tree_sf.payoff_hi,
        infoset_keys=tree_sf.infoset_keys,
        build_reach=lambda p: tree_sf.build_reach(1 - p),
    )
    with pytest.raises(ValueError, match="bad reach: the reach matrix of player 0"):
        sf.opponent_reach(0, np.ones(sf.shape[1]))


@pytest.mark.parametrize("value", [np.inf, -np.inf])
def test_best_response_picks_one_action_per_infoset_with_infinite_values(value):
    """Unbounded leaves of certificate trunks give infinite sequence values; the pure best
    response must still choose exactly one action at every information set."""
    tp = sequence_form.for_game("kuhn_poker").treeplexes[0]
    g = np.zeros(tp.num_sequences)
    g[tp.seq_start[0]] = value  # the first action of the first information set
    with np.errstate(all="raise"):
        best, b = tp.best_response(g)
    assert best == (np.inf if value > 0 else 0.0)
    per_infoset = np.add.reduceat(b[1:], tp.seq_start - 1)
    assert np.array_equal(per_infoset, np.ones(tp.num_infosets))
