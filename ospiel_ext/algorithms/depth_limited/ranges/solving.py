"""Depth-limited solving of the first round on the hold'em range layout.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4, rooted at the start of the game: the depth-limited game is the first round, and at
each of its leaves (`leaves.LeafValues`) the opponent o picks one of K continuation values
per hand orbit, which is a decision of o's (the leaf's choice); the solving player i's value
there is the continuations' values against o's reach into each. A CFR variant
(`cfr_rules.CFRConfig`, CFR+ by default) iterates both players' first-round strategies and
o's choices with the range layout's passes of the first round (`range_rows`): reaches top
down, values bottom up from the leaves' values (`LeafValues.ends`, `choice_values`), the same
update rule as `poker.range_cfr`. No pass goes below the limit.

`evaluate_average` gives the depth-limited game's values of the average profile and both best
responses, exactly (o's best response picks the best continuation at every leaf): the solver
is a `solver.SelfEvaluatingSolver`, which the pack's run loop drives.

`self_generative` builds the continuations by Section 4's self-generative approach, as
`compiled.strategy_sets.self_generative` does on compiled games: the blueprint first, then
repeatedly o's best response (`RangeWalker.best_response`) to the solving player's
depth-limited solution above the limit and blueprint below.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from ospiel_ext import evaluate
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.cfr_rules import (
    CFR_PLUS,
    CFRConfig,
    average_weights,
    finish_regrets,
)
from ospiel_ext.algorithms.depth_limited.ranges.gadgets import GadgetKind, RootGadgets
from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.poker.range_rows import normalise, regret_matching, value_rows
from ospiel_ext.algorithms.poker.range_tree import Arrays, DecisionEntry, RangeTree
from ospiel_ext.algorithms.poker.range_walker import RangeWalker
from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import interrupts


def first_decision(tree: RangeTree) -> DecisionEntry:
    """The game's first decision (row 0 of the first round)."""
    return next(e for e in tree.decisions.values() if e.round == 0 and e.row == 0)


@dataclasses.dataclass(frozen=True)
class Gadget:
    """A resolving gadget at the game's first decision, the opponent o's.

    Proposition 1's safety for a subgame that does not start at the start of the game (the
    resolving gadget of Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve
    Subgame Solving in Imperfect-Information Games", Section 2.1): per entry, o either takes
    `action` at the first decision, entering the subgame below it, or the alternative worth
    `alternatives` to o (counterfactual values, e.g. its best in-abstraction action's,
    Section 6.1). Outside the subgame both players play `fixed` (the first round's strategies
    per group, e.g. the lifted blueprint), which the solver does not change. `kind`
    'max_margin': the max-margin gadget instead (Moravčík et al. 2016; GGSE Section 3): o picks
    one of its root information sets, and the subgame pays o its value minus the set's
    alternative (normalised by the set's chance weight), so the game's value is the maximin
    margin.
    """

    action: int
    alternatives: FloatArray
    fixed: list[FloatArray]
    kind: GadgetKind = "resolving"


