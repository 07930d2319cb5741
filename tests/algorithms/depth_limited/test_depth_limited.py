"""Depth-limited solving with multi-valued states (Brown, Sandholm & Amos 2018,
"Depth-Limited Solving for Imperfect-Information Games"): RPS+ (Section 2, Figure 1),
Proposition 1 on Kuhn and Leduc with an exact-equilibrium blueprint, leaf values against a
brute-force walk of pyspiel states, rollouts within 4 standard errors, weakening, bias."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability

import ospiel_ext.games  # noqa: F401  (registers rps_plus)
from ospiel_ext import evaluate, lp, policies, sequence_form, tree_values
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.constraints import sequence_lower_bounds
from ospiel_ext.tree_builder import TreeBuilder

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


def _walk_value(state, policy_by_player):
    """Player 0's expected return from `state` by a brute-force walk."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance_node():
        outcomes = state.chance_outcomes()
    else:
        p = state.current_player()
        outcomes = policy_by_player[p].action_probabilities(state, p).items()
    return sum(prob * _walk_value(state.child(a), policy_by_player) for a, prob in outcomes)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_exact_values_against_a_brute_force_walk(game):
    sf = sequence_form.for_game(game)
    layout = policies.layout(sf)
    rng = np.random.default_rng(3)
    blueprint = ss.load_blueprint(sf, policies.random_policy(sf.tree.game, 5))
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(2))
    strategies, _ = dl.bias_strategies(sf, blueprint, 0)
    leaves = dl.exact_values(sf, limit, blueprint, player=1, strategies=strategies)
    for r in rng.choice(len(limit.nodes), size=min(12, len(limit.nodes)), replace=False):
        state = sf.tree.state(int(limit.nodes[r]))
        for n, s in enumerate(strategies):
            pol = layout.to_tabular((s, blueprint[1]))
            expected = _walk_value(state, {0: pol, 1: pol})
            assert leaves.values[r, n] == pytest.approx(expected, abs=1e-12)


def test_rollouts_within_four_standard_errors():
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = lp.solve(sf).behavioural
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    strategies = dl.pure_continuations(sf, limit, blueprint[1], player=1)
    exact = dl.exact_values(sf, limit, blueprint, player=0, strategies=strategies)
    layout = policies.layout(sf)
    pols = [layout.to_tabular((blueprint[0], s)) for s in strategies]
    histories = [sf.tree.history(int(h)) for h in limit.nodes]
    est = dl.rollout_values(
        sf.tree.game, histories, pols[0], player=0, strategies=pols, samples=400, seed=1
    )
    assert est.mean.shape == exact.values.shape
    z = np.abs(est.mean - exact.values) / np.maximum(est.stderr, 1e-12)
    assert np.all(z[est.stderr > 0] < 4)
    deterministic = est.stderr == 0
    np.testing.assert_allclose(est.mean[deterministic], exact.values[deterministic], atol=1e-12)
    again = dl.rollout_values(
        sf.tree.game, histories, pols[0], player=0, strategies=pols, samples=400, seed=1
    )
    np.testing.assert_array_equal(again.mean, est.mean)


def test_playout_draws_follow_the_weights():
    """`rollouts._draw` picks index i for u in [c_(i-1), c_i) / total: on a fine grid of u the
    share of each index is its weight's share, a zero weight is never drawn (not even at u = 0
    or u just below 1), and all-zero weights are refused."""
    from ospiel_ext.algorithms.depth_limited.rollouts import _draw

    weights = (0.0, 0.2, 0.0, 0.5, 0.3, 0.0)
    grid = (np.arange(100_000) + 0.5) / 100_000
    counts = np.bincount([_draw(weights, u) for u in grid], minlength=len(weights))
    np.testing.assert_allclose(counts / len(grid), weights, atol=1e-4)
    assert _draw(weights, 0.0) == 1 and _draw(weights, np.nextafter(1.0, 0.0)) == 4
    assert _draw((3.0,), 0.7) == 0
    with pytest.raises(ValueError, match="sum to 0"):
        _draw((0.0, 0.0), 0.5)


