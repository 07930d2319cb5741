"""Folds and showdowns of hands of several cards on a round's (board, hand orbit) entries.

The one-card games evaluate a terminal against the opponent's range with one T x T kernel
per board over its orbits (`range_tree`, `products`). Hands of k cards (hold'em: 1,326 of
them) take inclusion-exclusion over shared cards and strength-sorted prefix sums instead
(`hands`; Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in
Large Extensive Games", IJCAI 2011, Sections 4.1-4.2): the entries of a block of whole boards
are spread to every hand of those boards (each orbit's value at each of its members, 0 at
the hands a board excludes), the sums run over hands, and each entry reads its
representative's result. Against the opponent's reach rho at board B, own hand h is worth

    fold:     u coef_B sum_{o disjoint from h and B} rho(o),
    showdown: pot coef_B sum_{o disjoint from h and B} sign(s_B(h) - s_B(o)) rho(o),

P(h0, h1, B) = coef_B for every deal of disjoint hands and board (`deals`).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np

from ospiel_ext.algorithms.poker import hands
from ospiel_ext.algorithms.poker.deals import RoundDeals
from ospiel_ext.algorithms.poker.orbits import OrbitLayout
from ospiel_ext.arrays import FloatArray, IntArray

CHUNK_ENTRIES = 4_000_000
"""About how many (node, board, hand) values a terminal evaluation spreads at once: the
families' sorted copies and cumulative sums are a few times that (`hands.Showdowns`)."""


class SetTerminals:
    """The terminal values of one round whose hands or boards hold several cards.

    Args:
      dl: the round's boards.
      entries: its (board, hand orbit) entries.
      strength: (n_B, H) each hand's showdown strength on each board; None without
        showdowns in the round.
    """

    def __init__(self, dl: RoundDeals, entries: OrbitLayout, strength: IntArray | None):
        self.space = dl.hands
        self.orbits = entries
        self.coef = dl.coef
        excluded = dl.multiplicity == 0
        self.showdowns = None if strength is None else hands.Showdowns(dl.hands, strength, excluded)

    def _chunks(self, n: int, entries: slice) -> list[tuple[slice, IntArray, IntArray]]:
        """The slice's boards in chunks of about `CHUNK_ENTRIES` spread entries (n x boards x H).

        Per chunk: its entries (a slice of whole boards, relative to `entries`), its boards,
        and each of its entries' position among them.
        """
        board = self.orbits.board[entries]
        new_board = np.r_[True, board[1:] != board[:-1]]
        first = np.flatnonzero(new_board)
        per = max(1, CHUNK_ENTRIES // max(1, n * self.space.num_hands))
        edges = [*first[::per].tolist(), len(board)]
        return [
            (slice(a, b), board[first[i * per : (i + 1) * per]], np.cumsum(new_board[a:b]) - 1)
            for i, (a, b) in enumerate(itertools.pairwise(edges))
        ]

    def _spread(self, rho: FloatArray, start: int, boards: IntArray) -> FloatArray:
        """(n, boards, H) the entries' values at every hand of their boards (0 where excluded).

        rho (n, F'') holds the boards' entries, the first at flat entry `start`.
        """
        local = self.orbits.index[boards] - start  # (boards, H), negative where excluded
        padded = np.concatenate([rho, np.zeros((len(rho), 1), dtype=rho.dtype)], axis=1)
        return padded[:, np.where(local >= 0, local, rho.shape[1])]

    def _apply(
        self,
        rho: FloatArray,
        scale: FloatArray,
        entries: slice,
        sums: Callable[[FloatArray, IntArray], FloatArray],
    ) -> FloatArray:
        """Each entry's scale (n,) x coef_B x sums(spread rho, boards), chunk by chunk."""
        start = entries.indices(self.orbits.width)[0]
        out = np.empty_like(rho)
        for part, boards, position in self._chunks(len(rho), entries):
            first = start + part.start
            full = sums(self._spread(rho[:, part], first, boards), boards)
            out[:, part] = full[:, position, self.orbits.hand[first : start + part.stop]]
        out *= self.coef[self.orbits.board[entries]].astype(rho.dtype, copy=False)
        out *= scale.astype(rho.dtype, copy=False)[:, None]
        return out

    def fold(self, rho: FloatArray, payoff: FloatArray, entries: slice) -> FloatArray:
        """(n, F') fold values at payoffs u (n,) against rho (n, F'), on whole boards."""
        return self._apply(rho, payoff, entries, lambda x, _: hands.disjoint_sums(self.space, x))

    def showdown(self, rho: FloatArray, pot: FloatArray, entries: slice) -> FloatArray:
        """(n, F') showdown values at pots (n,) against rho (n, F'), on whole boards."""
        showdowns = self.showdowns
        assert showdowns is not None
        return self._apply(rho, pot, entries, showdowns.net)
