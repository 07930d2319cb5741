"""Exploitability, NashConv and per-infoset regret against independent computations."""

import itertools

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, lp, policies, sequence_form


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_exploitability_and_nash_conv_agree_with_openspiel(small_game, seed):
    pol = policies.random_policy(small_game, seed, alpha=0.5)
    assert evaluate.exploitability(small_game, pol) == pytest.approx(
        os_exploitability.exploitability(small_game, pol), abs=1e-9
    )
    assert evaluate.nash_conv(small_game, pol) == pytest.approx(
        os_exploitability.nash_conv(small_game, pol), abs=1e-9
    )


def test_non_tabular_policy_is_accepted():
    game = pyspiel.load_game("kuhn_poker")
    uniform = policy_lib.UniformRandomPolicy(game)
    assert evaluate.exploitability(game, uniform) == pytest.approx(
        os_exploitability.exploitability(game, uniform), abs=1e-12
    )


def test_nash_conv_details():
    game = pyspiel.load_game("leduc_poker")
    pol = policies.random_policy(game, seed=4)
    result = evaluate.nash_conv(game, pol, return_only_nash_conv=False)
    values = evaluate.evaluate_profile(
        sequence_form.for_game(game), policies.layout_for_game(game).behavioural(pol)
    ).on_policy_values
    assert values[0] == pytest.approx(-values[1])
    assert result.nash_conv == pytest.approx(sum(result.player_improvements))
    assert min(result.player_improvements) >= 0
    # OpenSpiel's _NashConvReturn: the same fields, unpacking and indexing
    theirs = os_exploitability.nash_conv(game, pol, return_only_nash_conv=False)
    nash_conv, improvements = result
    assert nash_conv == result[0] == pytest.approx(theirs.nash_conv, abs=1e-9)
    assert isinstance(improvements, np.ndarray) and improvements is result[1]
    np.testing.assert_allclose(improvements, theirs.player_improvements, atol=1e-9)


def _nodes_at_infoset(game, pol, player, key):
    """The (state, opponent-and-chance reach) pairs of infoset `key`, walking pyspiel states."""
    nodes = []

    def collect(state, reach):
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, p in state.chance_outcomes():
                collect(state.child(a), reach * p)
            return
        cur = state.current_player()
        if cur == player and state.information_state_string(player) == key:
            nodes.append((state, reach))
        probs = pol.action_probabilities(state)
        for a in state.legal_actions():
            collect(state.child(a), reach * (probs[a] if cur != player else 1.0))

    collect(game.new_initial_state(), 1.0)
    return nodes


def _brute_force_infoset_regret(game, pol, player, key):
    """Bayes-conditional regret at infoset `key`, by enumerating the player's pure strategies.

    Independent of the array code: walks pyspiel states recursively.
    """
    nodes = _nodes_at_infoset(game, pol, player, key)  # (state, opponent-and-chance reach)
    infosets = sorted(
        {k for k in pol.state_lookup if pol.states[pol.state_lookup[k]].current_player() == player}
    )
    legal = {k: pol.states[pol.state_lookup[k]].legal_actions() for k in infosets}

    def value(state, choose):
        if state.is_terminal():
            return state.returns()[player]
        if state.is_chance_node():
            return sum(p * value(state.child(a), choose) for a, p in state.chance_outcomes())
        cur = state.current_player()
        if cur == player and choose is not None:
            return value(state.child(choose[state.information_state_string(player)]), choose)
        probs = pol.action_probabilities(state)
        return sum(probs[a] * value(state.child(a), choose) for a in state.legal_actions())

    mass = sum(r for _, r in nodes)
    on_policy = sum(r * value(s, None) for s, r in nodes) / mass
    best = max(
        sum(r * value(s, dict(zip(infosets, choice))) for s, r in nodes) / mass
        for choice in itertools.product(*(legal[k] for k in infosets))
    )
    return best - on_policy


def test_infoset_regret_matches_brute_force_on_kuhn():
    game = pyspiel.load_game("kuhn_poker")
    pol = policies.random_policy(game, seed=7)
    sf = sequence_form.for_game(game)
    b = policies.layout(sf).from_tabular(pol)
    for player in (0, 1):
        regrets = evaluate.infoset_regrets(sf, b, player)
        tp = sf.treeplexes[player]
        for i, g in enumerate(tp.infoset_ids):
            key = sf.tree.infoset_key[g]
            assert regrets.regret[i] == pytest.approx(
                _brute_force_infoset_regret(game, pol, player, key), abs=1e-12
            ), key


def test_equilibrium_has_no_regret_where_reached_by_both():
    sf = sequence_form.for_game("leduc_poker")
    solution = lp.solve(sf)
    for player in (0, 1):
        tp = sf.treeplexes[player]
        regrets = evaluate.infoset_regrets(sf, solution.behavioural, player)
        own_reach = solution.plans[player][tp.parent_seq]
        both = (own_reach > 1e-9) & (regrets.reach > 1e-9)
        assert np.nanmax(regrets.regret[both]) < 1e-7


