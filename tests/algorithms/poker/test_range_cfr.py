"""CFR on the range layout (`poker.range_cfr`) against the explicit sequence form.

The reference is always the compiled game's sequence form (`sequence_form.for_game`) and the
pack's sequence-form solver, an independent computation: one pass (values, best responses,
instantaneous regrets) against random profiles, solver iterates, and with suit isomorphism
the exploitability and value of the lifted strategy in the unabstracted game."""

import dataclasses
import gc
import itertools
import threading

import numpy as np
import pytest
from helpers import random_behavioural

from ospiel_ext import evaluate
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, cfr_rules, cfr_variants, egt
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.gameshrink import descriptions
from ospiel_ext.algorithms.poker import (
    deals,
    range_cfr,
    range_engine,
    range_form,
    range_tree,
    range_walker,
    structure,
)
from ospiel_ext.algorithms.poker.range_numbering import SequenceIndex

TOL = 1e-12
GAMES = [
    "kuhn_poker",
    "leduc_poker",
    "limit_leduc_poker(num_ranks=3)",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1,ace_low=false)",
    descriptions.UNIVERSAL_POKER_EXAMPLES[0],
]
RI_3X3 = "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)"
SUIT_GAMES = [
    "leduc_poker",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)",
]


def _layouts(game, suits=False):
    explicit, public = sf_lib.for_game(game), range_form.for_game(game)
    tree = range_tree.RangeTree(public.public_tree.structure, suits=suits)
    return explicit, tree, SequenceIndex(public.public_tree, tree)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_one_pass_equals_the_explicit_form(game, dtype):
    """Value, best responses and each player's instantaneous regrets of a random profile.

    In float32 against the explicit form's float64: sums of a few hundred terms, each rounded
    to float32's 2^-24 relative, within 1e-5 of the largest value compared."""
    explicit, tree, index = _layouts(game)
    b = random_behavioural(explicit, 0)
    per_hand = [[a.astype(dtype) for a in per_round] for per_round in index.to_arrays(b)]
    arrays = tree.contract(per_hand)
    walker = range_walker.RangeWalker(tree)

    def assert_close(got, expected):
        expected = np.asarray(expected)
        tol = TOL if dtype == "float64" else 1e-5 * np.abs(expected).max()
        np.testing.assert_allclose(got, expected, rtol=0, atol=tol)

    want = evaluate.evaluate_profile(explicit, b)
    got = walker.evaluate(arrays)
    assert_close([got.on_policy_values[0], *got.best_response_values],
                 [want.on_policy_values[0], *want.best_response_values])  # fmt: skip
    for p in (0, 1):
        regrets = walker.zeros(dtype)
        reach = walker.reaches(1 - p, arrays)
        assert {r.dtype for r in reach} == {np.dtype(dtype)}
        walker.values(p, reach, arrays, regrets)
        tp = explicit.treeplexes[p]
        g = explicit.sequence_values(p, explicit.treeplexes[1 - p].realization_plan(b[1 - p]))
        v_seq, v_inf = tp.infoset_values(g, b[p])
        expected = v_seq - tp.spread(v_inf)
        expected[0] = 0.0
        assert_close(index.to_sequences(tree.expand(regrets, fill=0.0), p), expected)


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker", "limit_leduc_poker(num_ranks=3)"])
@pytest.mark.parametrize(
    "config",
    [
        cfr_rules.CFR_PLUS,
        cfr_rules.CFRConfig(alternating_updates=False),
        cfr_rules.LCFR,
        cfr_rules.DCFR,
    ],
)
def test_iterates_equal_the_sequence_form_solver(game, config):
    explicit, tree, index = _layouts(game)
    ours = range_cfr.RangeCFRSolver(tree, config)
    theirs = cfr_variants.CFRVariantSolver(explicit, config)
    for _ in range(15):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    tol = 1e-9 if config.discount else TOL  # DCFR's discounting amplifies rounding
    for got, want in (
        (index.behavioural(ours.current_strategy()), theirs.current_behavioural()),
        (index.behavioural(ours.average_strategy()), theirs.average_behavioural()),
    ):
        for p in (0, 1):
            np.testing.assert_allclose(got[p], want[p], rtol=0, atol=tol)
    assert abs(ours.exploitability() - theirs.exploitability()) < tol


