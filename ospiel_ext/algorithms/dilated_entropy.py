"""The dilated (perturbed) entropy distance-generating function of a treeplex, and its argmax.

Kroer, Farina & Sandholm, "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium",
IJCAI 2017, Section 3. On the xi-perturbed treeplex Q^xi (Section 2.3: q_j >= xi q_pj for every
sequence) the dilated perturbed entropy is

    d(q) = sum_j beta_j q_pj sum_{i in I_j} u_i log u_i,   u = (q_j / q_pj - xi) / (1 - n_j xi),

with weights beta_j = 2 + sum_{r=1}^{d_j} 2^r (M_{Q_j,r} - 1) (Theorem 4:
`dilated_entropy_weights`; M_Q is `treeplex_norm`); xi = 0 is the dilated entropy of Kroer et
al. (2017).

Everything EGT (`egt.EGTSolver`) needs is one primitive on a treeplex, `DilatedEntropy.argmax`:

    argmax_{q in Q^xi} <g, q> - mu d(q) + mu <grad d(q_bar), q>,

computed bottom-up (`Treeplex.bottom_up`), each infoset solving a perturbed-simplex problem in
closed form (Lemma 1): u ∝ u_bar exp((1 - n xi) v / (mu beta)), b = (1 - n xi) u + xi, value
xi sum(v) + mu beta log sum(u_bar exp(...)). Without a centre (u_bar = 1) it is the gradient of
the conjugate, i.e. a smoothed best response; with a centre q_bar it is the prox mapping,
because <grad d(q_bar), q> = sum_j beta_j q_pj sum_i u_i log u_bar_i for this DGF. The module
also holds the best response within Q^xi (`DilatedEntropy.best_response`) and the saddle-point
gap of the perturbed game (`perturbed_saddle_gap`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.treeplex import Level, Treeplex


def dilated_entropy_weights(tp: Treeplex) -> FloatArray:
    """beta_j = 2 + sum_{r=1}^{d_j} 2^r (M_{Q_j,r} - 1) (Theorem 4), per infoset.

    M_{Q_j,r}, the largest l1 norm of a point of the treeplex rooted at j restricted to
    simplexes at most r branchings below j, obeys M_{j,0} = 1 and
    M_{j,r} = 1 + max_{i in I_j} sum_{k in D_ij} M_{k,r-1}; it grows strictly while r <= d_j
    (the depth below j) and is constant after.
    """
    m_prev = np.ones(tp.num_infosets)
    beta = np.full(tp.num_infosets, 2.0)
    for r in range(1, len(tp.levels)):
        below = np.bincount(tp.parent_seq, weights=m_prev, minlength=tp.num_sequences)
        m = 1.0 + np.maximum.reduceat(below[1:], tp.seq_start - 1)
        deeper = m > m_prev
        beta += np.where(deeper, 2.0**r * (m - 1.0), 0.0)
        m_prev = m
    return beta


def treeplex_norm(tp: Treeplex) -> float:
    """M_Q = max_{q in Q} ||q||_1 (Section 2.3), the sum over root simplexes."""
    m = np.ones(tp.num_infosets)
    for lv in reversed(tp.levels):
        below = np.bincount(tp.parent_seq, weights=m, minlength=tp.num_sequences)
        m[lv.inf_lo : lv.inf_hi] = 1.0 + np.maximum.reduceat(
            below[lv.seq_lo : lv.seq_hi], lv.starts
        )
    return float(m[tp.parent_seq == 0].sum())


def _padded_segments(tp: Treeplex, lv: Level) -> IntArray | None:
    """Indices that lay a level's infosets out as the columns of a (max actions) x (infosets) array.

    Short infosets are padded with the index num_sequences; None where that padding would
    more than double the level or the level is small.

    `z_all.take(pad).max(0)`, with z_all[num_sequences] = -inf, is then every infoset's
    maximum in two vectorised calls: on levels of hundreds of infosets with a few actions each
    it is about twice as fast as `np.maximum.reduceat`, whose cost is per segment.
    """
    counts = tp.num_actions[lv.inf_lo : lv.inf_hi]
    k, m = int(counts.max(initial=0)), len(counts)
    if m < 16 or k * m > 2 * (lv.seq_hi - lv.seq_lo):
        return None
    pad = np.full((k, m), tp.num_sequences, dtype=np.intp)
    for j in range(k):
        has = counts > j
        pad[j, has] = lv.seq_lo + lv.starts[has] + j
    return pad


class DilatedEntropy:
    """The dilated (lower-bound perturbed) entropy DGF of one treeplex and its closed-form argmax.

    With behavioural lower bounds l (xi on every action in the paper; any l >= 0 with
    sum_a l(I, a) < 1, e.g. GGSE's eps * prior) the simplex of information set I is
    {b >= l, sum b = 1} = l + (1 - sum l) Delta, and u = (b - l) / (1 - sum l) runs over the
    plain simplex: the paper's u with xi_j replaced by l(I, a) and n_j xi_j by sum_a l(I, a).

    Args:
      tp: the treeplex.
      lower: a scalar (xi on every action), one value per information set, or one value per
        sequence (0 for the empty sequence), e.g. `BehaviouralLowerBounds.per_sequence`.
    """

    def __init__(self, tp: Treeplex, lower: float | FloatArray = 0.0):
        self.tp = tp
        lower = np.asarray(lower, dtype=np.float64)
        if lower.ndim == 1 and len(lower) == tp.num_sequences:
            lower_seq = lower.copy()
        else:
            lower_seq = tp.spread(np.broadcast_to(lower, (tp.num_infosets,)))
        lower_seq[0] = 0.0
        room = 1.0 - tp.segment_sum(lower_seq)  # 1 - sum_a l(I, a)  (1 - n_j xi_j)
        if len(lower_seq) > 1 and (lower_seq.min() < 0 or room.min(initial=1.0) <= 0):
            j = int(np.argmin(room))
            raise ValueError(
                f"lower bounds summing to {1 - room[j]} are infeasible at an information set "
                f"with {tp.num_actions[j]} actions (needs every bound >= 0, sum < 1)"
            )
        self.beta = dilated_entropy_weights(tp)
        self.room = room
        self.xi_seq = lower_seq
        self.room_seq = tp.spread(room)
        self.room_seq[0] = 1.0
        self.beta_seq = tp.spread(self.beta)
        self.beta_seq[0] = 1.0
        self.room_over_beta = self.room_seq / self.beta_seq
        self.perturbed = bool(lower_seq.any())
        self._max_index = {lv.seq_lo: _padded_segments(tp, lv) for lv in tp.levels}

    def argmax(
        self, g: FloatArray, mu: float, log_center: FloatArray | None = None
    ) -> tuple[FloatArray, float]:
        """Behavioural b of argmax <g, q> - mu d(q) + mu <grad d(q_bar), q>, and its value.

        Args:
          g: linear term per sequence.
          mu: smoothing weight (> 0).
          log_center: log u_bar per sequence of the centre q_bar (`log_center(b_bar)`); None
            for no centre (a smoothed best response, i.e. grad d*(g / mu)).
        """
        tp = self.tp
        scale = self.room_over_beta / mu
        mu_beta = self.beta * mu
        # z, then exp(z - max), of every sequence; the extra last entry is the -inf that
        # padded segment maxima read (`_padded_segments`)
        z_all = np.empty(tp.num_sequences + 1)
        z_all[-1] = -np.inf
        total = np.empty(tp.num_infosets)
        xi = self.xi_seq if self.perturbed else None

        def local(lv: Level, vs: FloatArray) -> FloatArray:
            sl, inf = slice(lv.seq_lo, lv.seq_hi), slice(lv.inf_lo, lv.inf_hi)
            z = np.multiply(vs, scale[sl], out=z_all[sl])
            if log_center is not None:
                z += log_center[sl]
            pad = self._max_index[lv.seq_lo]
            z_max = np.maximum.reduceat(z, lv.starts) if pad is None else z_all.take(pad).max(0)
            z -= z_max.take(lv.local_infoset)
            np.exp(z, out=z)
            # bincount sums short segments about twice as fast as add.reduceat
            t = np.bincount(lv.local_infoset, weights=z, minlength=len(z_max))
            total[inf] = t
            value = np.log(t)
            value += z_max
            value *= mu_beta[inf]
            if xi is not None:
                value += np.bincount(lv.local_infoset, weights=vs * xi[sl], minlength=len(t))
            return value

        v_seq, _ = tp.bottom_up(g, local)
        b = z_all[:-1]  # u = exp(z - max) / total, b = (1 - sum l) u + l
        b[1:] *= self.room_seq[1:] / tp.spread(total)[1:]
        if xi is not None:
            b += xi
        b[0] = 1.0
        return b, float(v_seq[0])

    def log_center(self, b: FloatArray) -> FloatArray:
        """Log u_bar of a behavioural strategy in the perturbed simplexes (log 0 clipped)."""
        u = (b - self.xi_seq) / self.room_seq
        return np.log(np.maximum(u, 1e-300))

    def max_divergence(self, log_center: FloatArray) -> float:
        """Max over Q^xi of the DGF centred at q_bar, d(q) - <grad d(q_bar), q>.

        The centred DGF equals sum_j beta_j q_pj KL(u_j || u_bar_j) (its minimum is 0, at q_bar).

        It is convex, so its maximum is at a vertex, where every u_j is pure: there it is
        sum_j beta_j q_pj (-log u_bar_j,i(j)), which equals <h, q> with
        h(j, a) = -beta_j log u_bar_j,a / (1 - sum l_j) on the sequences and
        -sum_a l(j, a) h(j, a) added to the sequence leading to j (as b_a = l_a + (1 - sum l) u_a).
        So the maximum is the best-response value against h.
        """
        tp = self.tp
        h = -log_center * self.beta_seq / self.room_seq
        h[0] = 0.0
        if self.perturbed:
            h -= np.bincount(
                tp.parent_seq, weights=tp.segment_sum(self.xi_seq * h), minlength=len(h)
            )
        return self.best_response(h)

    def value(self, x: FloatArray) -> float:
        """d(x) for a realization plan x of the perturbed treeplex."""
        tp = self.tp
        parent = x[tp.seq_parent[1:]]
        with np.errstate(invalid="ignore", divide="ignore"):
            u = (x[1:] / parent - self.xi_seq[1:]) / self.room_seq[1:]
            terms = np.where(parent > 0, parent * u * np.log(np.maximum(u, 1e-300)), 0.0)
        return float(np.sum(self.beta_seq[1:] * terms))

    def best_response(self, g: FloatArray) -> float:
        """max_{q in Q^xi} <g, q>: each action's lower bound, the rest on the best one."""
        v_seq, _ = self.tp.bottom_up(
            g,
            lambda lv, vs: (
                np.add.reduceat(vs * self.xi_seq[lv.seq_lo : lv.seq_hi], lv.starts)
                + self.room[lv.inf_lo : lv.inf_hi] * np.maximum.reduceat(vs, lv.starts)
            ),
        )
        return float(v_seq[0])


def perturbed_saddle_gap(
    sf: SequenceForm, dgfs: Sequence[DilatedEntropy], x: FloatArray, y: FloatArray
) -> float:
    """The saddle-point gap of realization plans (x, y) in the perturbed game.

    It sums both players' best responses within their perturbed strategy sets
    (`DilatedEntropy.best_response`).
    """
    return dgfs[0].best_response(sf.sequence_values(0, y)) + dgfs[1].best_response(
        sf.sequence_values(1, x)
    )
