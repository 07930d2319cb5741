"""The range solver's strategies as OpenSpiel policies (`poker.range_policy`).

The reference is OpenSpiel's own `exploitability`, which asks the policy at every state of the
game: equal to the range walker's exact exploitability, with and without suit isomorphism."""

import numpy as np
import pytest
from open_spiel.python.algorithms import best_response as os_best_response
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, loading, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms.gameshrink import descriptions
from ospiel_ext.algorithms.poker import range_cfr, range_rows, range_tree, range_walker, structure
from ospiel_ext.algorithms.poker.range_policy import (
    RangePolicy,
    load_range_policy,
    save_range_policy,
)

CASES = [
    ("kuhn_poker", False),
    ("leduc_poker", False),
    ("leduc_poker", True),
    ("limit_leduc_poker(num_ranks=3)", False),  # one chance action deals both private cards
    ("rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)", True),
    (descriptions.UNIVERSAL_POKER_EXAMPLES[0], False),
]


def _solved(game, suits, iterations=15):
    solver = range_cfr.RangeCFRSolver(range_tree.RangeTree(structure.detect(game), suits=suits))
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return solver


@pytest.mark.parametrize("game, suits", CASES)
def test_openspiel_measures_the_exploitability_the_walker_reports(game, suits):
    game = loading.load(game)
    solver = _solved(game, suits)
    policy = solver.average_policy()
    want = solver.exploitability()
    assert want > 1e-3  # not converged: the strategies differ between information sets
    assert os_exploitability.exploitability(game, policy) == pytest.approx(want, abs=1e-9)


def test_three_suits_through_the_compiled_form():
    """Rhode Island 3x3 (too slow for OpenSpiel's Python best response): the policy laid
    out on the compiled sequence form and evaluated there."""
    game = loading.load("rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)")
    solver = _solved(game, True)
    explicit = sf_lib.for_game(game)
    b = policies.layout(explicit).from_policy(solver.average_policy())
    want = evaluate.evaluate_profile(explicit, b).exploitability
    assert want > 1e-3
    assert solver.exploitability() == pytest.approx(want, abs=1e-12)


def test_the_policy_is_a_snapshot():
    solver = _solved(loading.load("leduc_poker"), False, iterations=2)
    first = solver.average_policy()
    kept = [a.copy() for per_round in first.strategy for a in per_round]
    solver.evaluate_and_update_policy()
    assert solver.average_policy() is not first
    for a, b in zip(kept, (a for per_round in first.strategy for a in per_round)):
        np.testing.assert_array_equal(a, b)


def test_the_file_reads_back_the_same_policy(tmp_path):
    game = loading.load("rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)")
    policy = _solved(game, True).average_policy()
    path = tmp_path / "ri.npz"
    save_range_policy(policy, path)
    back = load_range_policy(path)
    assert back.tree.suits and back.tree.name == policy.tree.name
    for got, want in zip(back.strategy, policy.strategy):
        for a, b in zip(got, want):
            np.testing.assert_array_equal(a, b)
    state = game.new_initial_state()
    while not state.is_terminal():  # one play: the same answers at every decision
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[-1][0])
            continue
        assert back.action_probabilities(state) == policy.action_probabilities(state)
        state.apply_action(state.legal_actions()[-1])


def test_other_files_and_shapes_are_refused(tmp_path):
    path = tmp_path / "other.npz"
    np.savez(path, x=np.zeros(3))
    with pytest.raises(ValueError, match="not a range-policy file"):
        load_range_policy(path)
    np.savez(path, format="ospiel_ext range policy 1", game="leduc_poker")
    with pytest.raises(ValueError, match="a range-policy file without its suits"):
        load_range_policy(path)
    tree = range_tree.RangeTree(structure.detect(loading.load("leduc_poker")))
    strategy = tree.expand(range_walker.RangeWalker(tree).uniform())
    strategy[1][0] = strategy[1][0][:, :, :1]
    with pytest.raises(ValueError, match="strategy arrays of shapes"):
        RangePolicy(tree, strategy)


def _saved_uniform(path, game="leduc_poker", suits=True, change=None):
    tree = range_tree.RangeTree(structure.detect(loading.load(game)), suits=suits)
    strategy = tree.expand(range_walker.RangeWalker(tree).uniform())
    if change is not None:
        change(strategy)
    save_range_policy(RangePolicy(tree, strategy), path)
    return path


def _set(r, k, index, value):
    def change(strategy):
        strategy[r][k][index] = value

    return change


@pytest.mark.parametrize(
    "change, message",
    [
        (_set(1, 0, (0, 0, 0, 0), np.nan), "not finite numbers"),
        (_set(1, 0, (0, 0, 0, 0), -0.5), "not a distribution over its actions"),
        (_set(0, 0, (0, 0, 0, 0), 0.9), "not a distribution over its actions"),
    ],
    ids=["nan", "negative", "sum"],
)
def test_a_file_that_is_not_a_strategy_is_refused(tmp_path, change, message):
    path = _saved_uniform(tmp_path / "p.npz", change=change)
    with pytest.raises(ValueError, match=f"round ., decision group .: .*{message}"):
        load_range_policy(path)


def test_a_suit_asymmetric_file_is_refused(tmp_path):
    """Before Leduc's board, the jacks of both suits (types 0 and 1) are one orbit
    (`deals.RoundDeals` hand_orbit [0 0 2 2 4 4]): with suits they must play alike; without
    suits the same arrays are a policy."""

    def change(strategy):
        strategy[0][0][0, :, 0, 0] = [1.0, 0.0]  # the jack of suit 0 always takes action 0

    with pytest.raises(ValueError, match="one orbit under the board's suit permutations"):
        load_range_policy(_saved_uniform(tmp_path / "a.npz", change=change))
    assert load_range_policy(_saved_uniform(tmp_path / "b.npz", suits=False, change=change))


@pytest.mark.parametrize("game, suits", CASES[1:5])
@pytest.mark.parametrize("player", [0, 1])
def test_the_best_response_is_a_pure_policy_openspiel_scores_at_its_value(game, suits, player):
    """`RangeWalker.best_response` against the average of 15 CFR+ iterations: pure at every
    decision of the player, the value the walker's best-response pass reports, attained by the
    pure profile in a mixed pass, and OpenSpiel's expected game score of the profile as an
    OpenSpiel policy (`RangePolicy`) is that value, as is OpenSpiel's best-response value."""
    game = loading.load(game)
    solver = _solved(game, suits)
    tree, walker = solver.tree, solver.walker
    average = range_rows.normalise(solver._average)
    value, profile = walker.best_response(player, average)
    for r, lay in enumerate(tree.rounds):
        for k, g in enumerate(lay.groups):
            if g.player == player:
                assert set(np.unique(profile[r][k])) <= {0.0, 1.0}
                np.testing.assert_array_equal(profile[r][k].sum(axis=1), 1.0)
            else:
                assert profile[r][k] is average[r][k]
    assert game.utility_sum() == 0  # each player's value is its own utility
    brs = walker.evaluate(average).best_response_values
    assert value == pytest.approx(brs[player], abs=1e-12)
    assert walker.profile_values(profile, ((player, True),))[0] == pytest.approx(value, abs=1e-12)
    policy = RangePolicy(tree, tree.expand(profile))
    scores = expected_game_score.policy_value(game.new_initial_state(), [policy, policy])
    assert scores[player] == pytest.approx(value, abs=1e-9)
    opponent = solver.average_policy()
    openspiel = os_best_response.BestResponsePolicy(game, player, opponent)
    assert openspiel.value(game.new_initial_state()) == pytest.approx(value, abs=1e-9)
