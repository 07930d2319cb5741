"""The examples of Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame
Solving in Imperfect-Information Games": Figure 1 (Section 3) and Observations 1-3 (App. A),
with the numbers derived by hand from the paper's games (each is restated next to its check).
Player 0 is the paper's maximising "Player 1"; it resolves in every example."""

import numpy as np
import pytest
import scipy.sparse as sp

from ospiel_ext import evaluate, lp, sequence_form
from ospiel_ext.algorithms.subgames import blueprints, combine, gadgets, ggse, priors
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames
from ospiel_ext.constraints import LinearConstraints, sequence_lower_bounds

S1, S2 = "p0 cell:0 own:", "p0 cell:1 own:"  # player 0's information sets {1} and {2, 3}


def _setup(game, cut, strategy0):
    """The compiled game, the blueprint (player 0's given, player 1 uniform), its quantities
    and the one subgame of the cut."""
    sf = sequence_form.for_game(game)
    b = [tp.uniform.copy() for tp in sf.treeplexes]
    tp = sf.treeplexes[0]
    for j, key in enumerate(sf.infoset_keys(0)):
        s = tp.seq_start[j]
        b[0][s : s + tp.num_actions[j]] = strategy0[key]
    q = blueprints.BlueprintQuantities.compute(sf, (b[0], b[1]))
    (sub,) = subgames(sf.tree, cut)
    return sf, q, sub


def _strategy(sf, b, player, key):
    j = sf.infoset_keys(player).index(key)
    s = sf.treeplexes[player].seq_start[j]
    return b[player][s : s + sf.treeplexes[player].num_actions[j]]


def _profile(sf, q, strategy0):
    """The blueprint with player 0's strategy replaced (keys -> distributions)."""
    b0 = q.blueprint[0].copy()
    tp = sf.treeplexes[0]
    for key, dist in strategy0.items():
        j = sf.infoset_keys(0).index(key)
        b0[tp.seq_start[j] : tp.seq_start[j] + len(dist)] = dist
    return b0, q.blueprint[1]


def _exploitability(sf, b):
    return evaluate.player_exploitability(sf, b[0], 0, lp.game_value(sf))


def _bounded_value(gadget, key, action, lower=None, upper=None):
    """Player 0's LP value in the gadget with its probability of `action` at `key` bounded
    (an own constraint on the realization plan; the information set is at the gadget's top
    level for player 0, so x equals the behavioural probability)."""
    tp = gadget.sf.treeplexes[0]
    seq = tp.seq_start[gadget.sf.infoset_keys(0).index(key)] + action
    n = tp.num_sequences
    if lower is not None:
        row, rhs = sp.csr_matrix(([1.0], ([0], [seq])), shape=(1, n)), [lower]
    else:
        row, rhs = sp.csr_matrix(([-1.0], ([0], [seq])), shape=(1, n)), [-upper]
    cons = LinearConstraints(row, np.array(rhs))
    return lp.solve(gadget.sf, player=0, constraints=lp.LPConstraints(own=cons)).value


# ---- Figure 1 (Section 3): forfeit matching pennies, blueprint (F, H, T) = (0.5, 0.5, 0) ----


@pytest.fixture(scope="module")
def figure1():
    return _setup("forfeit_matching_pennies", Cut.after_moves(1), {S1: [0.5, 0.5, 0.0]})


def test_figure1_blueprint_values(figure1):
    _, q, sub = figure1
    rv = q.root_values(sub, 0)
    # v(H) = 0.5 (-1) + 0.5 (1) = 0, v(T) = 0.5 (-1) + 0.5 (0) = -0.5
    assert rv.keys == ("p1 cell:0 own:H", "p1 cell:0 own:T")
    np.testing.assert_allclose(rv.cfbr, [0.0, -0.5], atol=1e-12)


