"""Perturbed EGT: DGF conjugate / prox identities, convergence to LP values, EFPE behaviour."""

import itertools

import numpy as np
import pyspiel
import pytest
from helpers import KUHN_VALUE, check_solver, perturbed_lp_value

from ospiel_ext import evaluate, sequence_form
from ospiel_ext.algorithms import dilated_entropy, egt
from ospiel_ext.tree_builder import TreeBuilder


def _random_perturbed_behavioural(tp, xi, rng):
    b = np.ones(tp.num_sequences)
    u = rng.gamma(1.0, size=tp.num_sequences - 1)
    totals = np.add.reduceat(u, tp.seq_start - 1)
    u /= np.repeat(totals, tp.num_actions)
    b[1:] = np.repeat(1 - tp.num_actions * xi, tp.num_actions) * u + xi
    return b


# Leduc's deeper levels have dozens of infosets with two or three actions, so its argmax reads
# segment maxima through `_padded_segments`; Kuhn's levels are too small for that.
@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
@pytest.mark.parametrize("xi", [0.0, 0.1])
def test_argmax_is_the_conjugate_gradient(game, xi):
    tp = sequence_form.for_game(game).treeplexes[0]
    dgf = dilated_entropy.DilatedEntropy(tp, xi)
    rng = np.random.default_rng(0)
    g, mu = rng.normal(size=tp.num_sequences), 0.7
    b, value = dgf.argmax(g, mu)
    x = tp.realization_plan(b)
    assert np.all(b[1:] >= xi - 1e-12)
    # conjugate identity: value = <g, x> - mu d(x) at the maximiser
    assert value == pytest.approx(g @ x - mu * dgf.value(x), abs=1e-10)
    # no feasible point does better
    for _ in range(200):
        other = tp.realization_plan(_random_perturbed_behavioural(tp, xi, rng))
        assert g @ other - mu * dgf.value(other) <= value + 1e-10
    # envelope theorem: d value / d g = x
    h = 1e-6
    for s in range(1, tp.num_sequences):
        e = np.zeros(tp.num_sequences)
        e[s] = h
        slope = (dgf.argmax(g + e, mu)[1] - dgf.argmax(g - e, mu)[1]) / (2 * h)
        assert slope == pytest.approx(x[s], abs=1e-6)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
@pytest.mark.parametrize("xi", [0.0, 0.1])
def test_argmax_with_a_centre_is_the_prox_mapping(game, xi):
    tp = sequence_form.for_game(game).treeplexes[1]
    dgf = dilated_entropy.DilatedEntropy(tp, xi)
    rng = np.random.default_rng(1)
    b_bar = _random_perturbed_behavioural(tp, xi, rng)
    x_bar = tp.realization_plan(b_bar)
    # gradient of d at x_bar by central differences on the realization plan
    grad, h = np.zeros(tp.num_sequences), 1e-7
    for s in range(1, tp.num_sequences):
        e = np.zeros(tp.num_sequences)
        e[s] = h
        grad[s] = (dgf.value(x_bar + e) - dgf.value(x_bar - e)) / (2 * h)
    g = rng.normal(size=tp.num_sequences)
    b, _ = dgf.argmax(g, 1.0, log_center=dgf.log_center(b_bar))
    x = tp.realization_plan(b)

    def objective(z):  # <g, z> - D(z, x_bar), up to a constant
        return g @ z - dgf.value(z) + grad[1:] @ z[1:]

    for _ in range(200):
        other = tp.realization_plan(_random_perturbed_behavioural(tp, xi, rng))
        assert objective(other) <= objective(x) + 1e-6


@pytest.mark.parametrize(
    "game",
    [
        "leduc_poker",
        "turn_based_simultaneous_game(game=goofspiel(num_cards=4,imp_info=True,"
        "points_order=descending))",
    ],
)
def test_padded_segment_maxima_are_the_infosets_maxima(game):
    tp = sequence_form.for_game(game).treeplexes[0]
    rng = np.random.default_rng(2)
    z_all = np.append(rng.normal(size=tp.num_sequences), -np.inf)
    padded = 0
    for lv in tp.levels:
        pad = dilated_entropy._padded_segments(tp, lv)
        if pad is None:
            continue
        padded += 1
        expected = [z_all[lv.seq_lo + a : lv.seq_lo + b].max() for a, b in _segments(lv)]
        np.testing.assert_array_equal(z_all.take(pad).max(0), expected)
    assert padded


