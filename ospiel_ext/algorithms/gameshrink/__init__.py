"""GameShrink: lossless and approximate abstraction of games with ordered signals.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect
Information" (ACM EC 2006). Modules:

* `ordered_games`: ordered-game descriptions (signals, stage games) of pyspiel games;
* `filters`: the signal tree, the lossless filter (Algorithm 2, with Algorithm 1's exact
  test as a cross-check), the paper's transformation read literally (`paper_filter`, not
  lossless) and the approximate filter (Section 6.2);
* `abstract_game`: the abstracted game Gamma_f, its sequence form, lifting strategies back.

`gameshrink.gameshrink(game, threshold)` is re-exported here.
"""

from ospiel_ext.algorithms.gameshrink.filters import (
    TRANSFORMATIONS,
    Abstraction,
    approximate_filter,
    gameshrink,
    identity_filter,
    join_classes,
    lossless_filter,
    paper_filter,
    sibling_joins,
)

__all__ = [
    "TRANSFORMATIONS",
    "Abstraction",
    "approximate_filter",
    "gameshrink",
    "identity_filter",
    "join_classes",
    "lossless_filter",
    "paper_filter",
    "sibling_joins",
]
