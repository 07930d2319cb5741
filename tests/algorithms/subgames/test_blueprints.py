"""Blueprint quantities against a brute-force walk of pyspiel states and OpenSpiel's own best
response (Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 2 and Theorem 1: counterfactual best-response values of
the opponent's root information sets)."""

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import best_response, exploitability

from ospiel_ext import policies, policy_files, sequence_form
from ospiel_ext.algorithms.subgames import blueprints
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames


def _walk_reaches(game, pol, histories):
    """{history: (P_0, P_1, P_c)} by a recursive walk of pyspiel states."""
    out = {}

    def visit(state, reach):
        key = tuple(state.history())
        if key in histories:
            out[key] = reach
            return
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, p in state.chance_outcomes():
                visit(state.child(a), (reach[0], reach[1], reach[2] * p))
            return
        player = state.current_player()
        for a, p in pol.action_probabilities(state).items():
            new = list(reach)
            new[player] *= p
            visit(state.child(a), tuple(new))

    visit(game.new_initial_state(), (1.0, 1.0, 1.0))
    return out


@pytest.mark.parametrize("cut", [Cut.after_moves(1), Cut.after_moves(2)])
@pytest.mark.parametrize("player", [0, 1])
def test_counterfactual_best_response_values_match_openspiel(cut, player):
    game = pyspiel.load_game("kuhn_poker")
    sf = sequence_form.for_game(game)
    pol = policies.random_policy(game, seed=5)
    q = blueprints.BlueprintQuantities.compute(sf, pol)
    br = best_response.BestResponsePolicy(game, 1 - player, pol)
    for sub in subgames(sf.tree, cut):
        rv = q.root_values(sub, player)
        histories = {tuple(sf.tree.state(int(r)).history()): int(r) for r in sub.roots}
        walked = _walk_reaches(game, pol, set(histories))
        weight, value, reach = {}, {}, {}
        for h, node in histories.items():
            state = sf.tree.state(node)
            key = state.information_state_string(1 - player)
            p = walked[h]
            w = p[player] * p[2]
            u0 = -br.value(state) if player == 0 else br.value(state)  # zero-sum
            weight[key] = weight.get(key, 0.0) + w
            value[key] = value.get(key, 0.0) + w * u0
            reach[key] = p[1 - player]
            np.testing.assert_allclose(rv.reach[:, list(sub.roots).index(node)], p, atol=1e-12)
        assert set(rv.keys) == set(weight)
        for k, key in enumerate(rv.keys):
            assert rv.weight[k] == pytest.approx(weight[key], abs=1e-12)
            assert rv.cfbr[k] == pytest.approx(value[key] / weight[key], abs=1e-12)
            assert rv.opp_reach[k] == pytest.approx(reach[key], abs=1e-12)


def test_blueprints_load_from_policies_files_and_checkpoints(tmp_path):
    game = pyspiel.load_game("kuhn_poker")
    sf = sequence_form.for_game(game)
    pol = blueprints.dirichlet_blueprints(game, [3])[0]
    path = tmp_path / "blueprint.json"
    policy_files.save_policy(pol, path, game)
    from_file = blueprints.load_blueprint(sf, str(path))
    direct = blueprints.load_blueprint(sf, pol)
    for a, b in zip(from_file, direct):
        np.testing.assert_allclose(a, b, atol=1e-12)
    checkpoints = blueprints.cfr_checkpoints(game, [1, 10, 100])
    expl = [exploitability.exploitability(game, p) for p in checkpoints]
    assert expl[0] > expl[1] > expl[2]