@pytest.mark.parametrize("game", SUIT_GAMES)
def test_suit_isomorphism_gives_the_lifted_strategy_exactly(game):
    """The exploitability and value the suit-isomorphic tree reports are those of its lifted
    strategy evaluated in the unabstracted game by the explicit form."""
    explicit, tree, index = _layouts(game, suits=True)
    assert tree.rounds[-1].deals.num_boards < len(deals.deals(tree.structure)[-1].types)
    solver = range_cfr.RangeCFRSolver(tree)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    average = solver.average_strategy()
    lifted = evaluate.evaluate_profile(explicit, index.behavioural(average))
    assert lifted.exploitability > 1e-3  # not yet converged: the check has something to see
    assert abs(solver.exploitability() - lifted.exploitability) < TOL
    assert abs(solver.evaluate_average().on_policy_values[0] - lifted.on_policy_values[0]) < TOL


@pytest.mark.parametrize("config", [cfr_rules.CFR_PLUS, cfr_rules.DCFR], ids=["cfr+", "dcfr"])
def test_a_float32_solver_iterates_in_float32_and_averages_in_float64(config):
    """Its exploitability stays near the float64 solver's (regret matching grows the rounding:
    the two runs part at the 1e-5 level after 10 iterations of Leduc)."""
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    single = range_cfr.RangeCFRSolver(tree, config, dtype=np.float32)
    double = range_cfr.RangeCFRSolver(tree, config)
    for _ in range(10):
        single.evaluate_and_update_policy()
        double.evaluate_and_update_policy()
    assert {a.dtype for a in itertools.chain(*single.current_strategy())} == {np.dtype("float32")}
    assert {a.dtype for a in itertools.chain(*single.average_strategy())} == {np.dtype("float64")}
    assert abs(single.exploitability() - double.exploitability()) < 1e-4


@pytest.mark.parametrize("game", SUIT_GAMES)
def test_float32_with_suits_reports_its_own_strategy_exactly(game):
    """Suit-isomorphic hands stay bit for bit equal in float32, so the exploitability and value
    reported are those of the lifted strategy in the unabstracted game (explicit form)."""
    explicit, tree, index = _layouts(game, suits=True)
    solver = range_cfr.RangeCFRSolver(tree, cfr_rules.DCFR, dtype=np.float32)
    for _ in range(20):
        solver.evaluate_and_update_policy()
    lifted = evaluate.evaluate_profile(explicit, index.behavioural(solver.average_strategy()))
    assert lifted.exploitability > 1e-3
    assert abs(solver.exploitability() - lifted.exploitability) < TOL
    assert abs(solver.evaluate_average().on_policy_values[0] - lifted.on_policy_values[0]) < TOL


def test_a_dtype_other_than_float32_or_float64_is_refused():
    tree = range_tree.RangeTree(structure.detect("kuhn_poker"))
    with pytest.raises(ValueError, match=r"kuhn_poker.*float64 or float32"):
        range_cfr.RangeCFRSolver(tree, dtype=np.float16)


def test_suit_isomorphism_keeps_the_iterates_of_leduc():
    """Leduc has no rounding-level ties: with and without suits the same exploitabilities."""
    ps = structure.detect("leduc_poker")
    full = range_cfr.RangeCFRSolver(range_tree.RangeTree(ps))
    suits = range_cfr.RangeCFRSolver(range_tree.RangeTree(ps, suits=True))
    for _ in range(20):
        full.evaluate_and_update_policy()
        suits.evaluate_and_update_policy()
        assert abs(full.exploitability() - suits.exploitability()) < TOL


