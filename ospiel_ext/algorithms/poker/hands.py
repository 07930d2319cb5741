"""Private hands of several cards, and their values at folds and showdowns in O(H) per board.

A *hand* is a set of k distinct cards of a deck of N (`HandSpace`: the C(N, k) hands in the
colexicographic order of their ascending cards, so a hand's index is
`ordered_games.colex_index` of its cards). Two hands can be dealt together when they share no
card, and a hand with a board when it shares none of the board's cards. Against an opponent
whose hands o carry reach rho(o), a fold or showdown of own hand h sums over the opponent's
hands disjoint from h; by inclusion-exclusion over the cards they share (Johanson, Bowling,
Waugh & Zinkevich, "Accelerating Best Response Calculation in Large Extensive Games", IJCAI
2011, Section 4.2),

    sum_{o : o n h = {}} f(o) = sum_{S subset of h} (-1)^|S| sum_{o superset of S} f(o),

a sum over the 2^k subsets S of h's cards of the sums over the *families* of hands that
contain S (S = {}: every hand; S = h: h itself). A fold takes f = rho (`disjoint_sums`); a
showdown takes f(o) = sign(s(h) - s(o)) rho(o), whose family sums are strength-sorted prefix
sums per board (Section 4.1; `Showdowns`): O(H 2^k) per board instead of a T x T kernel's
O(H^2), which for hold'em's 1,326 hands and 1,755 canonical flops would be 3.1e9 entries.
Hands the board excludes carry reach 0, so the same sums serve every board.

Rounding. The sums cancel: where no opponent hand disjoint from h has reach (h's cards block
all of them) the exact result is 0, and the computed one a few units of rounding of the
families' sums. Such a residue would make a regret that is exactly 0 in the explicit form
(a tie, uniform play) a pure action here, so a result within `FLUSH_ULPS` units of rounding
of the magnitude of its terms (the sum of the families' sums, rho >= 0) is set to 0: below
that bound the computed digits are rounding, and the exact zeros come out exact.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math

import numpy as np

from ospiel_ext.algorithms.gameshrink.ordered_games import colex_index
from ospiel_ext.arrays import FloatArray, IntArray


@dataclasses.dataclass(frozen=True, eq=False)
class HandSpace:
    """The hands of k cards from a deck of N (module docstring).

    Attributes:
      num_cards: N.
      size: k, cards per hand.
      cards: (H, k) each hand's cards, ascending; hands in colexicographic order.
    """

    num_cards: int
    size: int
    cards: IntArray
    _incidence: dict[tuple[int, np.dtype], FloatArray] = dataclasses.field(
        default_factory=dict, repr=False
    )

    @classmethod
    def of(cls, num_cards: int, size: int) -> HandSpace:
        """Every hand of `size` cards from a deck of `num_cards`."""
        if not 1 <= size <= num_cards:
            raise ValueError(f"no hands of {size} cards from a deck of {num_cards}")
        combos = np.array(list(itertools.combinations(range(num_cards), size)), dtype=np.int64)
        return cls(num_cards, size, combos[np.argsort(colex_index(combos))])

    @property
    def num_hands(self) -> int:
        """H = C(N, k)."""
        return len(self.cards)

    def index(self, cards: IntArray) -> IntArray:
        """The hand of each row of k cards (in any order)."""
        return colex_index(np.sort(np.asarray(cards, dtype=np.int64), axis=-1))

    def permute(self, card_perm: IntArray) -> IntArray:
        """(H,) the hand that each hand becomes when every card c is relabelled card_perm[c]."""
        return self.index(np.asarray(card_perm)[self.cards])

    def excluded_by(self, board: IntArray) -> np.ndarray:
        """(n_B, H) whether each hand shares a card with each board (rows of card ids)."""
        on_board = np.zeros((len(board), self.num_cards), dtype=bool)
        rows = np.repeat(np.arange(len(board)), np.shape(board)[1])
        on_board[rows, np.asarray(board, dtype=np.int64).ravel()] = True
        return np.asarray(on_board[:, self.cards].any(axis=2))

    @functools.cached_property
    def subsets(self) -> tuple[IntArray, ...]:
        """Per size j = 0..k, (H, C(k, j)): each hand's j-card subsets, as colex indices.

        Index 0 is the empty set; the k-subset of a hand is the hand itself.
        """
        return tuple(
            np.stack(
                [
                    colex_index(self.cards[:, list(c)])  # the empty set's index is 0
                    for c in itertools.combinations(range(self.size), j)
                ],
                axis=1,
            )
            for j in range(self.size + 1)
        )

    @functools.cached_property
    def members(self) -> tuple[IntArray, ...]:
        """Per size j = 0..k-1, (C(N, j), C(N - j, k - j)): the hands containing each j-subset.

        Ascending within each family; every j-subset is in the same number of hands.
        """
        out = []
        for j in range(self.size):
            subset = self.subsets[j].ravel()
            hand = np.repeat(np.arange(self.num_hands), self.subsets[j].shape[1])
            order = np.lexsort((hand, subset))
            width = math.comb(self.num_cards - j, self.size - j)
            out.append(hand[order].reshape(-1, width))
        return tuple(out)

    def incidence(self, j: int, dtype: np.dtype) -> FloatArray:
        """(H, C(N, j)) 1 where a hand contains a j-subset (`members[j]`), in `dtype`.

        Built once per size and type (kept by the space).
        """
        key = (j, np.dtype(dtype))
        if key not in self._incidence:
            out = np.zeros((self.num_hands, len(self.members[j])), dtype=dtype)
            out[self.members[j], np.arange(len(self.members[j]))[:, None]] = 1
            self._incidence[key] = out
        return self._incidence[key]

    @functools.cached_property
    def slots(self) -> tuple[IntArray, ...]:
        """Per size j = 0..k-1, (H, C(k, j)): each hand's place in its j-subsets' families.

        `members[j][subsets[j][h, s], slots[j][h, s]] == h`.
        """
        hands = np.arange(self.num_hands)
        return tuple(
            np.stack(
                [
                    (self.members[j][self.subsets[j][:, s]] < hands[:, None]).sum(axis=1)
                    for s in range(self.subsets[j].shape[1])
                ],
                axis=1,
            )
            for j in range(self.size)
        )


FLUSH_ULPS = 64
"""Results within this many units of rounding of their terms' magnitude are 0 (module
docstring, "Rounding"): above the rounding of the families' sums (a few units, and the
logarithm of their sizes for numpy's pairwise sums)."""


