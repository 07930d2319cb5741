"""Resolving and max-margin gadgets at subgame roots on the hold'em range layout.

Safe subgame solving's gadgets (Burch, Johanson & Bowling (2014), "Solving Imperfect
Information Games Using Decomposition", the resolving gadget; Moravčík et al. (2016),
"Refining Subgames in Large Imperfect Information Games", the max-margin gadget; as Kubíček,
Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 2.1, define both) for the opponent o at E subgame roots
at once, each a row of one round with o's information sets as its entries (hand orbits on the
first round; (board, hand) orbits on the rows that start a later round, the roots after a
deal):

* resolving: per root e and entry h, o enters the subgame (its counterfactual value there) or
  takes the alternative `alternatives[e, h]` (counterfactual units: chance and the solving
  player's reach in it);
* max-margin (roots on the first round): per root e, o picks one of its information sets
  there, and the subgame pays o its value minus the set's alternative, both per unit of the
  set's chance weight W(s_o), so that the root's value is the maximin margin.

`RootGadgets` holds o's regrets, strategy and average over these choices, updated by the CFR
variant that solves the subgame (`cfr_rules.CFRConfig`), and turns a gadget strategy into o's
reach of each root per entry (`factor`): the reaches the solver's passes start from below the
roots. `solving.DepthLimitedRangeSolver` uses one root (the subgame below o's first action);
`beyond_limit` uses every subgame beyond the depth limit after the off-tree action (the
rows that start the last round, after the board is dealt).
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import numpy as np

from ospiel_ext.algorithms.cfr_rules import CFRConfig, average_weights, finish_regrets
from ospiel_ext.algorithms.poker import range_tree
from ospiel_ext.algorithms.poker.range_rows import regret_matching
from ospiel_ext.arrays import FloatArray

GadgetKind = Literal["resolving", "max_margin"]
GADGETS: tuple[GadgetKind, ...] = ("resolving", "max_margin")


@dataclasses.dataclass
class RootGadgets:
    """o's gadgets at E roots of one round (module docstring).

    Attributes:
      kind: 'resolving' or 'max_margin'.
      alternatives: (E, F) o's alternative counterfactual values per root and entry.
      chance: (F,) each entry's chance weight W(s_o) (the fold rule at payoff 1 against an
        opponent reach of 1: o's information set's share of the deals).
      weight: (F,) each entry's weight in the game's value: its orbit size (hands per entry)
        on the first round; on a later round, the deal's sum of those (`RoundLayout`'s
        `deal_matrix` times the first round's sizes).
      config: the CFR variant whose update rule the gadgets follow.
      regrets, current, average: o's gadget regrets, strategy and average, shaped for
        `regret_matching` (actions on axis 1): resolving (E, 2, F), (enter, alternative) per
        root and entry; max-margin (E, F), one choice among the root's entries.
    """

    kind: GadgetKind
    alternatives: FloatArray
    chance: FloatArray
    weight: FloatArray
    config: CFRConfig
    regrets: FloatArray
    current: FloatArray
    average: FloatArray

    @classmethod
    def of(
        cls,
        lay: range_tree.RoundLayout,
        alternatives: FloatArray,
        kind: GadgetKind,
        *,
        config: CFRConfig,
        name: str,
        weight: FloatArray | None = None,
    ) -> RootGadgets:
        """Gadgets with `alternatives` (E, F) at roots in round layout `lay` (uniform start).

        `weight`: each entry's weight in the game's value (attribute `weight`); None: the
        orbit sizes, for roots on the first round.

        Raises:
          ValueError: an unknown kind, max-margin gadgets off the first round (`weight`
            given), or alternatives not (E, F), naming the game `name`.
        """
        if kind not in GADGETS or (kind == "max_margin" and weight is not None):
            raise ValueError(
                f"game {name}: gadget kinds are {GADGETS} (max-margin on the first round), "
                f"got {kind!r}"
            )
        width = lay.orbits.width
        alternatives = np.asarray(alternatives, dtype=np.float64)
        if alternatives.ndim != 2 or alternatives.shape[1] != width:
            raise ValueError(
                f"game {name}: alternatives must be (roots, {width}), got {alternatives.shape}"
            )
        chance = np.empty((1, width))
        range_tree.fold_values(lay, np.ones((1, width)), np.ones(1), slice(0, width), out=chance)
        rows = len(alternatives)
        shape = (rows, 2, width) if kind == "resolving" else (rows, width)
        return cls(
            kind=kind, alternatives=alternatives, chance=chance[0],
            weight=np.asarray(lay.orbits.size if weight is None else weight, dtype=np.float64),
            config=config, regrets=np.zeros(shape), current=np.full(shape, 1.0 / shape[1]),
            average=np.zeros(shape),
        )  # fmt: skip

    def factor(self, strategy: FloatArray) -> FloatArray:
        """O's reach of each root per entry (E, F) under a gadget strategy.

        Resolving: the entering probability; max-margin: the chosen information set's
        probability over its chance weight, per hand of its orbit (chance then picks the
        states of the set by w_i(h) / W(s_o)).
        """
        if self.kind == "resolving":
            out: FloatArray = strategy[:, 0]
            return out
        return self._per_set(strategy / self.weight)

    def _per_set(self, x: FloatArray) -> FloatArray:
        """The values x (E, F) per unit of each entry's chance weight W(s_o) (0 where it is 0)."""
        out: FloatArray = np.divide(x, self.chance, out=np.zeros_like(x), where=self.chance > 0)
        return out

    def utilities(self, v: FloatArray) -> FloatArray:
        """The gadget actions' values to o, from its counterfactual values v (E, F) at the roots."""
        if self.kind == "resolving":
            values: FloatArray = np.stack([v, self.alternatives], axis=1)
            return values
        return self._per_set(v - self.alternatives)

    def opponent_value(self, v: FloatArray, strategy: FloatArray, *, best: bool) -> float:
        """O's value of the gadget game from its values v (E, F) at the roots.

        Under the gadget strategy `strategy`, or its best (`best`: every gadget choice a best
        response; v then o's best-response values).
        """
        u = self.utilities(v)
        if self.kind == "resolving":
            own = u.max(axis=1) if best else (strategy * u).sum(axis=1)
            return float((own @ self.weight).sum())
        if best:
            return float(np.where(self.chance > 0, u, -np.inf).max(axis=1).sum())
        return float((strategy * u).sum())

    def paid(self, strategy: FloatArray) -> float:
        """What the gadget pays o outside the subgame under `strategy`.

        The solving player's value of the gadget game is its value of the subgame (against
        o's reach `factor`) minus this.
        """
        if self.kind == "resolving":
            return float(((strategy[:, 1] * self.alternatives) @ self.weight).sum())
        return float(-self._per_set(strategy * self.alternatives).sum())

    def update(self, v: FloatArray, iteration: int) -> None:
        """Iteration t's average, regrets and next strategy, from o's values v (E, F)."""
        u = self.utilities(v)
        decay, weight = average_weights(self.config, iteration)
        self.average *= decay
        self.average += weight * self.current
        self.regrets += u - (self.current * u).sum(axis=1, keepdims=True)
        finish_regrets(self.config, self.regrets, iteration)
        regret_matching(
            self.regrets, out=self.current, nonnegative=self.config.regret_matching_plus
        )

    def average_strategy(self) -> FloatArray:
        """The gadgets' average strategy (shaped as `current`)."""
        out: FloatArray = regret_matching(self.average)
        return out
