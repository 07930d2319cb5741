"""Regret ties: the tie rule of `cfr_rules`, and the layouts' iterates under it.

A cumulative regret that is 0 in exact arithmetic comes out as 0 or a few units of rounding
depending on the order of the sums; without a rule the explicit form, the public-tree form and
the range layout then played different actions (uniform against pure) from iteration 1 of
Rhode Island 3x2 and 3 of 3x3. With it they agree to 1e-9 until the iteration's own
sensitivity to rounding has grown the differences there (`cfr_rules`, measured: CFR+ and DCFR
on Rhode Island reach 1e-9 after 40-70 iterations; a one-ulp perturbation of the payoffs
does the same within one form: benchmarks/perf/cfr_rounding.py), and no iteration jumps as a
tie taken differently does.
"""

import numpy as np
import pytest

from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr_rules, cfr_variants
from ospiel_ext.algorithms.poker import range_cfr, range_form, range_rows, range_tree, range_walker
from ospiel_ext.algorithms.poker.range_numbering import SequenceIndex

RI_3X2 = "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"
RI_3X3 = "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)"
# one card each from a deck of four ranks, one board card, limit betting, one raise a round;
# its range layout parted from the explicit form at iteration 2 (CFR, DCFR) before the rule
UNIVERSAL = (
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
    "firstPlayer=1 1,maxRaises=1 1,numSuits=1,numRanks=4,numHoleCards=1,numBoardCards=0 1)"
)
ITERATIONS = 200
# Iterations after which the layouts' current and average strategies still agree to 1e-9, with
# a margin of about 30 on the measured differences (the iteration amplifies rounding, see the
# module docstring): the largest differences measured at these counts are in the comments.
AGREE_TO = {
    (RI_3X2, "cfr"): 60,  # 1.1e-11
    (RI_3X2, "cfr_plus"): 40,  # 5.4e-12
    (RI_3X2, "dcfr"): 30,  # 3.1e-11
    (RI_3X3, "cfr"): 60,  # 1.8e-11
    (RI_3X3, "cfr_plus"): 35,  # 2.8e-11
    (RI_3X3, "dcfr"): 20,  # 1.9e-11
    (UNIVERSAL, "cfr"): 200,  # 6.8e-12
    (UNIVERSAL, "cfr_plus"): 200,  # 2.3e-14
    (UNIVERSAL, "dcfr"): 90,  # 1.3e-11
}
# A tie taken differently moves a strategy by O(1) in one iteration; rounding grows the
# differences by at most 15x an iteration on these games (31x for LCFR on Leduc) while they are
# below 1e-6 (beyond, the runs are apart and may take genuine near-ties differently).
JUMP, FLOOR, CLOSE = 1e3, 1e-12, 1e-6


@pytest.fixture(scope="module")
def layouts():
    """Per game: the explicit form, and the public-tree form with its range layout.

    Kept for the module: the explicit form of Rhode Island 3x3 takes seconds to compile.
    """
    cache = {}

    def get(game):
        if game not in cache:
            public = range_form.for_game(game)
            tree = range_tree.RangeTree(public.public_tree.structure)
            cache[game] = (
                sf_lib.for_game(game),
                public,
                tree,
                SequenceIndex(public.public_tree, tree),
            )
        return cache[game]

    return get


def _largest_difference(a, b):
    """Over both players' behavioural strategies."""
    return max(float(np.abs(x - y).max()) for x, y in zip(a, b))


@pytest.mark.parametrize(
    "game",
    [
        pytest.param(RI_3X2, id="ri3x2", marks=pytest.mark.slow),  # 1-2 s each
        pytest.param(RI_3X3, id="ri3x3", marks=pytest.mark.slow),  # 2-4 s, its explicit form 8 s
        pytest.param(UNIVERSAL, id="universal"),
    ],
)
@pytest.mark.parametrize("variant", ["cfr", "cfr_plus", "dcfr"])
def test_layouts_take_ties_alike_and_agree_to_1e9(layouts, game, variant):
    """Explicit form against the public-tree form's sequence-form passes and the range layout.

    Over 200 iterations: current and average behavioural strategies agree to 1e-9 up to
    `AGREE_TO`, and no iteration jumps while they are within 1e-6.
    """
    explicit, public, tree, index = layouts(game)
    config = cfr_rules.with_tie_rule(cfr_rules.PRESETS[variant])
    reference = cfr_variants.CFRVariantSolver(explicit, config)
    others = {
        "public_tree": cfr_variants.CFRVariantSolver(public, config),
        "range": range_cfr.RangeCFRSolver(tree, config),
    }
    previous = dict.fromkeys(others, 0.0)
    for t in range(1, ITERATIONS + 1):
        reference.evaluate_and_update_policy()
        want = (reference.current_behavioural(), reference.average_behavioural())
        for name, solver in others.items():
            solver.evaluate_and_update_policy()
            if name == "range":
                got = (
                    index.behavioural(solver.current_strategy()),
                    index.behavioural(solver.average_strategy()),
                )
            else:
                got = (solver.current_behavioural(), solver.average_behavioural())
            d = max(_largest_difference(g, w) for g, w in zip(got, want))
            if t <= AGREE_TO[game, variant]:
                assert d <= 1e-9, f"{name}: {d:.3g} apart at iteration {t}"
            if previous[name] < CLOSE:
                assert d <= JUMP * max(previous[name], FLOOR), (
                    f"{name}: jumped from {previous[name]:.3g} to {d:.3g} at iteration {t}"
                )
            previous[name] = d


