"""Between the range layout (`range_tree`) and the sequence numbering of the treeplexes.

The entry (decision, action, board, hand) of a `range_tree.DecisionGroup`'s arrays is the
sequence "action at the information set (decision, board, hand)" of the acting player, which
`public_tree.PublicTree` numbers exactly as the compiled game's `sequence_form.for_game`.
`SequenceIndex` holds that map, so behavioural strategies move between the layouts: the
range solver's policies become `policies.layout(form)` TabularPolicies, and its iterates are
compared with the sequence-form solver's (tests). It needs the tree without suit isomorphism
(one entry per information set) built from the PublicTree's own `PokerStructure`.
"""

from __future__ import annotations

import numpy as np

from ospiel_ext.algorithms.poker.public_tree import PublicTree
from ospiel_ext.algorithms.poker.range_cfr import Arrays
from ospiel_ext.algorithms.poker.range_tree import RangeTree
from ospiel_ext.arrays import FloatArray, IntArray


class SequenceIndex:
    """Per round and group, each entry's sequence of its acting player (-1: no infoset).

    Args:
      public_tree: the PublicTree whose treeplexes number the sequences.
      tree: the RangeTree over the same `PokerStructure` object, without suit isomorphism.

    Raises:
      ValueError: a tree with suit isomorphism, or over another structure.
    """

    def __init__(self, public_tree: PublicTree, tree: RangeTree):
        if tree.suits or tree.structure is not public_tree.structure:
            raise ValueError(
                f"game {tree.name}: the sequence numbering needs the range tree without suit "
                "isomorphism over the public tree's own structure"
            )
        decision_of = {id(bp.node): d for d, bp in enumerate(public_tree.decisions)}
        self.sizes = tuple(tp.num_sequences for tp in public_tree.treeplexes)
        self.index: list[list[IntArray]] = []
        for lay in tree.rounds:
            n_b, t = lay.shape[1:]
            boards = np.broadcast_to(np.arange(n_b)[:, None], (n_b, t))
            hands = np.broadcast_to(np.arange(t)[None, :], (n_b, t))
            per_round = []
            for g in lay.groups:
                tp = public_tree.treeplexes[g.player]
                idx = np.full((len(g.nodes), g.num_actions, n_b, t), -1, dtype=np.int64)
                for i, node in enumerate(g.betting):
                    rows = public_tree.rows_of(decision_of[id(node)], boards, hands)
                    first = tp.seq_start[public_tree.row_infoset[np.maximum(rows, 0)]]
                    for a in range(g.num_actions):
                        idx[i, a] = np.where(rows >= 0, first + a, -1)
                per_round.append(idx)
            self.index.append(per_round)
        self.players = [[g.player for g in lay.groups] for lay in tree.rounds]

    def to_arrays(self, behavioural: tuple[FloatArray, FloatArray]) -> Arrays:
        """Range-layout strategies of a behavioural profile (uniform off the infosets)."""
        out = []
        for per_round, players in zip(self.index, self.players):
            arrays = []
            for idx, p in zip(per_round, players):
                arr = np.full(idx.shape, 1.0 / idx.shape[1])
                ok = idx >= 0
                arr[ok] = behavioural[p][idx[ok]]
                arrays.append(arr)
            out.append(arrays)
        return out

    def to_sequences(self, arrays: Arrays, player: int, fill: float = 0.0) -> FloatArray:
        """The player's entries of range-layout arrays as a vector over its sequences.

        The empty sequence (and any sequence no entry names) gets `fill`.
        """
        out = np.full(self.sizes[player], fill)
        for per_round, values, players in zip(self.index, arrays, self.players):
            for idx, arr, p in zip(per_round, values, players):
                if p == player:
                    ok = idx >= 0
                    out[idx[ok]] = arr[ok]
        return out

    def behavioural(self, arrays: Arrays) -> tuple[FloatArray, FloatArray]:
        """A behavioural profile (one vector per player, 1 on the empty sequence)."""
        b0, b1 = (self.to_sequences(arrays, p, fill=1.0) for p in (0, 1))
        return b0, b1
