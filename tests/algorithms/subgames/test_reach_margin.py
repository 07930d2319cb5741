"""Reach max-margin (Brown & Sandholm 2017, "Safe and Nested Subgame Solving for
Imperfect-Information Games", Section 5; our construction, see `reach_margin`): the gifts
against a walk of pyspiel states, and safety over Dirichlet blueprints."""

import numpy as np
import pytest

from ospiel_ext import lp, policies, sequence_form
from ospiel_ext.algorithms.subgames import blueprints, combine, gadgets, ggse, priors, reach_margin
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames

LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"


def test_kuhn_gifts_match_a_walk_of_pyspiel_states():
    # After player 0 checks, player 1 (holding X) may check (showdown: no root below) or bet
    # (the root "Xpb" where player 0 answers). Gift = max(0, v(check) - v(bet)) with
    # v(a) = sum_h P_0(h) P_c(h) u_1(h a), shared over W("Xpb") = sum_h P_0(h) P_c(h).
    sf = sequence_form.for_game("kuhn_poker")
    game = sf.tree.game
    pol = policies.random_policy(game, 3)
    q = blueprints.BlueprintQuantities.compute(sf, pol)
    (sub,) = subgames(sf.tree, Cut.after_moves(2))
    relax = reach_margin.reach_gifts(q, sub.root_set, 0)
    assert set(relax) == {"0pb", "1pb", "2pb"}
    for x in range(3):
        v_check = v_bet = weight = 0.0
        for c0 in range(3):
            if c0 == x:
                continue
            state = game.new_initial_state()
            state.apply_action(c0)
            state.apply_action(x)
            p = (1 / 6) * pol.action_probabilities(state)[0]  # deal, then player 0 checks
            state.apply_action(0)
            weight += p
            v_check -= p * state.child(0).returns()[0]
            bet = state.child(1)
            answer = pol.action_probabilities(bet)
            v_bet -= p * sum(answer[a] * bet.child(a).returns()[0] for a in (0, 1))
        assert relax[f"{x}pb"] == pytest.approx(max(0.0, v_check - v_bet) / weight, abs=1e-12)
    assert max(relax.values()) > 0  # the test blueprint does give gifts


@pytest.mark.parametrize(
    "game, cut, seed",
    [pytest.param("kuhn_poker", Cut.after_moves(2), s, id=f"kuhn-{s}") for s in (0, 1, 2)]
    + [pytest.param(LIARS_DICE, Cut.after_moves(2), 0, id="liars-dice-0")]
    + [
        pytest.param(
            LIARS_DICE, Cut.after_moves(2), s, id=f"liars-dice-{s}", marks=pytest.mark.slow
        )
        for s in (1, 2)
    ],
)
def test_reach_max_margin_is_safe(game, cut, seed):
    sf = sequence_form.for_game(game)
    subs = subgames(sf.tree, cut)
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, seed))
    value0 = lp.game_value(sf)
    for prior in ("none", "uniform"):
        res = combine.resolve(q, subs, "reach_max_margin", prior=prior, method="lp")
        after = blueprints.BlueprintQuantities.compute(sf, res.behavioural)
        for i in (0, 1):
            report = combine.safety_report(q, after, subs, player=i, value0=value0)
            assert report.safe and report.theorem1_holds
        for sol in res.solutions:
            g = sol.gadget
            relax = reach_margin.reach_gifts(q, g.subgame.root_set, g.player)
            imp = combine.root_improvements(q, after, g.subgame, g.player)
            slack = np.array([relax[k] for k in imp.keys])
            # Delta(s_o) + relax(s_o) >= the gadget value >= 0
            assert np.all(imp.delta[imp.weight > 0] + slack[imp.weight > 0] >= sol.value - 1e-9)
            plain = ggse.solve_lp(gadgets.max_margin_gadget(q, g.subgame, g.player), None)
            assert sol.value >= plain.value - 1e-9


def test_relax_values_are_checked():
    sf = sequence_form.for_game("kuhn_poker")
    q = blueprints.BlueprintQuantities.compute(sf, policies.uniform_policy("kuhn_poker"))
    (sub,) = subgames(sf.tree, Cut.after_moves(2))
    with pytest.raises(ValueError, match="relax needs a value >= 0"):
        gadgets.max_margin_gadget(q, sub, 0, relax={"0pb": -1.0, "1pb": 0.0, "2pb": 0.0})
    g = gadgets.gadget_game("reach_max_margin", q, sub, player=0)
    assert g.kind == "reach_max_margin" and g.aux_keys == (gadgets.MAX_MARGIN_KEY,)
    assert priors.gadget_prior(g, "uniform") is not None
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        reach_margin.reach_gifts(q, sub.root_set, 3)