def _segments(lv):
    ends = np.append(lv.starts[1:], lv.seq_hi - lv.seq_lo)
    return zip(lv.starts, ends)


def test_weights_follow_theorem_4_on_kuhn():
    # Kuhn, player 0: root infosets (card) with one child infoset after (check, bet): d_j = 1,
    # M_{j,1} = 2, so beta = 2 + 2 (2 - 1) = 4; the leaves have beta = 2.
    tp = sequence_form.for_game("kuhn_poker").treeplexes[0]
    beta = dilated_entropy.dilated_entropy_weights(tp)
    roots = tp.parent_seq == 0
    assert np.all(beta[roots] == 4.0) and np.all(beta[~roots] == 2.0)
    assert dilated_entropy.treeplex_norm(tp) == 6.0  # 3 cards x (root + one follow-up)


def test_solver_api(small_game):
    check_solver(egt.EGTSolver, small_game, iterations=5, dgf_weight=0.01)


def test_converges_to_the_kuhn_value():
    solver = egt.EGTSolver("kuhn_poker", dgf_weight=0.05)
    for _ in range(2000):
        solver.evaluate_and_update_policy()
    assert solver.perturbed_gap() < 5e-4
    x0, x1 = solver.plans()
    assert solver.sequence_form.expected_value(x0, x1) == pytest.approx(KUHN_VALUE, abs=5e-4)


def test_perturbed_egt_respects_bounds_and_reaches_the_perturbed_lp_value():
    xi = 0.05
    solver = egt.EGTSolver("kuhn_poker", xi=xi, dgf_weight=0.05)
    for _ in range(2000):
        solver.evaluate_and_update_policy()
    for b in solver.behavioural():
        assert b.min() >= xi - 1e-12
    sf = solver.sequence_form
    assert sf.expected_value(*solver.plans()) == pytest.approx(perturbed_lp_value(sf, xi), abs=5e-4)
    assert solver.perturbed_gap() < 1e-3


def _figure_1_right():
    """Kroer, Farina & Sandholm, "Smoothing Method for Approximate Extensive-Form Perfect
    Equilibrium", IJCAI 2017, Figure 1 (right): player 0 plays x (1) or y; after y player 1
    plays x (-5) or y (0). Payoffs are player 0's."""
    b = TreeBuilder(name="efpe figure 1 right")
    first = b.expand_decision(b.add_root(), 0, "p0", [0, 1])
    b.set_leaf(first, 1.0, 1.0)
    second = b.expand_decision(first + 1, 1, "p1", [0, 1])
    b.set_leaf(second, -5.0, -5.0)
    b.set_leaf(second + 1, 0.0, 0.0)
    return sequence_form.TreeSequenceForm(b.freeze())


def test_figure_1_perturbed_solution_is_rational_off_path():
    sf = _figure_1_right()
    # A Nash equilibrium that is irrational off the path: player 1 plays x only 20% of the time.
    nash = (np.array([1.0, 1.0, 0.0]), np.array([1.0, 0.2, 0.8]))
    assert evaluate.evaluate_profile(sf, nash).nash_conv == pytest.approx(0.0, abs=1e-12)
    assert evaluate.infoset_regrets(sf, nash, 1).max > 1.0  # ... gives up 4 at its node
    xi = 0.01
    solver = egt.EGTSolver(sf, xi=xi, dgf_weight=0.05)
    for _ in range(3000):
        solver.evaluate_and_update_policy()
    b0, b1 = solver.behavioural()
    assert b1[1] == pytest.approx(1 - xi, abs=2e-3)  # player 1 punishes y
    assert b0[1] == pytest.approx(1 - xi, abs=2e-3)  # player 0 plays x
    # the only regret left is the forced tremble: xi on y, which gives up 5
    assert evaluate.infoset_regrets(sf, (b0, b1), 1).max == pytest.approx(5 * xi, abs=1e-3)