def _orbits(num_ranks, num_suits, length):
    """Ordered tuples of distinct cards (rank * suits + suit) up to suit permutation."""
    cards = range(num_ranks * num_suits)
    perms = list(itertools.permutations(range(num_suits)))
    seen = set()
    for board in itertools.permutations(cards, length):
        seen.add(min(tuple((c // num_suits) * num_suits + pi[c % num_suits] for c in board)
                     for pi in perms))  # fmt: skip
    return len(seen)


@pytest.mark.parametrize("ranks, suits", [(4, 4), (13, 4), (5, 3)])
def test_canonical_boards_are_the_suit_orbits(ranks, suits):
    """Boards per round = orbits of ordered boards under suit permutations (brute force)."""
    ps = structure.detect(f"rhode_island_holdem(num_ranks={ranks},num_suits={suits})")
    got = [len(r.types) for r in deals.deals(ps, suits=True)]
    assert got == [1, _orbits(ranks, suits, 1), _orbits(ranks, suits, 2)]
    if (ranks, suits) == (13, 4):
        assert got == [1, 13, 325]  # 13 flop ranks; a turn of the flop's suit (12) or not (13)


@pytest.mark.parametrize("ranks, suits", [(4, 4), (13, 4), (5, 3)])
def test_entries_are_the_suit_orbits_of_board_and_hand(ranks, suits):
    """A round's entries per node (`orbits`) = orbits of (board cards, hand) under suit
    permutations (brute force), and each board's orbit sizes add up to the hands it leaves."""
    ps = structure.detect(f"rhode_island_holdem(num_ranks={ranks},num_suits={suits})")
    tree = range_tree.RangeTree(ps, suits=True)
    got = [lay.orbits.width for lay in tree.rounds]
    assert got == [_orbits(ranks, suits, k + 1) for k in range(3)]
    if (ranks, suits) == (13, 4):
        assert got == [13, 325, 9_997]  # GameShrink's suit symmetry alone (gameshrink.md)
    for lay in tree.rounds:
        hands = np.bincount(lay.orbits.board, weights=lay.orbits.size)
        assert np.array_equal(hands, (lay.deals.remaining > 0).sum(axis=1))


def test_suit_isomorphism_is_refused_where_the_showdown_sees_suits():
    ps = structure.detect("leduc_poker")
    suit_blind = ps.strength
    seeing = dataclasses.replace(ps, strength=lambda h, b: suit_blind(h, b) * 2 + h % 2)
    with pytest.raises(ValueError, match="not symmetric in the suits"):
        deals.deals(seeing, suits=True)


@pytest.mark.parametrize("game", ["leduc_poker", "limit_leduc_poker(num_ranks=3)"])
def test_the_solvers_run_the_range_layout_on_a_public_tree_form(game, monkeypatch):
    """`CFRPlusSolver(form="public_tree")` on a game above `RANGE_MIN_SEQUENCES` runs the range
    layout (lowered here so that a small game qualifies): the explicit solver's iterates,
    policies in the form's numbering."""
    monkeypatch.setattr(range_engine, "RANGE_MIN_SEQUENCES", 0)
    ours = cfr.CFRPlusSolver(game, form="public_tree")
    assert isinstance(ours.engine, range_engine.RangeCFREngine)
    theirs = cfr.CFRPlusSolver(game)
    for _ in range(15):  # CFR+ amplifies rounding tenfold per ten iterations (limit Leduc 3:
        ours.evaluate_and_update_policy()  # 1.1e-12 after 25): the layouts sum in other orders
        theirs.evaluate_and_update_policy()
    for got, want in zip(ours.average_behavioural(), theirs.average_behavioural()):
        np.testing.assert_allclose(got, want, rtol=0, atol=TOL)
    np.testing.assert_allclose(
        ours.average_policy().action_probability_array,
        theirs.average_policy().action_probability_array,
        rtol=0,
        atol=TOL,
    )
    assert abs(ours.exploitability() - theirs.exploitability()) < TOL


@pytest.mark.parametrize(
    "solver_cls", [cfr.CFRPlusSolver, cfr.DCFRSolver, egt.EGTSolver], ids=["cfr+", "dcfr", "egt"]
)
def test_perturbed_lower_bounds_on_the_public_tree_form(solver_cls, monkeypatch):
    """xi-perturbed solvers (every action at least xi: Kroer, Farina & Sandholm 2017's
    perturbed treeplex) on `form="public_tree"` iterate as on the explicit form, above
    `RANGE_MIN_SEQUENCES` too: the range layout has no basis matrices, so the CFR solvers keep
    the sequence-form passes there; their strategies respect the bounds."""
    monkeypatch.setattr(range_engine, "RANGE_MIN_SEQUENCES", 0)
    game, xi = "leduc_poker", 0.1
    ours = solver_cls(game, xi=xi, form="public_tree")
    theirs = solver_cls(game, xi=xi)
    assert isinstance(ours.sequence_form, range_form.PublicTreeSequenceForm)
    assert getattr(ours, "engine", None) is None
    for _ in range(15):
        ours.evaluate_and_update_policy()
        theirs.evaluate_and_update_policy()
    tol = 1e-9 if solver_cls is cfr.DCFRSolver else TOL
    for got, want in zip(ours.average_behavioural(), theirs.average_behavioural()):
        np.testing.assert_allclose(got, want, rtol=0, atol=tol)
    table = ours.average_policy().action_probability_array
    legal = ours.average_policy().legal_actions_mask.astype(bool)
    assert table[legal].min() >= xi - 1e-12
    assert abs(ours.exploitability() - theirs.exploitability()) < tol


def test_the_run_loop_runs_and_measures_the_range_solver():
    """`solver.run` takes the range solver (a `SelfEvaluatingSolver`): its curve is the
    explicit form's evaluation of the lifted average profile."""
    explicit, tree, index = _layouts("leduc_poker", suits=True)
    ours = range_cfr.RangeCFRSolver(tree)
    result = solver_lib.run(ours, 12, checkpoints=[4, 12])
    assert result.stop_reason == "iterations" and result.curve.iterations == (4, 12)
    lifted = evaluate.evaluate_profile(explicit, index.behavioural(ours.average_strategy()))
    assert abs(result.curve.exploitability[-1] - lifted.exploitability) < TOL
    assert abs(result.curve.value[-1] - lifted.on_policy_values[0]) < TOL
    with pytest.raises(ValueError, match="infoset regrets need a sequence form"):
        solver_lib.run(ours, 1, checkpoints=[1], infoset_regrets=True)


def test_a_public_tree_too_large_to_number_is_refused_with_the_way_out():
    """Rhode Island's 52,128,128 information sets (gameshrink.md counts the same) exceed the
    numbering's limit: refused at once, naming the range layout in Python and on the command
    line (`TooManyInfosetsError`, which the command line tells from a game without the
    structure)."""
    from ospiel_ext.algorithms.poker.public_tree import PublicTree, TooManyInfosetsError

    with pytest.raises(
        TooManyInfosetsError,
        match=r"52,128,128 information sets.*range_cfr.for_game.*solve --form=public_tree --suits",
    ):
        PublicTree(structure.detect("rhode_island_holdem"))
    ps = structure.detect("leduc_poker")
    with pytest.raises(ValueError, match="information sets, more than 10"):
        PublicTree(ps, max_infosets=10)
    explicit = sf_lib.for_game("leduc_poker")  # rows: both players' information sets
    assert PublicTree(ps).row_offset[-1] == sum(tp.num_infosets for tp in explicit.treeplexes)


def test_a_signal_ends_the_run_after_the_current_iteration_with_its_result():
    """SIGTERM during a run: the run loop stops after the iteration in progress and returns the
    result so far (a pass that raised would lose it: the script then wrote no JSON)."""
    import os
    import signal
    import threading

    tree = range_tree.RangeTree(structure.detect("rhode_island_holdem(num_ranks=4,num_suits=2)"))
    ours = range_cfr.RangeCFRSolver(tree)
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    timer.start()
    try:
        result = solver_lib.run(ours, 10**6, checkpoints=[1])
    finally:
        timer.cancel()
    assert result.stop_reason == "interrupted" and 0 < result.iterations < 10**6
    assert result.curve.iterations[-1] == ours.iteration == result.iterations


def _stop_after(calls):
    """A stop predicate that holds from its (calls + 1)-th question on."""
    asked = itertools.count()
    return lambda: next(asked) >= calls


def _same_state(a, b):
    for x, y in zip(itertools.chain(*a.current_strategy(), *a.average_strategy()),
                    itertools.chain(*b.current_strategy(), *b.average_strategy())):  # fmt: skip
        assert np.array_equal(x, y)


@pytest.mark.parametrize(
    "config", [cfr_rules.CFR_PLUS, cfr_rules.CFRConfig(alternating_updates=False)],
    ids=["alternating", "simultaneous"],
)  # fmt: skip
@pytest.mark.parametrize("threads", [1, 2])
def test_a_paused_iteration_resumes_to_the_iterates_of_a_run_never_paused(config, threads):
    """`iterate(stop)` leaves the chunks not begun when stop() holds; the solver is `paused`
    (its completed iterations counted), an evaluation meanwhile changes nothing, and the next
    calls give the uninterrupted run's strategies and averages bit for bit. Paused in the first
    pass, in the second (alternating: the chunks of player 1's pass), twice in one iteration."""
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=True)
    chunks = tree.rounds[-1].deals.num_boards  # chunk_values=1: one board per chunk
    straight = range_cfr.RangeCFRSolver(tree, config, threads=threads, chunk_values=1)
    paused = range_cfr.RangeCFRSolver(tree, config, threads=threads, chunk_values=1)
    assert len(paused.walker.chunks) == chunks > 4
    for _ in range(2):
        straight.evaluate_and_update_policy()
        assert paused.iterate(stop=_stop_after(10**9))
    assert not paused.paused and paused.iteration == 2
    stops = [2, chunks + 1, 0] if config.alternating_updates else [2, 1, 0]
    for calls in stops:
        assert not paused.iterate(stop=_stop_after(calls))
        assert paused.paused and paused.iteration == 2
        paused.evaluate_average()
    assert paused.iterate()  # the rest of iteration 3
    assert not paused.paused and paused.iteration == 3
    straight.evaluate_and_update_policy()
    for _ in range(3):
        straight.evaluate_and_update_policy()
        paused.evaluate_and_update_policy()
    assert straight.iteration == paused.iteration == 6
    _same_state(straight, paused)
    assert paused.exploitability() == straight.exploitability()


def test_ctrl_c_pauses_a_long_iteration_and_the_next_run_finishes_it(monkeypatch):
    """SIGINT in the middle of an iteration, with no grace (`interrupts.GRACE_SECONDS` 0, as a
    52-card iteration outlasts it): `run` returns within the iteration, 'interrupted' and
    `paused`, without measuring the average between iterates; a later run goes on to the
    iterates of a run never interrupted."""
    import os
    import signal

    from ospiel_ext.runtime import interrupts

    monkeypatch.setattr(interrupts, "GRACE_SECONDS", 0.0)
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=True)
    straight = range_cfr.RangeCFRSolver(tree, chunk_values=1)
    ours = range_cfr.RangeCFRSolver(tree, chunk_values=1)
    update_chunk = ours._update_chunk
    calls = itertools.count()

    def signalling(*args, **kwargs):  # the signal arrives in the 3rd iteration's first pass
        if next(calls) == 2 * 2 * len(ours.walker.chunks) + 3:
            os.kill(os.getpid(), signal.SIGINT)
        return update_chunk(*args, **kwargs)

    monkeypatch.setattr(ours, "_update_chunk", signalling)
    result = solver_lib.run(ours, 10, checkpoints=range(11))
    assert result.stop_reason == "interrupted" and result.paused
    assert result.iterations == ours.iteration == 2 and ours.paused
    assert result.curve.iterations == (0, 1, 2)  # nothing measured of the paused average
    result = solver_lib.run(ours, 3)
    assert result.stop_reason == "iterations" and not result.paused and ours.iteration == 5
    for _ in range(5):
        straight.evaluate_and_update_policy()
    _same_state(straight, ours)