class DepthLimitedRangeSolver:
    """CFR on the first round with multi-valued leaves (module docstring).

    Args:
      walker: the walker of the game's two-round range layout.
      leaves: the K continuations' values at the first round's ends.
      player: the solving player i (the opponent picks the continuations).
      config: the CFR variant (no DCFR discount: `CFR_PLUS`, `cfr_rules.CFR`).
      gadget: solve the subgame below o's first action `gadget.action` with a resolving
        gadget (`Gadget`) instead of the whole first round.

    Raises:
      ValueError: the player is not 0 or 1, the config discounts (DCFR), or with a gadget
        the first decision is not the opponent's.
    """

    def __init__(
        self,
        walker: RangeWalker,
        leaves: LeafValues,
        player: int,
        config: CFRConfig = CFR_PLUS,
        *,
        gadget: Gadget | None = None,
    ):
        tree = walker.tree
        if player not in (0, 1):
            raise ValueError(f"game {tree.name}: the solving player is 0 or 1, got {player}")
        if config.discount is not None:
            raise ValueError(f"game {tree.name}: depth-limited solving runs CFR or CFR+")
        self.walker, self.leaves, self.player, self.config = walker, leaves, player, config
        lay = tree.rounds[0]
        self._strategy = [walker.uniform()[0]]
        self._regrets = [walker.zeros()[0]]
        self._average = [walker.zeros()[0]]
        self._inside = [np.ones(len(g.nodes), dtype=bool) for g in lay.groups]
        self._enter = None
        if gadget is not None:  # the subgame below the gadget's action; outside it fixed
            self._enter = _Enter.of(self, gadget)
            self._inside = self._enter.inside
            self._strategy = [self._enter.outside(self._enter.fixed, self._enter.current)]
        shape = (len(lay.ends), leaves.num_values, lay.orbits.width)
        self._choice = np.full(shape, 1.0 / leaves.num_values)
        self._choice_regrets = np.zeros(shape)
        self._choice_average = np.zeros(shape)
        self._iteration = 0

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.walker.tree.name

    @property
    def opponent(self) -> int:
        """The opponent o, who picks the continuations."""
        return 1 - self.player

    @property
    def iteration(self) -> int:
        """Iterations performed so far."""
        return self._iteration

    @property
    def traversals(self) -> int:
        """Passes of the first round: one per player per iteration."""
        return 2 * self._iteration

    def evaluate_and_update_policy(self) -> None:
        """One iteration: player 0 then player 1 (alternating updates)."""
        self._iteration += 1
        for p in (0, 1):
            self._update(p)

    def _reaches(self, strategy: list[list[FloatArray]]) -> list[FloatArray]:
        """Both players' reaches at the first round's nodes (nodes, F)."""
        return [self.walker.reaches(q, strategy, rounds=1)[0] for q in (0, 1)]

    def _values(
        self,
        p: int,
        reach: list[FloatArray],
        *,
        strategy: list[list[FloatArray]] | None,
        choice: FloatArray,
        regrets: list[list[FloatArray]] | None = None,
    ) -> tuple[FloatArray, FloatArray | None]:
        """Player p's values at the first round's nodes (nodes, F), and o's picks' values.

        `strategy` None: p best-responds (o then also picks the best continuation);
        `choice`: o's continuation probabilities (E, K, F). For o, also its continuations'
        values at the leaves (E, K, F).
        """
        lay = self.walker.tree.rounds[0]
        at_leaves = reach[1 - p][lay.ends]
        picks = None
        if p == self.player:
            ends = self.leaves.ends(p, at_leaves[:, None, :] * choice)
        else:
            picks = self.leaves.choice_values(p, at_leaves)
            mixed = picks.max(axis=1) if strategy is None else (choice * picks).sum(axis=1)
            ends = mixed.T
        v = np.empty(lay.shape)
        value_rows(
            lay, p, v=v, rho=reach[1 - p], b=slice(0, lay.orbits.width), ends=ends,
            strategy=None if strategy is None else strategy[0],
            regrets=None if regrets is None else regrets[0],
        )  # fmt: skip
        return v, picks

    def _root(self, p: int, v: FloatArray, gadget: FloatArray | None, *, best: bool) -> float:
        """Player p's value of the (gadget) game from its values v at the first round's nodes.

        `gadget`: o's gadget strategy (`_Enter.current`'s shape; None without a gadget).
        """
        if self._enter is None or gadget is None:
            return float(v[0] @ self.walker.tree.rounds[0].orbits.size)
        return self._enter.root_value(p, v, gadget, best=best, opponent=self.opponent)

    def _update(self, p: int) -> None:
        """Player p's instantaneous regrets, the update rule, and p's average."""
        lay, t = self.walker.tree.rounds[0], self._iteration
        reach = self._reaches(self._strategy)
        v, picks = self._values(
            p, reach, strategy=self._strategy, choice=self._choice, regrets=self._regrets
        )
        decay, weight = average_weights(self.config, t)
        for k, g in enumerate(lay.groups):
            if g.player == p and self._inside[k].any():
                self._update_group(k, reach[p][g.rows], decay, weight)
        if picks is not None:  # o's choices at the leaves, and the gadget's
            self._choice_average *= decay
            self._choice_average += self._choice * (weight * reach[p][lay.ends])[:, None, :]
            self._choice_regrets += picks - (self._choice * picks).sum(axis=1, keepdims=True)
            self._match(self._choice_regrets, self._choice)
            if self._enter is not None:
                self._enter.update(self, v)

    def _update_group(self, k: int, own: FloatArray, decay: float, weight: float) -> None:
        """Group k's average and update rule, at its nodes inside the subgame."""
        inside, t = self._inside[k], self._iteration
        strategy, regrets = self._strategy[0][k], self._regrets[0][k]
        average = self._average[0][k]
        average[inside] = (
            decay * average[inside] + strategy[inside] * (weight * own[inside])[:, None]
        )
        r = regrets[inside]
        finish_regrets(self.config, r, t)
        regrets[inside] = r
        strategy[inside] = regret_matching(r, nonnegative=self.config.regret_matching_plus)

    def _match(self, regrets: FloatArray, out: FloatArray) -> None:
        """The update rule on regrets (n, A, F) and their next strategies into out."""
        finish_regrets(self.config, regrets, self._iteration)
        regret_matching(regrets, out=out, nonnegative=self.config.regret_matching_plus)

    def average_strategy(self) -> tuple[list[FloatArray], FloatArray]:
        """The average strategies: the first round's per group (n, A, F), o's choices (E, K, F).

        With a gadget, the nodes outside the subgame play `Gadget.fixed`, and o's first
        decision the gadget's average reach of the subgame on the gadget's action.
        """
        strategy = normalise(self._average)[0]
        if self._enter is not None:
            strategy = self._enter.outside(strategy, self._enter.average_strategy())
        return strategy, regret_matching(self._choice_average)

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """The depth-limited (gadget) game's values of the average profile and best responses."""
        strategy, choice = self.average_strategy()
        gate = None if self._enter is None else self._enter.average_strategy()
        profile = [strategy]
        reach = self._reaches(profile)
        value = self._root(
            0, self._values(0, reach, strategy=profile, choice=choice)[0], gate, best=False
        )
        best = [
            self._root(p, self._values(p, reach, strategy=None, choice=choice)[0], gate, best=True)
            for p in (0, 1)
        ]
        return evaluate.ProfileEvaluation((value, -value), (best[0], best[1]))

    def exploitability(self) -> float:
        """(br_0 + br_1) / 2 in the depth-limited game (zero-sum)."""
        return self.evaluate_average().exploitability