def test_infeasible_xi_is_refused():
    with pytest.raises(ValueError, match="must sum to less than 1"):
        egt.EGTSolver("kuhn_poker", xi=0.5)
    with pytest.raises(ValueError, match="dgf_weight"):
        egt.EGTSolver(pyspiel.load_game("kuhn_poker"), dgf_weight=0.0)


def test_run_stops_at_the_gap():
    solver = egt.EGTSolver("kuhn_poker", dgf_weight=0.05)
    result = solver.run(epsilon=1e-2, max_iterations=5000)
    stats = solver.stats()
    assert (
        stats.perturbed_gap <= 1e-2 < egt.EGTSolver("kuhn_poker", dgf_weight=0.05).perturbed_gap()
    )
    assert stats.iteration < 5000 and stats.traversals >= 3 * stats.iteration
    assert result.stop_reason == "target" and result.iterations == stats.iteration
    assert result.iterations % 10 == 0  # checked every 10 steps
    # one check earlier the gap was still above epsilon
    again = egt.EGTSolver("kuhn_poker", dgf_weight=0.05)
    for _ in range(result.iterations - 10):
        again.evaluate_and_update_policy()
    assert again.perturbed_gap() > 1e-2


def test_run_without_an_iteration_budget_stops_at_the_gap():
    solver = egt.EGTSolver("kuhn_poker", dgf_weight=0.05)
    result = solver.run(epsilon=1e-2, check_every=5)
    assert result.stop_reason == "target" and solver.perturbed_gap() <= 1e-2
    assert result.curve.iterations == tuple(range(0, result.iterations + 1, 5))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"dgf_weight": 1.0},  # Algorithm 1 at the theory scale: Nesterov's steps keep the EGC
        {"stepping": "aggressive"},
        {"stepping": "aggressive", "xi": 0.05},
    ],
)
def test_the_excessive_gap_condition_bounds_the_gap(kwargs):
    """While the EGC holds, max_x u(x, y) + max_y -u(x, y) <= mu_0 D_0 + mu_1 D_1 (Nesterov
    2005, Lemma 2.1 in our form): the bound certifies each iterate, so it must hold at every
    step, and it must fall."""
    solver = egt.EGTSolver("kuhn_poker", **kwargs)
    bounds = []
    for _ in range(300):
        assert solver.perturbed_gap() <= solver.gap_bound() + 1e-12
        bounds.append(solver.gap_bound())
        solver.evaluate_and_update_policy()
    assert bounds[-1] < bounds[0] / 10


def test_aggressive_stepping_reaches_the_lp_values():
    solver = egt.EGTSolver("kuhn_poker", stepping="aggressive")
    for _ in range(1500):
        solver.evaluate_and_update_policy()
    assert solver.exploitability() < 1e-3
    assert solver.sequence_form.expected_value(*solver.plans()) == pytest.approx(
        KUHN_VALUE, abs=1e-3
    )
    xi = 0.05
    perturbed = egt.EGTSolver("kuhn_poker", xi=xi, stepping="aggressive")
    for _ in range(1500):
        perturbed.evaluate_and_update_policy()
    for b in perturbed.behavioural():
        assert b.min() >= xi - 1e-12
    sf = perturbed.sequence_form
    assert sf.expected_value(*perturbed.plans()) == pytest.approx(
        perturbed_lp_value(sf, xi), abs=1e-3
    )


def test_aggressive_steps_balance_the_smoothing_and_shrink_tau_only_on_failure():
    solver = egt.EGTSolver("leduc_poker", stepping="aggressive", tau=0.5)
    taus = []
    for _ in range(200):
        solver.evaluate_and_update_policy()
        taus.append(solver.stats().tau)
        mu0, mu1 = solver.stats().mu
        # a step shrinks the larger mu by (1 - tau): the two stay within a factor 1 / (1 - tau)
        assert max(mu0, mu1) <= min(mu0, mu1) / (1 - 0.5) + 1e-15
    assert all(b <= a for a, b in itertools.pairwise(taus))  # halved, never raised
    assert all(float(np.log2(0.5 / t)).is_integer() for t in taus)  # halvings of 0.5 only
    # each step made 4 traversals (two inside the step, two for the EGC check) per attempt
    assert solver.traversals >= 4 * solver.iteration


