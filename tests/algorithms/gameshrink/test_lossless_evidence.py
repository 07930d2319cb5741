"""Which GameShrink abstractions are lossless (Gilpin & Sandholm, "Finding Equilibria in Large
Sequential Games of Imperfect Information", ACM EC 2006, Theorem 2): an independent check of
Γ_f by OpenSpiel and scipy alone, single merges of the paper's transformation, the lossless
filter lifted into the identity filter's Γ (the original game), and the published Rhode
Island abstraction."""

import itertools

import numpy as np
import pytest
from helpers import LEDUC_VALUE

from ospiel_ext import evaluate, lp
from ospiel_ext.algorithms.gameshrink import abstract_game as ag
from ospiel_ext.algorithms.gameshrink import descriptions, lifting, signal_tree
from ospiel_ext.algorithms.gameshrink import shrink as gs

from . import openspiel_reference

RI_SMALL = "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"
RI_3_SUITS = "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)"


def _our_lp(abstraction):
    game = ag.AbstractGame.of(abstraction)
    return game, lp.solve(game.sequence_form)


def test_independent_check_finds_the_paper_filter_lossy_in_leduc():
    """Γ_f of the paper's transformation, solved without our sequence form, abstract game or
    LP (OpenSpiel's sequence form, scipy's LP): its value is ours (unique, to 1e-9) and is not
    Leduc's; its LP equilibrium, lifted, is exploitable in Leduc by OpenSpiel's measure."""
    paper = gs.gameshrink("leduc_poker", transformation="paper")
    check = openspiel_reference.check(paper)
    _, ours = _our_lp(paper)
    assert check.value_player_0_lp == pytest.approx(check.value_player_1_lp, abs=1e-9)
    assert check.value_player_0_lp == pytest.approx(ours.value, abs=1e-9)
    assert abs(check.value_player_0_lp - LEDUC_VALUE) > 0.01  # -0.0687 against -0.0856
    assert check.lifted_exploitability > 0.1


def test_independent_check_finds_the_coarsest_filter_lossless_in_leduc():
    check = openspiel_reference.check(gs.gameshrink("leduc_poker"))
    assert check.value_player_0_lp == pytest.approx(LEDUC_VALUE, abs=1e-7)
    assert check.value_player_1_lp == pytest.approx(LEDUC_VALUE, abs=1e-7)
    assert check.lifted_exploitability <= 1e-9


def test_the_paper_filters_single_merges_in_leduc_each_move_the_value(leduc):
    """The paper's transformation joins two pairs of Leduc's lossless round-2 classes: (K, public
    J) with (K, public Q), and (J, public Q) with (J, public K). Either join alone moves Γ_f's
    value away from Leduc's (so neither is lossless); the first is cross-checked by the
    independent OpenSpiel / scipy solve."""
    paper = gs.gameshrink("leduc_poker", transformation="paper")
    joins = gs.sibling_joins(leduc, paper)
    j, q, k = 0, 2, 4  # OpenSpiel Leduc: card // 2 is J, Q, K
    expected = {
        tuple(sorted((leduc.class_of([k, -1, j], 0, 1), leduc.class_of([k, -1, q], 0, 1)))),
        tuple(sorted((leduc.class_of([j, -1, q], 0, 1), leduc.class_of([j, -1, k], 0, 1)))),
    }
    assert {(a, b) for r, a, b in joins} == expected and {r for r, _, _ in joins} == {1}
    for r, a, b in joins:
        joined = gs.join_classes(leduc, r, a, b)
        assert joined.num_classes == [3, 8]
        _, solution = _our_lp(joined)
        assert abs(solution.value - LEDUC_VALUE) > 1e-3
    check = openspiel_reference.check(gs.join_classes(leduc, *joins[0]))
    assert check.value_player_0_lp == pytest.approx(
        _our_lp(gs.join_classes(leduc, *joins[0]))[1].value, abs=1e-9
    )
    assert abs(check.value_player_0_lp - LEDUC_VALUE) > 1e-3


def test_join_classes_refuses_non_siblings(leduc):
    """Round 2 classes under different round 1 classes: joined, a player's round 2 class would
    no longer tell its round 1 class."""
    a, b = leduc.class_of([0, -1, 2], 0, 1), leduc.class_of([2, -1, 0], 0, 1)  # J | Q, Q | J
    with pytest.raises(ValueError, match="not two sibling classes"):
        gs.join_classes(leduc, 1, a, b)