def test_an_exception_inside_a_pass_leaves_a_solver_that_refuses_to_go_on(monkeypatch):
    """A second Ctrl-C (KeyboardInterrupt) in a pass: which chunks were updated is not known,
    so the next iteration is refused rather than updating some of them twice."""
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=True)
    ours = range_cfr.RangeCFRSolver(tree, chunk_values=1)
    update_chunk, calls = ours._update_chunk, itertools.count()

    def failing(*args, **kwargs):
        if next(calls) == 3:
            raise KeyboardInterrupt
        return update_chunk(*args, **kwargs)

    monkeypatch.setattr(ours, "_update_chunk", failing)
    with pytest.raises(KeyboardInterrupt):
        ours.evaluate_and_update_policy()
    with pytest.raises(RuntimeError, match=r"part way.*start a new solver"):
        ours.evaluate_and_update_policy()


def test_ctrl_c_gives_up_a_long_measurement_and_the_run_keeps_its_result(monkeypatch):
    """SIGINT while the run measures the average (an exact evaluation, 30 s at 52 cards), no
    grace: the evaluation raises `Interrupted` between chunks and the run returns at once,
    'interrupted', without that row; outside a run the evaluation raises."""
    import os
    import signal

    from ospiel_ext.runtime import interrupts

    monkeypatch.setattr(interrupts, "GRACE_SECONDS", 0.0)
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=True)
    ours = range_cfr.RangeCFRSolver(tree, chunk_values=1)
    values = ours.walker.chunk_values
    calls = itertools.count()

    def signalling(*args, **kwargs):  # 3 calls per chunk: the measurement at iteration 2
        if next(calls) == 2 * 2 * len(ours.walker.chunks) + 2 * 3 * len(ours.walker.chunks) + 4:
            os.kill(os.getpid(), signal.SIGINT)
        return values(*args, **kwargs)

    monkeypatch.setattr(ours.walker, "chunk_values", signalling)
    result = solver_lib.run(ours, 10, checkpoints=range(11))
    assert result.stop_reason == "interrupted" and not result.paused
    assert result.iterations == ours.iteration == 2 and result.curve.iterations == (0, 1)
    with interrupts.graceful():
        os.kill(os.getpid(), signal.SIGINT)
        with pytest.raises(interrupts.Interrupted):
            ours.evaluate_average()