@dataclasses.dataclass
class _Enter:
    """A `Gadget`'s state in the solver.

    o's first decision (group, index), the gadget's `action` and `fixed` strategies, the
    subgame's root row, per group its nodes inside the subgame, and the gadget at that one
    root (`gadgets.RootGadgets`).
    """

    group: int
    index: int
    action: int
    row: int
    inside: list[np.ndarray]
    fixed: list[FloatArray]
    gadgets: RootGadgets

    @classmethod
    def of(cls, solver: DepthLimitedRangeSolver, gadget: Gadget) -> _Enter:
        """The gadget on the solver's first round (ValueError if o does not act first)."""
        lay = solver.walker.tree.rounds[0]
        first = first_decision(solver.walker.tree)
        k, j = first.group, first.index
        if lay.groups[k].player != solver.opponent:
            raise ValueError(
                f"game {solver.name}: the gadget's first decision is player "
                f"{lay.groups[k].player}'s, not the opponent's ({solver.opponent})"
            )
        gadgets = RootGadgets.of(
            lay,
            np.asarray(gadget.alternatives)[None],
            gadget.kind,
            config=solver.config,
            name=solver.name,
        )
        row = int(lay.groups[k].children[j, gadget.action])
        below, inside = {row}, []
        for g in lay.groups:  # groups in order of depth: parents first
            inside.append(np.isin(g.nodes, list(below)))
            below.update(g.children[inside[-1]].ravel().tolist())
        return cls(
            group=k, index=j, action=gadget.action, row=row, inside=inside,
            fixed=[np.asarray(f, dtype=np.float64) for f in gadget.fixed], gadgets=gadgets,
        )  # fmt: skip

    def outside(self, strategy: list[FloatArray], gadget: FloatArray) -> list[FloatArray]:
        """`strategy` inside the subgame, `fixed` outside.

        o's first decision takes the gadget's reach of the subgame (`RootGadgets.factor` of
        the gadget strategy `gadget`) on the gadget's action, 0 elsewhere.
        """
        out = []
        for k, (mine, theirs) in enumerate(zip(strategy, self.fixed)):
            merged = np.where(self.inside[k][:, None, None], mine, theirs)
            if k == self.group:
                merged[self.index] = 0.0
                merged[self.index, self.action] = self.gadgets.factor(gadget)[0]
            out.append(merged)
        return out

    def root_value(
        self, p: int, v: FloatArray, strategy: FloatArray, *, best: bool, opponent: int
    ) -> float:
        """Player p's value of the gadget game from its values v (gadget strategy `strategy`)."""
        if p != opponent:  # o's entering is in v already; the alternatives pay o
            return float(v[self.row] @ self.gadgets.weight) - self.gadgets.paid(strategy)
        return self.gadgets.opponent_value(v[self.row][None], strategy, best=best)

    def update(self, solver: DepthLimitedRangeSolver, v: FloatArray) -> None:
        """The gadget's regrets and strategy from o's values v at the first round's nodes."""
        self.gadgets.update(v[self.row][None], solver.iteration)
        first = solver._strategy[0][self.group]
        first[self.index] = 0.0
        first[self.index, self.action] = self.gadgets.factor(self.gadgets.current)[0]

    @property
    def current(self) -> FloatArray:
        """The gadget's current strategy."""
        return self.gadgets.current

    def average_strategy(self) -> FloatArray:
        """The gadget's average strategy (shaped as `current`)."""
        return self.gadgets.average_strategy()


