"""GameShrink: lossless and approximate abstraction of games with ordered signals.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect
Information" (ACM EC 2006). Modules:

* `ordered_games`: ordered-game descriptions (signals, stage games) of pyspiel games;
* `signal_tree`: the filtered signal tree (Definition 4) as arrays, every deal and view;
* `filters`: the lossless filter (Algorithm 2, with Algorithm 1's exact test as a
  cross-check), the paper's transformation read literally (`paper_filter`, not lossless) and
  the approximate filter (Section 6.2);
* `shrink`: `gameshrink` (Algorithm 2 from a game to its filter), the `Abstraction` it returns
  and the filters derived from one (identity, single joins);
* `abstract_game`: the abstracted game Gamma_f, its sequence form, lifting strategies back;
* `dominance`: iterated elimination of dominated sequences.

`gameshrink.gameshrink(game, threshold)` is re-exported here.
"""

from ospiel_ext.algorithms.gameshrink.filters import (
    FilterResult,
    approximate_filter,
    lossless_filter,
    paper_filter,
)
from ospiel_ext.algorithms.gameshrink.shrink import (
    TRANSFORMATIONS,
    Abstraction,
    gameshrink,
    identity_filter,
    join_classes,
    sibling_joins,
)

__all__ = [
    "TRANSFORMATIONS",
    "Abstraction",
    "FilterResult",
    "approximate_filter",
    "gameshrink",
    "identity_filter",
    "join_classes",
    "lossless_filter",
    "paper_filter",
    "sibling_joins",
]
