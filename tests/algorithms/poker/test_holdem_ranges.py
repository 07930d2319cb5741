"""Hands of several cards and boards dealt several cards at once on the range layout.

Small hold'em games that compile (two hole cards from a deck of 4 ranks x 2 suits, a flop of
two or three cards, limit and no-limit) against the compiled game's sequence form and the
pack's sequence-form solver (independent of the range layout), and OpenSpiel's own
exploitability of the exported policy."""

import numpy as np
import pyspiel
import pytest
from helpers import HOLDEM_LIMIT, HOLDEM_NO_LIMIT
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr_rules, cfr_variants
from ospiel_ext.algorithms.poker import (
    hands,
    range_cfr,
    range_policy,
    range_rows,
    range_tree,
    range_walker,
    set_terminals,
    structure,
)

LIMIT, NO_LIMIT = HOLDEM_LIMIT, HOLDEM_NO_LIMIT
# the same with 4 ranks x 2 suits: suit orbits of 3-card flops (its explicit form takes 15 s to
# compile, so it is checked against the range layout without suits)
NO_LIMIT_SUITS = NO_LIMIT.replace("numSuits=1,numRanks=7", "numSuits=2,numRanks=4")
GAMES = [LIMIT, NO_LIMIT]
TOL = 1e-12


def _evaluate(tree, pol):
    walker = range_walker.RangeWalker(tree)
    return walker.evaluate(tree.contract(range_policy.arrays_from_tabular(tree, pol)))


def _assert_same(ours, theirs, tol=TOL):
    np.testing.assert_allclose(ours.on_policy_values, theirs.on_policy_values, rtol=0, atol=tol)
    np.testing.assert_allclose(
        ours.best_response_values, theirs.best_response_values, rtol=0, atol=tol
    )


@pytest.mark.parametrize("game, hands, flop", [(LIMIT, 15, 2), (NO_LIMIT, 21, 3)])
def test_the_structure_reads_two_hole_cards_and_a_flop(game, hands, flop):
    ps = structure.detect(game)
    assert ps.hole_cards == 2 and ps.card_sets and ps.hands.num_hands == hands
    assert ps.public_cards == (0, flop)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", [0, 1])
def test_one_pass_of_a_random_policy_equals_the_explicit_form(game, seed):
    """Both players' values and best responses of a random TabularPolicy."""
    ps = structure.detect(game)
    pol = policies.random_policy(pyspiel.load_game(game), seed=seed)
    sf = sf_lib.for_game(game)
    theirs = evaluate.evaluate_profile(sf, policies.layout(sf).from_tabular(pol))
    _assert_same(range_walker.evaluate_tabular(pol), theirs)
    assert ps.card_sets


def test_strengths_evaluated_in_small_blocks_give_the_explicit_forms_values(monkeypatch):
    """The layout evaluates showdown strengths a block of (board, hand) pairs at a time
    (`range_tree.STRENGTH_BLOCK`) and sorts them a block of boards at a time: with blocks of
    7 pairs and one board the values are still the explicit form's."""
    monkeypatch.setattr(range_tree, "STRENGTH_BLOCK", 7)
    monkeypatch.setattr(hands, "_BLOCK_ENTRIES", 1)
    pol = policies.random_policy(pyspiel.load_game(NO_LIMIT), seed=4)
    sf = sf_lib.for_game(NO_LIMIT)
    theirs = evaluate.evaluate_profile(sf, policies.layout(sf).from_tabular(pol))
    _assert_same(range_walker.evaluate_tabular(pol), theirs)


def test_suit_isomorphism_evaluates_the_uniform_profile_exactly():
    ps = structure.detect(LIMIT)
    tree = range_tree.RangeTree(ps, suits=True)
    assert tree.rounds[1].deals.num_boards < len(range_tree.RangeTree(ps).rounds[1].deals.types)
    pol = policies.uniform_policy(LIMIT)
    sf = sf_lib.for_game(LIMIT)
    _assert_same(
        _evaluate(tree, pol), evaluate.evaluate_profile(sf, policies.layout(sf).from_tabular(pol))
    )