def _brute_force_trembling_regret(game, pol, player, key, tremble):
    """The brute-force regret against the opponent's strategy mixed with uniform."""
    opp_states = [s for s in pol.states if s.current_player() == 1 - player]
    trembling = policies.uniform_policy(game)
    for s in opp_states:
        row = pol.state_lookup[s.information_state_string(1 - player)]
        legal = pol.legal_actions_mask[row].astype(bool)
        mixed = (1 - tremble) * pol.action_probability_array[row] + tremble * legal / legal.sum()
        trembling.action_probability_array[row] = mixed
    for s in pol.states:
        if s.current_player() == player:
            row = pol.state_lookup[s.information_state_string(player)]
            trembling.action_probability_array[row] = pol.action_probability_array[row]
    return _brute_force_infoset_regret(game, trembling, player, key)


def test_unreached_infosets_get_the_trembling_hand_regret():
    game = pyspiel.load_game("kuhn_poker")
    sf = sequence_form.for_game(game)
    layout = policies.layout(sf)
    pol = policies.random_policy(game, seed=3)
    # player 0 never bets first: player 1's infosets after a bet are unreached
    for row in pol.state_lookup.values():
        if pol.states[row].current_player() == 0 and not pol.states[row].history()[2:]:
            pol.action_probability_array[row] = [1.0, 0.0]
    regrets = evaluate.infoset_regrets(sf, layout.from_tabular(pol), 1, tremble=1e-6)
    unreached = regrets.reach == 0
    assert unreached.any() and not np.isnan(regrets.regret).any()
    tp = sf.treeplexes[1]
    for i in np.flatnonzero(unreached):
        key = sf.tree.infoset_key[tp.infoset_ids[i]]
        expected = _brute_force_trembling_regret(game, pol, 1, key, 1e-6)
        assert regrets.regret[i] == pytest.approx(expected, abs=1e-6), key


def test_policy_of_another_game_is_refused():
    leduc_policy = policies.uniform_policy("leduc_poker")
    with pytest.raises(ValueError, match="does not cover information state"):
        evaluate.exploitability(pyspiel.load_game("kuhn_poker"), leduc_policy)


@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("seed", [0, 1])
def test_best_response_agrees_with_openspiel(player, seed):
    game = pyspiel.load_game("leduc_poker")
    pol = policies.random_policy(game, seed=seed)
    ours = evaluate.best_response(game, pol, player)
    theirs = os_exploitability.best_response(game, pol, player)
    for key in ("best_response_value", "on_policy_value", "nash_conv"):
        assert ours[key] == pytest.approx(theirs[key], abs=1e-9), key
    # The returned actions form a best response: playing them earns best_response_value
    # (OpenSpiel's expected_game_score, an independent evaluation).
    br = policy_lib.TabularPolicy(game)
    for key, action in ours["best_response_action"].items():
        row = br.state_lookup[key]
        br.action_probability_array[row] = np.eye(br.action_probability_array.shape[1])[action]
    profile = [pol, pol]
    profile[player] = br
    values = expected_game_score.policy_value(game.new_initial_state(), profile)
    assert values[player] == pytest.approx(theirs["best_response_value"], abs=1e-9)
    assert set(ours["best_response_action"]) == set(theirs["best_response_action"])


def test_game_value_and_player_exploitability_against_openspiel():
    """Kuhn's value is -1/18 (Kuhn 1950); each player's guaranteed value is minus OpenSpiel's
    best-response value of the other player, and the two E(pi_i) average to OpenSpiel's
    exploitability."""
    game = pyspiel.load_game("kuhn_poker")
    sf = sequence_form.for_game(game)
    value0 = lp.game_value(sf)
    assert value0 == pytest.approx(-1 / 18, abs=1e-9)
    pol = policies.random_policy(game, seed=4)
    behavioural = policies.layout(sf).from_tabular(pol)
    guaranteed, per_player = evaluate.player_figures(sf, behavioural, value0)
    for i in (0, 1):
        br = os_exploitability.best_response(game, pol, 1 - i)["best_response_value"]
        assert guaranteed[i] == pytest.approx(-br, abs=1e-12)
        e_i = evaluate.player_exploitability(sf, behavioural[i], i, value0)
        assert per_player[i] == pytest.approx(e_i, abs=1e-15)
        assert e_i == pytest.approx((value0 if i == 0 else -value0) + br, abs=1e-12)
    assert sum(per_player) / 2 == pytest.approx(
        os_exploitability.exploitability(game, pol), abs=1e-12
    )
    assert evaluate.player_figures(sf, behavioural) == (guaranteed, None)
    equilibrium = lp.solve(sf).behavioural
    for i in (0, 1):
        assert evaluate.player_exploitability(sf, equilibrium[i], i, value0) == pytest.approx(
            0.0, abs=1e-9
        )