@pytest.mark.parametrize(
    "config",
    [cfr_rules.CFR_PLUS, cfr_rules.DCFR, cfr_rules.CFRConfig(alternating_updates=False)],
    ids=["cfr+", "dcfr", "simultaneous"],
)
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_threads_and_chunks_give_the_same_iterates_bit_for_bit(config, dtype, monkeypatch):
    """Each block of boards, and each chunk of the last round's, is computed by the same
    operations as in one block, so the iterates, averages and exploitabilities are equal
    exactly, with suits (whose round before the last deal averages hand orbits per block) and
    without: 1, 2 and 3 threads, chunks of one board on 1 and 2 threads, and the last round's
    reaches kept whole or recomputed chunk by chunk (`KEEP_LAST_REACHES`)."""
    game = RI_3X3
    for suits in (False, True):
        tree = range_tree.RangeTree(structure.detect(game), suits=suits)
        cases = [(1, None, True), (2, None, True), (3, None, True), (1, 1, True), (2, 1, True),
                 (1, 1, False), (2, 1, False), (2, None, False)]  # fmt: skip
        solvers = []
        for n, chunk, keep in cases:
            monkeypatch.setattr(range_cfr, "KEEP_LAST_REACHES", 10**9 if keep else 0)
            solvers.append(
                range_cfr.RangeCFRSolver(tree, config, dtype=dtype, threads=n, chunk_values=chunk)
            )
        assert [s._last_reach is not None for s in solvers] == [c[2] for c in cases]
        assert [len(s.walker.blocks[-1]) for s in solvers] == [1, 2, 3, 1, 2, 1, 2, 2]
        boards = tree.rounds[-1].deals.num_boards
        assert [len(s.walker.chunks) for s in solvers] == [1, 2, 3, *[boards] * 4, 2]
        for _ in range(8):
            for s in solvers:
                s.evaluate_and_update_policy()
        one, *more = solvers
        for s in more:
            for a, b in zip(itertools.chain(*one.current_strategy()),
                            itertools.chain(*s.current_strategy())):  # fmt: skip
                assert np.array_equal(a, b)
            for a, b in zip(itertools.chain(*one.average_strategy()),
                            itertools.chain(*s.average_strategy())):  # fmt: skip
                assert np.array_equal(a, b)
            assert s.exploitability() == one.exploitability()


