"""The off-tree action on the range layout against the compiled stack (`compiled.off_tree`).

A no-limit game small enough to compile (one card each from 3 ranks x 2 suits, a one-card
flop), every bet size restricted to 0.5x / 1x pot and all-in, and the same with player 1's
0.75x opening bet: the range layout's RPAT strategy has the responder exploitability the
compiled stack's RPAT profile has, for any blueprint."""

import dataclasses
import itertools

import numpy as np
import pytest
from helpers import profile_rows, random_behavioural

from ospiel_ext import evaluate, walk
from ospiel_ext.algorithms import cfr, cfr_rules
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as dl_leaves
from ospiel_ext.algorithms.depth_limited import translation
from ospiel_ext.algorithms.depth_limited.compiled import off_tree as compiled
from ospiel_ext.algorithms.depth_limited.compiled import off_tree_solving as solving_compiled
from ospiel_ext.algorithms.depth_limited.compiled import solving as dl_solving
from ospiel_ext.algorithms.depth_limited.ranges import beyond_limit, off_tree, off_tree_solving
from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.depth_limited.ranges.solving import (
    DepthLimitedRangeSolver,
    Gadget,
)
from ospiel_ext.algorithms.poker import (
    range_cfr,
    range_policy,
    range_tree,
    range_walker,
    structure,
)
from ospiel_ext.games import poker_actions as pa
from ospiel_ext.sequence_form import TreeSequenceForm

GAME = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=100 50,firstPlayer=2 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=1000 1000,"
    "bettingAbstraction=fullgame)"
)
BETTOR, RESPONDER = 1, 0
ABSTRACTION = pa.PotFractionAbstraction((0.5, 1.0))
WITH_BET = pa.PotFractionAbstraction((0.5, 1.0), extra=pa.first_bet_extra(BETTOR, {"0.75p": 0.75}))
P = translation.pseudo_harmonic(0.75, 0.5, 1.0)


def _replacements(state):
    labels = ABSTRACTION.labels(state)
    return [labels["0.5p"], labels["1p"]]


def _range_arrays(off, compiled_off, blueprint):
    """The compiled abstraction's blueprint as the range layout's per-entry arrays."""
    rows = profile_rows(compiled_off.abstract, blueprint)
    return off.abstract.contract(range_policy.arrays_from_tabular(off.abstract, rows))


@pytest.fixture(scope="module")
def both():
    """The compiled stack's OffTree and the range layout's."""
    abstract = TreeSequenceForm(walk.game_tree(GAME, actions=ABSTRACTION))
    full = TreeSequenceForm(walk.game_tree(GAME, actions=WITH_BET))
    kwargs = dict(replacements=_replacements, weights=(P, 1 - P), translate=WITH_BET.translate)
    compiled_off = compiled.find_off_tree(full, abstract, RESPONDER, **kwargs)
    ranges_off = off_tree.OffTree.find(
        range_tree.RangeTree(structure.detect(GAME, actions=WITH_BET)),
        range_tree.RangeTree(structure.detect(GAME, actions=ABSTRACTION)),
        **kwargs,
    )
    return compiled_off, ranges_off


def test_the_off_tree_bet_is_the_bettors_first_action(both):
    compiled_off, off = both
    assert off.player == RESPONDER
    assert len(off.roots) == 1 and all(off.roots[0] in m for m in off.maps)
    bet = int(off.roots[0].rstrip(",").split(",")[-1])  # one betting, after every deal
    assert set(compiled_off.game.tree.action[compiled_off.roots].tolist()) == {bet}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_rpat_has_the_compiled_stacks_exploitability(both, seed):
    """Player 1's best response to the responder's RPAT strategy: the same value in both."""
    compiled_off, off = both
    blueprint = random_behavioural(compiled_off.abstract, seed)
    theirs = evaluate.evaluate_profile(
        compiled_off.game, compiled.rpat_profile(compiled_off, blueprint)
    )
    arrays = _range_arrays(off, compiled_off, blueprint)
    ours = range_walker.RangeWalker(off.game).evaluate(off_tree.rpat_strategy(off, arrays))
    np.testing.assert_allclose(
        ours.best_response_values[BETTOR], theirs.best_response_values[BETTOR], atol=1e-9
    )


