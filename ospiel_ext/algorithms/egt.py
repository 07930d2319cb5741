"""Excessive gap technique with (perturbed) dilated entropy: approximate EFPE.

Kroer, Farina & Sandholm, "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium",
IJCAI 2017. The saddle point
max_x min_y x^T A y over the xi-perturbed treeplexes X^xi, Y^xi (Section 2.3: q_j >= xi q_pj
for every sequence) is solved with Nesterov's EGT (Algorithms 1 and 2) smoothed by the
dilated perturbed entropy (Section 3)

    d(q) = sum_j beta_j q_pj sum_{i in I_j} u_i log u_i,   u = (q_j / q_pj - xi) / (1 - n_j xi),

with weights beta_j = 2 + sum_{r=1}^{d_j} 2^r (M_{Q_j,r} - 1) (Theorem 4); xi = 0 is plain EGT
with the dilated entropy of Kroer et al. (2017).

Everything EGT needs is one primitive on a treeplex, `DilatedEntropy.argmax`:

    argmax_{q in Q^xi} <g, q> - mu d(q) + mu <grad d(q_bar), q>,

computed bottom-up (`Treeplex.bottom_up`), each infoset solving a perturbed-simplex problem in
closed form (Lemma 1): u ∝ u_bar exp((1 - n xi) v / (mu beta)), b = (1 - n xi) u + xi, value
xi sum(v) + mu beta log sum(u_bar exp(...)). Without a centre (u_bar = 1) it is the gradient of
the conjugate, i.e. a smoothed best response; with a centre q_bar it is the prox mapping,
because <grad d(q_bar), q> = sum_j beta_j q_pj sum_i u_i log u_bar_i for this DGF.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.constraints import BehaviouralLowerBounds, resolve_lower_bounds
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.treeplex import Level, Treeplex

# Step-size rules of `EGTSolver` (its docstring).
STEPPINGS = ("theory", "aggressive", "restarted")

# The restarted rule measures the saddle-point gap every RESTART_CHECK steps and restarts once
# it has fallen to RESTART_FACTOR times the gap at the previous restart (or first check).
RESTART_CHECK = 10
RESTART_FACTOR = 0.5

# Overall DGF weights tried by `tune_dgf_weight`. The paper (Section 4) tunes among
# {1, 0.1, 0.05, 0.01, 0.005} relative to its own DGF scale; relative to ours (the theory scale
# max|A_ij| sqrt(M_X M_Y) with Theorem 4's weights) the best weight lies below 0.005 on every
# game we tried (docs/results/efpe.md), so the grid reaches further down.
DGF_WEIGHTS = (1e-2, 5e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 5e-6)


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


@dataclasses.dataclass(frozen=True, kw_only=True)
class EGTStats:
    """Progress of an EGT run: iterations, tree traversals, smoothing, gaps."""

    iteration: int
    traversals: int
    mu: tuple[float, float]
    perturbed_gap: float
    tau: float


class EGTSolver:
    """EGT (Algorithms 1-2) on the xi-perturbed game, with OpenSpiel's solver shape.

    `evaluate_and_update_policy()` performs one EGT step (alternately focused on player 1,
    the paper's minimising x, and player 0); `average_policy()` and `current_policy()` both
    return the EGT iterate (x^t, y^t), which is what converges.

    Satisfies `solver.Solver`, with the CFR solvers' argument names for the same things (`xi`,
    keyword-only `max_nodes`); like theirs, its policies are fresh TabularPolicy objects.

    Two step-size rules (`stepping`):

    * "theory": Algorithm 1 as written, tau_t = 2 / (t + 3), the two players' steps
      alternating; with `dgf_weight=1` Nesterov's analysis keeps the excessive gap condition
      at every step.
    * "aggressive": the practical EGT of Kroer, Farina & Sandholm, "Solving Large Sequential
      Games with the Excessive Gap Technique" (NeurIPS 2018; its heuristics come from Hoda,
      Gilpin, Pena & Sandholm, "Smoothing techniques for computing Nash equilibria of
      sequential games", Math. OR 2010 - we had neither text, so the details below are our
      reading of the technique, not the papers' pseudocode): the initial smoothing is the
      smallest (halving from the theory scale) at which the initial point satisfies the
      excessive gap condition (EGC); each step is taken with the current tau and kept only
      if the EGC still holds, otherwise it is undone and retried with tau / 2 ("aggressive
      mu reduction"); each step focuses on the player whose mu is larger ("balancing"), so
      the two smoothing terms shrink together. While the EGC holds the saddle-point gap is at most
      mu_0 D_0 + mu_1 D_1 (`gap_bound`), the certificate the check maintains.
    * "restarted": the aggressive rule inside the outer loop of Gilpin, Pena & Sandholm,
      "First-order algorithm with O(ln(1/eps)) convergence for eps-equilibrium in two-person
      zero-sum games" (Math. Programming 133, 2012; iterated smoothing - again our reading,
      without the text): every `RESTART_CHECK` steps the saddle-point gap is measured (two
      traversals), and once it has halved since the last restart EGT starts afresh with both
      DGFs centred at the current iterate (d(q) - <grad d(q_bar), q>, the dilated KL
      divergence from q_bar) and the smallest smoothing at which the new start keeps the EGC.
      Each phase halves the gap, hence the linear rate in the paper's title; the phases'
      length depends on the game (docs/results/efpe.md).

    Args:
      game: a pyspiel game, a load_game string, or a SequenceForm.
      xi: behavioural lower bound on every action (the paper's xi-perturbation).
      lower_bounds: behavioural lower bounds keyed by information state
        (`constraints.BehaviouralLowerBounds`, as the LP and CFR take them; may differ by
        action, e.g. eps * prior); instead of `xi`.
      dgf_weight: overall weight on the DGFs: the initial smoothing is
        dgf_weight * max|A_ij| * sqrt(M_X M_Y) for both players (theory: weight 1; the paper
        tunes it among `DGF_WEIGHTS`, see `tune_dgf_weight`).
      stepping: "theory" (Algorithm 1), "aggressive" or "restarted" (see above; both ignore
        dgf_weight).
      tau: the aggressive rule's first step size (halved at every EGC failure; a restart
        starts from it again).
      max_nodes: refuse games with more nodes.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        xi: float = 0.0,
        dgf_weight: float = 1.0,
        *,
        lower_bounds: BehaviouralLowerBounds | None = None,
        stepping: str = "theory",
        tau: float = 0.5,
        max_nodes: int | None = None,
    ):
        self._sf = game if isinstance(game, SequenceForm) else sf_lib.for_game(game, max_nodes)
        if dgf_weight <= 0:
            raise ValueError(f"dgf_weight must be positive, got {dgf_weight}")
        bounds = resolve_lower_bounds(xi, lower_bounds)
        self._tps = self._sf.treeplexes
        self._dgf = tuple(
            DilatedEntropy(tp, bounds.per_sequence(self._sf, p)) for p, tp in enumerate(self._tps)
        )
        if stepping not in STEPPINGS:
            raise ValueError(f"stepping must be one of {STEPPINGS}, got {stepping!r}")
        if not 0 < tau < 1:
            raise ValueError(f"tau must lie in (0, 1), got {tau}")
        self.stepping = stepping
        self._tau0 = self._tau = tau
        norm_a = float(np.abs(self._sf.payoff.data).max()) if self._sf.payoff.nnz else 1.0
        m = [treeplex_norm(tp) for tp in self._tps]
        self._theory_mu = norm_a * np.sqrt(m[0] * m[1])
        # D_p = -min d_p >= max d_p - min d_p, as d_p <= 0 (0 at pure strategies); the minimum
        # is at the centre, the argmax of -d_p. The EGC shifts d_p by D_p to make its minimum
        # 0; a DGF centred at q_bar (restarts) has minimum 0 already and D_p = its maximum.
        self._spread = [
            dgf.argmax(np.zeros(tp.num_sequences), 1.0)[1] for dgf, tp in zip(self._dgf, self._tps)
        ]
        self._centre: list[FloatArray | None] = [None, None]  # log u_bar of each DGF's centre
        self._traversals = 0
        self._iteration = 0
        self._restarts = 0
        self._restart_target: float | None = None
        self._responses: list[FloatArray] | None = None
        self._plans: list[FloatArray] = []
        self._mu: list[float] = []
        if stepping == "theory":
            # this order of products: the docs' EGT figures depend on the last bit
            self._initialise(dgf_weight * norm_a * np.sqrt(m[0] * m[1]))
        else:
            self._start_with_least_smoothing(self._theory_mu)

    def _start_with_least_smoothing(self, mu0: float) -> bool:
        """Algorithm 1's start at the smallest mu (by halving from mu0) satisfying the EGC.

        Returns False if there is none up to 1024 x the theory scale.

        At the theory scale the start satisfies the EGC (Nesterov's initialisation, as with
        stepping="theory"); a restart begins at the current smoothing, where it is checked
        and doubled until it holds.
        """
        self._initialise(mu0)
        while self._centre[0] is not None and not self._excessive_gap_holds():
            if mu0 > 1024 * self._theory_mu:
                return False
            mu0 *= 2
            self._initialise(mu0)
        while mu0 > 1e-12:
            kept = (self._plans, self._responses)
            self._initialise(mu0 / 2)
            if not self._excessive_gap_holds():
                self._mu = [mu0, mu0]
                self._plans, self._responses = kept
                break
            mu0 /= 2
        return True

    def _initialise(self, mu0: float) -> None:
        """Algorithm 1's start, with smoothing mu0 for both players.

        The start is the centre of player 1 (the paper's minimising x), player 0's smoothed
        best response to it, and player 1's smoothed best response to that.
        """
        self._mu = [mu0, mu0]
        self._responses = None
        zero = np.zeros(self._tps[1].num_sequences)
        center1, _ = self._dgf[1].argmax(zero, 1.0, log_center=self._centre[1])
        b0, _ = self._smoothed_br(0, self._tps[1].realization_plan(center1))
        x0 = self._tps[0].realization_plan(b0)
        b1, _ = self._smoothed_br(1, x0)
        self._plans = [x0, self._tps[1].realization_plan(b1)]

    def _smoothed_br(self, p: int, opponent_plan: FloatArray) -> tuple[FloatArray, float]:
        """Behavioural argmax_q <M_p o, q> - mu_p d_p(q), and its value."""
        self._traversals += 1
        g = self._sf.sequence_values(p, opponent_plan)
        return self._dgf[p].argmax(g, self._mu[p], log_center=self._centre[p])

    def _excessive_gap_holds(self) -> bool:
        """Whether the EGC f_mu(x) <= phi_mu(y) holds.

        In our form: the two players' smoothed best-response values, with d_p shifted to be 0
        at its minimum (d_p + D_p, or d_p centred), sum to at most 0.

        Keeps both smoothed best responses: the next step starts from one of them.
        """
        b0, v0 = self._smoothed_br(0, self._plans[1])
        b1, v1 = self._smoothed_br(1, self._plans[0])
        self._responses = [b0, b1]
        shift = 0.0 if self._centre[0] is not None else self.gap_bound()
        return v0 + v1 <= shift + 1e-12 * max(1.0, abs(v0) + abs(v1))

    def gap_bound(self) -> float:
        """mu_0 D_0 + mu_1 D_1: the saddle-point gap is at most this while the EGC holds.

        The EGC holds always with stepping="aggressive" or "restarted"; with "theory" when
        dgf_weight >= 1. After a restart D_p is the centred DGF's maximum, which grows with
        log(1 / the centre's smallest probability), so this bound is then loose.
        """
        return self._mu[0] * self._spread[0] + self._mu[1] * self._spread[1]

    def _step(self, p: int, tau: float) -> None:
        """Algorithm 2 focused on player p (the paper's x), in maximisation form."""
        o = 1 - p
        tp, dgf = self._tps[p], self._dgf[p]
        x, y = self._plans[p], self._plans[o]
        if self._responses is not None:  # x_mu1(y), kept from the last EGC check
            b_br = self._responses[p]
        else:
            b_br, _ = self._smoothed_br(p, y)
        self._responses = None
        x_hat = (1 - tau) * x + tau * tp.realization_plan(b_br)
        y_br = self._tps[o].realization_plan(self._smoothed_br(o, x_hat)[0])  # y_mu2(x_hat)
        self._plans[o] = (1 - tau) * y + tau * y_br
        g = self._sf.sequence_values(p, y_br) * (tau / ((1 - tau) * self._mu[p]))
        self._traversals += 1
        b_tilde, _ = dgf.argmax(g, 1.0, log_center=dgf.log_center(b_br))  # prox step
        self._plans[p] = (1 - tau) * x + tau * tp.realization_plan(b_tilde)
        self._mu[p] *= 1 - tau

    def evaluate_and_update_policy(self) -> None:
        """One EGT step (Algorithm 1's loop body), by the solver's `stepping` rule."""
        if self.stepping == "theory":
            tau = 2.0 / (self._iteration + 3)
            self._step(1 if self._iteration % 2 == 0 else 0, tau)
        else:
            self._aggressive_step()
        self._iteration += 1
        if self.stepping == "restarted" and self._iteration % RESTART_CHECK == 0:
            self._traversals += 2
            gap = self.perturbed_gap()
            if self._restart_target is None or gap <= self._restart_target:
                if self._restart_target is not None:
                    self._restart()
                self._restart_target = RESTART_FACTOR * gap

    def _aggressive_step(self) -> None:
        """A step on the player with the larger mu, with tau halved until the EGC holds."""
        p = 0 if self._mu[0] >= self._mu[1] else 1
        if self._responses is None:
            self._excessive_gap_holds()
        plans, mu, responses = list(self._plans), list(self._mu), self._responses
        while True:
            self._step(p, self._tau)
            if self._excessive_gap_holds():
                return
            self._plans, self._mu, self._responses = list(plans), list(mu), responses
            self._tau /= 2
            if self._tau < 1e-15:
                raise FloatingPointError(
                    "EGT: the excessive gap condition fails for every step size (numerical "
                    f"precision exhausted at gap bound {self.gap_bound():.3g})"
                )

    def _restart(self) -> None:
        """Gilpin, Pena & Sandholm's outer loop: EGT afresh, both DGFs centred at the iterate.

        The current iterate is kept as it is if no smoothing up to 1024 x the theory scale lets
        the new start satisfy the EGC.
        """
        kept = (self._plans, self._mu, self._responses, self._centre)
        centres = [dgf.log_center(b) for dgf, b in zip(self._dgf, self.behavioural())]
        self._centre = list(centres)
        if not self._start_with_least_smoothing(max(self._mu)):
            self._plans, self._mu, self._responses, self._centre = kept
            return
        self._traversals += 2
        self._spread = [dgf.max_divergence(c) for dgf, c in zip(self._dgf, centres)]
        self._tau = self._tau0
        self._restarts += 1

    @property
    def restarts(self) -> int:
        """Restarts so far (stepping="restarted")."""
        return self._restarts

    @property
    def sequence_form(self) -> SequenceForm:
        """The compiled game the solver runs on."""
        return self._sf

    @property
    def iteration(self) -> int:
        """EGT steps performed so far."""
        return self._iteration

    @property
    def traversals(self) -> int:
        """Bottom-up treeplex passes so far (a CFR iteration makes two)."""
        return self._traversals

    def perturbed_gap(self) -> float:
        """epsilon_sad(z^t): the saddle-point gap of the iterate in the perturbed game."""
        return perturbed_saddle_gap(self._sf, self._dgf, *self._plans)

    def run(
        self,
        epsilon: float,
        max_iterations: int | None = None,
        check_every: int = 10,
        time_limit: float | None = None,
    ) -> solver_lib.RunResult:
        """Algorithm 1's loop through `solver.run`: steps until epsilon_sad(z^t) <= epsilon.

        The gap is checked now and every `check_every` steps, where the curve is also
        measured; the run also stops after `max_iterations` steps in all, `time_limit` seconds
        or Ctrl-C.
        """
        if check_every <= 0:
            raise ValueError(f"check_every must be positive, got {check_every}")
        budget = sys.maxsize if max_iterations is None else max(max_iterations - self._iteration, 0)
        return solver_lib.run(
            self,
            budget,
            time_limit=time_limit,
            checkpoints=range(0, budget, check_every),
            target=lambda _: self.perturbed_gap() <= epsilon,
        )

    def stats(self) -> EGTStats:
        """The progress so far: iterations, traversals, both mu, the perturbed gap and tau."""
        return EGTStats(
            iteration=self._iteration,
            traversals=self._traversals,
            mu=(float(self._mu[0]), float(self._mu[1])),
            perturbed_gap=self.perturbed_gap(),
            tau=self._tau,
        )

    def behavioural(self) -> policies.Behavioural:
        """The iterate (x^t, y^t) in behavioural form."""
        tp0, tp1 = self._tps
        return (tp0.behavioural(self._plans[0]), tp1.behavioural(self._plans[1]))

    average_behavioural = behavioural  # the EGT iterate is what converges

    def plans(self) -> tuple[FloatArray, FloatArray]:
        """Copies of the iterate's realization plans (x^t, y^t)."""
        return (self._plans[0].copy(), self._plans[1].copy())

    def current_policy(self) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy of the iterate, never mutated by later steps."""
        return policies.layout(self._sf).to_tabular(self.behavioural())

    average_policy = current_policy

    def exploitability(self) -> float:
        """OpenSpiel exploitability of the iterate in the unperturbed game."""
        return evaluate.evaluate_plans(self._sf, *self._plans).exploitability


def tune_dgf_weight(
    game: pyspiel.Game | str | SequenceForm,
    xi: float = 0.0,
    weights: tuple[float, ...] = DGF_WEIGHTS,
    iterations: int = 20,
) -> float:
    """The weight among `weights` whose EGT has the smallest gap after `iterations` steps.

    Section 4: tuned with xi = 0 on the first 20 iterations.
    """
    best, best_gap = weights[0], np.inf
    for w in weights:
        solver = EGTSolver(game, xi=xi, dgf_weight=w)
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        gap = solver.perturbed_gap()
        if gap < best_gap:
            best, best_gap = w, gap
    return best