def self_generative(
    walker: RangeWalker,
    blueprint: Arrays,
    player: int,
    num_values: int,
    *,
    iterations: int = 1000,
    weaken: bool = True,
    start: tuple[LeafValues, list[Arrays]] | None = None,
    after_value: Callable[[LeafValues, list[Arrays]], None] | None = None,
) -> tuple[LeafValues, list[Arrays]]:
    """Section 4's self-generative continuations for solving `player` (module docstring).

    Each round solves the depth-limited first round with the values so far (weakened against
    the blueprint's under its beliefs unless `weaken` is False: `LeafValues.weaken`) by
    `iterations` of CFR+, then adds the opponent's best response to (that solution, the
    blueprint below the limit). Returns the K = `num_values` values (weakened likewise) and the
    continuation profiles (the blueprint, then each best response with the solving player's
    strategy it answers). Ctrl-C or SIGTERM ends it with the set so far.

    `after_value(values, continuations)` is called with the unweakened values and the
    continuations each time the set grows (the blueprint's first); `start`, such a set from an
    earlier call with the same arguments, goes on from it instead of from the blueprint alone.

    Raises:
      ValueError: num_values < 1, `start` holds other than one value per continuation, or as
        `LeafValues.compute`.
    """
    if num_values < 1:
        raise ValueError(f"game {walker.tree.name}: num_values must be >= 1, got {num_values}")
    lay, opponent = walker.tree.rounds[0], 1 - player
    beliefs = walker.reaches(player, blueprint, rounds=1)[0][lay.ends]
    if start is None:
        continuations = [blueprint]
        raw = LeafValues.compute(walker, continuations)
        if after_value is not None:
            after_value(raw, continuations)
    else:
        raw, continuations = start[0], list(start[1])
        if raw.num_values != len(continuations) or not continuations:
            raise ValueError(
                f"game {walker.tree.name}: a start of {raw.num_values} values and "
                f"{len(continuations)} continuations"
            )

    def values() -> LeafValues:
        return raw.weaken(walker, beliefs, player) if weaken else raw

    while raw.num_values < num_values and not interrupts.requested():
        solver = DepthLimitedRangeSolver(walker, values(), player)
        solver_lib.run(solver, iterations)
        first, _ = solver.average_strategy()
        solution = [
            [first[k] if g.player == player else blueprint[0][k] for k, g in enumerate(lay.groups)],
            *blueprint[1:],
        ]
        try:
            _, answer = walker.best_response(opponent, solution)
            more = LeafValues.compute(walker, [answer])
        except interrupts.Interrupted:  # the set so far
            break
        continuations.append(answer)
        raw = raw.extend(more)
        if after_value is not None:
            after_value(raw, continuations)
    return values(), continuations