def test_lifting_keeps_the_blueprint_outside_the_off_tree_subtree(both):
    """Without the off-tree bet (its probability 0 everywhere) the lifted blueprint is worth
    what the blueprint is worth in the abstraction."""
    compiled_off, off = both
    blueprint = random_behavioural(compiled_off.abstract, 3)
    arrays = _range_arrays(off, compiled_off, blueprint)
    lifted = range_walker.RangeWalker(off.game).evaluate(off_tree.lift(off, arrays))
    plain = range_walker.RangeWalker(off.abstract).evaluate(arrays)
    assert lifted.on_policy_values[0] == pytest.approx(plain.on_policy_values[0], abs=1e-10)


@pytest.mark.parametrize(
    "which, weights, message",
    [
        ("game", (0.5, 0.6), "sum to 1"),
        ("abstract", (P, 1 - P), "no action outside the abstraction"),
    ],
)
def test_bad_weights_and_layouts_without_an_off_tree_action_are_refused(
    both, which, weights, message
):
    _, off = both
    with pytest.raises(ValueError, match=message):
        off_tree.OffTree.find(
            getattr(off, which),
            off.abstract,
            replacements=_replacements,
            weights=weights,
            translate=WITH_BET.translate,
        )


def test_rpat_with_suit_orbits_is_rpat_per_hand():
    """One entry per suit orbit (`suits=True`) against one per hand: the same CFR+ blueprint
    (suit-symmetric), the same RPAT exploitability."""
    got = []
    for suits in (False, True):
        abstract = range_tree.RangeTree(structure.detect(GAME, actions=ABSTRACTION), suits=suits)
        game = range_tree.RangeTree(structure.detect(GAME, actions=WITH_BET), suits=suits)
        solver = range_cfr.RangeCFRSolver(abstract, cfr_rules.CFR_PLUS)
        for _ in range(30):
            solver.evaluate_and_update_policy()
        off = off_tree.OffTree.find(
            game,
            abstract,
            replacements=_replacements,
            weights=(P, 1 - P),
            translate=WITH_BET.translate,
        )
        blueprint = abstract.contract(solver.average_strategy())
        ev = range_walker.RangeWalker(game).evaluate(off_tree.rpat_strategy(off, blueprint))
        got.append(ev.best_response_values[BETTOR])
    assert got[1] == pytest.approx(got[0], abs=1e-9)


def _compiled_gadget_value(compiled_off, blueprint, strategies, lower, kind):
    """The compiled stack's depth-limited response's gadget game: its LP value for the
    responder (`off_tree_solving.depth_limited_response`'s steps, the value kept), the
    bettor's alternatives lowered by `lower` (per information set)."""
    off, cut = compiled_off, ss.Cut.before_public_chance()
    abstract = off.abstract
    limit = dl_leaves.depth_limit(abstract.tree, cut)
    leaves = dl_leaves.exact_values(
        abstract, limit, blueprint, player=RESPONDER, strategies=strategies
    )
    start = compiled.rpat_profile(off, blueprint)
    q = solving_compiled.with_in_abstraction_alternatives(
        ss.BlueprintQuantities.compute(off.game, start), off
    )
    values = list(q.values)
    values[RESPONDER] = values[RESPONDER].copy()
    values[RESPONDER][off.roots] += lower  # player 0's utility: the bettor (1) gets less
    q = dataclasses.replace(q, values=tuple(values))
    (first,) = solving_compiled.subgames_after(off, ss.Cut.after_moves(1))
    transferred = compiled.transferred_leaves(off, cut, leaves)
    solution = dl_solving.solve_depth_limited(q, [first], transferred, gadget=kind, method="lp")
    return solution.solutions[0].value


