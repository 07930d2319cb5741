"""Off-tree actions (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for
Imperfect-Information Games", Section 6.1): the pseudo-harmonic mapping, counterpart maps,
RPAT, leaf-value transfer and the in-abstraction alternatives, each against a computation
that does not use the code under test (hand-worked bet sizes, histories looked up directly,
the blueprint's table, OpenSpiel states)."""

import functools

import numpy as np
import pyspiel
import pytest

from ospiel_ext import evaluate, lp, policies, tree_values, walk
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited.compiled import off_tree, off_tree_solving
from ospiel_ext.games import poker_actions as pa
from ospiel_ext.sequence_form import TreeSequenceForm

# Antes 2 (pot 4), stacks 12: from the deal, 0.5p raises to 4, 0.75p to 5, 1p to 6.
NO_LIMIT = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=2 2,firstPlayer=1 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=12 12,"
    "bettingAbstraction=fullgame)"
)
ABSTRACTION = pa.PotFractionAbstraction()
WITH_BET = pa.PotFractionAbstraction(extra=pa.first_bet_extra(0, {"0.75p": 0.75}))
P_LOW = 3 / 7  # f(0.75) between 0.5 and 1, worked by hand: 0.25 * 1.5 / (0.5 * 1.75)
DEAL = (0, 1)  # player 0 gets card 0, player 1 card 1
CALL, HALF, OFF, POT = 1, 4, 5, 6


@functools.lru_cache(maxsize=1)
def _setup():
    game = pyspiel.load_game(NO_LIMIT)
    abstract = TreeSequenceForm(walk.game_tree(game, actions=ABSTRACTION))
    full = TreeSequenceForm(walk.game_tree(game, actions=WITH_BET))
    solver = cfr_variants.CFRVariantSolver(abstract, cfr_variants.CFR_PLUS)
    solver_lib.run(solver, 200)
    blueprint = solver.average_behavioural()

    def replacements(state):
        labels = ABSTRACTION.labels(state)
        return [labels["0.5p"], labels["1p"]]

    off = off_tree.find_off_tree(
        full,
        abstract,
        1,
        replacements=replacements,
        weights=(P_LOW, 1 - P_LOW),
        translate=WITH_BET.translate,
    )
    return game, abstract, full, blueprint, off


def _node(tree, history):
    index = {tuple(tree.history(n)): n for n in range(tree.num_nodes)}
    return index[tuple(history)]


def test_counterpart_maps_follow_the_labels():
    _, abstract, full, _, off = _setup()
    low, high = off.maps
    board = 4  # a card no one holds
    for history, want_low, want_high in [
        ([*DEAL, OFF], [*DEAL, HALF], [*DEAL, POT]),
        ([*DEAL, OFF, CALL, board], [*DEAL, HALF, CALL, board], [*DEAL, POT, CALL, board]),
        # 0.5p after the 0.75x bet raises to 10; after 0.5x to 8; after 1x it is all-in.
        ([*DEAL, OFF, 10], [*DEAL, HALF, 8], None),
    ]:
        n = _node(full.tree, history)
        assert low[n] == _node(abstract.tree, want_low)
        assert high[n] == (-1 if want_high is None else _node(abstract.tree, want_high))
    assert off.inside[_node(full.tree, [*DEAL, OFF, CALL])]
    assert not off.inside[_node(full.tree, [*DEAL, HALF, CALL])]