def _centred_divergence(dgf, b, log_center):
    """sum_j beta_j q_pj KL(u_j || u_bar_j), straight from the definition (per infoset)."""
    tp = dgf.tp
    u = (b - dgf.xi_seq) / dgf.room_seq
    terms = np.where(u > 0, u * (np.log(np.maximum(u, 1e-300)) - log_center), 0.0)
    kl = np.add.reduceat(terms[1:], tp.seq_start - 1)
    return float(np.sum(dgf.beta * tp.realization_plan(b)[tp.parent_seq] * kl))


def _vertex(tp, choice, xi):
    """The behavioural strategy whose u is pure at every infoset: action choice[j] at j."""
    b = np.full(tp.num_sequences, xi)
    b[0] = 1.0
    b[tp.seq_start + np.asarray(choice)] += 1 - tp.num_actions * xi
    return b


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
@pytest.mark.parametrize("xi", [0.0, 0.1])
def test_max_divergence_is_the_largest_divergence_from_the_centre(game, xi):
    """D of a DGF centred at q_bar: every point's divergence is at most D, and (Kuhn, all
    2^6 vertices enumerated) some vertex attains it."""
    tp = sequence_form.for_game(game).treeplexes[0]
    dgf = dilated_entropy.DilatedEntropy(tp, xi)
    rng = np.random.default_rng(2)
    log_center = dgf.log_center(_random_perturbed_behavioural(tp, xi, rng))
    top = dgf.max_divergence(log_center)
    for _ in range(200):
        b = _random_perturbed_behavioural(tp, xi, rng)
        assert 0 <= _centred_divergence(dgf, b, log_center) <= top + 1e-9
        choice = rng.integers(0, tp.num_actions)
        assert _centred_divergence(dgf, _vertex(tp, choice, xi), log_center) <= top + 1e-9
    if game == "kuhn_poker":
        vertices = np.stack(np.meshgrid(*(range(n) for n in tp.num_actions))).reshape(
            tp.num_infosets, -1
        )
        best = max(_centred_divergence(dgf, _vertex(tp, c, xi), log_center) for c in vertices.T)
        assert best == pytest.approx(top, rel=1e-12)


@pytest.mark.parametrize("xi", [0.0, 0.05])
def test_restarted_stepping_keeps_the_gap_bound_and_converges_linearly(xi):
    """Gilpin, Pena & Sandholm (2012): restarted smoothing converges at a linear rate, so
    Kuhn's LP values (Kuhn's -1/18; the perturbed LP) are reached to near machine precision,
    and after each restart the EGC still certifies the (loose) bound mu_0 D_0 + mu_1 D_1."""
    solver = egt.EGTSolver("kuhn_poker", xi=xi, stepping="restarted")
    for _ in range(2000):
        assert solver.perturbed_gap() <= solver.gap_bound() + 1e-12
        solver.evaluate_and_update_policy()
    assert solver.restarts >= 5
    assert solver.perturbed_gap() < 1e-8
    sf = solver.sequence_form
    value = KUHN_VALUE if xi == 0 else perturbed_lp_value(sf, xi)
    assert sf.expected_value(*solver.plans()) == pytest.approx(value, abs=1e-8)
    for b in solver.behavioural():
        assert b.min() >= xi - 1e-12
    # every restart check measured the gap: two traversals per RESTART_CHECK steps
    assert solver.traversals >= 4 * solver.iteration + 2 * (solver.iteration // 10)


def test_bad_stepping_is_refused():
    with pytest.raises(ValueError, match="stepping"):
        egt.EGTSolver("kuhn_poker", stepping="fast")
    with pytest.raises(ValueError, match="tau"):
        egt.EGTSolver("kuhn_poker", stepping="aggressive", tau=1.0)
