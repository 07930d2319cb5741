"""A strategy of GameShrink's abstracted game Γ_f played on the range layout.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006: Theorem 2's construction plays a strategy of Γ_f in the original game by giving
every information set the strategy of its view's class, f^r(view), and the same betting
(`gameshrink.lifting.LiftedPolicy`, which needs a compiled game to be evaluated). Here the
same lifted strategy fills the arrays of a `range_tree.RangeTree`: the entry (decision, board,
hand) of player p in round r plays Γ_f's information set "round r, class f^r(hand, board),
betting". The range walker then evaluates it exactly in the unabstracted game, which for
Rhode Island Hold'em (52 M information sets) no compiled form can: its best responses are
the original game's, and for a lossless filter (Theorems 2-3) the lifted strategy's
exploitability and value are Γ_f's own.

With suit isomorphism (`RangeTree(..., suits=True)`) only canonical boards are laid out; that
is exact when the filter gives suit-isomorphic views one class, which `RangeLift`
checks on every board's hand orbits.
"""

from __future__ import annotations

import numpy as np

from ospiel_ext.algorithms.gameshrink.abstract_game import AbstractGame
from ospiel_ext.algorithms.poker import structure
from ospiel_ext.algorithms.poker.deals import RoundDeals
from ospiel_ext.algorithms.poker.range_tree import Arrays, DecisionGroup, RangeTree
from ospiel_ext.algorithms.poker.structure import PokerStructure
from ospiel_ext.arrays import FloatArray, IntArray


def _classes(
    shrunk: AbstractGame, ps: PokerStructure, dl: RoundDeals, *, player: int, r: int
) -> IntArray:
    """(n_B, T) the class f^r of `player`'s view (hand, board) of round r at `dl`'s boards.

    -1 where the deck has no card of the hand's type left beside the board.
    """
    a = shrunk.abstraction
    og = a.og
    n_b, t = dl.remaining.shape
    valid = dl.remaining > 0
    boards, hands = np.nonzero(valid)
    deal = np.full((len(boards), og.num_slots), -1, dtype=np.int64)
    own = [og.slots[g][0] for g in og.view_groups(player, r) if og.groups[g].owner == player]
    public = [
        og.slots[g][0] + k
        for g in og.view_groups(player, r)
        if og.groups[g].owner != player
        for k in range(og.slots[g][1])
    ]
    if len(own) != 1 or len(public) != dl.types.shape[1]:
        raise ValueError(
            f"{shrunk.name}: the range layout needs one private card per player and the "
            f"round's board in the view; round {r} of player {player} sees {len(own)} private "
            f"and {len(public)} public cards against a board of {dl.types.shape[1]}"
        )
    cards = structure.card_ids(np.column_stack([hands, dl.types[boards]]), int(ps.copies[0]))
    deal[:, own[0]] = cards[:, 0]
    deal[:, public] = cards[:, 1:]
    out = np.full((n_b, t), -1, dtype=np.int64)
    out[boards, hands] = a.classes[r][a.signal_tree.view_index(deal, player, r)]
    return out


class RangeLift:
    """Γ_f's information set of every range-layout entry, found once; `strategy` fills arrays.

    Args:
      tree: the range layout of the original game (with or without suits).
      shrunk: Γ_f of an abstraction of the same game.

    Raises:
      ValueError: the tree and Γ_f are of different games, or with suit isomorphism the
        filter gives two suit-isomorphic views of one board different classes.
    """

    def __init__(self, tree: RangeTree, shrunk: AbstractGame):
        if str(tree.structure.game) != str(shrunk.abstraction.og.game):
            raise ValueError(
                f"the range tree is of {tree.name}, Γ_f of {shrunk.name}: not the same game"
            )
        self.tree, self.shrunk = tree, shrunk
        tables = [shrunk.sequence_form.infosets_by_betting(p) for p in (0, 1)]
        actual, canonical = tree.actual_deals, tree.canonical
        self.sequences: list[list[IntArray]] = []  # per round and group: (n, A, n_B, T), -1
        for r, lay in enumerate(tree.rounds):
            classes = [_classes(shrunk, tree.structure, lay.deals, player=p, r=r) for p in (0, 1)]
            if tree.suits and not all(
                _suit_invariant(
                    c,
                    _classes(shrunk, tree.structure, actual[r], player=p, r=r),
                    lay.deals,
                    canonical[r],
                )
                for p, c in enumerate(classes)
            ):
                raise ValueError(
                    f"{tree.name}: the filter gives suit-isomorphic views of round {r} "
                    "different classes; lay the tree out without suits"
                )
            self.sequences.append(
                [
                    _group_sequences(
                        shrunk, g, r, classes=classes[g.player], table=tables[g.player]
                    )
                    for g in lay.groups
                ]
            )

    def strategy(self, behavioural: tuple[FloatArray, FloatArray]) -> Arrays:
        """The range-layout strategies of Γ_f's behavioural profile played in the game.

        Entries no Γ_f information set covers (hands that share a card with the board) are
        uniform; they have chance probability 0.
        """
        out: Arrays = []
        for lay, per_round in zip(self.tree.rounds, self.sequences):
            arrays = []
            for g, seq in zip(lay.groups, per_round):
                b = behavioural[g.player]
                arrays.append(np.where(seq >= 0, b[np.maximum(seq, 0)], 1.0 / g.num_actions))
            out.append(arrays)
        return out


def _suit_invariant(
    classes: IntArray,
    actual: IntArray,
    dl: RoundDeals,
    canonical: tuple[IntArray, IntArray],
) -> bool:
    """Whether canonical boards' classes are those of the actual boards they stand for.

    And equal on the hand orbits of each canonical board (`deals.RoundDeals.hand_orbit`).
    """
    board, relabel = canonical
    mapped = classes[board[:, None], relabel]
    valid = actual >= 0
    same_orbit = np.take_along_axis(classes, dl.hand_orbit, axis=1)
    return bool(np.all(mapped[valid] == actual[valid]) and np.all(same_orbit == classes))


def _group_sequences(
    shrunk: AbstractGame,
    group: DecisionGroup,
    r: int,
    *,
    classes: IntArray,
    table: dict[tuple[int, str], IntArray],
) -> IntArray:
    """(n, A, n_B, T): each entry's Γ_f sequence (-1 where classes < 0)."""
    tp = shrunk.sequence_form.treeplexes[group.player]
    out = np.full((len(group.nodes), group.num_actions, *classes.shape), -1, dtype=np.int64)
    valid = classes >= 0
    for i, node in enumerate(group.betting):
        infosets = table.get((r, node.key))
        if infosets is None or np.any(infosets[classes[valid]] < 0):
            raise ValueError(f"{shrunk.name}: Γ_f has no information set at betting {node.key!r}")
        first = tp.seq_start[infosets[classes[valid]]]
        for a, action in enumerate(node.actions):
            if np.any(tp.seq_action[first + a] != action):
                raise ValueError(f"{shrunk.name}: Γ_f orders the actions at {node.key!r} otherwise")
            out[i, a][valid] = first + a
    return out
