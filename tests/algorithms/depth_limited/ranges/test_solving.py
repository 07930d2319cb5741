"""Depth-limited solving of the first round on the range layout (`depth_limited.ranges`:
`leaves`, `solving`) against the compiled stack (`depth_limited.exact_values`,
`solve_depth_limited` with the LP), an independent computation: the same K continuations
(the opponent's strategies below the limit, the solving player's blueprint there), the same
depth-limited game, its value by HiGHS's LP in one and CFR+ in the other."""

import itertools

import numpy as np
import pytest
from helpers import HOLDEM_LIMIT, random_behavioural

from ospiel_ext import policies, sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.leaves import profile_with
from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.depth_limited.ranges.solving import (
    DepthLimitedRangeSolver,
    self_generative,
)
from ospiel_ext.algorithms.poker import range_policy, range_tree, range_walker, structure

ITERATIONS = 1000  # the brackets measured 1.1e-5 to 7.5e-5 wide here


def _arrays(explicit, tree, behavioural):
    """A behavioural profile of the compiled form on the range layout (via a TabularPolicy)."""
    tabular = policies.layout(explicit).to_tabular(behavioural)
    return tree.contract(range_policy.arrays_from_tabular(tree, tabular))


def _compiled_value(explicit, blueprint, player, strategies, weaken=False):
    """Player i's value of the depth-limited game at the start, by the LP (compiled)."""
    q = ss.BlueprintQuantities.compute(explicit, blueprint)
    limit = dl.depth_limit(explicit.tree, dl.parse_limit("round_end"))
    leaves = dl.exact_values(explicit, limit, blueprint, player=player, strategies=strategies)
    if weaken:
        leaves = dl.weaken(leaves, dl.leaf_beliefs(explicit, limit, blueprint, player))
    solution = dl.solve_depth_limited(q, dl.start_subgames(explicit.tree), leaves, method="lp")
    return solution.solutions[0].value  # `evaluate.guaranteed_value` for player i


@pytest.mark.parametrize(
    "game, weaken",
    [("leduc_poker", False), (HOLDEM_LIMIT, False), ("leduc_poker", True)],
    ids=["leduc", "holdem", "leduc-weakened"],
)
@pytest.mark.parametrize("player", [0, 1])
def test_the_depth_limited_game_has_the_compiled_games_value(game, player, weaken):
    """Three continuations (the blueprint and two random strategies of the opponent), as
    they are or weakened (Section 4): the CFR+ average's best responses bracket the compiled
    LP's value, within 2e-4; with the blueprint's continuation alone the (plain) game is
    another, worth more to the solving player."""
    explicit = sequence_form.for_game(game)
    tree = range_tree.RangeTree(structure.detect(game))
    blueprint = random_behavioural(explicit, 0)
    o = 1 - player
    strategies = [
        blueprint[o],
        random_behavioural(explicit, 1)[o],
        random_behavioural(explicit, 2)[o],
    ]
    want = _compiled_value(explicit, blueprint, player, strategies, weaken)
    walker = range_walker.RangeWalker(tree)
    continuations = [_arrays(explicit, tree, profile_with(blueprint, o, s)) for s in strategies]
    leaves = LeafValues.compute(walker, continuations)
    if weaken:  # not vacuous: the weakening moves the value
        assert want != pytest.approx(_compiled_value(explicit, blueprint, player, strategies))
        arrays = _arrays(explicit, tree, blueprint)
        beliefs = walker.reaches(player, arrays, rounds=1)[0][tree.rounds[0].ends]
        leaves = leaves.weaken(walker, beliefs, player)
    solver = DepthLimitedRangeSolver(walker, leaves, player)
    for _ in range(ITERATIONS):
        solver.evaluate_and_update_policy()
    evaluation = solver.evaluate_average()
    guaranteed = -evaluation.best_response_values[o]
    best = evaluation.best_response_values[player]
    assert guaranteed - 1e-9 <= want <= best + 1e-9
    assert best - guaranteed < 2e-4
    if weaken:
        return
    one = DepthLimitedRangeSolver(walker, LeafValues(tuple(v[:1] for v in leaves.values)), player)
    for _ in range(300):
        one.evaluate_and_update_policy()
    alone = one.evaluate_average()
    assert -alone.best_response_values[o] > want + 0.1  # measured 0.37-0.64


