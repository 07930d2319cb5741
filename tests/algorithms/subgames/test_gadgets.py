"""Gadget games and priors (Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve
Subgame Solving in Imperfect-Information Games", Sections 2.1, 3 and 5): structure, keys, and
identities that hold for every blueprint - the blueprint is exactly as good as itself in its
gadgets (resolving value sum_s W v_bar / Z, max-margin value 0)."""

import numpy as np
import pytest

from ospiel_ext import evaluate, lp, policies, sequence_form
from ospiel_ext.algorithms.subgames import blueprints, combine, gadgets, priors
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames
from ospiel_ext.tree_builder import subgame as tree_subgame

CASES = [("kuhn_poker", Cut.after_moves(1)), ("leduc_poker", Cut.after_public_chance())]


@pytest.fixture(scope="module", params=CASES, ids=["kuhn", "leduc"])
def case(request):
    game, cut = request.param
    sf = sequence_form.for_game(game)
    q = blueprints.BlueprintQuantities.compute(sf, policies.random_policy(sf.tree.game, 11))
    return sf, q, subgames(sf.tree, cut)[:4]


@pytest.mark.parametrize("player", [0, 1])
def test_the_blueprint_guarantees_its_own_values_in_its_gadgets(case, player):
    sf, q, subs = case
    for sub in subs:
        rv = q.root_values(sub, player)
        resolving = gadgets.resolving_gadget(q, sub, player)
        bar = combine.restrict(sf, q.blueprint, resolving)[player]
        expected = rv.sign * np.sum(rv.weight * rv.cfbr) / rv.weight.sum()
        assert evaluate.guaranteed_value(resolving.sf, bar, player) == pytest.approx(
            expected, abs=1e-12
        )
        assert resolving.scale == pytest.approx(rv.weight.sum(), abs=1e-15)
        margin = gadgets.max_margin_gadget(q, sub, player)
        bar = combine.restrict(sf, q.blueprint, margin)[player]
        assert evaluate.guaranteed_value(margin.sf, bar, player) == pytest.approx(0.0, abs=1e-12)


def test_gadget_structure_and_keys(case):
    sf, q, subs = case
    sub = subs[0]
    rv = q.root_values(sub, 0)
    resolving = gadgets.resolving_gadget(q, sub, 0)
    assert resolving.aux_keys == tuple(gadgets.RESOLVE_PREFIX + k for k in rv.keys)
    assert [resolving.aux_targets[k] for k in resolving.aux_keys] == [(k,) for k in rv.keys]
    margin = gadgets.max_margin_gadget(q, sub, 0)
    assert margin.aux_keys == (gadgets.MAX_MARGIN_KEY,)
    assert margin.aux_targets[gadgets.MAX_MARGIN_KEY] == rv.keys
    for g in (resolving, margin):
        assert g.tree.name.startswith(f"{g.kind}-gadget({sf.name}, subgame 0")
        # every non-auxiliary information set keeps its key in the full game, with the same
        # legal actions
        full = dict(zip(sf.tree.infoset_key, sf.tree.infoset_legal_actions))
        for key, actions in zip(g.tree.infoset_key, g.tree.infoset_legal_actions):
            assert key in g.aux_keys or full[key] == actions
        aux_owner = {g.tree.infoset_player[g.tree.infoset_key.index(k)] for k in g.aux_keys}
        assert aux_owner == {1}
        # each root is copied with its whole subtree: resolving adds a root, and per root an
        # auxiliary node and its T leaf; max-margin a root and a chance node per s_o
        size = int(np.count_nonzero(np.isin(sub.root_set.root_of, sub.root_indices)))
        assert len(g.roots) == sub.num_roots
        extra = 1 + 2 * sub.num_roots if g.kind == "resolving" else 1 + len(rv.keys)
        assert g.tree.num_nodes == size + extra