def _flush(out: FloatArray, space: HandSpace, total: FloatArray) -> FloatArray:
    """`out` with the entries within FLUSH_ULPS rounding units of their terms set to 0.

    The terms of a hand's sum are at most its families' totals, 2^k of them, each at most
    `total` (the opponent's reach on the board, broadcast against `out`).
    """
    bound = (FLUSH_ULPS * np.finfo(out.dtype).eps * 2**space.size) * total
    out[np.abs(out) <= bound] = 0
    return out


def disjoint_sums(space: HandSpace, rho: FloatArray) -> FloatArray:
    """(..., H) the sum of rho over the hands disjoint from each hand (module docstring).

    rho (..., H) >= 0 is the opponent's reach over hands (0 where the board excludes a hand);
    the result at hand h is sum over o with no card of h of rho(o), in rho's floating-point
    type (rounding residues flushed to 0: module docstring). The families of j cards,
    0 < j < k, are summed by one product with their incidence matrix (`HandSpace.incidence`).
    """
    total = rho.sum(axis=-1, keepdims=True)
    out = rho.copy() if space.size % 2 == 0 else -rho  # the family of h itself, (-1)^k
    out += total
    for j in range(1, space.size):
        family = rho @ space.incidence(j, rho.dtype)
        # (..., C(k, j), H): the subsets first, so that their sum adds whole rows
        term = np.take(family, space.subsets[j].T, axis=-1).sum(axis=-2)
        if j % 2:
            out -= term
        else:
            out += term
    return _flush(out, space, total)


_BLOCK_ENTRIES = 1 << 22
"""About how many (board, family member) entries `Showdowns` sorts at once."""


