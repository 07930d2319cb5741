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
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from typing import Protocol, runtime_checkable

import numpy as np

from ospiel_ext.arrays import FloatArray
from ospiel_ext.policies import Behavioural

__all__ = [
    "CFR",
    "CFR_PLUS",
    "DCFR",
    "LCFR",
    "PRESETS",
    "CFRConfig",
    "CFREngine",
    "OffersCFREngine",
    "average_weights",
    "check_discount",
    "finish_regrets",
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
    """

    regret_matching_plus: bool = False
    alternating_updates: bool = True
    linear_averaging: bool = False
    discount: tuple[float, float, float] | None = None


CFR = CFRConfig()
CFR_PLUS = CFRConfig(regret_matching_plus=True, linear_averaging=True)
DCFR = CFRConfig(linear_averaging=True, discount=(1.5, 0.0, 2.0))
LCFR = CFRConfig(linear_averaging=True, discount=(1.0, 1.0, 1.0))
# by the names `cfr.SOLVERS` gives the drop-ins whose defaults they are
PRESETS = {"cfr": CFR, "cfr_plus": CFR_PLUS, "dcfr": DCFR, "lcfr": LCFR}


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