@pytest.mark.parametrize(
    "seed, lower, kind",
    [(0, 0.0, "resolving"), (1, 10.0, "resolving"), (0, 10.0, "max_margin")],
)
def test_the_depth_limited_response_has_the_compiled_gadget_games_value(both, seed, lower, kind):
    """After the off-tree bet: leaves transferred from the abstraction (two continuations:
    a CFR+ blueprint's and a random strategy of the bettor), the resolving or max-margin
    gadget whose alternatives are the bettor's best in-abstraction values against RPAT, RPAT
    outside the subgame. The CFR+ solution's best responses bracket the compiled LP's value.
    With the resolving gadget such a responder holds the bet to the alternatives (the value
    is theirs); with alternatives lowered by 10 chips per information set the bettor enters
    with some hands."""
    compiled_off, off = both
    solver = cfr.CFRPlusSolver(compiled_off.abstract)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    blueprint = solver.average_behavioural()
    other = random_behavioural(compiled_off.abstract, seed)[BETTOR]
    want = _compiled_gadget_value(compiled_off, blueprint, [blueprint[BETTOR], other], lower, kind)
    arrays = _range_arrays(off, compiled_off, blueprint)
    continuations = [
        arrays,
        _range_arrays(off, compiled_off, dl_leaves.profile_with(blueprint, BETTOR, other)),
    ]
    abstract_walker = range_walker.RangeWalker(off.abstract)
    leaves = off_tree.transferred_leaves(off, LeafValues.compute(abstract_walker, continuations))
    rpat = off_tree.rpat_strategy(off, arrays)
    walker = range_walker.RangeWalker(off.game)
    action, alternatives = off_tree_solving.in_abstraction_alternatives(off, rpat)
    lay, width = off.game.rounds[0], off.game.rounds[0].orbits.width
    chance = np.empty((1, width))  # each entry's chance weight: counterfactual units
    range_tree.fold_values(lay, np.ones((1, width)), np.ones(1), slice(0, width), out=chance)
    alternatives = alternatives - lower * chance[0]
    gadget = Gadget(action=action, alternatives=alternatives, fixed=rpat[0], kind=kind)
    solver = DepthLimitedRangeSolver(walker, leaves, RESPONDER, gadget=gadget)
    for _ in range(2000):
        solver.evaluate_and_update_policy()
    evaluation = solver.evaluate_average()
    guaranteed = -evaluation.best_response_values[BETTOR]
    best = evaluation.best_response_values[RESPONDER]
    assert guaranteed - 1e-9 <= want <= best + 1e-9
    # chips, of payoffs up to 1,000; measured 2.0e-3 to 5.6e-3 (resolving), 2.1e-2 (max-margin)
    assert best - guaranteed < (1e-2 if kind == "resolving" else 5e-2)
    if kind == "max_margin":  # the maximin margin: 3.87 chips; lowered alternatives, 10 less
        return
    held = -(alternatives @ lay.orbits.size)
    assert want == pytest.approx(held, abs=1e-9) if lower == 0 else want < held - 1e-3


def test_the_depth_limited_response_changes_the_responder_after_the_bet_only(both):
    """`depth_limited_response`: the bettor's arrays and the responder's outside the first
    round below the bet are RPAT's; below the bet the responder's are the solution's (K = 1,
    the blueprint's continuation), which differ from RPAT's."""
    compiled_off, off = both
    arrays = _range_arrays(off, compiled_off, random_behavioural(compiled_off.abstract, 4))
    leaves = LeafValues.compute(range_walker.RangeWalker(off.abstract), [arrays])
    response = off_tree_solving.depth_limited_response(off, arrays, leaves, iterations=300)
    rpat = off_tree.rpat_strategy(off, arrays)
    below = [e for k, e in off.game.decisions.items() if k.startswith(off.roots[0])]
    for r, lay in enumerate(off.game.rounds):
        for k, g in enumerate(lay.groups):
            mine = {e.index for e in below if (e.round, e.group) == (r, k) and r == 0}
            for j in range(len(g.nodes)):
                if g.player == BETTOR or j not in mine:
                    np.testing.assert_array_equal(response[r][k][j], rpat[r][k][j])
    assert any(
        not np.allclose(response[0][e.group][e.index], rpat[0][e.group][e.index])
        for e in below
        if e.round == 0 and e.node.player == RESPONDER
    )


@pytest.mark.parametrize("first_round", [0, 1])
def test_played_beneath_replaces_the_responders_decisions_after_the_bet_only(both, first_round):
    """`played_beneath`: the responder's decisions whose betting follows the off-tree action, in
    the rounds from `first_round` on, take the second profile's arrays; every other array is
    the first profile's."""
    _, off = both
    rng = np.random.default_rng(7)
    profile, other = ([[rng.random(a.shape) for a in r] for r in off.game.uniform()] for _ in "ab")
    out = off_tree.played_beneath(off, profile, other, first_round=first_round)
    replaced = set()
    for key, e in off.game.decisions.items():
        after = key.startswith(off.roots[0])
        mine = after and e.node.player == RESPONDER and e.round >= first_round
        want = (other if mine else profile)[e.round][e.group][e.index]
        np.testing.assert_array_equal(out[e.round][e.group][e.index], want)
        replaced |= {e.round} if mine else set()
    assert replaced == {0, 1} - set(range(first_round))


