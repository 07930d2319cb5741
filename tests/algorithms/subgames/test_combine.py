"""Safety of resolving every subgame of a cut (Kubíček, Lisý & Sandholm 2025, "Equilibrium
Refinements Improve Subgame Solving in Imperfect-Information Games", Section 2.1, Theorem 1,
Definition 3) over random Dirichlet blueprints: with exact LP solutions no root value drops,
no player's exploitability grows, Theorem 1's bound holds, the max-margin gadget's value is
its smallest root improvement, and nothing beats the optimal continuation."""

import numpy as np
import pytest

from ospiel_ext import evaluate, lp, policies, sequence_form
from ospiel_ext.algorithms.subgames import blueprints, combine
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames

TOLERANCE = 1e-9
CASES = [
    pytest.param("kuhn_poker", Cut.after_moves(1), 0, id="kuhn-1-0"),
    pytest.param("kuhn_poker", Cut.after_moves(1), 1, id="kuhn-1-1"),
    pytest.param("kuhn_poker", Cut.after_moves(1), 2, id="kuhn-1-2"),
    pytest.param("kuhn_poker", Cut.after_moves(2), 0, id="kuhn-2-0"),
    pytest.param("kuhn_poker", Cut.after_moves(2), 1, id="kuhn-2-1"),
    pytest.param("kuhn_poker", Cut.after_moves(2), 2, id="kuhn-2-2"),
    pytest.param("leduc_poker", Cut.after_public_chance(), 0, id="leduc-flop-0"),
    pytest.param(
        "leduc_poker", Cut.after_public_chance(), 1, id="leduc-flop-1", marks=pytest.mark.slow
    ),
    pytest.param(
        "leduc_poker", Cut.after_public_chance(), 2, id="leduc-flop-2", marks=pytest.mark.slow
    ),
]


def _trunk_sequences(sf, subs, player):
    """The player's sequences at information sets outside every subgame."""
    tp = sf.treeplexes[player]
    inside = set()
    for sub in subs:
        inside.update(sf.tree.infoset_key[i] for i in sub.infosets(player).tolist())
    outside = [j for j, key in enumerate(sf.infoset_keys(player)) if key not in inside]
    parts = [tp.seq_start[j] + np.arange(tp.num_actions[j]) for j in outside]
    return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int64)


@pytest.mark.parametrize("game, cut, seed", CASES)
def test_safe_resolving_never_hurts(game, cut, seed):
    sf = sequence_form.for_game(game)
    subs = subgames(sf.tree, cut)
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, seed))
    value0 = lp.game_value(sf)
    best = [combine.optimal_continuation(q, i, subs, value0=value0) for i in (0, 1)]
    for kind in ("resolving", "max_margin"):
        for prior in ("none", "uniform", "blueprint"):
            res = combine.resolve(q, subs, kind, prior=prior, method="lp")
            assert not res.skipped and all(s.optimal_at_zero for s in res.solutions)
            after = blueprints.BlueprintQuantities.compute(sf, res.behavioural)
            for i in (0, 1):
                report = combine.safety_report(q, after, subs, player=i, value0=value0)
                assert report.min_delta >= -TOLERANCE
                assert report.safe and report.theorem1_holds
                assert report.exploitability >= best[i].exploitability - TOLERANCE
                trunk = _trunk_sequences(sf, subs, i)
                np.testing.assert_array_equal(res.behavioural[i][trunk], q.blueprint[i][trunk])
            if kind == "max_margin":  # the gadget's value is the smallest improvement
                for sol in res.solutions:
                    imp = combine.root_improvements(q, after, sol.gadget.subgame, sol.gadget.player)
                    smallest = imp.delta[imp.weight > 0].min()
                    assert smallest == pytest.approx(sol.value, abs=TOLERANCE)
            profile = evaluate.exploitability(sf.tree.game, res.policy())
            assert profile == pytest.approx(report.profile_exploitability, abs=1e-12)


def test_optimal_continuation_fixes_the_trunk_and_is_safe():
    sf = sequence_form.for_game("kuhn_poker")
    subs = subgames(sf.tree, Cut.after_moves(1))
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, 4))
    value0 = lp.game_value(sf)
    for i in (0, 1):
        trunk = _trunk_sequences(sf, subs, i)
        for fixed in ("trunk", "ancestors"):
            oc = combine.optimal_continuation(q, i, subs, fixed=fixed, value0=value0)
            np.testing.assert_allclose(oc.behavioural[i][trunk], q.blueprint[i][trunk])
            e = evaluate.player_exploitability(sf, oc.behavioural[i], i, value0)
            assert e == pytest.approx(oc.exploitability, abs=1e-9)
            assert e <= evaluate.player_exploitability(sf, q.blueprint[i], i, value0) + TOLERANCE
    with pytest.raises(ValueError, match="fixed must be"):
        combine.optimal_continuation(q, 0, subs, fixed="everything")
    with pytest.raises(ValueError, match="one cut"):
        combine.optimal_continuation(q, 0, [])


def test_unsafe_resolving_splices_both_players():
    sf = sequence_form.for_game("kuhn_poker")
    subs = subgames(sf.tree, Cut.after_moves(1))
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, 0))
    res = combine.resolve(q, subs, "unsafe", method="lp")
    assert len(res.solutions) == len(subs)
    for sol in res.solutions:
        assert sol.gadget.solved_players == (0, 1)
        back = combine.restrict(sf, res.behavioural, sol.gadget)
        for p in (0, 1):
            np.testing.assert_allclose(back[p], sol.behavioural[p], atol=1e-12)
    with pytest.raises(ValueError, match="no auxiliary"):
        combine.resolve(q, subs, "unsafe", prior="uniform", method="lp")
