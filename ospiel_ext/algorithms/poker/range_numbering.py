"""Between the range layout (`range_tree`) and the sequence numbering of the treeplexes.

The entry (decision, action, board, hand) of a `range_tree.DecisionGroup`'s arrays is the
sequence "action at the information set (decision, board, hand)" of the acting player, which
`public_tree.PublicTree` numbers exactly as the compiled game's `sequence_form.for_game`.
`SequenceIndex` holds that map, so behavioural strategies move between the layouts: the
range solver's policies become `policies.layout(form)` TabularPolicies, and its iterates are
compared with the sequence-form solver's (tests). With suit isomorphism every actual
information set reads its canonical entry (`deals.canonical_of`): the lifted strategy.
"""

from __future__ import annotations

import numpy as np

from ospiel_ext.algorithms.poker.public_tree import PublicTree
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.arrays import FloatArray, IntArray


class SequenceIndex:
    """Per round and group, each actual entry's sequence and canonical entry.

    Args:
      public_tree: the PublicTree whose treeplexes number the sequences.
      tree: a RangeTree over the same `PokerStructure` object.

    Raises:
      ValueError: a tree over another structure.
    """

    def __init__(self, public_tree: PublicTree, tree: RangeTree):
        if tree.structure is not public_tree.structure:
            raise ValueError(
                f"game {tree.name}: the range tree must be built on the public tree's own structure"
            )
        actual, canonical = tree.actual_deals, tree.canonical
        decision_of = {id(bp.node): d for d, bp in enumerate(public_tree.decisions)}
        self.sizes = tuple(tp.num_sequences for tp in public_tree.treeplexes)
        self.players = [[g.player for g in lay.groups] for lay in tree.rounds]
        self.sequences: list[list[IntArray]] = []
        self.canonical = canonical
        self.num_boards = [lay.deals.num_boards for lay in tree.rounds]
        for lay, dl in zip(tree.rounds, actual):
            n_b, t = dl.remaining.shape
            boards = np.broadcast_to(np.arange(n_b)[:, None], (n_b, t))
            hands = np.broadcast_to(np.arange(t)[None, :], (n_b, t))
            per_round = []
            for g in lay.groups:
                tp = public_tree.treeplexes[g.player]
                seq = np.full((len(g.nodes), g.num_actions, n_b, t), -1, dtype=np.int64)
                for i, node in enumerate(g.betting):
                    rows = public_tree.rows_of(decision_of[id(node)], boards, hands)
                    first = tp.seq_start[public_tree.row_infoset[np.maximum(rows, 0)]]
                    for a in range(g.num_actions):
                        seq[i, a] = np.where(rows >= 0, first + a, -1)
                per_round.append(seq)
            self.sequences.append(per_round)

    def _entries(self, r: int) -> tuple[IntArray, IntArray]:
        board, relabel = self.canonical[r]
        return board[:, None], relabel

    def to_arrays(self, behavioural: tuple[FloatArray, FloatArray]) -> Arrays:
        """Range-layout strategies of a behavioural profile (uniform off the infosets).

        With suit isomorphism each canonical entry takes the value of the last actual
        information set mapped onto it: meant for suit-symmetric profiles.
        """
        out = []
        for r, (per_round, players) in enumerate(zip(self.sequences, self.players)):
            board, relabel = self._entries(r)
            arrays = []
            for seq, p in zip(per_round, players):
                n, a_count = seq.shape[:2]
                arr = np.full((n, a_count, self.num_boards[r], seq.shape[3]), 1.0 / a_count)
                arr[:, :, board, relabel] = np.where(
                    seq >= 0, behavioural[p][np.maximum(seq, 0)], 1.0 / a_count
                )
                arrays.append(arr)
            out.append(arrays)
        return out

    def to_sequences(self, arrays: Arrays, player: int, fill: float = 0.0) -> FloatArray:
        """The player's entries of range-layout arrays as a vector over its sequences.

        The empty sequence (and any sequence no entry names) gets `fill`.
        """
        out = np.full(self.sizes[player], fill)
        for r, (per_round, values, players) in enumerate(zip(self.sequences, arrays, self.players)):
            board, relabel = self._entries(r)
            for seq, arr, p in zip(per_round, values, players):
                if p == player:
                    ok = seq >= 0
                    out[seq[ok]] = arr[:, :, board, relabel][ok]
        return out

    def behavioural(self, arrays: Arrays) -> tuple[FloatArray, FloatArray]:
        """A behavioural profile (one vector per player, 1 on the empty sequence)."""
        b0, b1 = (self.to_sequences(arrays, p, fill=1.0) for p in (0, 1))
        return b0, b1