def test_figure1_resolving_gadget(figure1):
    sf, q, sub = figure1
    g = gadgets.resolving_gadget(q, sub, 0)
    solution = ggse.solve_lp(g, None)
    # chance weights P_1 P_c = (1, 1): Z = 2; the opponent terminates at both roots:
    # (0 + -0.5) / 2 = -0.25, unnormalised -0.5 (Figure 1b)
    assert g.scale == 2.0
    assert solution.value == pytest.approx(-0.25, abs=1e-12)
    assert solution.unnormalised_value == pytest.approx(-0.5, abs=1e-12)
    # the blueprint, which forfeits half the time, is an equilibrium of the gadget
    bar = combine.restrict(sf, q.blueprint, g)
    assert evaluate.guaranteed_value(g.sf, bar[0], 0) == pytest.approx(-0.25, abs=1e-12)
    # GGSE never forfeits (F is strictly dominated once the opponent trembles into C)
    for prior_kind in ("uniform", "blueprint"):
        prior = priors.gadget_prior(g, prior_kind)
        for sol in (ggse.solve_lp(g, prior), ggse.solve_cfr(g, prior, iterations=2000)):
            assert sol.value == pytest.approx(-0.25, abs=1e-6)
            assert _strategy(g.sf, sol.behavioural, 0, S1)[0] <= 1e-6


def test_figure1_resolving_gadget_has_many_optimal_vertices(figure1):
    # Without a prior every strategy with guaranteed value -0.25 solves the gadget; forfeiting
    # with any probability that keeps the opponent terminating is among them (the blueprint
    # forfeits half the time). Random vertices of the optimal face are optimal and differ.
    _, _, sub = figure1
    g = gadgets.resolving_gadget(figure1[1], sub, 0)
    forfeits = set()
    for k in range(8):
        sol = ggse.solve_lp(g, None, vertex=f"random:{k}")
        # optimal up to the face's tolerance and HiGHS's primal feasibility tolerance (1e-7)
        assert sol.value == pytest.approx(-0.25, abs=1e-6)
        own = _strategy(g.sf, sol.behavioural, 0, S1)
        assert evaluate.guaranteed_value(g.sf, sol.behavioural[0], 0) == pytest.approx(
            -0.25, abs=1e-6
        )
        forfeits.add(round(float(own[0]), 6))
    assert len(forfeits) >= 2
    assert ggse.solve_lp(g, None, vertex="ipm").value == pytest.approx(-0.25, abs=1e-9)
    for bad, message in (("random:x", "unknown LP vertex"), ("dual", "unknown LP vertex")):
        with pytest.raises(ValueError, match=message):
            ggse.solve_lp(g, None, vertex=bad)
    unsafe = gadgets.gadget_game("unsafe", figure1[1], sub, player=None)
    with pytest.raises(ValueError, match="applies to resolving and max-margin"):
        ggse.solve_lp(unsafe, None, vertex="random:0")


def test_figure1_max_margin_gadget(figure1):
    sf, q, sub = figure1
    g = gadgets.max_margin_gadget(q, sub, 0)
    solution = ggse.solve_lp(g, None)
    # max over (F, H, T) of min(H - F - 0, T - F + 0.5): F = 0, H = T + 0.5 -> (0, 0.75, 0.25)
    assert solution.value == pytest.approx(0.75, abs=1e-12)
    np.testing.assert_allclose(_strategy(g.sf, solution.behavioural, 0, S1), [0, 0.75, 0.25])
    # unique: moving H either way by 1e-4 costs margin
    assert _bounded_value(g, S1, 1, upper=0.75 - 1e-4) < 0.75 - 1e-5
    assert _bounded_value(g, S1, 1, lower=0.75 + 1e-4) < 0.75 - 1e-5
    # the blueprint's margin is 0, so it is no max-margin equilibrium
    bar = combine.restrict(sf, q.blueprint, g)
    assert evaluate.guaranteed_value(g.sf, bar[0], 0) == pytest.approx(0.0, abs=1e-12)
    spliced = combine.splice(sf, q.blueprint, [solution])
    delta = combine.root_improvements(
        q, blueprints.BlueprintQuantities.compute(sf, spliced), sub, 0
    )
    np.testing.assert_allclose(delta.delta, [0.75, 0.75], atol=1e-12)


