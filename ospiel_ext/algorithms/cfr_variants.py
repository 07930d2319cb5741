"""CFR, CFR+, DCFR and LCFR on the sequence form as one update rule, with basis matrices.

Counterfactual regret minimisation (Zinkevich et al. 2007), CFR+ (Tammelin 2014) and
discounted and linear CFR (Brown & Sandholm 2019) as one update rule configured by
`CFRConfig` (presets `CFR`, `CFR_PLUS`, `DCFR`, `LCFR`) and run by `CFRVariantSolver`, all
players' information sets at once on the arrays of the compiled game. OpenSpiel's solver
classes over this rule (`CFRSolver`, `CFRPlusSolver`, `DCFRSolver`, ...) are in `cfr`.

One iteration, for each player p (in turn, with alternating updates):

1. g = sequence values against the opponent's current realization plan (one sparse mat-vec);
2. bottom-up treeplex pass: counterfactual value of every sequence and infoset under the
   played strategy pi'_p; instantaneous regret r'[a] = v[a] - v[infoset(a)];
3. r = B^T r' (basis matrices; Kubíček, Lisý & Sandholm, "Equilibrium Refinements Improve
   Subgame Solving in Imperfect-Information Games", 2025, eq. 5); regrets updated by the config
   (sum; RM+ clipping; DCFR discounting of positive / negative regrets);
4. the average accumulates pi'_p's realization plan (uniformly, or weighted t or DCFR's t^gamma);
5. regret matching over all infosets at once (`regret_matching`; a regret within the tie
   tolerance of `cfr_rules` counts as none) gives pi_p, and pi'_p = B pi_p (eq. 4).

Basis matrices (Farina, Kroer & Sandholm 2017, behaviourally constrained regret minimisation)
restrict an infoset's strategy to {B pi : pi in the simplex}; every column of B is a
distribution. `lower_bound_basis(l)` gives B = (1 - sum l) I + l 1^T, the strategies with
behavioural lower bounds l (the xi-perturbed treeplex of Kroer, Farina & Sandholm, "Smoothing
Method for Approximate Extensive-Form Perfect Equilibrium", IJCAI 2017, and, with l = eps * prior,
eq. 6 of Kubíček, Lisý & Sandholm 2025); `constraints.BehaviouralLowerBounds` builds them.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pyspiel
import scipy.sparse as sp
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate, policies
from ospiel_ext.algorithms import forms
from ospiel_ext.algorithms.cfr_rules import (
    CFR,
    CFR_PLUS,
    DCFR,
    LCFR,
    CFRConfig,
    CFREngine,
    OffersCFREngine,
    average_weights,
    check_discount,
    finish_regrets,
    payoff_scale,
    positive_regrets,
    tie_tolerance,
)
from ospiel_ext.arrays import FloatArray
from ospiel_ext.constraints import (
    BehaviouralLowerBounds,
    resolve_lower_bounds,
)
from ospiel_ext.sequence_form import SequenceForm, TreeSequenceForm
from ospiel_ext.treeplex import Treeplex

# the rule and its presets live in `cfr_rules` (shared with `poker.range_cfr`); named here too
__all__ = ["CFR", "CFR_PLUS", "DCFR", "LCFR", "CFRConfig", "CFRVariantSolver", "regret_matching"]


def _block_basis(tp: Treeplex, blocks: Mapping[int, FloatArray]) -> sp.csr_matrix | None:
    """Block-diagonal B over all sequences of tp (identity outside the given infosets)."""
    if not blocks:
        return None
    n = tp.num_sequences
    rows, cols, vals = [np.arange(n)], [np.arange(n)], [np.ones(n)]
    for i, mat in blocks.items():
        k, s = int(tp.num_actions[i]), int(tp.seq_start[i])
        if mat.shape != (k, k) or mat.min() < 0 or not np.allclose(mat.sum(axis=0), 1.0):
            raise ValueError(
                f"basis matrix for infoset {i} must be {k}x{k}, non-negative, with "
                "columns summing to one"
            )
        vals[0][s : s + k] = 0.0  # replace the identity block
        r, c = np.meshgrid(np.arange(k), np.arange(k), indexing="ij")
        rows.append(s + r.ravel())
        cols.append(s + c.ravel())
        vals.append(mat.ravel())
    return sp.csr_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
    )


def regret_matching(tp: Treeplex, regrets: FloatArray, tol: FloatArray | float = 0.0) -> FloatArray:
    """Behavioural strategy proportional to positive regrets, uniform where none is positive.

    Args:
      tp: the player's treeplex.
      regrets: cumulative regrets, one per sequence.
      tol: the tie tolerance, a number or one per sequence (`cfr_rules.tie_tolerance`): a
        regret at or below it counts as none (`cfr_rules.positive_regrets`).
    """
    pos = positive_regrets(regrets, tol, np.empty_like(regrets))
    pos[0] = 0.0
    total = tp.spread(tp.segment_sum(pos))
    b = tp.uniform.copy()
    np.divide(pos, total, out=b, where=total > 0)
    b[0] = 1.0
    return b


def _payoff_scale(sf: SequenceForm) -> float:
    """The payoff scale of the tie rule (`cfr_rules.tie_tolerance`).

    The game's (`cfr_rules.payoff_scale`); for a form of no game the largest |leaf utility|
    of its tree, or max |A_ij| (a smaller scale: fewer regrets count as ties).
    """
    if sf.game is not None:
        return payoff_scale(sf.game)
    if isinstance(sf, TreeSequenceForm):
        leaves = sf.leaves
        return float(max(np.abs(sf.tree.lo[leaves]).max(initial=0.0),
                         np.abs(sf.tree.hi[leaves]).max(initial=0.0)))  # fmt: skip
    return sf.max_abs_payoff()


class CFRVariantSolver:
    """A CFR variant given by its `CFRConfig`, on a compiled game; see the module docstring.

    The OpenSpiel drop-ins of `cfr` (`_CFRSolver`, `CFRSolver`, `CFRPlusSolver`, `_DCFRSolver`,
    `DCFRSolver`, `LCFRSolver`) take OpenSpiel's arguments and build the config; this class
    takes the config itself (e.g. the presets `CFR`, `CFR_PLUS`, `DCFR`, `LCFR`).

    Args:
      game: a pyspiel game, load_game string or SequenceForm (two-player zero-sum, perfect
        recall).
      config: the variant.
      basis: optional basis matrices keyed by information_state_string (a k x k matrix per
        infoset with k legal actions, every column a distribution).
      xi: optional behavioural lower bound applied to every action of every infoset not in
        `basis` (the xi-perturbation of Kroer, Farina & Sandholm 2017, "Smoothing method for
        approximate extensive-form perfect equilibrium", Section 2.3, run through CFR); the
        same argument as `egt.EGTSolver`'s xi.
      lower_bounds: behavioural lower bounds keyed by information state
        (`constraints.BehaviouralLowerBounds`, the object the LP and EGT take too), run as
        basis matrices B = (1 - sum l) I + l 1^T; instead of `xi`.
      max_nodes: refuse games with more nodes.
      form: the sequence form to build of a game (`forms.FORMS`: "explicit", the default, or
        "public_tree" for poker games); unused when `game` is a SequenceForm. A form that
        offers its own engine (`cfr_rules.OffersCFREngine`) runs the iterations, without
        basis matrices or lower bounds: the public-tree form from
        `poker.range_engine.RANGE_MIN_SEQUENCES` sequences on (the range layout, the same
        iterates, no sequence-numbered passes), the strategies coming back in the form's
        sequence numbering.

    Raises:
      ValueError: the game is not two-player zero-sum with perfect recall, has more than
        max_nodes nodes, lacks the poker structure `form="public_tree"` needs, or a basis /
        xi is invalid.
    """

    def __init__(
        self,
        game: pyspiel.Game | str | SequenceForm,
        config: CFRConfig = CFR,
        *,
        basis: Mapping[str, FloatArray] | None = None,
        xi: float = 0.0,
        lower_bounds: BehaviouralLowerBounds | None = None,
        max_nodes: int | None = None,
        form: str = "explicit",
    ):
        if not isinstance(config, CFRConfig):
            raise ValueError(f"config must be a CFRConfig, got {config!r}")
        check_discount(config, game.name if isinstance(game, SequenceForm) else str(game))
        forms.check_form(form)
        self._sf = (
            game
            if isinstance(game, SequenceForm)
            else forms.sequence_form(game, form=form, max_nodes=max_nodes)
        )
        self.config = config
        self._tps = self._sf.treeplexes
        self._basis = self._build_basis(basis or {}, resolve_lower_bounds(xi, lower_bounds))
        self._basis_t = tuple(None if b is None else b.T.tocsr() for b in self._basis)
        self._policy = [tp.uniform.copy() for tp in self._tps]  # pi (regret matching)
        self._played = [self._apply_basis(p, self._policy[p]) for p in (0, 1)]  # pi' = B pi
        self._regrets = [np.zeros(tp.num_sequences) for tp in self._tps]
        self._average = [np.zeros(tp.num_sequences) for tp in self._tps]
        self._iteration = 0
        # per player and infoset, the opponent-and-chance reach summed over the iterations
        self._reach = [np.zeros(tp.num_infosets) for tp in self._tps]
        self._scale: float | None = None  # `_payoff_scale`, on first use
        self._engine = self._offered_engine()

    def _offered_engine(self) -> CFREngine | None:
        """The engine the sequence form offers for this config, if any (Args: form).

        None with basis matrices or lower bounds, which only the sequence-form passes apply.
        """
        if not isinstance(self._sf, OffersCFREngine) or any(b is not None for b in self._basis):
            return None
        return self._sf.cfr_engine(self.config)

    def _build_basis(
        self, basis: Mapping[str, FloatArray], bounds: BehaviouralLowerBounds
    ) -> tuple[sp.csr_matrix | None, sp.csr_matrix | None]:
        """Per player, the block-diagonal basis (None for an unconstrained player).

        The blocks are `basis` where given and the lower bounds' blocks elsewhere; None when
        both leave the player unconstrained.
        """
        explicit: list[dict[int, FloatArray]] = [{}, {}]
        local = [
            dict(zip(self._sf.infoset_keys(p), range(tp.num_infosets))) if basis else {}
            for p, tp in enumerate(self._tps)
        ]
        for key, mat in basis.items():
            owners = [p for p in (0, 1) if key in local[p]]
            if len(owners) != 1:
                raise ValueError(
                    f"basis key {key!r} names {len(owners)} information sets of "
                    f"{self._sf.name}; it must name exactly one"
                )
            explicit[owners[0]][local[owners[0]][key]] = np.asarray(mat, dtype=np.float64)
        result = []
        for p, tp in enumerate(self._tps):
            if explicit[p]:
                result.append(_block_basis(tp, {**bounds.basis_blocks(self._sf, p), **explicit[p]}))
            elif len(bounds.constrained_infosets(self._sf, p)):
                result.append(bounds.basis_matrix(self._sf, p))
            else:
                result.append(None)
        return result[0], result[1]

    def _tie_tolerance(self, p: int, opponent_plan: FloatArray) -> FloatArray | float:
        """Player p's tie tolerance per sequence this iteration (`cfr_rules.tie_tolerance`).

        Adds this iteration's opponent-and-chance reach of p's infosets to their sum; 0 with
        the tie rule off (`CFRConfig.tie_ulps`).
        """
        if not self.config.tie_ulps:
            return 0.0
        if self._scale is None:
            self._scale = _payoff_scale(self._sf)
        self._reach[p] += self._sf.opponent_reach(p, opponent_plan)
        tol = tie_tolerance(self._reach[p], self._scale, ulps=self.config.tie_ulps)
        return self._tps[p].spread(tol)

    def _apply_basis(self, player: int, pi: FloatArray) -> FloatArray:
        b = self._basis[player]
        return pi if b is None else b @ pi

    @property
    def sequence_form(self) -> SequenceForm:
        """The compiled game the solver runs on."""
        return self._sf

    @property
    def engine(self) -> CFREngine | None:
        """The engine the sequence form offered and the solver runs, or None (its own passes)."""
        return self._engine

    @property
    def iteration(self) -> int:
        """Iterations performed so far."""
        return self._iteration

    @property
    def traversals(self) -> int:
        """Tree traversals so far: one per player per iteration."""
        return 2 * self._iteration

    def evaluate_and_update_policy(self) -> None:
        """One CFR iteration (both players)."""
        self._iteration += 1
        if self._engine is not None:
            self._engine.evaluate_and_update_policy()
            return
        if self.config.alternating_updates:
            for p in (0, 1):
                self._update(p, self._tps[1 - p].realization_plan(self._played[1 - p]))
        else:
            opponent_plans = [
                self._tps[1 - p].realization_plan(self._played[1 - p]) for p in (0, 1)
            ]
            for p in (0, 1):
                self._update(p, opponent_plans[p])

    def _update(self, p: int, opponent_plan: FloatArray) -> None:
        tp, t, cfg = self._tps[p], self._iteration, self.config
        played = self._played[p]
        g = self._sf.sequence_values(p, opponent_plan)
        v_seq, v_inf = tp.infoset_values(g, played)
        inst = v_seq - tp.spread(v_inf)
        inst[0] = 0.0
        basis_t = self._basis_t[p]
        if basis_t is not None:
            inst = basis_t @ inst  # eq. (5): r = B^T r'
        regrets = self._regrets[p]
        regrets += inst
        finish_regrets(cfg, regrets, t)
        decay, weight = average_weights(cfg, t)
        if decay != 1.0:
            self._average[p] *= decay
        self._average[p] += weight * tp.realization_plan(played)
        self._policy[p] = regret_matching(tp, regrets, self._tie_tolerance(p, opponent_plan))
        self._played[p] = self._apply_basis(p, self._policy[p])  # eq. (4): pi' = B pi

    def current_behavioural(self) -> policies.Behavioural:
        """The strategies played this iteration (pi' = B pi), one array per player."""
        if self._engine is not None:
            return self._engine.current_behavioural()
        return (self._played[0].copy(), self._played[1].copy())

    def average_behavioural(self) -> policies.Behavioural:
        """The average strategies (uniform before the first iteration)."""
        if self._engine is not None:
            return self._engine.average_behavioural()
        tp0, tp1 = self._tps
        return (tp0.behavioural(self._average[0]), tp1.behavioural(self._average[1]))

    def current_policy(self) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy of the current strategies.

        Unlike OpenSpiel, whose solvers return one TabularPolicy updated in place by every
        later iteration, each call returns a new object that later iterations never change:
        a policy kept by the caller (in a list of iterates, a saved file, a bot) stays the
        policy it was. Call again after iterating to see the new strategies.
        """
        return policies.layout(self._sf).to_tabular(self.current_behavioural())

    def average_policy(self) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy of the average strategies (uniform before any iteration).

        A new object on every call, never mutated later (see `current_policy`).
        """
        return policies.layout(self._sf).to_tabular(self.average_behavioural())

    def exploitability(self) -> float:
        """OpenSpiel exploitability of the average strategy, computed on arrays."""
        if self._engine is not None:
            return self._engine.exploitability()
        return evaluate.evaluate_profile(self._sf, self.average_behavioural()).exploitability