def test_blueprint_inputs_are_checked():
    sf = sequence_form.for_game("kuhn_poker")
    leduc_policy = policies.uniform_policy("leduc_poker")
    with pytest.raises(ValueError, match="not a policy of game kuhn_poker"):
        blueprints.load_blueprint(sf, leduc_policy)
    with pytest.raises(ValueError, match=r"kuhn_poker.*shape"):
        blueprints.load_blueprint(sf, (sf.treeplexes[0].uniform[1:], sf.treeplexes[1].uniform))
    bad = sf.treeplexes[0].uniform.copy()
    bad[1] = 0.9
    with pytest.raises(
        ValueError,
        match=r"kuhn_poker\(\): player 0's strategy at .* not a probability distribution",
    ):
        blueprints.load_blueprint(sf, (bad, sf.treeplexes[1].uniform))
    with pytest.raises(ValueError, match="strictly"):
        blueprints.cfr_checkpoints("kuhn_poker", [10, 5])
    with pytest.raises(ValueError, match="3 players"):
        blueprints.full_game("kuhn_poker(players=3)")
    q = blueprints.BlueprintQuantities.compute(sf, policies.uniform_policy("kuhn_poker"))
    other = sequence_form.for_game("leduc_poker")
    with pytest.raises(ValueError, match="another compiled tree"):
        q.root_values(subgames(other.tree, Cut.after_public_chance())[0], 0)


def test_blueprint_specs(tmp_path):
    """'cfr:N', 'dirichlet:SEED' and a policy file name a blueprint; CFR's average policy
    after one iteration is its first current policy, the uniform one."""
    game = "kuhn_poker"
    layout = policies.layout_for_game(game)
    uniform = layout.behavioural(policies.uniform_policy(game))
    label, b = blueprints.blueprint_from_spec(game, "cfr:1")
    assert label == "cfr:1"
    for p in (0, 1):
        np.testing.assert_array_equal(b[p], uniform[p])
    pol = policies.random_policy(game, seed=7)
    path = tmp_path / "bp.json"
    policy_files.save_policy(pol, path, game)
    label, b = blueprints.blueprint_from_spec(game, str(path))
    assert label == str(path) and blueprints.blueprint_file(str(path)) == str(path)
    for got, want in zip(b, layout.from_tabular(pol)):
        np.testing.assert_allclose(got, want, atol=1e-15)
    label, b = blueprints.blueprint_from_spec(layout.sf, "dirichlet:7")
    assert label == "dirichlet:7" and blueprints.blueprint_file(label) is None
    for got, want in zip(b, layout.from_tabular(pol)):  # the same Dirichlet draw
        np.testing.assert_array_equal(got, want)
    labels = [lbl for lbl, _ in blueprints.make_blueprints(game, [1, 3], [0])]
    assert labels == ["cfr:1", "cfr:3", "dirichlet:0"]
    for bad in ("cfr:0", "cfr:x", "dirichlet:"):
        with pytest.raises(ValueError, match="expected cfr:N"):
            blueprints.blueprint_from_spec(game, bad)


def test_mccfr_blueprint_is_a_policy_that_learns_and_plays_uniformly_where_unvisited():
    """The blueprint of a game too large to compile: OpenSpiel's external-sampling MCCFR as an
    OpenSpiel policy. Kuhn poker: the uniform profile's NashConv is 11/12 (OpenSpiel's
    exploitability computes both); MCCFR's average after 2,000 iterations is far below it."""
    game = pyspiel.load_game("kuhn_poker")
    uniform = exploitability.nash_conv(game, policy_lib.UniformRandomPolicy(game))
    assert uniform == pytest.approx(11 / 12)
    trained = blueprints.mccfr_blueprint(game, 2000, seed=0)
    assert exploitability.nash_conv(game, trained) < 0.1 * uniform
    state = game.new_initial_state()
    for a in (0, 1):  # a deal, then a decision the untrained policy never visited
        state.apply_action(a)
    untrained = blueprints.MCCFRPolicy(game, None)  # every query fails: uniform
    assert untrained.action_probabilities(state) == {0: 0.5, 1: 0.5}
    with pytest.raises(ValueError, match="at least one iteration"):
        blueprints.mccfr_blueprint(game, 0)
