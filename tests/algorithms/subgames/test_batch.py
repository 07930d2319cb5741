"""One CFR+ run on the disjoint union of gadget games gives each gadget's separate CFR+ run
(Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 7.2 trembles included): the same iterates while rounding
differences stay invisible (a few dozen iterations here), the same limit after that."""

import numpy as np
import pytest

from ospiel_ext import policies, sequence_form
from ospiel_ext.algorithms.subgames import batch, blueprints, combine, gadgets, ggse, priors
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames


@pytest.fixture(scope="module")
def leduc():
    sf = sequence_form.for_game("leduc_poker")
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, 1))
    return q, subgames(sf.tree, Cut.after_public_chance())


def test_a_batched_run_equals_separate_runs(leduc):
    q, subs = leduc
    # two gadgets of one subgame (players 0 and 1 share its keys), several kinds and priors
    cases = [
        ("resolving", subs[0], 0, "blueprint"),
        ("resolving", subs[0], 1, "uniform"),
        ("max_margin", subs[1], 0, "none"),
        ("max_margin", subs[2], 1, "blueprint"),
        ("unsafe", subs[3], None, "none"),
    ]
    games = [gadgets.gadget_game(kind, q, sub, player=i) for kind, sub, i, _ in cases]
    pis = [priors.gadget_prior(g, kind) for g, (_, _, _, kind) in zip(games, cases)]
    for iterations, tolerance in ((20, 1e-9), (1000, 1e-3)):
        joint = batch.solve_cfr_batch(games, pis, eps=1e-2, iterations=iterations)
        for g, pi, together in zip(games, pis, joint):
            alone = ggse.solve_cfr(g, pi, eps=1e-2, iterations=iterations)
            assert together.gadget is g and together.eps == alone.eps
            assert together.iterations == iterations
            assert together.value == pytest.approx(alone.value, abs=tolerance)
            if iterations == 20:
                for p in (0, 1):
                    np.testing.assert_allclose(
                        together.behavioural[p], alone.behavioural[p], atol=tolerance
                    )


def test_resolve_in_one_batch(leduc):
    q, subs = leduc
    some = subs[:3]
    one = combine.resolve(
        q, some, "resolving", prior="uniform", method="cfr", iterations=20, batch=True
    )
    many = combine.resolve(q, some, "resolving", prior="uniform", method="cfr", iterations=20)
    for p in (0, 1):
        np.testing.assert_allclose(one.behavioural[p], many.behavioural[p], atol=1e-9)
    with pytest.raises(ValueError, match="batch=True needs method 'cfr'"):
        combine.resolve(q, some, "resolving", prior="uniform", method="lp", batch=True)
    with pytest.raises(ValueError, match="priors"):
        batch.solve_cfr_batch([one.solutions[0].gadget], [], iterations=10)