def test_weaken_lowers_only_what_beats_the_blueprint():
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    strategies = dl.pure_continuations(sf, limit, blueprint[1], player=1)
    leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=strategies)
    beliefs = dl.leaf_beliefs(sf, limit, blueprint, 0)
    weak = dl.weaken(leaves, beliefs)
    # Player 1's (the opponent's) value per leaf information set, by hand.
    keys = np.array(leaves.keys)
    for key in set(leaves.keys):
        rows = keys == key
        w = beliefs[rows] / beliefs[rows].sum()
        v1 = -(w @ leaves.values[rows])  # per continuation
        v1_weak = -(w @ weak.values[rows])
        np.testing.assert_allclose(v1_weak, np.minimum(v1, v1[0]), atol=1e-12)
    np.testing.assert_array_equal(weak.values[:, 0], leaves.values[:, 0])


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


def test_leaves_checks():
    sf = sequence_form.for_game("kuhn_poker")
    blueprint = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    with pytest.raises(ValueError, match="leaf values have shape"):
        dl.MultiValuedLeaves(limit=limit, player=0, values=np.zeros((2, 1)))
    with pytest.raises(ValueError, match="at least one continuation"):
        dl.exact_values(sf, limit, blueprint, player=0, strategies=[])
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    leaves = dl.exact_values(sf, limit, blueprint, player=1, strategies=[blueprint[0]])
    (sub,) = ss.subgames(sf.tree, ss.Cut.after_moves(1))[:1]
    with pytest.raises(ValueError, match="strictly below"):
        dl.depth_limited_game(q, sub, leaves, "resolving")
    with pytest.raises(ValueError, match="leaves are player 1's"):
        ss.resolving_gadget(q, sub, 0, leaves)


# -- Round-end limits (Section 6: "leaf nodes at the end of the first betting round") ---------

SMALL_LEDUC = "limit_leduc_poker(num_ranks=2,max_raises=1)"


def test_parse_limit_knows_round_end():
    assert dl.parse_limit("round_end") == ss.Cut.before_public_chance()
    assert dl.parse_limit("public_chance") == ss.Cut.after_public_chance()
    assert dl.parse_limit("after_moves=2") == ss.Cut.after_moves(2)
    with pytest.raises(ValueError, match="round_end"):
        dl.parse_limit("end_of_round")


def test_round_end_leaves_are_the_chance_nodes_with_values_from_a_walk():
    """Leduc: the leaves are the 150 flop chance nodes, each keyed by the opponent's
    information state string there; each value is the expectation over the public card,
    checked against a brute-force walk of pyspiel states."""
    sf = sequence_form.for_game("leduc_poker")
    layout = policies.layout(sf)
    blueprint = ss.load_blueprint(sf, policies.random_policy(sf.tree.game, 7))
    limit = dl.depth_limit(sf.tree, dl.parse_limit("round_end"))
    assert len(limit.nodes) == 150
    strategies, _ = dl.bias_strategies(sf, blueprint, 1)
    leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=strategies)
    rng = np.random.default_rng(0)
    for r in rng.choice(len(limit.nodes), size=12, replace=False):
        state = sf.tree.state(int(limit.nodes[r]))
        assert state.is_chance_node()
        assert leaves.keys[r] == "depth_limit:" + state.information_state_string(1)
        for n, s in enumerate(strategies):
            pol = layout.to_tabular((blueprint[0], s))
            expected = _walk_value(state, {0: pol, 1: pol})
            assert leaves.values[r, n] == pytest.approx(expected, abs=1e-12)


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


def test_multi_valued_leaf_lets_the_opponent_choose():
    # Brown, Sandholm & Amos 2018, Section 4: at the depth limit player 1 picks the value.
    b = TreeBuilder(name="depth-limited")
    first = b.expand_decision(b.add_root(), 0, "root", [0, 1])
    b.set_leaf(first, 1.0, 1.0)
    leaf = leaves_lib.set_multi_valued_leaf(b, first + 1, 1, key="leaf", values=[3.0, -2.0, 0.5])
    tree = b.freeze()
    assert list(tree.lo[leaf : leaf + 3]) == [3.0, -2.0, 0.5]
    profile = np.array([0.25, 0.75, 0.2, 0.5, 0.3])  # root (2 actions), leaf (3 values)
    cfbr = tree_values.counterfactual_best_response_values(tree, profile)
    # Player 1 best-responds with -2 (value 2 for it), reached with player 0's 0.75.
    assert cfbr[1] == pytest.approx(0.75 * 2.0)
    # Player 0 against the mix 0.2 * 3 - 0.5 * 2 + 0.3 * 0.5 = -0.25 prefers the value 1.
    assert cfbr[0] == pytest.approx(1.0)
    assert tree_values.node_values(tree, profile)[0] == pytest.approx(0.25 - 0.75 * 0.25)