def _suit_symmetry_classes(num_ranks: int, num_suits: int) -> list[int]:
    """Rhode Island views (own card, flop, turn) per round, up to a permutation of suits:
    brute force over ordered card tuples, suits relabelled in order of first appearance."""
    out = []
    for k in (1, 2, 3):
        seen = set()
        for cards in itertools.permutations(range(num_ranks * num_suits), k):
            relabel: dict[int, int] = {}
            seen.add(
                tuple(
                    (c // num_suits, relabel.setdefault(c % num_suits, len(relabel))) for c in cards
                )
            )
        out.append(len(seen))
    return out


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL, RI_3_SUITS])
def test_lossless_equilibrium_lifted_into_the_identity_filter_is_exact(shrunk, game):
    """The coarsest filter's Γ_f LP equilibrium, lifted into the identity filter's Γ (the
    original game, its sequence form counted from the signal tree), has exploitability <= 1e-12
    there and the same value. With 3 suits the filter merges views the suit symmetry keeps
    apart (69 classes against 87 in round 3), so this checks more than suit isomorphism."""
    a = shrunk.abstraction(game)
    abstract, solution = _our_lp(a)
    identity = ag.AbstractGame.of(gs.identity_filter(a))
    lifted = lifting.lift_to_finer(abstract, solution.behavioural, identity)
    result = evaluate.evaluate_profile(identity.sequence_form, lifted)
    assert result.exploitability <= 1e-12
    assert result.on_policy_values[0] == pytest.approx(solution.value, abs=1e-12)
    if game == RI_3_SUITS:
        assert _suit_symmetry_classes(3, 3) == [3, 15, 87]
        assert a.num_classes == [3, 15, 69]


@pytest.mark.parametrize(
    "game",
    ["leduc_poker", pytest.param(RI_SMALL, marks=pytest.mark.slow)],  # RI: ~3 s
)
def test_lifting_into_the_identity_filter_is_lifting_into_the_game(shrunk, game):
    """The exploitability in the identity filter's Γ of `lift_to_finer`'s strategy is the
    exploitability of `LiftedPolicy` (asked per OpenSpiel state) in the game compiled from
    OpenSpiel's states, for a lossy filter (the paper's: exploitable) as for the lossless one.
    The compiled game's evaluation is OpenSpiel's (tests/test_evaluate.py) and, unlike
    `pyspiel.exploitability`, does not call back into a Python game's states (RI: 5 s)."""
    for a in (gs.gameshrink(game, transformation="paper"), shrunk.abstraction(game)):
        abstract, solution = _our_lp(a)
        identity = ag.AbstractGame.of(gs.identity_filter(a))
        lifted = lifting.lift_to_finer(abstract, solution.behavioural, identity)
        in_identity = evaluate.evaluate_profile(identity.sequence_form, lifted).exploitability
        tabular = lifting.LiftedPolicy(abstract, solution.behavioural).to_tabular()
        in_game = evaluate.exploitability(a.og.game, tabular)
        assert in_identity == pytest.approx(in_game, abs=1e-9)


def test_lift_to_finer_refuses_a_coarser_filter(leduc):
    """The paper's filter does not refine the coarsest one (it is coarser)."""
    paper = ag.AbstractGame.of(gs.gameshrink("leduc_poker", transformation="paper"))
    coarsest, solution = _our_lp(leduc)
    with pytest.raises(ValueError, match="does not refine"):
        lifting.lift_to_finer(coarsest, solution.behavioural, paper)


def test_payoff_zero_entries_are_the_stored_zeros(shrunk):
    for game in ("leduc_poker", RI_SMALL):
        abstract = shrunk.abstract_game(game)
        payoff = abstract.sequence_form.payoff.tocsr()
        payoff.sum_duplicates()
        size = abstract.size()
        assert size["payoff_zero_entries"] == int(np.count_nonzero(payoff.data == 0)) > 0


@pytest.mark.slow
def test_the_paper_filter_reproduces_the_published_rhode_island_lp():
    """Gilpin & Sandholm's Rhode Island Hold'em LP after GameShrink: 1,237,238 rows and
    columns, 50,428,638 nonzeros. The paper's transformation of the game with A-2-3 straights
    (its default) has exactly that many rows and columns, and that many nonzeros once the
    payoff entries that are 0 are left out (about 1 GB, seconds)."""
    size = ag.AbstractGame.of(gs.gameshrink("rhode_island_holdem", transformation="paper")).size()
    assert size["lp_rows"] == size["lp_columns"] == 1_237_238
    assert size["lp_nonzeros"] - size["payoff_zero_entries"] == 50_428_638


def test_the_signal_trees_showdowns_follow_the_games_ace_low():
    """Every deal of a 4-rank Rhode Island: the signal tree's showdown result is the sign of
    player 0's return in the game when both players check down, under either rule; the rules
    differ exactly on deals where a player holds A-2-3 (ranks 3, 0, 1 of 4)."""
    results, deals = {}, None
    for ace_low in ("true", "false"):
        game = f"rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1,ace_low={ace_low})"
        st = signal_tree.SignalTree.build(descriptions.describe(game))
        returns = []
        for deal in st.deals.tolist():
            state = st.og.game.new_initial_state()
            for card in deal:
                state.apply_action(card)
                while not (state.is_chance_node() or state.is_terminal()):
                    state.apply_action(1)  # check
            returns.append(state.returns()[0])
        np.testing.assert_array_equal(st.result, np.sign(returns))
        results[ace_low], deals = st.result, st.deals
    differ = np.flatnonzero(results["true"] != results["false"])
    assert len(differ) > 0
    for d in deals[differ].tolist():
        hands = [sorted(c // 2 for c in (d[p], d[2], d[3])) for p in (0, 1)]
        assert [0, 1, 3] in hands
