"""The joint classes of an abstraction: the class pairs some deal produces, round by round.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Section 3.2: in the game Γ_f induced by a filter f, histories that no player can
tell apart (the same classes for both players in every round, the same betting) are one node,
and chance deals a pair of classes (player 0's, player 1's) per round with the total
probability of the deals in it. `JointClasses` holds those pairs, their parents in the round
before and their deals per showdown result, read off the abstraction's signal tree; it is the
chance part of `abstract_game.AbstractGame` and of its sequence form.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ospiel_ext.algorithms.gameshrink.shrink import Abstraction
from ospiel_ext.arrays import IntArray, group_by, unique_codes


@dataclasses.dataclass(frozen=True, eq=False)
class JointClasses:
    """The pairs (player 0's class, player 1's class) of each round that some deal produces.

    Attributes:
      pairs: per round, (P_j, 2) class pairs.
      parent: per round, the index of each pair's pair in the round before (0 in round 0).
      counts: per round, (P_j, 3) number of deals of each showdown result (-1, 0, 1) in a pair.
    """

    pairs: tuple[IntArray, ...]
    parent: tuple[IntArray, ...]
    counts: tuple[IntArray, ...]

    @classmethod
    def of(cls, abstraction: Abstraction) -> JointClasses:
        """The joint classes of every round of `abstraction`, read off its signal tree's deals."""
        st, classes = abstraction.signal_tree, abstraction.classes
        pairs, parent, counts, prev_index = [], [], [], None
        for r in range(st.num_rounds):
            # Each deal's pair of classes this round (a view's class fixes its parent's).
            k = abstraction.num_classes[r]
            code = classes[r][st.views[r][0]] * k + classes[r][st.views[r][1]]
            uniq, index = unique_codes(code, k * k)
            pairs.append(np.column_stack([uniq // k, uniq % k]))
            cnt = np.bincount(index * 3 + st.result + 1, minlength=3 * len(uniq))
            counts.append(cnt.reshape(-1, 3))
            par = np.zeros(len(uniq), dtype=np.int64)
            if prev_index is not None:
                par[index] = prev_index
            parent.append(par)
            prev_index = index
        return cls(tuple(pairs), tuple(parent), tuple(counts))

    @functools.cached_property
    def children(self) -> tuple[tuple[IntArray, IntArray], ...]:
        """Per round j < last: (pairs of round j + 1 sorted by parent, offsets per pair of j)."""
        return tuple(
            group_by(self.parent[r], len(self.pairs[r - 1])) for r in range(1, len(self.pairs))
        )
