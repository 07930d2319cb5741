"""Multi-valued states at the end of the first round, on the hold'em range layout.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4: at the depth limit the opponent o picks, per information set, one of K
continuation strategies for the rest of the game, while the solving player i plays its
blueprint there. On the range layout (`poker.range_tree`) the depth limit is the end of the
first round: a leaf is a row of the first round's `ends` (a betting that deals the next
round's cards), and o's leaf information set is (leaf, o's hand orbit).

Below the leaves both strategies are fixed, so a player's value at a leaf is linear in the
opponent's reach there: for continuation k and player p,

    ends_p[h, e] = sum_j V_k,p[e, h, j] rho_(1-p)[e, j]

over the opponent's first-round entries j (hand orbits: the reach of every hand of an orbit is
the same in a suit-symmetric profile). `LeafValues.compute` finds each V_k,p column by column:
one pass of the rounds below per opponent entry, with the opponent's reach at every leaf the
indicator of that entry (`range_walker`'s last-round pass, the deal summed as in
`RangeWalker.upper_values`), so the depth-limited game above needs no pass below the limit.
Two-round games (hold'em's preflop and flop).
"""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np

from ospiel_ext.algorithms.poker import range_tree
from ospiel_ext.algorithms.poker.range_tree import Arrays
from ospiel_ext.algorithms.poker.range_walker import RangeWalker
from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import interrupts, progress


@dataclasses.dataclass(frozen=True)
class LeafValues:
    """The K continuations' values at the end of the first round, per player.

    Attributes:
      values: per player p, (K, E, F, F): V_k,p[e, h, j] (module docstring), E the first
        round's ends and F its entries.
    """

    values: tuple[FloatArray, FloatArray]

    @property
    def num_values(self) -> int:
        """K."""
        return int(self.values[0].shape[0])

    @classmethod
    def compute(cls, walker: RangeWalker, continuations: list[Arrays]) -> LeafValues:
        """The values of the continuation profiles (both players' strategies, every round).

        Only each profile's last round is read: continuation k is (o's k-th continuation
        strategy, i's blueprint) there.

        Ctrl-C, SIGTERM or a deadline stops it between passes (`interrupts.check`: no values
        so far).

        Raises:
          ValueError: the layout has not two rounds, or no continuation is given.
          interrupts.Interrupted: stopped.
        """
        tree = walker.tree
        if len(tree.rounds) != 2:
            raise ValueError(
                f"game {tree.name}: leaves at the end of the first round need a two-round "
                f"game, got {len(tree.rounds)} rounds"
            )
        if not continuations:
            raise ValueError(f"game {tree.name}: give at least one continuation")
        first, below = tree.rounds
        width = first.orbits.width
        shape = (len(continuations), len(first.ends), width, width)
        values = (np.zeros(shape), np.zeros(shape))
        passes = itertools.product(range(len(continuations)), range(width), (0, 1))
        with progress.Counter(
            f"leaf values of {tree.name}",
            2 * len(continuations) * width,
            unit="pass",
            log_seconds=progress.RUN_LOG_SECONDS,
        ) as shown:
            for n, (k, j, p) in enumerate(passes):
                interrupts.check()
                reach = np.zeros((len(first.ends), width))
                reach[:, j] = 1.0  # the opponent's, at every leaf
                roots = walker.first_row_values(p, reach, continuations[k][-1])
                values[p][k, :, :, j] = below.dealt(roots)
                shown.update_to(n + 1)
        return cls(values)

    def first(self, k: int) -> LeafValues:
        """The first k continuations (a self-generative set's first k are its K = k set)."""
        return LeafValues((self.values[0][:k], self.values[1][:k]))

    def extend(self, other: LeafValues) -> LeafValues:
        """These continuations, then `other`'s."""
        return LeafValues(
            (
                np.concatenate([self.values[0], other.values[0]]),
                np.concatenate([self.values[1], other.values[1]]),
            )
        )

    def weaken(
        self, walker: RangeWalker, beliefs: FloatArray, player: int, reference: int = 0
    ) -> LeafValues:
        """Section 4's weakening, as `depth_limited.leaves.weaken` does on compiled games.

        At each leaf information set (e, h) of the opponent o = 1 - player, where
        continuation n gives o more than the `reference` one under o's belief (the solving
        player's reach at the leaf `beliefs` (E, F), e.g. the blueprint's, times chance;
        uniform where it is 0), o's value in every state of the set is lowered by the
        difference, and the solving player's raised by as much (zero-sum): in the matrices,
        by the difference times the chance weight of the set's states (`chance_weights`).
        """
        o = 1 - player
        weights = chance_weights(walker)  # (E, F, F): [e, own entry, opponent entry]
        believed = np.einsum("ehj,ej->eh", weights, beliefs) > 0  # else uniform
        mass = np.where(believed, np.einsum("ehj,ej->eh", weights, beliefs), weights.sum(axis=2))
        per_set = np.where(
            believed,
            np.einsum("kehj,ej->keh", self.values[o], beliefs),
            self.values[o].sum(axis=3),
        )
        excess = np.maximum(per_set - per_set[[reference]], 0.0)
        excess /= np.where(mass > 0, mass, 1.0)
        lowered = self.values[o] - excess[..., None] * weights
        raised = self.values[player] + np.einsum("kej,ehj->kehj", excess, weights)
        values = [lowered, raised] if o == 0 else [raised, lowered]
        return LeafValues((values[0], values[1]))

    def ends(self, player: int, split: FloatArray) -> FloatArray:
        """`player`'s values at the leaves (F, E) when the opponent picks.

        `split` (E, K, F): the opponent's reach at each leaf times its probability of each
        continuation there.
        """
        out: FloatArray = np.einsum("kehj,ekj->he", self.values[player], split)
        return out

    def choice_values(self, player: int, opponent: FloatArray) -> FloatArray:
        """The picking player's value of each continuation (E, K, F), against reaches (E, F)."""
        out: FloatArray = np.einsum("kehj,ej->ekh", self.values[player], opponent)
        return out


def chance_weights(walker: RangeWalker) -> FloatArray:
    """The chance weights at the first round's ends (E, F, F).

    [e, h, j]: of a player's entry h with the opponent's entry j at end e, the fold rule at
    payoff 1 (`range_tree.fold_values`) against the indicator of j.
    """
    lay = walker.tree.rounds[0]
    ends, width = len(lay.ends), lay.orbits.width
    out = np.empty((ends, width, width))
    column = np.empty((ends, width))
    for j in range(width):
        rho = np.zeros((ends, width))
        rho[:, j] = 1.0
        range_tree.fold_values(lay, rho, np.ones(ends), slice(0, width), out=column)
        out[:, :, j] = column
    return out