@pytest.mark.parametrize(
    "game, suits", [("kuhn_poker", False), ("leduc_poker", True), (RI_3X3, True), (RI_3X3, False)]
)
@pytest.mark.parametrize("threads", [2, 3, 7])
def test_blocks_cut_each_round_into_runs_of_whole_boards_near_equal_in_entries(
    game, suits, threads
):
    tree = range_tree.RangeTree(structure.detect(game), suits=suits)
    for lay in tree.rounds:
        blocks = lay.orbits.blocks(threads)
        assert len(blocks) == min(lay.deals.num_boards, threads)
        covered = np.concatenate([np.arange(lay.orbits.width)[b] for b in blocks])
        assert np.array_equal(covered, np.arange(lay.orbits.width))
        boards = [len(set(lay.orbits.board[b].tolist())) for b in blocks]
        assert sum(boards) == lay.deals.num_boards  # no board cut in two
        sizes = [b.stop - b.start for b in blocks]
        widest = max(seg.width for seg in lay.orbits.segments)
        assert max(sizes) - min(sizes) <= 2 * widest  # each cut within a board of its share


def test_row_runs_split_rows_where_they_stop_being_consecutive():
    assert range_tree.row_runs(np.array([5, 8, 9, 14, 15, 16, 19])) == (
        (slice(5, 6), slice(0, 1)),
        (slice(8, 10), slice(1, 3)),
        (slice(14, 17), slice(3, 6)),
        (slice(19, 20), slice(6, 7)),
    )
    assert range_tree.row_runs(np.array([], dtype=np.int64)) == ()