def test_the_unsafe_subgame_is_the_blueprint_weighted_subgame(case):
    sf, q, subs = case
    for sub in subs[:2]:
        unsafe = gadgets.unsafe_subgame(q, sub)
        rv = q.root_values(sub, 0)
        reference, _ = tree_subgame(sf.tree, sub.roots, weights=rv.reach.prod(axis=0))
        value = lp.solve(unsafe.sf).value
        assert value == pytest.approx(lp.solve(sequence_form.TreeSequenceForm(reference)).value)
        assert unsafe.solved_players == (0, 1) and unsafe.aux_keys == ()


def test_blueprint_prior_follows_the_opponent_reach():
    game = "kuhn_poker"
    sf = sequence_form.for_game(game)
    pol = policies.random_policy(sf.tree.game, 2)
    q = blueprints.BlueprintQuantities.compute(sf, pol)
    for sub in subgames(sf.tree, Cut.after_moves(1)):
        for player in (0, 1):
            # the opponent's reach of each root information set, from the policy table
            reach = {}
            for r in sub.roots:
                state, p_o = sf.tree.game.new_initial_state(), 1.0
                for a in sf.tree.history(int(r)):
                    if state.current_player() == 1 - player:
                        p_o *= pol.action_probabilities(state)[a]
                    state.apply_action(a)
                reach[state.information_state_string(1 - player)] = p_o
            total = sum(reach.values())
            resolving = gadgets.resolving_gadget(q, sub, player)
            prior = priors.gadget_prior(resolving, "blueprint")
            for key in resolving.aux_keys:
                p_c = min(max(reach[resolving.aux_targets[key][0]] / total, 1e-3), 1 - 1e-3)
                np.testing.assert_allclose(prior[key], [1 - p_c, p_c], atol=1e-12)
            margin = gadgets.max_margin_gadget(q, sub, player)
            (row,) = priors.gadget_prior(margin, "blueprint").values()
            targets = margin.aux_targets[gadgets.MAX_MARGIN_KEY]
            expected = np.maximum([reach[k] / total for k in targets], 1e-3)
            np.testing.assert_allclose(row, expected / expected.sum(), atol=1e-12)
            uniform = priors.gadget_prior(margin, "uniform")[gadgets.MAX_MARGIN_KEY]
            np.testing.assert_allclose(uniform, np.full(len(targets), 1 / len(targets)))
            assert priors.gadget_prior(margin, "none") is None


def test_bad_inputs_are_refused(case):
    _sf, q, subs = case
    with pytest.raises(ValueError, match="resolving player must be 0 or 1"):
        gadgets.resolving_gadget(q, subs[0], 2)
    with pytest.raises(ValueError, match="unknown gadget kind"):
        gadgets.gadget_game("reach", q, subs[0], player=0)
    g = gadgets.resolving_gadget(q, subs[0], 0)
    with pytest.raises(ValueError, match="unknown prior"):
        priors.gadget_prior(g, "optimistic")
    with pytest.raises(ValueError, match="no auxiliary"):
        priors.gadget_prior(gadgets.unsafe_subgame(q, subs[0]), "uniform")
    other = sequence_form.for_game("liars_dice(numdice=1,dice_sides=4)")
    foreign = subgames(other.tree, Cut.after_moves(1))[0]
    with pytest.raises(ValueError, match="another compiled tree"):
        gadgets.max_margin_gadget(q, foreign, 0)


def test_a_player_who_never_reaches_the_subgame_gets_no_gadget():
    sf = sequence_form.for_game("kuhn_poker")
    b = [tp.uniform.copy() for tp in sf.treeplexes]
    tp = sf.treeplexes[0]
    b[0][1 : tp.seq_start[-1] + 2] = np.tile([1.0, 0.0], tp.num_infosets)  # always pass/check
    q = blueprints.BlueprintQuantities.compute(sf, (b[0], b[1]))
    after_bet = [s for s in subgames(sf.tree, Cut.after_moves(1)) if s.root_keys(1)[0][-1] == "b"]
    with pytest.raises(ValueError, match="never reaches subgame"):
        gadgets.resolving_gadget(q, after_bet[0], 0)
