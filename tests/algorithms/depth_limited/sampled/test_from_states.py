"""Depth-limited solving walked from pyspiel states with rollout values (Brown, Sandholm & Amos
2018, "Depth-Limited Solving for Imperfect-Information Games", Section 4), checked against the
compiled-game path on games small enough to compile."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability

import ospiel_ext.games  # noqa: F401  (registers rps_plus)
from ospiel_ext import lp, policies, sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.sampled import from_states
from ospiel_ext.algorithms.subgames import ggse


def _compiled(game, depth, player):
    sf = sequence_form.for_game(game)
    blueprint = lp.solve(sf).behavioural
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(depth))
    pure = dl.pure_continuations(sf, limit, blueprint[1 - player], player=1 - player)
    leaves = dl.exact_values(sf, limit, blueprint, player=player, strategies=pure)
    return sf, blueprint, leaves


@pytest.mark.parametrize("game, depth, player", [("kuhn_poker", 1, 0), ("kuhn_poker", 2, 1)])
def test_walk_with_exact_values_matches_the_compiled_game(game, depth, player):
    sf, blueprint, leaves = _compiled(game, depth, player)
    table = leaves.table()

    def exact(histories):
        return np.array([table[tuple(h)] for h in histories]), None

    w = from_states.walk(sf.tree.game, player, depth)
    assert sorted(map(tuple, w.histories)) == sorted(table)
    sol = from_states.solve_from_states(w, player, exact, method="lp")
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    compiled = dl.solve_depth_limited(q, dl.start_subgames(sf.tree), leaves, method="lp")
    (gadget_solution,) = compiled.solutions
    assert sol.value == pytest.approx(gadget_solution.value, abs=1e-9)
    # Proposition 1: the walked solution, blueprint elsewhere, is an equilibrium strategy.
    fallback = policies.layout(sf).to_tabular(blueprint)
    pol = from_states.DepthLimitedPolicy.of_solutions(fallback, [sol])
    assert exploitability.exploitability(sf.tree.game, pol) < 1e-9
    state = sf.tree.game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(state.legal_actions()[0])
    assert set(pol.action_probabilities(state)) <= set(state.legal_actions())


def test_rollout_values_solve_rps_plus():
    """RPS+ with the three pure continuations estimated by rollouts: the values are exact
    (no chance below the limit, pure strategies), so the equilibrium is recovered."""
    sf, blueprint, _ = _compiled("rps_plus", 1, 0)
    layout = policies.layout(sf)
    fallback = layout.to_tabular(blueprint)
    pure = [np.array([1.0, *row]) for row in np.eye(3)]
    opponents = [layout.to_tabular((blueprint[0], p)) for p in pure]
    values = from_states.rollout_value_function(
        sf.tree.game, fallback, 0, strategies=opponents, samples=5, seed=0
    )
    sol = from_states.solve_from_states(
        from_states.walk(sf.tree.game, 0, 1), 0, values, method="lp"
    )
    np.testing.assert_allclose(sol.stderr, 0.0)
    (row,) = sol.table().values()
    np.testing.assert_allclose([row[a] for a in sorted(row)], [0.4, 0.4, 0.2], atol=1e-9)


def test_biased_policy_and_checks():
    sf = sequence_form.for_game("kuhn_poker")
    uniform = policies.uniform_policy(sf.tree.game)
    biased = from_states.BiasedPolicy(uniform, 1, ["bet"])
    state = sf.tree.game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    state.apply_action(0)  # player 0 passes; player 1 to act
    np.testing.assert_allclose(
        [biased.action_probabilities(state)[a] for a in (0, 1)], [1 / 11, 10 / 11]
    )
    dice = pyspiel.load_game("liars_dice(numdice=1,dice_sides=4)")
    state = dice.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)  # both dice rolled; player 0 bids
    legal = state.legal_actions()
    ranked = from_states.BiasedPolicy(
        policies.uniform_policy(dice), 0, actions=[legal[2]], ranks=[0, -1]
    )  # the lowest and highest legal bid, and one by id: three actions x10
    probs = ranked.action_probabilities(state)
    weight = {a: 10.0 if a in (legal[0], legal[2], legal[-1]) else 1.0 for a in legal}
    total = sum(weight.values())
    assert probs == pytest.approx({a: w / total for a, w in weight.items()})
    with pytest.raises(ValueError, match="more than 5 nodes"):
        from_states.walk(sf.tree.game, 0, 2, max_nodes=5)
    w = from_states.walk(sf.tree.game, 0, 1)
    with pytest.raises(ValueError, match="leaf values have shape"):
        from_states.solve_from_states(w, 0, lambda h: (np.zeros((1, 1)), None))


def test_depth_limited_policy_overrides_per_player_and_reads_its_tables_live():
    """A row overrides only its player's information set (a key of the other player's table
    is not looked at), and rows added after construction count (the nested bot's use)."""
    game = pyspiel.load_game("kuhn_poker")
    uniform = policies.uniform_policy(game)
    state = game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)  # player 0 to act
    key = state.information_state_string(0)
    own: dict[str, dict[int, float]] = {}
    pol = from_states.DepthLimitedPolicy(uniform, {0: own, 1: {key: {0: 1.0, 1: 0.0}}})
    assert pol.action_probabilities(state) == {0: 0.5, 1: 0.5}
    own[key] = {0: 0.25, 1: 0.75}
    assert pol.action_probabilities(state) == {0: 0.25, 1: 0.75}
    assert pol.action_probabilities(state, 0) == {0: 0.25, 1: 0.75}


@pytest.mark.parametrize("solver", sorted(ggse.SOLVER_METHODS))
def test_every_gadget_solver_name_solves_the_walked_game(solver):
    """The walked game takes the gadget solvers' vocabulary (`ggse.SOLVER_METHODS`, EGT
    included): RPS+ with its three exact pure continuations gives the equilibrium of Section 2
    (0.4, 0.4, 0.2) - exactly by the LP, to 1e-2 by CFR+ and EGT."""
    sf, _, leaves = _compiled("rps_plus", 1, 0)
    table = leaves.table()

    def exact(histories):
        return np.array([table[tuple(h)] for h in histories]), None

    w = from_states.walk(sf.tree.game, 0, 1)
    sol = from_states.solve_from_states(
        w, 0, exact, method=ggse.SOLVER_METHODS[solver], iterations=2000
    )
    (row,) = sol.table().values()
    tolerance = 1e-9 if solver == "lp" else 1e-2
    np.testing.assert_allclose([row[a] for a in sorted(row)], [0.4, 0.4, 0.2], atol=tolerance)
    with pytest.raises(ValueError, match="unknown method 'cfr_plus'; methods: cfr, lp, egt"):
        from_states.solve_from_states(
            from_states.walk(sf.tree.game, 0, 1), 0, exact, method="cfr_plus"
        )
