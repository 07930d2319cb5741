"""The hands of a round's boards up to suit isomorphism: one array entry per hand orbit.

With suit isomorphism (`deals`) a canonical board B keeps the suit permutations that fix it
card by card, its stabiliser; they map hands onto hands with the same showdowns against
everything, so a suit-symmetric profile plays every hand of one orbit of the stabiliser
alike, and every pass computes the same numbers for them. The range layout keeps one entry
per (board, hand orbit), its representative the orbit's smallest hand
(`deals.RoundDeals.hand_orbit`), and leaves out the hands a board excludes (no copy left in
the deck): in Rhode Island Hold'em's last round 9,997 entries per betting node instead of
325 boards x 52 hands, 16,900. Sums over hands become sums over orbits weighted by their
sizes (folds, the root value), a showdown sums the opponent's hands of an orbit into one
column of the board's kernel, and a deal adds, for each representative, the canonical
children's entries of its relabelled hand (Johanson, Bowling, Waugh & Zinkevich,
"Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011, Section 3:
the vector over private hands at a public node; here the vector's symmetric copies are
stored once). Without suit isomorphism every orbit is one hand.

A round's entries form one flat axis of length F: boards with the same number of orbits
are consecutive (a *class*, whose entries reshape to (boards, T_q) for the per-board
kernels), each board's orbits in the order of their representatives. Arrays in the solver
are (nodes, F); `expand` and `contract` move between them and the per-hand arrays
(nodes, n_B, T) of policies and files.
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import scipy.sparse as sp

from ospiel_ext.algorithms.poker.deals import RoundDeals
from ospiel_ext.arrays import FloatArray, IntArray


@dataclasses.dataclass(frozen=True, eq=False)
class Segment:
    """Consecutive entries of boards with the same orbit count: a (boards, T_q) view.

    Attributes:
      entries: the flat slice.
      boards: the boards, in flat order.
      width: T_q, orbits per board.
    """

    entries: slice
    boards: IntArray
    width: int


@dataclasses.dataclass(frozen=True, eq=False)
class OrbitLayout:
    """The flat (board, hand orbit) axis of one round (module docstring).

    Attributes:
      index: (n_B, T) each (board, hand)'s entry, -1 where the board excludes the hand.
      board: (F,) each entry's board.
      hand: (F,) its representative hand.
      size: (F,) the hands of its orbit.
      segments: the classes, in flat order.
    """

    index: IntArray
    board: IntArray
    hand: IntArray
    size: IntArray
    segments: tuple[Segment, ...]

    @property
    def width(self) -> int:
        """F, the round's entries per betting node."""
        return len(self.board)

    def cut(self, entries: slice) -> list[tuple[slice, int, slice]]:
        """The segments' parts inside `entries` (whole boards).

        Per part: its slice relative to `entries`, its segment's position, and its boards'
        positions within the segment.
        """
        start, stop, _ = entries.indices(self.width)
        out = []
        for q, seg in enumerate(self.segments):
            lo, hi = max(start, seg.entries.start), min(stop, seg.entries.stop)
            if lo < hi:
                first = (lo - seg.entries.start) // seg.width
                boards = slice(first, first + (hi - lo) // seg.width)
                out.append((slice(lo - start, hi - start), q, boards))
        return out

    def blocks(self, count: int) -> list[slice]:
        """min(count, n_B) consecutive slices of whole boards, as equal in entries as can be.

        Each cut is at the board boundary nearest to an equal share of the entries.
        """
        widths = np.concatenate([np.full(len(seg.boards), seg.width) for seg in self.segments])
        starts = np.r_[0, np.cumsum(widths)]
        parts = min(count, len(widths))
        shares = np.arange(1, parts) * self.width / parts
        # the nearer of the two boundaries around each share, keeping every block non-empty
        cuts = [
            int(c - 1 if starts[c] - share > share - starts[c - 1] else c)
            for c, share in zip(np.searchsorted(starts, shares).tolist(), shares.tolist())
        ]
        edges = [0]
        for i, c in enumerate(cuts):
            edges.append(min(max(c, edges[-1] + 1), len(widths) - (parts - 1 - i)))
        edges.append(len(widths))
        return [slice(int(starts[a]), int(starts[b])) for a, b in itertools.pairwise(edges)]


def layout(dl: RoundDeals) -> OrbitLayout:
    """The round's `OrbitLayout`: classes by orbit count, boards in order within a class."""
    valid = dl.multiplicity > 0
    n_b, t = valid.shape
    reps = [np.unique(dl.hand_orbit[b][valid[b]]) for b in range(n_b)]
    counts = np.array([len(r) for r in reps])
    index = np.full((n_b, t), -1, dtype=np.int64)
    board, hand, size, segments = [], [], [], []
    start = 0
    for width in sorted(set(counts.tolist())):
        boards = np.flatnonzero(counts == width)
        for b in boards.tolist():
            local = np.searchsorted(reps[b], dl.hand_orbit[b])
            index[b, valid[b]] = start + local[valid[b]]
            board.append(np.full(width, b))
            hand.append(reps[b])
            size.append(np.bincount(local[valid[b]], minlength=width))
            start += width
        segments.append(Segment(slice(start - width * len(boards), start), boards, width))
    return OrbitLayout(
        index=index,
        board=np.concatenate(board).astype(np.int64),
        hand=np.concatenate(hand).astype(np.int64),
        size=np.concatenate(size).astype(np.int64),
        segments=tuple(segments),
    )


def kernels(orbits: OrbitLayout, kernel: FloatArray) -> list[FloatArray]:
    """Per segment, (boards, T_q, T_q) transposed kernels over orbits.

    `kernel` (n_B, T, T): K_B(h, o), own hand h against the opponent's hand o. The orbit
    kernel's row is the representative's, its column the sum over the opponent's orbit.
    """
    out = []
    for seg in orbits.segments:
        k = np.empty((len(seg.boards), seg.width, seg.width))
        for i, b in enumerate(seg.boards.tolist()):
            first = seg.entries.start + i * seg.width
            hands = np.flatnonzero(orbits.index[b] >= 0)
            members = np.zeros((len(hands), seg.width))
            members[np.arange(len(hands)), orbits.index[b, hands] - first] = 1.0
            rows = orbits.hand[first : first + seg.width]
            k[i] = kernel[b][np.ix_(rows, hands)] @ members
        out.append(np.ascontiguousarray(k.transpose(0, 2, 1)))
    return out


def parent_entries(child: OrbitLayout, dl: RoundDeals, parent: OrbitLayout) -> IntArray:
    """(F,) each entry's entry in the round before: its board's parent, the same hand.

    A canonical child extends its parent board by a card that is its own representative
    (`deals`), so the hands keep their labels on the way down.
    """
    return parent.index[dl.parent[child.board], child.hand]


def deal_matrix(child: OrbitLayout, dl: RoundDeals, parent: OrbitLayout) -> sp.csc_matrix:
    """D (F_child, F_parent): the parent's values are the children's, v_parent = v_child D.

    v_B(h) = sum_c v_canon(B + c)(pi_c(h)) (`deals`) at each parent entry's representative h,
    over the round's deal entries (one per card the parent board can deal).
    """
    rows, cols = [], []
    hand_perms: dict[bytes, IntArray] = {}  # the few relabellings, each computed once
    for e in range(len(dl.deal_child)):
        b = dl.deal_parent[e]
        mine = parent.index[b]
        entries = np.unique(mine[mine >= 0])
        key = dl.deal_perm[e].tobytes()
        if key not in hand_perms:
            hand_perms[key] = dl.hand_perm(e)
        target = child.index[dl.deal_child[e], hand_perms[key][parent.hand[entries]]]
        ok = target >= 0
        rows.append(target[ok])
        cols.append(entries[ok])
    r, c = np.concatenate(rows), np.concatenate(cols)
    # two cards may lead one representative to the same child entry: coo sums duplicates
    return sp.coo_matrix((np.ones(len(r)), (r, c)), shape=(child.width, parent.width)).tocsc()


def expand(orbits: OrbitLayout, flat: FloatArray, fill: float) -> FloatArray:
    """(..., F) entries as (..., n_B, T) per hand; `fill` where the board excludes the hand."""
    out = np.take(flat, np.maximum(orbits.index, 0), axis=-1)
    out[..., orbits.index < 0] = fill
    return out


def contract(orbits: OrbitLayout, per_hand: FloatArray) -> FloatArray:
    """(..., n_B, T) per-hand entries as (..., F): each orbit's representative's."""
    return np.ascontiguousarray(per_hand[..., orbits.board, orbits.hand])