# ---- Observation 1 (App. A, Figure 5) ----

PI_STAR_1 = {S1: [2 / 3, 1 / 3], S2: [0.5, 0.5]}  # the game's unique equilibrium, value 7/9


@pytest.fixture(scope="module")
def observation1():
    # blueprint: T in {1}, uniform in {2, 3}; player 1 uniform
    return _setup(
        "bonus_three_state_matching_pennies", Cut.after_moves(0), {S1: [0, 1], S2: [0.5, 0.5]}
    )


def test_observation1_blueprint(observation1):
    sf, q, sub = observation1
    assert sub.num_roots == 3  # the three states after the initial chance node
    assert lp.game_value(sf) == pytest.approx(7 / 9, abs=1e-12)
    # against a best response u = 1/3, so E = 7/9 - 1/3 = 4/9
    assert _exploitability(sf, q.blueprint) == pytest.approx(4 / 9, abs=1e-12)
    # v({1, 2}) = (0 [state 1: T vs H] + 0.5 [state 2]) / 2 = 0.25, v({3}) = 0.5 (eqs 24, 25)
    np.testing.assert_allclose(q.root_values(sub, 0).cfbr, [0.25, 0.5], atol=1e-12)


@pytest.mark.parametrize("kind, value", [("resolving", 1 / 3), ("max_margin", 0.0)])
def test_observation1_gadgets_have_equilibria_of_different_exploitability(
    observation1, kind, value
):
    sf, q, sub = observation1
    g = gadgets.gadget_game(kind, q, sub, player=0)
    assert ggse.solve_lp(g, None).value == pytest.approx(value, abs=1e-12)
    # both the blueprint and the game's equilibrium guarantee the gadget's value ...
    star = _profile(sf, q, PI_STAR_1)
    for b in (q.blueprint, star):
        assert evaluate.guaranteed_value(g.sf, combine.restrict(sf, b, g)[0], 0) == pytest.approx(
            value, abs=1e-12
        )
    # ... but E = 4/9 versus 0 in the full game
    assert _exploitability(sf, star) == pytest.approx(0.0, abs=1e-12)
    # GGSE (any prior) finds the equilibrium: H with 2/3 in {1}, 1/2 in {2, 3}
    for prior_kind in ("uniform", "blueprint"):
        sol = ggse.solve_lp(g, priors.gadget_prior(g, prior_kind))
        assert sol.optimal_at_zero and sol.value == pytest.approx(value, abs=1e-9)
        np.testing.assert_allclose(_strategy(g.sf, sol.behavioural, 0, S1), [2 / 3, 1 / 3])
        np.testing.assert_allclose(_strategy(g.sf, sol.behavioural, 0, S2), [0.5, 0.5])
        spliced = combine.splice(sf, q.blueprint, [sol])
        assert _exploitability(sf, spliced) == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("kind", ["resolving", "max_margin"])
def test_observation1_cfr_plus_ggse_converges_to_the_refined_equilibrium(observation1, kind):
    sf, q, sub = observation1
    g = gadgets.gadget_game(kind, q, sub, player=0)
    sol = ggse.solve_cfr(g, priors.gadget_prior(g, "uniform"), eps=1e-3, iterations=5000)
    assert _exploitability(sf, combine.splice(sf, q.blueprint, [sol])) <= 1e-3


# ---- Observation 2 (App. A, Figure 8): sequential rock-paper-scissors, blueprint R ----