def test_rpat_mixes_the_two_readings_of_the_bet():
    game, _, full, blueprint, off = _setup()
    rpat = off_tree.rpat_profile(off, blueprint)
    table = policies.behavioural_to_table(off.abstract, blueprint)[1]
    state = game.new_initial_state()
    for a in DEAL:
        state.apply_action(a)
    low = table[state.child(HALF).information_state_string(1)]
    high = table[state.child(POT).information_state_string(1)]
    # Player 1 has not moved yet: its own reach is 1 under both readings. After 0.75x the
    # labels fold 0, call 1, all-in 12, 0.5p 10; after 0.5x 0.5p is 8; after 1x there is no
    # 0.5p (it would be all-in), and every action there has a counterpart.
    want = {
        0: P_LOW * low[0] + (1 - P_LOW) * high[0],
        1: P_LOW * low[1] + (1 - P_LOW) * high[1],
        12: P_LOW * low[12] + (1 - P_LOW) * high[12],
        10: P_LOW * low[8],
    }
    rpat_table = policies.behavioural_to_table(full, rpat)[1]
    got = rpat_table[state.child(OFF).information_state_string(1)]
    assert got == pytest.approx(want, abs=1e-12)
    # Outside the region player 1 plays the blueprint.
    key = state.child(HALF).information_state_string(1)
    outside = rpat_table[key]
    assert outside == pytest.approx(low, abs=1e-12)


def test_leaf_values_are_the_average_of_the_counterparts():
    _, abstract, full, blueprint, off = _setup()
    cut = ss.Cut.after_public_chance()
    limit = leaves_lib.depth_limit(abstract.tree, cut)
    strategies = [blueprint[0], abstract.treeplexes[0].uniform]
    mine = leaves_lib.exact_values(abstract, limit, blueprint, player=1, strategies=strategies)
    moved = off_tree.transferred_leaves(off, cut, mine)
    board = 4
    for history, counterparts in [
        ([*DEAL, OFF, CALL, board], [[*DEAL, HALF, CALL, board], [*DEAL, POT, CALL, board]]),
        ([*DEAL, OFF, 10, CALL, board], [[*DEAL, HALF, 8, CALL, board]]),
    ]:
        row = moved.row[_node(full.tree, history)]
        want = np.mean(
            [mine.values[mine.row[_node(abstract.tree, h)]] for h in counterparts], axis=0
        )
        np.testing.assert_allclose(moved.values[row], want, atol=1e-12)


def test_alternatives_are_player_0s_best_in_abstraction_value():
    game, abstract, full, blueprint, off = _setup()
    q = ss.BlueprintQuantities.compute(full, off_tree.rpat_profile(off, blueprint))
    changed = off_tree_solving.with_in_abstraction_alternatives(q, off)
    # Independent: player 0's counterfactual best-response value at its first information
    # set in the abstraction (it best-responds at and below it: the best first action).
    cfbr = tree_values.counterfactual_best_response_values(
        abstract.tree, abstract.tree_profile(blueprint), normalized=True
    )
    state = game.new_initial_state()
    for a in DEAL:
        state.apply_action(a)
    infoset = abstract.tree.infoset_key.index(state.information_state_string(0))
    root = _node(full.tree, [*DEAL, OFF])
    assert changed.values[1][root] == pytest.approx(cfbr[infoset], abs=1e-9)


def test_solve_keeps_the_blueprint_outside_and_plays_distributions():
    _, abstract, full, blueprint, off = _setup()
    cut = ss.Cut.after_public_chance()
    limit = leaves_lib.depth_limit(abstract.tree, cut)
    values = leaves_lib.exact_values(
        abstract,
        limit,
        blueprint,
        player=1,
        strategies=[blueprint[0], abstract.treeplexes[0].uniform],
    )
    sol = off_tree_solving.solve_off_tree(off, blueprint, cut, abstract_leaves=values, method="lp")
    lifted = off_tree.lift(off, blueprint)
    tp = full.treeplexes[1]
    tree = full.tree
    for b in (sol.depth_limited[1], sol.behavioural[1]):
        assert np.allclose(tp.segment_sum(b), 1.0)
        # Information sets of player 1 with no node after the 0.75x bet keep the blueprint.
        outside = np.ones(tree.num_infosets, dtype=bool)
        outside[tree.infoset[off.inside & (tree.player == 1)]] = False
        local = np.flatnonzero(outside[tp.infoset_ids])
        for i in local:
            s, n = int(tp.seq_start[i]), int(tp.num_actions[i])
            np.testing.assert_allclose(b[s : s + n], lifted[1][s : s + n], atol=1e-12)