def test_translated_with_one_replacement_plays_its_counterparts(both):
    """`translated` with all weight on one replacement: each of the bettor's decisions after
    the bet plays its counterpart's strategy under it (renormalised over the actions with a
    counterpart), the profile being positive so that every counterpart is reached; every
    other array is `into`'s."""
    _, off = both
    one = dataclasses.replace(off, weights=(1.0, 0.0))
    rng = np.random.default_rng(9)
    profile = [[0.1 + rng.random(a.shape) for a in r] for r in off.abstract.uniform()]
    profile = [[a / a.sum(axis=1, keepdims=True) for a in r] for r in profile]
    into = [[rng.random(a.shape) for a in r] for r in off.game.uniform()]
    out = off_tree.translated(one, into, profile, BETTOR)
    checked = 0
    for key, e in off.game.decisions.items():
        got = out[e.round][e.group][e.index]
        target, actions = off.maps[0].get(key, (None, {}))
        if e.node.player != BETTOR or not actions:
            if e.node.player != BETTOR or not any(key in m for m in off.maps):
                np.testing.assert_array_equal(got, into[e.round][e.group][e.index])
            continue
        t = off.abstract.decisions[target]
        theirs = profile[t.round][t.group][t.index]
        want = np.zeros_like(got)
        for a_index, a in enumerate(e.node.actions):
            if a in actions:
                want[a_index] = theirs[t.node.actions.index(actions[a])]
        np.testing.assert_allclose(got, want / want.sum(axis=0), rtol=1e-12)
        checked += 1
    assert checked > 0


@pytest.fixture(scope="module")
def two_continuations(both):
    """Two continuations of the abstraction, a CFR+ blueprint's and a random strategy of the
    bettor: the compiled profiles and the range layout's."""
    compiled_off, off = both
    solver = cfr.CFRPlusSolver(compiled_off.abstract)
    for _ in range(100):
        solver.evaluate_and_update_policy()
    blueprint = solver.average_behavioural()
    other = random_behavioural(compiled_off.abstract, 5)[BETTOR]
    compiled_profiles = [blueprint, dl_leaves.profile_with(blueprint, BETTOR, other)]
    return compiled_profiles, [_range_arrays(off, compiled_off, p) for p in compiled_profiles]


def _compiled_promised_resolution(compiled_off, profile, continuations):
    """The compiled stack's subgames after the bet and the flop card (one per betting and
    board), each resolved for the responder by its LP with a resolving gadget whose
    alternatives are the promised values (`with_leaf_value_targets` with leaves before the
    flop: the bettor's best continuation per leaf information set, its node values at each
    root's counterparts). Returns the sum of the LPs' values (with the chance weights)."""
    off, cut = compiled_off, ss.Cut.before_public_chance()
    limit = dl_leaves.depth_limit(off.abstract.tree, cut)
    abstract_leaves = dl_leaves.exact_values(
        off.abstract, limit, continuations[0], player=RESPONDER,
        strategies=[c[BETTOR] for c in continuations],
    )  # fmt: skip
    leaves = compiled.transferred_leaves(off, cut, abstract_leaves)
    q = ss.BlueprintQuantities.compute(off.game, profile)
    q = solving_compiled.with_leaf_value_targets(q, leaves, off, continuations)
    below = solving_compiled.subgames_after(off, cut)
    resolution = ss.resolve(q, below, "resolving", prior="none", method="lp", players=[RESPONDER])
    assert len(resolution.solutions) == len(below) > 1 and not resolution.skipped
    return sum(s.unnormalised_value for s in resolution.solutions)


