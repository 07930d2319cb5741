"""`RangeCFRSolver` with a `range_cfr.Subgame`: the last round solved below fixed rounds.

The gadgets that use it are checked against the compiled stack's LPs
(tests/algorithms/depth_limited/ranges/test_off_tree.py); here, what the hook itself
promises."""

import dataclasses

import numpy as np
import pytest

from ospiel_ext.algorithms.poker import range_cfr, range_tree, range_walker, structure

LEDUC = "leduc_poker"


@dataclasses.dataclass
class _Fixed:
    """The rounds above fixed at `strategies`, the first rows' reaches left as they are;
    every `update` recorded."""

    strategies: list
    seen: list = dataclasses.field(default_factory=list)

    def first_rows(self, player, reach):
        return reach

    def update(self, player, values, iteration):
        self.seen.append((player, values.shape, iteration))


@pytest.fixture(scope="module")
def tree():
    return range_tree.RangeTree(structure.detect(LEDUC))


def test_the_rounds_above_keep_their_strategies_and_each_pass_reports_its_values(tree):
    rng = np.random.default_rng(0)
    upper = [
        [
            rng.dirichlet(np.ones(g.num_actions), size=(len(g.nodes), lay.orbits.width)).transpose(
                0, 2, 1
            )
            for g in lay.groups
        ]
        for lay in tree.rounds[:-1]
    ]
    hook = _Fixed(upper)
    solver = range_cfr.RangeCFRSolver(tree, subgame=hook)
    for _ in range(3):
        solver.evaluate_and_update_policy()
    average = tree.contract(solver.average_strategy())
    for mine, fixed in zip(average[0], upper[0]):
        np.testing.assert_allclose(mine, fixed, atol=1e-12)
    rows = (len(tree.rounds[0].ends), tree.rounds[1].orbits.width)
    assert hook.seen == [(p, rows, t) for t in (1, 2, 3) for p in (0, 1)]
    # the whole game's evaluation of that profile, as the walker gives it
    want = range_walker.RangeWalker(tree).evaluate(average)
    assert solver.evaluate_average().on_policy_values[0] == pytest.approx(
        want.on_policy_values[0], abs=1e-12
    )


def test_a_subgame_needs_a_round_above_and_every_board(tree):
    with pytest.raises(ValueError, match=r"leduc_poker.*subgame"):
        range_cfr.RangeCFRSolver(tree, subgame=_Fixed([]), sample_boards=0.5)
    kuhn = range_tree.RangeTree(structure.detect("kuhn_poker"))
    with pytest.raises(ValueError, match=r"kuhn_poker.*subgame"):
        range_cfr.RangeCFRSolver(kuhn, subgame=_Fixed([]))
