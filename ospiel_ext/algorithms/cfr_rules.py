"""The update rule shared by every CFR layout: `CFRConfig`, its presets, regrets, averages.

Counterfactual regret minimisation (Zinkevich et al. 2007), CFR+ (Tammelin 2014) and
discounted and linear CFR (Brown & Sandholm 2019, "Solving Imperfect-Information Games via
Discounted Regret Minimization") differ only in what happens to the cumulative regrets after
an iteration's instantaneous regrets are added (`finish_regrets`) and in the weights of the
average strategy (`average_weights`). The sequence-form solver (`cfr_variants`) and the
public-tree solver (`poker.range_cfr`) both apply them, so a variant is defined once.

A sequence form may offer a faster layout of the same iterates (`OffersCFREngine`): the
sequence-form solver asks the form for its `CFREngine` and runs it instead of its own passes.
The generic solver so never imports a special engine; the form that has one decides when it
pays (the public-tree poker form: `poker.range_engine`).

Ties. Regret matching jumps where no regret is positive: regrets (0, 0) play uniformly,
(2e-16, 0) the first action only. A cumulative regret that is 0 in exact arithmetic (two
actions of the same value, as at a hand whose showdowns all tie) comes out as 0 or a few
units of rounding either way, depending on the order of the sums, which differs between the
explicit sequence form, the public-tree form and the range layout, and with the CPU's BLAS.
Without a rule the layouts parted there at iteration 1 (Rhode Island 3x2 with one raise, 24
such regrets) or 3 (3x3): one played uniformly, the other a pure action.

The rule (`CFRConfig.tie_ulps`, on with `with_tie_rule(config)`; `positive_regrets`, which
both engines' regret matching calls): a cumulative regret counts only above its tolerance
(`tie_tolerance`),

    tol_t(I) = TIE_ULPS x eps x scale x R_t(I),

eps of the regrets' floating-point type, scale the game's largest |payoff| (`payoff_scale`),
R_t(I) the opponent-and-chance reach of the information set summed over the iterations so
far (`SequenceForm.opponent_reach`; `poker.range_rows.opponent_reach` in the range layout).
scale x R_t(I) bounds the sum of the magnitudes of every term of I's counterfactual values
over t iterations, so it bounds a cumulative regret and eps times it is the unit its
rounding is measured in; it grows with t, as the rounding of a sum of t iterations does, and
with the opponent's reach, so that the small but exact regrets of an infoset the opponent
rarely reaches are not taken for ties. RM+'s clipped regrets and DCFR's discounted ones stay
within the same bound (clipping and discount factors only shrink them), and with basis
matrices the regrets B^T r' mix the actions of one infoset, of one R_t(I).

TIE_ULPS = 256, measured (explicit form, public-tree form and range layout, 200 iterations of
CFR, CFR+, DCFR, LCFR on Rhode Island 3x2, 3x3 and 4x2 with one raise, limit Leduc 3, two
universal_poker games; the range layout alone on Rhode Island 6x2 and whole): the positive
regrets below 30 units (ties and rounding-sized crossings of zero) stay below 15 units (1.5
in CFR and CFR+), the others lie above 12,000 units (CFR+ on Rhode Island 3x2; otherwise
above 4e5). 256 units is 17x the largest of the first and a 47th of the smallest of the
others. In float32 (`poker.range_cfr`'s dtype) the unit is float32's, and regrets there
come down to the rounding with no gap: the rule then also treats regrets below 256 x 1.2e-7
of their bound as none. Where regrets are exact, as in OpenSpiel's runs of Kuhn and Leduc,
the iterates are OpenSpiel's (tests/openspiel_compat, tests/algorithms/test_cfr.py).

The rule is off in the presets (`CFR`, `CFR_PLUS`, `DCFR`, `LCFR`) and the OpenSpiel
drop-ins: turned on, it moves documented figures of runs that took ties as they fell (the
Rhode Island runs, the GGSE grid, the off-tree table, the CFR+ starts of the certificate
LPs), and it costs 10-28 % of an iteration (the reach sums it keeps). It becomes the default
once those figures are rerun with it.

What the rule does not give is one run for ever. The iterates are sensitive to rounding: the
explicit form with its payoffs perturbed by one unit of rounding gives current strategies
3.7e-9 (CFR), 3.5e-5 (CFR+), 0.37 (DCFR) apart after 200 iterations of Rhode Island 3x2 (cf.
Cheung & Piliouras, "Vortices Instead of Equilibria in MinMax Optimization: Chaos and
Butterfly Effects of Online Learning in Zero-Sum Games", COLT 2019). So the layouts agree to
1e-9 for as long as that growth allows, then part as two valid runs of the same algorithm:
on Rhode Island 3x2 / 3x3 with one raise for 176 / 137 iterations of CFR, 66 / 52 of CFR+
and 46 / 39 of DCFR (before the rule: 0 / 2 of each); on the universal_poker game of
tests/algorithms/test_cfr_ties.py for all 200 iterations of CFR and CFR+ and 182 of DCFR.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Protocol, runtime_checkable

import numpy as np
import pyspiel
from numpy.typing import DTypeLike

from ospiel_ext.arrays import FloatArray
from ospiel_ext.policies import Behavioural

__all__ = [
    "CFR",
    "CFR_PLUS",
    "DCFR",
    "LCFR",
    "PRESETS",
    "TIE_ULPS",
    "CFRConfig",
    "CFREngine",
    "OffersCFREngine",
    "average_weights",
    "check_discount",
    "finish_regrets",
    "payoff_scale",
    "positive_regrets",
    "tie_tolerance",
    "with_tie_rule",
]


@dataclasses.dataclass(frozen=True)
class CFRConfig:
    """A CFR variant (the flags of OpenSpiel's `_CFRSolver` and `_DCFRSolver`).

    Attributes:
      regret_matching_plus: clip cumulative regrets at zero after every update (CFR+).
      alternating_updates: update player 0, then player 1 against player 0's new strategy;
        otherwise both players update against the strategies of the previous iteration.
      linear_averaging: weight iteration t's strategy by t in the average, or by t^gamma with
        `discount`; without it the average is uniform (and gamma is unused, as in OpenSpiel).
      discount: DCFR's (alpha, beta, gamma) (Brown & Sandholm 2019, Section 3): after
        iteration t's update, positive cumulative regrets are multiplied by
        t^alpha / (t^alpha + 1) and negative ones by t^beta / (t^beta + 1).
      tie_ulps: the tie rule's tolerance in units of rounding (module docstring, "Ties"): a
        cumulative regret at most tie_ulps x eps x scale x R_t(I) counts as none. 0 (the
        default, OpenSpiel's rule): only regrets <= 0 do; `TIE_ULPS` is the measured value
        that makes the layouts take ties alike (`with_tie_rule`).
    """

    regret_matching_plus: bool = False
    alternating_updates: bool = True
    linear_averaging: bool = False
    discount: tuple[float, float, float] | None = None
    tie_ulps: float = 0.0


CFR = CFRConfig()
CFR_PLUS = CFRConfig(regret_matching_plus=True, linear_averaging=True)
DCFR = CFRConfig(linear_averaging=True, discount=(1.5, 0.0, 2.0))
LCFR = CFRConfig(linear_averaging=True, discount=(1.0, 1.0, 1.0))
# by the names `cfr.SOLVERS` gives the drop-ins whose defaults they are
PRESETS = {"cfr": CFR, "cfr_plus": CFR_PLUS, "dcfr": DCFR, "lcfr": LCFR}

TIE_ULPS = 256.0
"""The measured tie tolerance, in units of eps x payoff scale x R_t(I) (module docstring)."""


def with_tie_rule(config: CFRConfig, ulps: float = TIE_ULPS) -> CFRConfig:
    """`config` with the tie rule on (`CFRConfig.tie_ulps`), e.g. `with_tie_rule(CFR_PLUS)`."""
    return dataclasses.replace(config, tie_ulps=ulps)


def check_discount(config: CFRConfig, name: str) -> None:
    """Raises ValueError unless DCFR's (alpha, beta, gamma) are finite and gamma >= 0.

    The checks: three finite numbers, and gamma >= 0 (the average's factor ((t - 1) / t)^gamma
    is 0^gamma at t = 1: a negative gamma divides by zero, and NaN would make every regret NaN,
    a solver that never learns).
    """
    if config.discount is None:
        return
    if len(config.discount) != 3 or not all(
        isinstance(v, numbers.Real) and math.isfinite(v) for v in config.discount
    ):
        raise ValueError(
            f"game {name}: DCFR's (alpha, beta, gamma) must be three finite numbers, got "
            f"{config.discount}"
        )
    if config.discount[2] < 0:
        raise ValueError(f"game {name}: DCFR's gamma must be >= 0, got {config.discount[2]}")


def finish_regrets(config: CFRConfig, regrets: FloatArray, t: int) -> None:
    """Iteration t's rule on cumulative regrets that already hold its instantaneous ones.

    In place: RM+ clips them at zero (Tammelin 2014); DCFR multiplies positive ones by
    t^alpha / (t^alpha + 1) and negative ones by t^beta / (t^beta + 1) (Brown & Sandholm
    2019, Section 3).
    """
    if config.regret_matching_plus:
        np.maximum(regrets, 0.0, out=regrets)
    if config.discount is not None:
        alpha, beta, _ = config.discount
        kind = regrets.dtype.type  # factors of the regrets' own type: no float64 temporary
        regrets *= np.where(
            regrets > 0, kind(t**alpha / (t**alpha + 1)), kind(t**beta / (t**beta + 1))
        )


def average_weights(config: CFRConfig, t: int) -> tuple[float, float]:
    """(decay of the average so far, weight of iteration t's realization plan).

    Uniform (1, 1); linear (1, t); DCFR's t^gamma as ((t - 1) / t)^gamma and 1, the weights
    rescaled by t^-gamma to stay bounded.
    """
    if not config.linear_averaging:
        return 1.0, 1.0
    if config.discount is None:
        return 1.0, float(t)
    return ((t - 1) / t) ** config.discount[2], 1.0


def skipped_discounts(config: CFRConfig, last: int, t: int) -> tuple[float, float, float]:
    """The discounts of iterations last + 1 ... t - 1 on entries no one of them walked.

    (positive regrets, negative regrets, the average so far) factors: what `finish_regrets`
    and `average_weights` would have applied to entries whose instantaneous regrets and
    realization plans were 0 at those iterations (a sampled run's boards not sampled: no
    sign changes there, so the products by sign are exact). All 1 unless DCFR discounts.
    """
    positive = negative = decay = 1.0
    if config.discount is not None and t - 1 > last:
        alpha, beta, gamma = config.discount
        skipped = np.arange(last + 1, t, dtype=np.float64)
        positive = float(np.prod(skipped**alpha / (skipped**alpha + 1)))
        negative = float(np.prod(skipped**beta / (skipped**beta + 1)))
        if config.linear_averaging:
            decay = (last / (t - 1)) ** gamma if last > 0 else 0.0
    return positive, negative, decay


class CFREngine(Protocol):
    """Another layout of a CFR variant's iterates, offered by a sequence form.

    Its strategies are behavioural arrays in the form's sequence numbering, so the solver that
    runs it returns the same policies as its own passes would.
    """

    def evaluate_and_update_policy(self) -> None:
        """One iteration (both players)."""

    def current_behavioural(self) -> Behavioural:
        """The strategies played this iteration, one array per player."""

    def average_behavioural(self) -> Behavioural:
        """The average strategies, one array per player."""

    def exploitability(self) -> float:
        """OpenSpiel's exploitability of the average profile."""


@runtime_checkable
class OffersCFREngine(Protocol):
    """A sequence form with its own CFR engine (e.g. `poker.range_form`'s public-tree form)."""

    def cfr_engine(self, config: CFRConfig) -> CFREngine | None:
        """The engine for `config`, or None where the form's sequence passes are as fast."""


def payoff_scale(game: pyspiel.Game) -> float:
    """max(|max_utility|, |min_utility|): the largest payoff of the game in absolute value."""
    return max(abs(float(game.max_utility())), abs(float(game.min_utility())))


def tie_tolerance(
    reach: FloatArray, scale: float, dtype: DTypeLike = np.float64, ulps: float = TIE_ULPS
) -> FloatArray:
    """The tie tolerance of cumulative regrets, ulps eps scale R_t(I) (module docstring).

    Args:
      reach: R_t(I) of each infoset (or entry) whose regrets are compared: the sum over the
        iterations so far of its opponent-and-chance reach (`SequenceForm.opponent_reach` of
        the opponent's realization plan), each against the plan its regrets were taken
        against.
      scale: the game's payoff scale (`payoff_scale`).
      dtype: the regrets' floating-point type (its eps); the tolerances come in it.
      ulps: the tolerance in units of rounding (`CFRConfig.tie_ulps`).
    """
    eps = float(np.finfo(dtype).eps)
    return (np.asarray(reach) * (ulps * eps * scale)).astype(dtype, copy=False)


def positive_regrets(
    regrets: FloatArray, tol: FloatArray | float, out: FloatArray, *, nonnegative: bool = False
) -> FloatArray:
    """The regrets above `tol` (broadcast against them), 0 elsewhere, in out: the tie rule.

    A regret r with r <= tol counts as no regret, so an action whose cumulative regret is a
    rounding error of zero is not played, and where no regret exceeds its tolerance regret
    matching plays uniformly (module docstring). tol >= 0; out may be the regrets
    themselves; `nonnegative`: the regrets are known to be >= 0 (RM+), so none is clipped.
    No -0.0 in out.
    """
    if nonnegative:  # RM+'s regrets: no clipping pass (and no -0.0 to make)
        np.multiply(regrets, regrets > tol, out=out)
        return out
    np.maximum(regrets, 0.0, out=out)
    if np.ndim(tol) or tol > 0:
        np.multiply(out, out > tol, out=out)
    return out
