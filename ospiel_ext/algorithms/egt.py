"""Excessive gap technique with (perturbed) dilated entropy: approximate EFPE.

Kroer, Farina & Sandholm, "Smoothing Method for Approximate Extensive-Form Perfect Equilibrium",
IJCAI 2017. The saddle point
max_x min_y x^T A y over the xi-perturbed treeplexes X^xi, Y^xi (Section 2.3: q_j >= xi q_pj
for every sequence) is solved with Nesterov's EGT (Algorithms 1 and 2) smoothed by the
dilated perturbed entropy (Section 3, Theorem 4's weights), whose closed-form argmax (Lemma 1)
is `dilated_entropy.DilatedEntropy.argmax`: without a centre a smoothed best response, with a
centre the prox mapping. xi = 0 is plain EGT with the dilated entropy of Kroer et al. (2017).

This module holds the solver (`EGTSolver`, its three step-size rules and `EGTStats`) and the
tuning of its DGF weight (`tune_dgf_weight`, Section 4).
"""

from __future__ import annotations

import dataclasses
import sys

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate, policies
from ospiel_ext.algorithms import forms
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.dilated_entropy import (
    DilatedEntropy,
    perturbed_saddle_gap,
    treeplex_norm,
)
from ospiel_ext.arrays import FloatArray
from ospiel_ext.constraints import BehaviouralLowerBounds, resolve_lower_bounds
from ospiel_ext.sequence_form import SequenceForm

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
      form: the sequence form to build of a game (`forms.FORMS`: "explicit", the default, or
        "public_tree" for poker games, whose products walk the public tree and which builds
        no payoff matrix: EGT reads its scale from `max_abs_payoff`); unused when `game` is a
        SequenceForm.
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
        form: str = "explicit",
    ):
        forms.check_form(form)
        self._sf = (
            game
            if isinstance(game, SequenceForm)
            else forms.sequence_form(game, form=form, max_nodes=max_nodes)
        )
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
        norm_a = self._sf.max_abs_payoff() or 1.0  # the public-tree form: without building A
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