@pytest.mark.parametrize("variant", ["cfr_plus", "dcfr"])
def test_suit_orbits_of_three_card_flops_give_the_iterates_without_them(variant):
    """CFR on the 3-card-flop game with 2 suits: one canonical board per 2 flops (the suit
    swap fixes no set of 3 cards); the averages' values and best responses those of the
    layout without suits."""
    config = cfr_rules.with_tie_rule(cfr_rules.PRESETS[variant])
    ps = structure.detect(NO_LIMIT_SUITS)
    full, orbits = (range_tree.RangeTree(ps, suits=s) for s in (False, True))
    assert 2 * orbits.rounds[1].deals.num_boards == full.rounds[1].deals.num_boards == 56
    solvers = [range_cfr.RangeCFRSolver(t, config) for t in (full, orbits)]
    for _ in range(20):
        for solver in solvers:
            solver.evaluate_and_update_policy()
    _assert_same(*(s.evaluate_average() for s in solvers), tol=1e-9)


def test_a_policy_that_is_not_suit_symmetric_is_refused_with_suits():
    ps = structure.detect(LIMIT)
    pol = policies.random_policy(pyspiel.load_game(LIMIT), seed=0)
    with pytest.raises(ValueError, match="suit-isomorphic"):
        range_policy.arrays_from_tabular(range_tree.RangeTree(ps, suits=True), pol)


@pytest.mark.parametrize("game, suits", [(LIMIT, False), (LIMIT, True), (NO_LIMIT, False)])
@pytest.mark.parametrize("variant", ["cfr", "cfr_plus", "dcfr"])
def test_cfr_iterates_equal_the_explicit_form(game, suits, variant):
    """20 iterations of each variant with the tie rule: the current strategies agree to 1e-9,
    and so do the averages' exploitabilities."""
    config = cfr_rules.with_tie_rule(cfr_rules.PRESETS[variant])
    ps = structure.detect(game)
    tree = range_tree.RangeTree(ps, suits=suits)
    ours = range_cfr.RangeCFRSolver(tree, config)
    sf = sf_lib.for_game(game)
    theirs = cfr_variants.CFRVariantSolver(sf, config)
    layout = policies.layout(sf)
    for _ in range(20):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    mine = range_policy.RangePolicy(tree, ours.current_strategy()).to_tabular()
    np.testing.assert_allclose(
        mine.action_probability_array,
        layout.to_tabular(theirs.current_behavioural()).action_probability_array,
        rtol=0,
        atol=1e-9,
    )
    assert ours.evaluate_average().exploitability == pytest.approx(
        theirs.exploitability(), abs=1e-9
    )


@pytest.mark.parametrize("suits", [False, True])
def test_openspiel_measures_the_exploitability_the_walker_reports(suits):
    solver = range_cfr.RangeCFRSolver(
        range_tree.RangeTree(structure.detect(LIMIT), suits=suits), cfr_rules.CFR_PLUS
    )
    for _ in range(10):
        solver.evaluate_and_update_policy()
    policy = solver.average_policy()
    assert os_exploitability.exploitability(pyspiel.load_game(LIMIT), policy) == pytest.approx(
        solver.exploitability(), abs=1e-9
    )


@pytest.mark.parametrize(
    "game", ["leduc_poker", "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"]
)
def test_one_card_games_through_the_card_set_terminals(game):
    """The sorted, inclusion-exclusion terminals on one-card hands agree with the kernels."""
    ps = structure.detect(game)
    kernel, sets = (range_tree.RangeTree(ps, suits=True, card_sets=c) for c in (False, True))
    assert sets.rounds[-1].sets is not None and kernel.rounds[-1].sets is None
    strategy = range_walker.RangeWalker(kernel).uniform()
    rng = np.random.default_rng(0)
    for per_round in strategy:
        for a in per_round:
            a[...] = rng.random(a.shape) ** 3
            a /= a.sum(axis=1, keepdims=True)
    _assert_same(
        range_walker.RangeWalker(sets).evaluate(strategy),
        range_walker.RangeWalker(kernel).evaluate(strategy),
    )


