"""Iterated elimination of weakly dominated terminal sequences on a sequence form.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information"
(ACM EC 2006), in their Rhode Island Hold'em result (introduction), shrink the sequence-form
LP further by iterated elimination of dominated strategies after GameShrink; the paper does
not say which dominance test they used. Ours is one that is cheap on the sparse payoff matrix and
sound for any two-player zero-sum sequence form:

A sequence sigma of player p is *terminal* when no information set of p lies below it (every
history after sigma ends before p moves again), so p's payoff through sigma against an opponent
plan y is exactly x_sigma (A y)_sigma (player 0; -(A^T x)_tau for player 1). A terminal sequence
sigma is weakly dominated by a terminal sibling sigma' (same information set) when
A[sigma', tau] >= A[sigma, tau] for every opponent sequence tau still alive (player 1:
A[rho, tau'] <= A[rho, tau] for every player-0 sequence rho still alive): moving sigma's mass to
sigma' never lowers p's payoff against any opponent plan over the surviving sequences. Among
equal rows the first survives, so every information set keeps at least one sequence. Each
round eliminates the dominated sequences of both players; eliminating one player's sequences
restricts the other's comparisons, so rounds repeat until nothing changes.

Soundness: each elimination keeps the game value, and an equilibrium of the reduced game (the
eliminated sequences at 0) is an equilibrium of the original (tested with OpenSpiel's
exploitability). The test is pairwise and only between terminal siblings, so it finds less than
full (mixed, continuation-aware) dominance.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from ospiel_ext import lp
from ospiel_ext.arrays import BoolArray, IntArray
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.treeplex import Treeplex


@dataclasses.dataclass(frozen=True)
class Dominance:
    """The result of `iterated_dominance`.

    Attributes:
      alive: per player, a mask over its sequences (the empty sequence always alive).
      rounds: elimination rounds until nothing changed (the last round eliminated nothing).
      eliminated_per_round: per round, (player 0's, player 1's) newly eliminated sequences.
    """

    alive: tuple[BoolArray, BoolArray]
    rounds: int
    eliminated_per_round: tuple[tuple[int, int], ...]

    @property
    def eliminated(self) -> tuple[int, int]:
        """(player 0's, player 1's) number of eliminated sequences."""
        return (int((~self.alive[0]).sum()), int((~self.alive[1]).sum()))

    def lp_size(self, sf: SequenceForm) -> dict[str, int]:
        """Rows, columns and nonzeros of player 0's LP (`lp.lp_size`) after the elimination.

        The eliminated sequences' variables and constraints are dropped; infosets stay.
        """
        rows = np.flatnonzero(self.alive[0])
        cols = np.flatnonzero(self.alive[1])
        payoff_nonzeros = int(sf.payoff[rows][:, cols].nnz)
        return lp.lp_size(
            [tp.num_infosets for tp in sf.treeplexes],
            [int(a.sum()) for a in self.alive],
            payoff_nonzeros,
        )


def terminal_sequences(tp: Treeplex) -> BoolArray:
    """Mask of the sequences with no own information set below them.

    The empty sequence is never terminal here: it is no action.
    """
    has_child = np.zeros(tp.num_sequences, dtype=bool)
    has_child[tp.parent_seq] = True
    terminal = ~has_child
    terminal[0] = False
    return terminal


def _sibling_pairs(tp: Treeplex, candidates: BoolArray) -> tuple[IntArray, IntArray]:
    """All ordered pairs (sigma, sigma') of distinct candidate sequences of one infoset."""
    seqs = np.flatnonzero(candidates)
    if len(seqs) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    infoset = tp.seq_infoset[seqs]
    order = np.argsort(infoset, kind="stable")
    seqs, infoset = seqs[order], infoset[order]
    starts = np.flatnonzero(np.r_[True, infoset[1:] != infoset[:-1]])
    counts = np.diff(np.r_[starts, len(seqs)])
    firsts, seconds = [], []
    for k in np.unique(counts):
        if k < 2:
            continue
        blocks = starts[counts == k]
        i, j = np.nonzero(~np.eye(k, dtype=bool))
        firsts.append((blocks[:, None] + i[None, :]).ravel())
        seconds.append((blocks[:, None] + j[None, :]).ravel())
    if not firsts:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    a, b = np.concatenate(firsts), np.concatenate(seconds)
    return seqs[a], seqs[b]


def _dominated(
    matrix: sp.csr_matrix, tp: Treeplex, candidates: BoolArray, opponent_alive: BoolArray
) -> BoolArray:
    """Mask of the candidate sequences weakly dominated by a candidate sibling.

    The candidates are rows of `matrix`, the player's own payoff (maximised); dominance is
    tested over the opponent's alive columns.
    """
    sigma, other = _sibling_pairs(tp, candidates)
    dominated = np.zeros(tp.num_sequences, dtype=bool)
    if len(sigma) == 0:
        return dominated
    n = len(sigma)
    pairs = sp.csr_matrix(
        (np.r_[np.ones(n), -np.ones(n)], (np.r_[np.arange(n), np.arange(n)], np.r_[other, sigma])),
        shape=(n, tp.num_sequences),
    )
    diff = (pairs @ matrix)[:, np.flatnonzero(opponent_alive)].tocsr()  # A[sigma'] - A[sigma]
    diff.data[np.abs(diff.data) <= 1e-12] = 0.0
    diff.eliminate_zeros()
    low = diff.min(axis=1).toarray().ravel()
    high = diff.max(axis=1).toarray().ravel()
    # sigma' >= sigma everywhere; between equal rows only the later one goes
    beats = (low >= 0) & ((high > 0) | (other < sigma))
    dominated[sigma[beats]] = True
    return dominated


def iterated_dominance(sf: SequenceForm, max_rounds: int = 1000) -> Dominance:
    """Iterated elimination of weakly dominated terminal sequences for both players.

    As the module docstring describes, until a round eliminates nothing or `max_rounds` rounds.
    """
    tps = sf.treeplexes
    own_payoff = (sf.payoff.tocsr(), (-sf.payoff.T).tocsr())  # rows: own sequences
    terminal = [terminal_sequences(tp) for tp in tps]
    alive = [np.ones(tp.num_sequences, dtype=bool) for tp in tps]
    history: list[tuple[int, int]] = []
    for _ in range(max_rounds):
        counts = [0, 0]
        for p in (0, 1):
            gone = _dominated(own_payoff[p], tps[p], terminal[p] & alive[p], alive[1 - p])
            counts[p] = int(gone.sum())
            alive[p] &= ~gone
        history.append((counts[0], counts[1]))
        if counts == [0, 0]:
            break
    return Dominance((alive[0], alive[1]), len(history), tuple(history))