def test_one_continuation_that_is_the_blueprint_values_the_blueprint():
    """K = 1 with the blueprint below the limit and the blueprint above: the depth-limited
    game's value of that profile is the blueprint's value in the whole game."""
    explicit = sequence_form.for_game("leduc_poker")
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    walker = range_walker.RangeWalker(tree)
    arrays = _arrays(explicit, tree, random_behavioural(explicit, 3))
    solver = DepthLimitedRangeSolver(walker, LeafValues.compute(walker, [arrays]), 0)
    solver._average = [[a.copy() for a in arrays[0]]]  # the blueprint as the average
    solver._choice_average = np.ones_like(solver._choice_average)
    value = solver.evaluate_average().on_policy_values[0]
    assert value == pytest.approx(walker.value(arrays), abs=1e-12)


def test_leaves_need_two_rounds_and_a_continuation():
    tree = range_tree.RangeTree(structure.detect("kuhn_poker"))
    walker = range_walker.RangeWalker(tree)
    with pytest.raises(ValueError, match=r"kuhn_poker.*two-round"):
        LeafValues.compute(walker, [walker.uniform()])
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    with pytest.raises(ValueError, match=r"leduc_poker.*at least one"):
        LeafValues.compute(range_walker.RangeWalker(tree), [])


@pytest.mark.parametrize("player", [0, 1])
def test_self_generative_adds_best_responses_to_the_depth_limited_solutions(player):
    """K = 3 on Leduc from a random blueprint: the blueprint's values first; each added
    continuation keeps the blueprint below the limit for the solving player and is the
    opponent's pure best response to the solving player's strategy it carries (its value is
    the best-response value); the weakened values never give the opponent more than the
    blueprint's continuation at any leaf information set under the blueprint's beliefs."""
    explicit = sequence_form.for_game("leduc_poker")
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    walker = range_walker.RangeWalker(tree)
    blueprint = _arrays(explicit, tree, random_behavioural(explicit, 5))
    o = 1 - player
    leaves, continuations = self_generative(walker, blueprint, player, 3, iterations=200)
    assert leaves.num_values == len(continuations) == 3
    assert continuations[0] is blueprint
    raw = LeafValues.compute(walker, continuations)
    np.testing.assert_array_equal(
        raw.values[0][0], LeafValues.compute(walker, [blueprint]).values[0][0]
    )
    last = tree.rounds[-1]
    for answer in continuations[1:]:
        for k, g in enumerate(last.groups):
            if g.player == player:
                assert answer[-1][k] is blueprint[-1][k]
            else:
                assert set(np.unique(answer[-1][k])) <= {0.0, 1.0}
        best, _ = walker.best_response(o, answer)
        assert walker.profile_values(answer, ((o, True),))[0] == pytest.approx(best, abs=1e-12)
    beliefs = walker.reaches(player, blueprint, rounds=1)[0][tree.rounds[0].ends]
    per_set = np.einsum("kehj,ej->keh", leaves.values[o], beliefs)
    assert np.all(per_set[1:] <= per_set[0] + 1e-12)
    assert not np.allclose(leaves.values[o], raw.values[o])  # the weakening acted


def test_self_generative_goes_on_from_a_set_kept_part_way():
    """`after_value` sees the unweakened set grow one value at a time; a call started from the
    set kept after two values ends with the straight call's values and continuations, exactly
    (weakened, K = 3 on Leduc); a start whose values and continuations differ in number is
    refused."""
    explicit = sequence_form.for_game("leduc_poker")
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    walker = range_walker.RangeWalker(tree)
    blueprint = _arrays(explicit, tree, random_behavioural(explicit, 5))
    seen = []
    straight = self_generative(
        walker, blueprint, 0, 3, iterations=50, after_value=lambda v, c: seen.append((v, list(c)))
    )
    assert [(v.num_values, len(c)) for v, c in seen] == [(1, 1), (2, 2), (3, 3)]
    np.testing.assert_array_equal(
        seen[-1][0].values[1], LeafValues.compute(walker, straight[1]).values[1]
    )
    more = []
    resumed = self_generative(
        walker, blueprint, 0, 3, iterations=50, start=seen[1],
        after_value=lambda v, c: more.append(v.num_values),
    )  # fmt: skip
    assert more == [3]  # only the third value computed
    for a, b in zip(straight[0].values, resumed[0].values):
        np.testing.assert_array_equal(a, b)
    for a, b in zip(straight[1], resumed[1]):
        for x, y in zip(itertools.chain(*a), itertools.chain(*b)):
            np.testing.assert_array_equal(x, y)
    with pytest.raises(ValueError, match=r"leduc_poker.*a start of 2 values and 1"):
        self_generative(walker, blueprint, 0, 3, start=(seen[1][0], seen[1][1][:1]))
