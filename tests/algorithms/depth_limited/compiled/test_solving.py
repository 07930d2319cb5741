"""Depth-limited solving of compiled games with multi-valued states (Brown, Sandholm & Amos
2018, "Depth-Limited Solving for Imperfect-Information Games"): RPS+ (Section 2, Figure 1),
Proposition 1 on Kuhn and Leduc with an exact-equilibrium blueprint, safe solving below the
root, the bias set, and round-end limits (Section 6)."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability

import ospiel_ext.games  # noqa: F401  (registers rps_plus)
from ospiel_ext import evaluate, lp, policies, sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.constraints import sequence_lower_bounds

RPS_EQUILIBRIUM = [0.4, 0.4, 0.2]  # Section 2


@pytest.fixture(scope="module", name="rps")
def fixture_rps():
    sf = sequence_form.for_game("rps_plus")
    blueprint = lp.solve(sf).behavioural
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    return sf, blueprint, q, limit


def _guaranteed(solution_game, strategy):
    return evaluate.guaranteed_value(solution_game.sf, strategy, 0)


def test_rps_plus_equilibrium_blueprint(rps):
    _sf, blueprint, _, _ = rps
    np.testing.assert_allclose(blueprint[0][1:], RPS_EQUILIBRIUM, atol=1e-9)


def test_rps_plus_single_value_cannot_tell_strategies_apart(rps):
    """Figure 1b: with the equilibrium's state values (all 0), every strategy of P1 is
    optimal in the depth-limited game, pure Rock included - whose real exploitability is 1."""
    sf, blueprint, q, limit = rps
    leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=[blueprint[1]])
    np.testing.assert_allclose(leaves.values, 0.0, atol=1e-12)
    game = dl.depth_limited_game(q, dl.start_subgames(sf.tree)[0], leaves)
    for pure in np.eye(3):
        assert _guaranteed(game, np.concatenate([[1.0], pure])) == pytest.approx(0.0, abs=1e-12)
    rock = np.array([1.0, 1.0, 0.0, 0.0])
    assert _guaranteed(ss.unsafe_subgame(q, dl.start_subgames(sf.tree)[0]), rock) == (
        pytest.approx(-1.0)
    )


@pytest.mark.parametrize("method", ["lp", "cfr"])
def test_rps_plus_pure_continuations_recover_equilibrium(rps, method):
    sf, blueprint, q, limit = rps
    pure = dl.pure_continuations(sf, limit, blueprint[1], player=1)
    assert len(pure) == 3
    leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=pure)
    sol = dl.solve_depth_limited(
        q, dl.start_subgames(sf.tree), leaves, method=method, iterations=3000
    )
    np.testing.assert_allclose(sol.behavioural[0][1:], RPS_EQUILIBRIUM, atol=2e-3)


def test_rps_plus_self_generative_grows_until_it_recovers(rps):
    """Blueprint + best responses: the blueprint column (all 0) keeps every strategy that
    is >= 0 against the added ones optimal; with all three best responses only the
    equilibrium is."""
    sf, _, q, limit = rps
    subs = dl.start_subgames(sf.tree)
    leaves = dl.self_generative(q, subs, limit, player=0, num_values=4, method="lp")
    assert leaves.num_values == 4
    sol = dl.solve_depth_limited(q, subs, leaves, method="lp")
    np.testing.assert_allclose(sol.behavioural[0][1:], RPS_EQUILIBRIUM, atol=1e-9)


def _solve_both(game, cut, method="lp", iterations=1):
    sf = sequence_form.for_game(game)
    blueprint = lp.solve(sf).behavioural
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    limit = dl.depth_limit(sf.tree, cut)
    profile = list(blueprint)
    for i in (0, 1):
        pure = dl.pure_continuations(sf, limit, blueprint[1 - i], player=1 - i)
        leaves = dl.exact_values(sf, limit, blueprint, player=i, strategies=pure)
        sol = dl.solve_depth_limited(
            q, dl.start_subgames(sf.tree), leaves, method=method, iterations=iterations
        )
        profile[i] = sol.behavioural[i]
    return sf, (profile[0], profile[1])


@pytest.mark.parametrize(
    "game, cut",
    [
        ("kuhn_poker", ss.Cut.after_moves(1)),
        ("kuhn_poker", ss.Cut.after_moves(2)),
        ("leduc_poker", ss.Cut.after_public_chance()),
    ],
)
def test_proposition1_full_pure_set_gives_an_equilibrium(game, cut):
    """Proposition 1: with an exact-equilibrium blueprint and every pure continuation at the
    leaves, the depth-limited solution (blueprint beyond) is an equilibrium strategy;
    checked with OpenSpiel's exploitability."""
    sf, profile = _solve_both(game, cut)
    pol = policies.layout(sf).to_tabular(profile)
    assert exploitability.exploitability(pyspiel.load_game(game), pol) < 1e-9


def test_proposition1_with_cfr_plus_on_leduc():
    sf, profile = _solve_both("leduc_poker", ss.Cut.after_public_chance(), "cfr", 3000)
    pol = policies.layout(sf).to_tabular(profile)
    assert exploitability.exploitability(pyspiel.load_game("leduc_poker"), pol) < 5e-3