class Showdowns:
    """Showdown values against the opponent's range on many boards, by sorted prefix sums.

    For each board b and hand h (h sharing no card with b),

        net_b(h) = sum over o disjoint from h and b of sign(s_b(h) - s_b(o)) rho_b(o),

    computed family by family (module docstring): within the family of a j-subset S, the hands
    sorted by strength on each board, a cumulative sum of rho in that order gives, at h's run of
    equal strength, the family's sum below h (`lo`) and up to h's run's end (`hi`), and
    sum_{o in family} sign(s(h) - s(o)) rho(o) = c[lo] + c[hi] - c[end]. The family of h itself
    (S = h) adds nothing (sign 0).

    Args:
      space: the hands.
      strength: (n_B, H) each hand's showdown strength on each board (larger wins); the value
        at hands a board excludes is not read.
      excluded: (n_B, H) whether the board excludes each hand (`HandSpace.excluded_by`).
    """

    def __init__(self, space: HandSpace, strength: IntArray, excluded: np.ndarray):
        self.space = space
        lowest = np.iinfo(np.int64).min
        s = np.where(excluded, lowest, np.asarray(strength, dtype=np.int64))
        # per family size j: the members of every family in strength order on every board
        # (n_B, C(N, j), G_j), and per (board, hand, subset) the positions of lo, hi and the
        # family's end in the board's (C(N, j), G_j + 1) block of cumulative sums; int32 (a
        # board's block is small), built a block of boards at a time so that the sort's
        # temporaries stay small (52-card flops: 22,100 boards)
        self._sorted: list[IntArray] = []
        self._lo: list[IntArray] = []
        self._hi: list[IntArray] = []
        self._end: list[IntArray] = []
        n_boards, n_hands = s.shape
        for j in range(space.size):
            members = space.members[j]  # (C, G)
            family = space.subsets[j][None]  # (1, H, C(k, j))
            c_count, g = members.shape
            assert c_count * (g + 1) < np.iinfo(np.int32).max
            self._sorted.append(np.empty((n_boards, c_count, g), dtype=np.int32))
            self._lo.append(np.empty((n_boards, n_hands, family.shape[2]), dtype=np.int32))
            self._hi.append(np.empty_like(self._lo[j]))
            base = family * (g + 1)  # each family's block of cumulative sums
            step = max(1, _BLOCK_ENTRIES // max(1, c_count * g))
            for first in range(0, n_boards, step):
                block = slice(first, min(first + step, n_boards))
                self._sort_block(j, s[block], block, base)
            self._end.append(np.broadcast_to(base + g, self._lo[j].shape))

    def _sort_block(self, j: int, s: IntArray, block: slice, base: IntArray) -> None:
        """Family size j's sorted members and lo / hi positions on the boards `block`.

        `s`: (n_b, H) the strengths on those boards (the constructor's); `base`: (1, H,
        C(k, j)) where each family's block of cumulative sums starts.
        """
        space = self.space
        members = space.members[j]  # (C, G)
        g = members.shape[1]
        ms = s[:, members]  # (n_b, C, G)
        order = np.argsort(ms, axis=2, kind="stable")
        self._sorted[j][block] = np.take_along_axis(members[None], order, axis=2)
        sorted_s = np.take_along_axis(ms, order, axis=2)
        pos = np.arange(g)
        new_run = np.ones_like(sorted_s, dtype=bool)
        new_run[..., 1:] = sorted_s[..., 1:] != sorted_s[..., :-1]
        run_start = np.maximum.accumulate(np.where(new_run, pos, 0), axis=2)
        ends_run = np.ones_like(sorted_s, dtype=bool)
        ends_run[..., :-1] = new_run[..., 1:]
        last = np.maximum.accumulate(np.where(ends_run, g - 1 - pos, 0)[..., ::-1], axis=2)
        run_stop = (g - last)[..., ::-1]  # one past the run's last position
        inverse = np.empty_like(order)
        np.put_along_axis(inverse, order, pos[None, None], axis=2)
        family = space.subsets[j][None]  # (1, H, C(k, j))
        b = np.arange(len(s))[:, None, None]
        at = inverse[b, family, space.slots[j][None]]  # (n_b, H, C(k, j)) sorted position
        self._lo[j][block] = base + run_start[b, family, at]
        self._hi[j][block] = base + run_stop[b, family, at]

    def net(self, rho: FloatArray, boards: IntArray | slice = slice(None)) -> FloatArray:
        """(n, n_b, H) net_b(h) against rho (n, n_b, H) >= 0 on `boards` (of the constructor's).

        In rho's floating-point type, rounding residues flushed to 0 (module docstring). Every
        gather is one `np.take` over flat indices into the chunk's arrays.
        """
        n, n_b, h_count = rho.shape
        flat_rho = rho.reshape(n, -1)
        shift = np.arange(n_b)[:, None, None]
        out = np.zeros_like(rho)
        for j in range(self.space.size):
            members = self._sorted[j][boards]  # (n_b, C, G)
            c_count, g = members.shape[1:]
            ordered = np.take(flat_rho, (shift * h_count + members).ravel(), axis=1)
            c = np.zeros((n, n_b * c_count, g + 1), dtype=rho.dtype)
            np.cumsum(ordered.reshape(n, -1, g), axis=2, out=c[:, :, 1:])
            flat = c.reshape(n, -1)
            block = shift * (c_count * (g + 1))
            both = _gather(flat, self._lo[j][boards] + block)
            both += _gather(flat, self._hi[j][boards] + block)
            both -= _gather(flat, self._end[j][boards] + block)
            term = both.sum(axis=1).reshape(n, n_b, h_count)
            if j % 2:
                out -= term
            else:
                out += term
        return _flush(out, self.space, rho.sum(axis=-1, keepdims=True))


def _gather(flat: FloatArray, at: IntArray) -> FloatArray:
    """(n, C(k, j), n_b x H): flat[:, at] for positions `at` (n_b, H, C(k, j)).

    The subsets come first, so that their sum adds whole rows.
    """
    index = at.transpose(2, 0, 1)
    return np.take(flat, index.reshape(len(index), -1), axis=1)
