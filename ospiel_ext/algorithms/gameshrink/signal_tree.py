"""The filtered signal tree of a game with ordered signals, as arrays.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Definition 4.

The signal tree holds every deal of the signals; it is enumerated into arrays without touching
the game tree (`SignalTree`). A player's *view* at round j is the public signals and its own
private signals revealed through round j, the domain of the information filter f^j
(Definition 2); one filter serves both players, as in the paper. The deals are enumerated so
that those through one view of player 0 are consecutive rows (`SignalTree.view_blocks`): a
view's multisets are then row operations on a (views x deals) table, with no sort of the deals
(`filters`). Building the tree also checks Definition 1's common ordering of hands.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np
from numpy.typing import NDArray

from ospiel_ext.algorithms.gameshrink import ordered_games
from ospiel_ext.algorithms.gameshrink.ordered_games import OrderedGame, colex_index
from ospiel_ext.arrays import IntArray

_MAX_CARDS = 64  # deals are enumerated with uint64 card masks


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class SignalTree:
    """Every deal of an ordered game, and every view of it, as arrays (Definition 4).

    Attributes:
      og: the ordered game.
      deals: (N, slots) card ids, one row per leaf of the signal tree (all equally likely).
      result: player 0's showdown result of each deal (-1, 0, 1).
      view_codes: per round, the sorted codes of the views (see `view_code`).
      views: per round, (view of player 0, view of player 1) of every deal, as indices into
        view_codes[round].
      view_parent: per round, each view's view in the round before (0 in round 0).
      num_nodes: nodes of the paper's signal tree (distinct deal prefixes, root included).
    """

    og: OrderedGame
    deals: NDArray[np.int8]
    result: NDArray[np.int8]
    view_codes: tuple[IntArray, ...]
    views: tuple[tuple[NDArray[np.int32], NDArray[np.int32]], ...]
    view_parent: tuple[IntArray, ...]
    num_nodes: int

    @property
    def num_rounds(self) -> int:
        """The number of rounds."""
        return len(self.view_codes)

    @property
    def num_views(self) -> list[int]:
        """Per round, the number of distinct views."""
        return [len(c) for c in self.view_codes]

    def view_code(
        self, deals: NDArray, player: int, round_: int, earlier: IntArray | None = None
    ) -> IntArray:
        """A unique integer per view: the colex indices of the view's groups in mixed radix.

        The cards of each group are ascending, as in `deals`. `earlier`: the same deals' codes
        one round before, which this one extends (a round's groups follow the earlier ones).
        """
        og, radix = self.og, 1
        code, known = np.zeros(len(deals), dtype=np.int64), 0
        if earlier is not None:
            code, known = earlier.copy(), len(og.view_groups(player, round_ - 1))
        for i, g in enumerate(og.view_groups(player, round_)):
            start, size = og.slots[g]
            if i >= known:
                code += colex_index(deals[:, start : start + size]) * radix
            radix *= math.comb(og.num_cards, size)
        return code

    def view_index(self, deals: NDArray, player: int, round_: int) -> IntArray:
        """The view of `player` in round `round_` of deals whose groups may be in any order."""
        og, deals = self.og, np.array(np.atleast_2d(deals), dtype=np.int64)
        for start, size in og.slots:
            deals[:, start : start + size] = np.sort(deals[:, start : start + size], axis=1)
        table = self.view_codes[round_]
        codes = self.view_code(deals, player, round_)
        idx = np.minimum(np.searchsorted(table, codes), len(table) - 1)
        if np.any(table[idx] != codes):
            raise ValueError(f"{self.og.name}: a view is not in the signal tree")
        return idx

    def parent_classes(self, classes: list[IntArray], round_: int) -> IntArray:
        """The round `round_` - 1 class (in `classes`) of every view's parent; zeros in round 0."""
        if round_ == 0:
            return np.zeros(self.num_views[0], dtype=np.int64)
        return classes[round_ - 1][self.view_parent[round_]]

    def view_blocks(self, round_: int) -> tuple[IntArray, int]:
        """(player 0's round-`round_` view of each block, block size).

        The deals through one view of player 0 are one block of consecutive rows (`build`'s
        enumeration order).
        """
        size = len(self.deals) // self.num_views[round_]
        return self.views[round_][0][::size].astype(np.int64), size

    @classmethod
    def build(cls, og: OrderedGame) -> SignalTree:
        """The signal tree of `og`, its deals enumerated group by group.

        The cards of a group are enumerated as an ascending set: first the groups player 0
        sees, in deal order, then player 1's private groups, so that the deals through each
        view of player 0 are consecutive rows (`view_blocks`); columns stay in deal order
        (`OrderedGame.slots`).
        """
        ordered_games.validate(og)
        if og.num_cards > _MAX_CARDS:
            raise ValueError(f"{og.name}: at most {_MAX_CARDS} cards are supported")
        seen = og.view_groups(0, og.num_rounds - 1)
        order = seen + [i for i in range(len(og.groups)) if i not in seen]
        deals = np.zeros((1, 0), dtype=np.int8)
        masks = np.zeros(1, dtype=np.uint64)  # the cards dealt so far, one bit per card
        left, rows_after = og.num_cards, []  # deals enumerated after each group of `order`
        for step, i in enumerate(order):
            size = og.groups[i].size
            combos = np.array(list(itertools.combinations(range(og.num_cards), size)), np.int8)
            cmask = np.bitwise_or.reduce(np.left_shift(np.uint64(1), combos.astype(np.uint64)), 1)
            free = (masks[:, None] & cmask[None, :]) == 0  # C(left, size) per row
            children = math.comb(left, size)
            pick = np.tile(np.arange(len(combos), dtype=np.int32), len(deals))[free.ravel()]
            deals = np.hstack([np.repeat(deals, children, axis=0), combos[pick]])
            if step + 1 < len(order):
                masks = np.repeat(masks, children) | cmask[pick]
            rows_after.append(len(deals))
            left -= size
        del masks
        columns = np.cumsum([0] + [og.groups[i].size for i in order])
        where = np.argsort(order)  # group i's columns in enumeration order
        deals = deals[:, np.concatenate([np.arange(columns[k], columns[k + 1]) for k in where])]
        num_nodes, prefixes, left = 1, 1, og.num_cards
        for g in og.groups:  # the paper's tree deals in game order
            prefixes *= math.comb(left, g.size)
            num_nodes, left = num_nodes + prefixes, left - g.size
        tree = cls(
            og=og,
            deals=deals,
            result=np.zeros(0, dtype=np.int8),
            view_codes=(),
            views=(),
            view_parent=(),
            num_nodes=num_nodes,
        )
        codes: list[IntArray] = []
        views: list[tuple[NDArray[np.int32], NDArray[np.int32]]] = []
        parents: list[IntArray] = []
        code1: IntArray | None = None
        for r in range(og.num_rounds):
            seen_r = len(og.view_groups(0, r))  # player 0's view: the first groups of `order`
            block = len(deals) // (rows_after[seen_r - 1] if seen_r else 1)
            code0 = tree.view_code(deals[::block], 0, r)  # one row per view of player 0
            code1 = tree.view_code(deals, 1, r, code1)
            table, (blocks, v1) = _number_codes((code0, code1))
            if len(table) != len(code0):
                raise ValueError(f"{og.name}: player 1 has views player 0 never has")
            parent = np.zeros(len(table), dtype=np.int64)
            if r:
                parent[blocks] = views[-1][0][::block]
            codes.append(table)
            views.append((np.repeat(blocks, block), v1))
            parents.append(parent)
        result = _showdown(og, deals, views[-1], block)
        _check_common_ordering(og, deals, result)
        return dataclasses.replace(
            tree,
            result=result,
            view_codes=tuple(codes),
            views=tuple(views),
            view_parent=tuple(parents),
        )


def _showdown(
    og: OrderedGame, deals: NDArray, last_views: tuple[NDArray, NDArray], block: int
) -> NDArray[np.int8]:
    """Player 0's showdown result of every deal.

    For an `ordered_games.RankOutcome` the hand strengths are evaluated once per last-round
    view (equal views are equal hands: the first deal of each of player 0's blocks of `block`
    deals), not once per deal.
    """
    if not isinstance(og.outcome, ordered_games.RankOutcome):
        return og.outcome(deals.astype(np.int64))
    v0, v1 = last_views
    strength = np.empty(len(deals) // block, dtype=np.int64)
    strength[v0[::block]] = og.outcome.strength(
        deals[::block][:, og.outcome.hands[0]].astype(np.int64)
    )
    result: NDArray[np.int8] = np.sign(strength[v0] - strength[v1]).astype(np.int8)
    return result


def _number_codes(
    codes: tuple[IntArray, IntArray],
) -> tuple[IntArray, tuple[NDArray[np.int32], NDArray[np.int32]]]:
    """(the sorted distinct codes, each player's codes as indices into them).

    By a dense lookup table when the codes are small (views of real decks), else np.unique +
    searchsorted.
    """
    top = max(int(c.max()) for c in codes) + 1
    if top <= 4 * sum(len(c) for c in codes) + 1024:
        seen = np.zeros(top, dtype=bool)
        for c in codes:
            seen[c] = True
        table = np.flatnonzero(seen)
        lookup = np.zeros(top, dtype=np.int32)
        lookup[table] = np.arange(len(table), dtype=np.int32)
        indices = [lookup[c] for c in codes]
    else:
        table = np.unique(np.concatenate(codes))
        indices = [np.searchsorted(table, c).astype(np.int32) for c in codes]
    return table, (indices[0], indices[1])


def _check_common_ordering(og: OrderedGame, deals: NDArray, result: NDArray) -> None:
    """Checks Definition 1 (u): payoffs increase in one ordering of hands shared by both players.

    So swapping the players' private cards must negate every showdown result (true by
    construction, and not checked, for an `ordered_games.RankOutcome`).
    """
    if isinstance(og.outcome, ordered_games.RankOutcome):
        return
    swapped = deals.astype(np.int64)
    own0, own1 = (og.view_columns(p, og.num_rounds - 1)[0] for p in (0, 1))
    swapped[:, own0 + own1] = deals[:, own1 + own0]
    bad = np.flatnonzero(og.outcome(swapped) != -result)
    if len(bad):
        raise ValueError(
            f"game {og.name} is not a game with ordered signals: the players do not rank hands "
            f"by a common ordering (in deal {deals[bad[0]].tolist()} player 0 gets "
            f"{int(result[bad[0]])}, but {int(og.outcome(swapped[bad[:1]])[0])} with the "
            "private cards swapped); the paper's Section 3.4 shows abstraction then fails"
        )