@pytest.mark.parametrize("game", ["leduc_poker", RI_3X3])
def test_fold_runs_are_the_folds_in_order(game):
    for lay in range_tree.RangeTree(structure.detect(game), suits=True).rounds:
        rows = [np.arange(r.start, r.stop) for r, _ in lay.fold_runs]
        positions = [np.arange(k.start, k.stop) for _, k in lay.fold_runs]
        assert np.array_equal(np.concatenate([[], *rows]), lay.folds)
        assert np.array_equal(np.concatenate([[], *positions]), np.arange(len(lay.folds)))


def test_an_invalid_dcfr_discount_is_refused_by_the_solver_itself():
    """As the sequence-form drop-ins refuse it (`cfr_rules.check_discount`), whether the
    solver is built by `for_game` or directly on a tree."""
    bad = cfr_rules.CFRConfig(linear_averaging=True, discount=(1.5, 0.0, -1.0))
    tree = range_tree.RangeTree(structure.detect("kuhn_poker"))
    with pytest.raises(ValueError, match=r"kuhn_poker.*gamma must be >= 0"):
        range_cfr.RangeCFRSolver(tree, bad)
    with pytest.raises(ValueError, match=r"kuhn_poker.*gamma must be >= 0"):
        range_cfr.for_game("kuhn_poker", bad)


def test_fewer_than_one_thread_is_refused():
    tree = range_tree.RangeTree(structure.detect("kuhn_poker"))
    with pytest.raises(ValueError, match=r"kuhn_poker.*threads must be at least 1"):
        range_cfr.RangeCFRSolver(tree, threads=0)


def test_reach_buffers_are_rewritten_whole():
    """`reaches` into an earlier result (garbage-filled) equals a fresh pass."""
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    walker = range_walker.RangeWalker(tree)
    rng = np.random.default_rng(1)
    strategy = [[rng.random(s.shape) for s in per_round] for per_round in walker.uniform()]
    for p in (0, 1):
        fresh = walker.reaches(p, strategy)
        reused = walker.reaches(p, strategy, out=[np.full_like(r, np.nan) for r in fresh])
        for a, b in zip(fresh, reused):
            assert np.array_equal(a, b)