def test_terminals_in_chunks_of_boards_are_the_terminals_at_once(monkeypatch):
    tree = range_tree.RangeTree(structure.detect(NO_LIMIT_SUITS), suits=True)
    strategy = range_walker.RangeWalker(tree).uniform()
    whole = range_walker.RangeWalker(tree).evaluate(strategy)
    monkeypatch.setattr(set_terminals, "CHUNK_ENTRIES", 1)  # one board per chunk
    _assert_same(range_walker.RangeWalker(tree).evaluate(strategy), whole, tol=1e-14)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_pass_over_chunks_of_one_board_is_the_pass_over_the_whole_round(threads):
    """The walker holds the last round chunk by chunk: one board per chunk gives the values of
    one chunk, for a random profile, and for accumulated weights normalised chunk by chunk as
    for the same weights normalised whole. To rounding, not bit for bit: the card-set
    terminals' products over hand families round by their row count, which the chunk sets
    (`test_terminals_in_chunks_of_boards_are_the_terminals_at_once`)."""
    tree = range_tree.RangeTree(structure.detect(NO_LIMIT_SUITS), suits=True)
    whole = range_walker.RangeWalker(tree)
    weights = whole.uniform()
    rng = np.random.default_rng(1)
    for per_round in weights:
        for a in per_round:
            a[...] = rng.random(a.shape) ** 3
    with range_walker.RangeWalker(tree, threads=threads, chunk_values=1) as chunked:
        assert len(chunked.chunks) == tree.rounds[-1].deals.num_boards > 1
        strategy = range_rows.normalise(weights)
        _assert_same(chunked.evaluate(strategy), whole.evaluate(strategy), tol=1e-14)
        _assert_same(chunked.evaluate(weights, weights=True), whole.evaluate(strategy), tol=1e-14)


def test_card_sets_need_distinct_cards():
    ps = structure.detect("limit_leduc_poker(num_ranks=3)")
    with pytest.raises(ValueError, match="distinct cards"):
        range_tree.RangeTree(ps, card_sets=True)


def test_public_cards_in_several_rounds_of_universal_poker_are_refused_as_imperfect_recall():
    """universal_poker shows the board as one sorted set: after a turn card A then a river
    card B, and after B then A, a player has one information state though it saw different
    turn boards (OpenSpiel's own strings), so the game has imperfect recall and the range
    layout, which keeps each round's board, refuses it as the explicit form does."""
    game = (
        "universal_poker(betting=limit,numPlayers=2,numRounds=3,blind=1 1,raiseSize=2 2 4,"
        "firstPlayer=1 1 1,maxRaises=1 1 1,numSuits=2,numRanks=3,numHoleCards=2,"
        "numBoardCards=0 1 1)"
    )
    turn_strings, river_strings = [], []
    for turn, river in ((0, 1), (1, 0)):
        state = pyspiel.load_game(game).new_initial_state()
        for action in [5, 4, 3, 2, 1, 1, turn]:  # the hands, check-check, the turn card
            state.apply_action(action)
        turn_strings.append(state.information_state_string(0))
        for action in [1, 1, river]:
            state.apply_action(action)
        river_strings.append(state.information_state_string(0))
    assert turn_strings[0] != turn_strings[1] and river_strings[0] == river_strings[1]
    with pytest.raises(ValueError, match=r"numBoardCards=0 1 1.*imperfect recall"):
        structure.detect(game)
    with pytest.raises(ValueError, match="perfect recall"):
        sf_lib.for_game(game)