def test_a_game_without_off_tree_actions_is_refused():
    _, abstract, _, _, _ = _setup()
    with pytest.raises(ValueError, match="no action outside the abstraction"):
        off_tree.find_off_tree(
            abstract, abstract, 1, replacements=lambda s: [4, 6], weights=(0.5, 0.5), translate=None
        )
    _, abstract, full, _, _ = _setup()
    with pytest.raises(ValueError, match="weights must be >= 0 and sum to 1"):
        off_tree.find_off_tree(
            full, abstract, 1, replacements=lambda s: [4, 6], weights=(0.5, 0.6), translate=None
        )


def test_best_continuation_changes_only_the_play_beyond_the_limit():
    _, _, full, blueprint, off = _setup()
    cut = ss.Cut.after_public_chance()
    rpat = off_tree.rpat_profile(off, blueprint)
    best = off_tree_solving.best_continuation(off, rpat, cut, iterations=300)
    tree, tp = full.tree, full.treeplexes[1]
    roots = np.concatenate([s.roots for s in off_tree_solving.subgames_after(off, cut)])
    free = off_tree.region(tree, roots)
    assert np.all(off.inside[roots])
    free_infosets = set(np.unique(tree.infoset[free & (tree.player == 1)]).tolist())
    assert free_infosets
    for local, infoset in enumerate(tp.infoset_ids.tolist()):
        s, n = int(tp.seq_start[local]), int(tp.num_actions[local])
        if infoset not in free_infosets:
            np.testing.assert_allclose(best[1][s : s + n], rpat[1][s : s + n], atol=1e-6)
    # Optimising the free part against a best response does better than leaving it alone
    # (RPAT is far from optimal after the bet; CFR+ after 300 iterations is close).
    value = lp.solve(full).value
    e_rpat = evaluate.player_exploitability(full, rpat[1], 1, value)
    e_best = evaluate.player_exploitability(full, best[1], 1, value)
    assert e_best < e_rpat


def test_promised_targets_below_leaves_at_chance_are_the_picked_continuations_values():
    """Leaves before the flop card (`Cut.before_public_chance`): the subgames resolved
    beyond them start after the card, and `with_leaf_value_targets` sets each of those
    states' value to the bettor's picked continuation's value there, the mean over the
    counterparts (looked up by history), and the leaves' own to the transferred values;
    without the continuations it is refused."""
    _, abstract, full, blueprint, off = _setup()
    cut = ss.Cut.before_public_chance()
    limit = leaves_lib.depth_limit(abstract.tree, cut)
    continuations = [
        blueprint,
        leaves_lib.profile_with(blueprint, 0, abstract.treeplexes[0].uniform),
    ]
    mine = leaves_lib.exact_values(
        abstract, limit, blueprint, player=1, strategies=[c[0] for c in continuations]
    )
    moved = off_tree.transferred_leaves(off, cut, mine)
    q = ss.BlueprintQuantities.compute(full, off_tree.rpat_profile(off, blueprint))
    with pytest.raises(ValueError, match="continuation profiles"):
        off_tree_solving.with_leaf_value_targets(q, moved, off)
    changed = off_tree_solving.with_leaf_value_targets(q, moved, off, continuations)
    # the bettor's (player 0's) leaf information set: its card 0, every card of player 1
    leaves = [_node(full.tree, [DEAL[0], c, OFF, CALL]) for c in range(6) if c != DEAL[0]]
    w = q.reaches.player(1)[leaves] * q.reaches.chance[leaves]
    k = int(np.argmax([w @ moved.values[moved.row[leaves], n] for n in range(2)]))
    leaf = _node(full.tree, [*DEAL, OFF, CALL])
    assert changed.values[1][leaf] == pytest.approx(moved.values[moved.row[leaf], k], abs=1e-12)
    values = tree_values.node_values(abstract.tree, abstract.tree_profile(continuations[k]))
    board = 4
    counterparts = [[*DEAL, HALF, CALL, board], [*DEAL, POT, CALL, board]]
    want = np.mean([values[_node(abstract.tree, h)] for h in counterparts])
    below = _node(full.tree, [*DEAL, OFF, CALL, board])
    assert changed.values[1][below] == pytest.approx(want, abs=1e-12)