def test_safe_depth_limited_subgame_below_the_root_keeps_an_equilibrium():
    """Kuhn, subgame after P0's first move, depth limit one move later, resolving gadget
    (Proposition 1's root values): P1's resolved strategy stays unexploitable."""
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = lp.solve(sf).behavioural
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(2))
    pure = dl.pure_continuations(sf, limit, blueprint[0], player=0)
    leaves = dl.exact_values(sf, limit, blueprint, player=1, strategies=pure)
    subs = ss.subgames(sf.tree, ss.Cut.after_moves(1))
    assert len(subs) == 2
    for gadget in ("resolving", "max_margin"):
        sol = dl.solve_depth_limited(q, subs, leaves, gadget=gadget, method="lp")
        assert all(s.gadget.leaf_keys for s in sol.solutions if s.gadget.subgame.index == 0)
        pol = policies.layout(sf).to_tabular((blueprint[0], sol.behavioural[1]))
        assert exploitability.exploitability(sf.tree.game, pol) < 1e-9, gadget


def test_bias_multiplies_one_class_by_ten():
    sf = sequence_form.for_game("leduc_poker")
    blueprint = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    strategies, labels = dl.bias_strategies(sf, blueprint, 1)
    assert labels == ["blueprint", "bias fold", "bias check_call", "bias bet_raise"]
    tp = sf.treeplexes[1]
    # An information set with fold, call, raise: uniform 1/3 -> fold 10/12.
    three = int(np.flatnonzero(tp.num_actions == 3)[0])
    start = int(tp.seq_start[three])
    np.testing.assert_allclose(strategies[1][start : start + 3], [10 / 12, 1 / 12, 1 / 12])
    np.testing.assert_allclose(strategies[3][start : start + 3], [1 / 12, 1 / 12, 10 / 12])


# -- Round-end limits (Section 6: "leaf nodes at the end of the first betting round") ---------

SMALL_LEDUC = "limit_leduc_poker(num_ranks=2,max_raises=1)"


def _fixed_below_guarantee(sf, limit, blueprint, player):
    """u_i of the best strategy of `player` that plays `blueprint` at every information set
    at or below the limit: one sequence-form LP with those behavioural probabilities fixed
    (lower bounds on a simplex fix them), independent of the depth-limited game."""
    tp = sf.treeplexes[player]
    nodes, offsets = sf.tree.infoset_nodes
    below = ~limit.expand[nodes[offsets[tp.infoset_ids]]]
    lower = np.zeros(tp.num_sequences)
    for local in np.flatnonzero(below).tolist():
        seqs = slice(int(tp.seq_start[local]), int(tp.seq_start[local] + tp.num_actions[local]))
        lower[seqs] = blueprint[player][seqs]
    solution = lp.solve(
        sf, player=player, constraints=lp.LPConstraints(own=sequence_lower_bounds(tp, lower))
    )
    return solution.value if player == 0 else -solution.value


@pytest.mark.parametrize("limit_spec", ["round_end", "public_chance"])
def test_round_end_full_pure_set_meets_the_fixed_below_bound(limit_spec):
    """Proposition 1 at a round-end limit (2-rank limit Leduc): with every pure continuation
    of the opponent, the LP's depth-limited strategy guarantees what the best strategy that
    keeps a (non-equilibrium) blueprint beyond the limit guarantees (a separate LP); with an
    exact-equilibrium blueprint the spliced profile is an equilibrium (OpenSpiel's
    exploitability)."""
    sf = sequence_form.for_game(SMALL_LEDUC)
    limit = dl.depth_limit(sf.tree, dl.parse_limit(limit_spec))
    subs = dl.start_subgames(sf.tree)
    blueprint = ss.load_blueprint(sf, policies.random_policy(sf.tree.game, 11))
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    for i in (0, 1):
        pure = dl.pure_continuations(sf, limit, blueprint[1 - i], player=1 - i)
        leaves = dl.exact_values(sf, limit, blueprint, player=i, strategies=pure)
        sol = dl.solve_depth_limited(q, subs, leaves, method="lp")
        guaranteed = evaluate.guaranteed_value(sf, sol.behavioural[i], i)
        bound = _fixed_below_guarantee(sf, limit, blueprint, i)
        assert guaranteed == pytest.approx(bound, abs=1e-8), i
    _, profile = _solve_both(SMALL_LEDUC, dl.parse_limit(limit_spec))
    pol = policies.layout(sf).to_tabular(profile)
    assert exploitability.exploitability(sf.tree.game, pol) < 1e-9


def test_round_end_opponent_chooses_before_the_public_card():
    """The same continuation strategies at the two Leduc limits: a round-end leaf's values are
    the chance-weighted means of the values after the public card below it; with one value the
    two depth-limited games have the same value; with several the opponent, choosing once
    before the card instead of once per card, is weaker, so player 0's value at the round end
    is at least the value after the card (here strictly)."""
    sf = sequence_form.for_game("leduc_poker")
    tree = sf.tree
    blueprint = ss.load_blueprint(sf, policies.random_policy(tree.game, 5))
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    subs = dl.start_subgames(tree)
    strategies, _ = dl.bias_strategies(sf, blueprint, 1)
    end = dl.exact_values(
        sf,
        dl.depth_limit(tree, dl.parse_limit("round_end")),
        blueprint,
        player=0,
        strategies=strategies,
    )
    after = dl.exact_values(
        sf,
        dl.depth_limit(tree, ss.Cut.after_public_chance()),
        blueprint,
        player=0,
        strategies=strategies,
    )
    for r, h in enumerate(end.nodes.tolist()):
        children = tree.children(h)
        rows = after.row[children]
        assert np.all(rows >= 0)
        expected = tree.chance_prob[children] @ after.values[rows]
        np.testing.assert_allclose(end.values[r], expected, atol=1e-12)

    def value(leaves, k):
        return (
            dl.solve_depth_limited(q, subs, leaves.select(range(k)), method="lp").solutions[0].value
        )

    assert value(end, 1) == pytest.approx(value(after, 1), abs=1e-9)
    assert value(end, 4) > value(after, 4) + 1e-3
