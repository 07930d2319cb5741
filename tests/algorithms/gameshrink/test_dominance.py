"""Iterated elimination of weakly dominated terminal sequences: Kuhn worked by hand, and on
every game an equilibrium of the reduced game is one of the original (OpenSpiel's
exploitability) with the same value."""

import numpy as np
import pyspiel
import pytest
import scipy.sparse as sp
from helpers import KUHN_VALUE
from open_spiel.python.algorithms import exploitability

from ospiel_ext import lp, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms.gameshrink import dominance
from ospiel_ext.constraints import LinearConstraints


def _sequence(sf, player, key, action):
    tp = sf.treeplexes[player]
    i = sf.infoset_keys(player).index(key)
    return int(tp.seq_start[i] + action)


def test_kuhn_eliminations_worked_by_hand():
    """Facing a bet with the king, folding is dominated by calling; with the jack, calling by
    folding - for player 1 after a bet and for player 0 after check-bet. Nothing else is
    dominated pointwise: Q's call wins against J and loses against K, and the other terminal
    siblings (player 1's check / bet after a check) pay through different player-0 sequences."""
    sf = sf_lib.for_game("kuhn_poker")
    result = dominance.iterated_dominance(sf)
    expected = [
        {_sequence(sf, 0, "0pb", 1), _sequence(sf, 0, "2pb", 0)},  # call with J, fold with K
        {_sequence(sf, 1, "0b", 1), _sequence(sf, 1, "2b", 0)},
    ]
    for p in (0, 1):
        assert set(np.flatnonzero(~result.alive[p])) == expected[p]
    assert result.eliminated == (2, 2)
    assert result.eliminated_per_round == ((2, 2), (0, 0))


def test_terminal_sequences_of_kuhn():
    sf = sf_lib.for_game("kuhn_poker")
    t0 = dominance.terminal_sequences(sf.treeplexes[0])
    # player 0: the first bet and both answers to check-bet are terminal, the first check is not
    for card in "012":
        assert t0[_sequence(sf, 0, card, 1)] and not t0[_sequence(sf, 0, card, 0)]
        assert t0[_sequence(sf, 0, card + "pb", 0)] and t0[_sequence(sf, 0, card + "pb", 1)]
    assert dominance.terminal_sequences(sf.treeplexes[1])[1:].all()  # player 1 moves once


def _reduced_lp(sf, alive):
    """Player 0's LP with the eliminated sequences at 0: player 1's dropped from the LP,
    player 0's fixed by -x_sigma >= 0."""
    gone = np.flatnonzero(~alive[0])
    rows = sp.csr_matrix(
        (-np.ones(len(gone)), (np.arange(len(gone)), gone)),
        shape=(len(gone), sf.treeplexes[0].num_sequences),
    )
    return lp.solve(
        sf,
        constraints=lp.LPConstraints(own=LinearConstraints(rows, np.zeros(len(gone)))),
        excluded_opponent_sequences=~alive[1],
    )


@pytest.mark.parametrize(
    "game",
    ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=4)",
     "limit_leduc_poker(num_ranks=5,max_raises=2)"],
)  # fmt: skip
def test_reduced_game_keeps_the_value_and_an_equilibrium(game):
    sf = sf_lib.for_game(game)
    result = dominance.iterated_dominance(sf)
    full = lp.solve(sf)
    reduced = _reduced_lp(sf, result.alive)
    assert reduced.value == pytest.approx(full.value, abs=1e-9)
    for p in (0, 1):
        assert np.all(reduced.plans[p][~result.alive[p]] <= 1e-12)
    policy = policies.layout(sf).to_tabular(reduced.behavioural)
    assert exploitability.exploitability(pyspiel.load_game(game), policy) <= 1e-9
    if game == "kuhn_poker":
        assert full.value == pytest.approx(KUHN_VALUE, abs=1e-12)
    size = result.lp_size(sf)
    assert (
        size["lp_rows"]
        == lp.lp_size(
            [tp.num_infosets for tp in sf.treeplexes],
            [tp.num_sequences for tp in sf.treeplexes],
            sf.payoff.nnz,
        )["lp_rows"]
        - result.eliminated[1]
    )