def test_observation2_no_gadget_equilibrium_is_an_optimal_continuation():
    sf, q, sub = _setup("sequential_rps", Cut.after_moves(1), {S1: [1, 0, 0]})
    np.testing.assert_allclose(q.root_values(sub, 0).cfbr, [0, -1, 1], atol=1e-12)  # R, P, S
    for kind in ("resolving", "max_margin"):
        g = gadgets.gadget_game(kind, q, sub, player=0)
        sol = ggse.solve_lp(g, None)
        assert sol.value == pytest.approx(0.0, abs=1e-12)
        np.testing.assert_allclose(_strategy(g.sf, sol.behavioural, 0, S1), [1, 0, 0])
        # unique: playing R with probability at most 1 - 1e-3 loses value
        assert _bounded_value(g, S1, 0, upper=1 - 1e-3) < -1e-5
        assert _exploitability(sf, combine.splice(sf, q.blueprint, [sol])) == pytest.approx(1.0)
    continuation = combine.optimal_continuation(q, 0, [sub])
    np.testing.assert_allclose(_strategy(sf, continuation.behavioural, 0, S1), [1 / 3] * 3)
    assert continuation.exploitability == pytest.approx(0.0, abs=1e-12)
    assert _exploitability(sf, continuation.behavioural) == pytest.approx(0.0, abs=1e-12)


# ---- Observation 3 (App. A, Figure 11) ----


@pytest.fixture(scope="module")
def observation3():
    return _setup(
        "three_state_matching_pennies", Cut.after_moves(0), {S1: [0, 1], S2: [0.25, 0.75]}
    )


def test_observation3_blueprint(observation3):
    sf, q, sub = observation3
    assert lp.game_value(sf) == pytest.approx(5 / 6, abs=1e-12)
    # the best response plays H: v({1, 2}) = (0 [state 1: T vs H] + 1/4 [state 2: H vs H])
    # / 2 = 1/8 and v({3}) = 1/4 (matching pennies against (1/4, 3/4)), as the paper states
    np.testing.assert_allclose(q.root_values(sub, 0).cfbr, [1 / 8, 1 / 4], atol=1e-12)
    assert _exploitability(sf, q.blueprint) == pytest.approx(2 / 3, abs=1e-12)


def test_observation3_resolving_keeps_the_equilibrium(observation3):
    sf, q, sub = observation3
    g = gadgets.resolving_gadget(q, sub, 0)
    assert ggse.solve_lp(g, None).value == pytest.approx(1 / 6, abs=1e-12)
    star = _profile(sf, q, {S1: [1, 0], S2: [0.25, 0.75]})  # the game's equilibrium
    assert _exploitability(sf, star) == pytest.approx(0.0, abs=1e-12)
    assert evaluate.guaranteed_value(g.sf, combine.restrict(sf, star, g)[0], 0) == pytest.approx(
        1 / 6
    )
    for prior_kind in ("uniform", "blueprint"):
        sol = ggse.solve_lp(g, priors.gadget_prior(g, prior_kind))
        assert sol.optimal_at_zero
        spliced = combine.splice(sf, q.blueprint, [sol])
        assert _exploitability(sf, spliced) == pytest.approx(0.0, abs=1e-9)


def test_observation3_max_margin_loses_it(observation3):
    sf, q, sub = observation3
    g = gadgets.max_margin_gadget(q, sub, 0)
    assert ggse.solve_lp(g, None).value == pytest.approx(0.25, abs=1e-12)
    # every max-margin equilibrium plays 1/2 in {2, 3}
    assert _bounded_value(g, S2, 0, upper=0.5 - 1e-3) < 0.25 - 1e-6
    assert _bounded_value(g, S2, 0, lower=0.5 + 1e-3) < 0.25 - 1e-6
    # and with {2, 3} fixed to (1/2, 1/2) the best full-game strategy has E = 1/18
    tp = sf.treeplexes[0]
    s = tp.seq_start[sf.infoset_keys(0).index(S2)]
    lower = np.zeros(tp.num_sequences)
    lower[s : s + 2] = 0.5
    best = lp.solve(
        sf, player=0, constraints=lp.LPConstraints(own=sequence_lower_bounds(tp, lower))
    ).value
    assert 5 / 6 - best == pytest.approx(1 / 18, abs=1e-12)
    for prior_kind in ("uniform", "blueprint"):
        sol = ggse.solve_lp(g, priors.gadget_prior(g, prior_kind))
        spliced = combine.splice(sf, q.blueprint, [sol])
        assert _exploitability(sf, spliced) == pytest.approx(1 / 18, abs=1e-9)
