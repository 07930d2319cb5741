"""GameShrink: lossless and approximate abstraction of games with ordered signals.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect
Information" (ACM EC 2006). Modules:

* `ordered_games`: games with ordered signals (Definition 1): the description, its checks;
* `stage_games`: the stage games (betting) read off the pyspiel game, checked against it;
* `descriptions`: the ordered-signals descriptions of the supported pyspiel games;
* `signal_tree`: the filtered signal tree (Definition 4) as arrays, every deal and view;
* `filters`: the lossless filter (Algorithm 2, with Algorithm 1's exact test as a
  cross-check), the paper's transformation read literally (`paper_filter`, not lossless) and
  the approximate filter (Section 6.2);
* `shrink`: `gameshrink` (Algorithm 2 from a game to its filter), the `Abstraction` it returns
  and the filters derived from one (identity, single joins);
* `joint_classes`: the class pairs (player 0's, player 1's) some deal produces, per round;
* `abstract_game`: the abstracted game Gamma_f, its size and its sequence form;
* `lifting`: Gamma_f's strategies played in the original game (Theorem 2), strategy files;
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