@pytest.mark.parametrize("suits", [False, True])
def test_expand_and_contract_move_entries_between_the_layouts(suits):
    """contract(expand(x)) is x; expand gives every hand of an orbit its entry, and the fill
    to the hands a board excludes (a uniform strategy by default)."""
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=suits)
    rng = np.random.default_rng(3)
    entries = [
        [rng.random(s.shape) for s in per_round]
        for per_round in range_walker.RangeWalker(tree).uniform()
    ]
    per_hand = tree.expand(entries)
    for lay, mine, theirs, back in zip(tree.rounds, entries, per_hand, tree.contract(per_hand)):
        index = lay.orbits.index
        for a, b, c in zip(mine, theirs, back):
            assert np.array_equal(c, a)
            assert np.array_equal(b[:, :, index >= 0], a[:, :, index[index >= 0]])
            assert np.all(b[:, :, index < 0] == 1.0 / a.shape[1])
        if suits and lay.round == 2:
            assert (index < 0).any() and len(set(index[index >= 0].tolist())) < (index >= 0).sum()


def test_a_threaded_solver_shuts_its_pool_down():
    """`RangeCFRSolver(threads=2)` owns a thread pool: leaving its `with` block (or `close()`)
    ends the pool's threads, and a walker dropped unclosed ends them when collected."""
    tree = range_tree.RangeTree(structure.detect("leduc_poker"))
    before = threading.active_count()
    with range_cfr.RangeCFRSolver(tree, threads=2) as solver:
        solver.evaluate_and_update_policy()
        assert threading.active_count() > before  # the passes ran on the pool
    assert threading.active_count() == before
    solver.evaluate_and_update_policy()  # closed: the passes run on this thread
    assert threading.active_count() == before
    walker = range_walker.RangeWalker(tree, threads=2)
    walker.values(0, walker.reaches(1, walker.uniform()), walker.uniform())
    assert threading.active_count() > before
    del walker
    gc.collect()
    assert threading.active_count() == before


@pytest.mark.parametrize(
    "config, dtype, sample",
    [
        (cfr_rules.CFR_PLUS, "float64", None),
        (cfr_rules.with_tie_rule(cfr_rules.DCFR), "float32", None),  # with the tie rule's sums
        (cfr_rules.DCFR, "float64", 0.5),  # public chance sampling: the draws go on alike
    ],
    ids=["cfr+", "dcfr-ties-float32", "dcfr-sampled"],
)
def test_a_restored_state_iterates_on_bit_for_bit(tmp_path, config, dtype, sample):
    """4 + 4 iterations through an .npz of `state` (a new solver restored from it) equal 8
    in one solver: current and average strategies, exactly."""
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=True)

    def solver():
        return range_cfr.RangeCFRSolver(
            tree, config, dtype=dtype, chunk_values=1, sample_boards=sample, seed=3
        )

    straight, first = solver(), solver()
    for _ in range(4):
        straight.evaluate_and_update_policy()
        first.evaluate_and_update_policy()
    np.savez(tmp_path / "state.npz", **first.state())
    resumed = solver()
    with np.load(tmp_path / "state.npz") as kept:
        resumed.restore(kept)
    assert resumed.iteration == 4
    for _ in range(4):
        straight.evaluate_and_update_policy()
        resumed.evaluate_and_update_policy()

    def arrays(s):
        return list(itertools.chain(*s.current_strategy(), *s.average_strategy()))

    assert all(np.array_equal(a, b) for a, b in zip(arrays(straight), arrays(resumed), strict=True))


def test_a_state_of_other_settings_is_refused():
    tree = range_tree.RangeTree(structure.detect(RI_3X3), suits=True)
    state = range_cfr.RangeCFRSolver(tree, cfr_rules.CFR_PLUS).state()
    with pytest.raises(ValueError, match=r"rhode_island_holdem.*config"):
        range_cfr.RangeCFRSolver(tree, cfr_rules.DCFR).restore(state)
    with pytest.raises(ValueError, match=r"rhode_island_holdem.*dtype"):
        range_cfr.RangeCFRSolver(tree, cfr_rules.CFR_PLUS, dtype="float32").restore(state)
    with pytest.raises(ValueError, match=r"rhode_island_holdem.*sample_boards"):
        range_cfr.RangeCFRSolver(tree, cfr_rules.CFR_PLUS, sample_boards=0.5).restore(state)
    other = range_tree.RangeTree(structure.detect(RI_3X3), suits=False)
    with pytest.raises(ValueError, match=r"rhode_island_holdem.*layout"):
        range_cfr.RangeCFRSolver(other, cfr_rules.CFR_PLUS).restore(state)