def _kuhn_treeplex():
    return sf_lib.for_game("kuhn_poker").treeplexes[0]


def test_a_regret_within_the_tolerance_counts_as_none():
    """Both engines' regret matching: +tol/2 plays uniformly, 100 tol plays the action."""
    tol = 1e-10
    tp = _kuhn_treeplex()  # every infoset has two actions
    s = int(tp.seq_start[0])
    cases = [  # (regrets of the infoset, expected strategy)
        ((tol / 2, 0.0), (0.5, 0.5)),
        ((tol / 2, -1.0), (0.5, 0.5)),
        ((tol, 0.0), (0.5, 0.5)),  # at the tolerance: still none
        ((100 * tol, 0.0), (1.0, 0.0)),
        ((100 * tol, tol / 2), (1.0, 0.0)),  # the tie's share is 0, not 1/201
        ((100 * tol, 300 * tol), (0.25, 0.75)),
    ]
    for regrets, expected in cases:
        r = np.zeros(tp.num_sequences)
        r[s : s + 2] = regrets
        b = cfr_variants.regret_matching(tp, r, np.full(tp.num_sequences, tol))
        np.testing.assert_allclose(b[s : s + 2], expected, rtol=1e-12, atol=0)
        for dtype, nonnegative in [(np.float64, False), (np.float32, False), (np.float64, True)]:
            if nonnegative and min(regrets) < 0:
                continue
            arr = np.array(regrets, dtype=dtype).reshape(1, 2, 1)
            got = range_rows.regret_matching(arr, nonnegative=nonnegative, tol=dtype(tol))
            np.testing.assert_allclose(got.ravel(), expected, rtol=1e-7)
            assert not np.signbit(got).any()  # no -0.0
    r = np.zeros(tp.num_sequences)
    r[s] = tol / 2  # without a tolerance, the tie's rounding picks an action
    np.testing.assert_array_equal(cfr_variants.regret_matching(tp, r)[s : s + 2], (1.0, 0.0))


def test_positive_regrets_keep_the_regrets_above_the_tolerance_per_entry():
    regrets = np.array([[3.0, -2.0, 0.5, 1e-3]])
    tol = np.array([1.0, 1.0, 0.1, 1e-2])
    np.testing.assert_array_equal(
        cfr_rules.positive_regrets(regrets, tol, np.empty_like(regrets)), [[3.0, 0.0, 0.5, 0.0]]
    )
    np.testing.assert_array_equal(  # in place, and without a tolerance the plain positive part
        cfr_rules.positive_regrets(regrets, 0.0, regrets), [[3.0, 0.0, 0.5, 1e-3]]
    )


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_the_tolerance_is_ulps_of_the_regrets_bound(dtype):
    reach = np.array([0.5, 0.01, 0.0])
    got = cfr_rules.tie_tolerance(reach, 13.0, dtype)
    assert got.dtype == np.dtype(dtype)
    want = cfr_rules.TIE_ULPS * np.finfo(dtype).eps * 13.0 * reach
    np.testing.assert_allclose(got, want, rtol=1e-6)


@pytest.mark.parametrize("suits", [False, True])
@pytest.mark.parametrize("game", ["limit_leduc_poker(num_ranks=3)", RI_3X2])
def test_range_opponent_reach_is_the_sequence_forms(game, suits):
    """The range layout's opponent-and-chance reach per entry is the explicit form's
    `opponent_reach`: of a random profile without suits, of the uniform one with them."""
    explicit, public = sf_lib.for_game(game), range_form.for_game(game)
    tree = range_tree.RangeTree(public.public_tree.structure, suits=suits)
    index = SequenceIndex(public.public_tree, tree)
    walker = range_walker.RangeWalker(tree)
    rng = np.random.default_rng(0)
    profile = []
    for tp in explicit.treeplexes:
        b = tp.uniform.copy()
        if not suits:  # a suit-isomorphic tree holds one strategy per suit orbit
            b[1:] = rng.random(tp.num_sequences - 1) ** 3
            b[1:] /= np.repeat(tp.segment_sum(b), tp.num_actions)
        profile.append(b)
    arrays = tree.contract(index.to_arrays(profile))
    for p, tp in enumerate(explicit.treeplexes):
        rho = walker.reaches(1 - p, arrays)
        per_entry = [
            [
                np.broadcast_to(
                    range_rows.opponent_reach(lay, rho[r][g.rows], slice(None))[:, None],
                    (len(g.nodes), g.num_actions, lay.shape[1]),
                )
                if g.player == p
                else np.zeros((len(g.nodes), g.num_actions, lay.shape[1]))
                for g in lay.groups
            ]
            for r, lay in enumerate(tree.rounds)
        ]
        plan = explicit.treeplexes[1 - p].realization_plan(profile[1 - p])
        want = tp.spread(explicit.opponent_reach(p, plan))
        got = index.to_sequences(tree.expand(per_entry, fill=0.0), p)
        np.testing.assert_allclose(got[1:], want[1:], rtol=1e-12, atol=1e-15)
