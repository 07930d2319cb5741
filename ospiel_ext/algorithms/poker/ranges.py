"""Fold and showdown values against an opponent's range, vectorised over public states.

For a block of public states sharing a round (n terminals x n_B boards x T hands), Y[t, b, o]
is the opponent's reach (its realization-plan entry) with hand o, m[b, h] the copies of type h
left by board b, coef[b] the chance weight of the board (`public_tree`). The chance-weighted
value of own hand h is sum_o W_b[h, o] u(h, o) Y[t, b, o] with W_b = m_b m_b^T - diag(m_b)
(Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games", IJCAI 2011, Section 4.2):

* fold (u constant): u m[h] (sum_o m[o] Y[o] - Y[h]), the opponent's whole range minus the
  hands that collide with h (inclusion-exclusion; with one private card only h itself);
* showdown (u = pot sign(s[h] - s[o])): pot m[h] (sum_{s[o] < s[h]} m[o] Y[o] -
  sum_{s[o] > s[h]} m[o] Y[o]) (the diagonal pays 0: a hand ties itself), two prefix sums
  over hands sorted by strength once per board (Section 4.1: O(n) per public state after
  one O(n log n) sort at build time).

The same fold rule with u = 1 is the opponent-and-chance reach of a decision's infosets.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ospiel_ext.arrays import FloatArray, IntArray


@dataclasses.dataclass(frozen=True, eq=False)
class StrengthOrder:
    """Hands sorted by strength on each board, flat over (board, position).

    Attributes:
      order: (n_B * T,) flat index b * T + h of the hand at each sorted position of board b.
      below: (n_B * T,) flat index b * (T + 1) + (number of hands weaker than h) in the
        prefix sums, for each (b, h).
      above: the same with hands weaker than or as strong as h.
    """

    order: IntArray
    below: IntArray
    above: IntArray

    @classmethod
    def of(cls, strength: IntArray) -> StrengthOrder:
        """From the strength of each (board, hand) (any ints; incompatible hands anything)."""
        n_b, t = strength.shape
        _, dense = np.unique(strength, return_inverse=True)
        key = np.arange(n_b)[:, None] * (int(dense.max()) + 1) + dense.reshape(n_b, t)
        flat = key.ravel()
        order = np.argsort(flat, kind="stable")
        sorted_key = flat[order]
        base = np.repeat(np.arange(n_b) * t, t)
        shift = np.repeat(np.arange(n_b) * (t + 1), t)
        below = np.searchsorted(sorted_key, flat, side="left") - base + shift
        above = np.searchsorted(sorted_key, flat, side="right") - base + shift
        return cls(order.astype(np.int64), below.astype(np.int64), above.astype(np.int64))


def fold_values(y: FloatArray, m: FloatArray, scale: FloatArray) -> FloatArray:
    """scale[t, b] m[b, h] (sum_o m[b, o] y[t, b, o] - y[t, b, h]) for y (n, n_B, T)."""
    total = np.einsum("tbo,bo->tb", y, m)
    values: FloatArray = (scale[:, :, None] * m[None]) * (total[:, :, None] - y)
    return values


def showdown_values(
    y: FloatArray, m: FloatArray, scale: FloatArray, *, order: StrengthOrder
) -> FloatArray:
    """scale[t, b] m[b, h] (range weaker than h - range stronger than h) for y (n, n_B, T)."""
    n, n_b, t = y.shape
    weighted = (y * m[None]).reshape(n, n_b * t)[:, order.order].reshape(n, n_b, t)
    prefix = np.zeros((n, n_b, t + 1))
    np.cumsum(weighted, axis=2, out=prefix[:, :, 1:])
    flat = prefix.reshape(n, n_b * (t + 1))
    total = np.repeat(prefix[:, :, t], t, axis=1)
    net = flat[:, order.below] - (total - flat[:, order.above])
    values: FloatArray = (scale[:, :, None] * m[None]) * net.reshape(n, n_b, t)
    return values