def test_resolving_beyond_the_limit_has_the_compiled_gadget_games_value(both, two_continuations):
    """Every subgame after the bet and the flop card (one per betting end and board) resolved
    for the responder with resolving gadgets whose alternatives are the values the
    depth-limited game promised the bettor, against a random profile of the game with the
    bet: the best responses of CFR+'s gadget game bracket the sum of the compiled stack's
    per-subgame LP values."""
    compiled_off, off = both
    compiled_continuations, continuations = two_continuations
    profile = random_behavioural(compiled_off.game, 6)
    want = _compiled_promised_resolution(compiled_off, profile, compiled_continuations)
    rows = profile_rows(compiled_off.game, profile)
    arrays = off.game.contract(range_policy.arrays_from_tabular(off.game, rows))
    ours = beyond_limit.resolve_below(off, arrays, continuations, iterations=1000)
    evaluation = ours.gadget_game()
    guaranteed = -evaluation.best_response_values[BETTOR]
    best = evaluation.best_response_values[RESPONDER]
    assert guaranteed - 1e-9 <= want <= best + 1e-9
    # chips, of payoffs up to 1,000; measured 2.0e-2, 5.8e-3, 2.2e-3 after 500, 1,000, 2,000
    assert best - guaranteed < 5e-2


def test_the_promised_values_sum_over_boards_to_the_depth_limited_games(both, two_continuations):
    """Summed over the flop's boards, the promised values per (board, hand) are the best of
    the transferred leaf values (`LeafValues.choice_values`, one pass per opponent entry)
    against the responder's reach."""
    _, off = both
    _, continuations = two_continuations
    response = off_tree.rpat_strategy(off, continuations[0])
    first, last = off.game.rounds
    ends = [e for e, row in enumerate(first.ends) if off.game.keys[0][row] in off.maps[0]]
    got = beyond_limit.promised_values(off, response, continuations, ends)
    leaves = off_tree.transferred_leaves(
        off, LeafValues.compute(range_walker.RangeWalker(off.abstract), continuations)
    )
    reach = range_walker.RangeWalker(off.game).reaches(RESPONDER, response, rounds=1)[0]
    want = leaves.choice_values(BETTOR, reach[first.ends]).max(axis=1)[ends]
    np.testing.assert_allclose((last.deal_matrix.T @ got.T).T, want, atol=1e-9)


def test_the_resolved_response_changes_the_responder_beyond_the_limit_only(both, two_continuations):
    """`resolved_response`: every array is the depth-limited response's except the
    responder's decisions in the last round after the bet, which the resolution sets."""
    _, off = both
    _, continuations = two_continuations
    response = off_tree.rpat_strategy(off, continuations[0])
    resolution = beyond_limit.resolve_below(off, response, continuations, iterations=50)
    resolved = beyond_limit.resolved_response(off, response, resolution)
    solved = resolution.strategy()
    changed = 0
    for key, e in off.game.decisions.items():
        here, before = resolved[e.round][e.group][e.index], response[e.round][e.group][e.index]
        if e.round == 1 and e.node.player == RESPONDER and key.startswith(off.roots[0]):
            s = resolution.tree.decisions[key]
            np.testing.assert_array_equal(here, solved[s.round][s.group][s.index])
            changed += not np.allclose(here, before)
        else:
            np.testing.assert_array_equal(here, before)
    assert changed > 0


def test_threads_resolve_the_subgames_bit_for_bit(both, two_continuations):
    """Two threads (each on its own block of the flop's boards) give one thread's resolution:
    the same promised values, gadget choices and strategies, exactly."""
    _, off = both
    _, continuations = two_continuations
    response = off_tree.rpat_strategy(off, continuations[0])
    one = beyond_limit.resolve_below(off, response, continuations, iterations=20)
    with beyond_limit.resolve_below(off, response, continuations, iterations=20, threads=2) as two:
        assert len(two.solver.walker.blocks[-1]) == 2
        np.testing.assert_array_equal(
            two.gadgets.average_strategy(), one.gadgets.average_strategy()
        )
        for a, b in zip(itertools.chain(*one.strategy()), itertools.chain(*two.strategy())):
            np.testing.assert_array_equal(a, b)


def test_resolving_beyond_the_limit_needs_one_off_tree_action_first_in_the_game(both):
    _, off = both
    with pytest.raises(ValueError, match=r"universal_poker.*one off-tree action"):
        beyond_limit.subtree(dataclasses.replace(off, roots=(off.roots[0], off.roots[0])))
