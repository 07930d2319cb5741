"""Action translation of an off-tree bet: the pseudo-harmonic mapping and its replacements.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1 compares depth-limited solving after an opponent's bet outside the action
abstraction with randomized pseudo-harmonic action translation (RPAT; Ganzfried & Sandholm
(2013), "Action Translation in Extensive-Form Games with Large Action Spaces: Axioms,
Paradoxes, and the Pseudo-Harmonic Mapping", IJCAI). What both stacks that run the experiment
share (`compiled.off_tree` on compiled games, `ranges.off_tree` on poker's range layout):

* `pseudo_harmonic`: the probability that a bet between two abstract bets is read as the
  smaller;
* `Translate`: how an action after the off-tree bet is matched with an action after its
  in-abstraction replacement, on pyspiel states;
* `check_weights`: the replacements' probabilities are a distribution.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

Translate = Callable[[pyspiel.State, int, pyspiel.State], "int | None"]
"""(state, action at it, the counterpart state) -> the counterpart action, or None."""


def pseudo_harmonic(x: float, a: float, b: float) -> float:
    """The probability that RPAT maps a bet of x (a pot fraction) to the smaller bet a.

    For a <= x <= b (Ganzfried & Sandholm 2013, the pseudo-harmonic mapping):

        f_{A,B}(x) = (B - x)(1 + A) / ((B - A)(1 + x)).
    """
    if not 0 <= a < b or not a <= x <= b:
        raise ValueError(
            f"pseudo-harmonic mapping needs 0 <= a <= x <= b, a < b; got {a}, {x}, {b}"
        )
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def check_weights(name: str, weights: Sequence[float]) -> None:
    """Raises ValueError, naming the game, unless `weights` are >= 0 and sum to 1."""
    if len(weights) < 1 or not np.isclose(sum(weights), 1.0) or min(weights) < 0:
        raise ValueError(f"game {name}: replacement weights must be >= 0 and sum to 1")
