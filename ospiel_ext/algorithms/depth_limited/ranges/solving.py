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

import numpy as np

from ospiel_ext import evaluate
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.cfr_rules import (
    CFR_PLUS,
    CFRConfig,
    average_weights,
    finish_regrets,
)
from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.poker.range_rows import normalise, regret_matching, value_rows
from ospiel_ext.algorithms.poker.range_tree import Arrays
from ospiel_ext.algorithms.poker.range_walker import RangeWalker
from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import interrupts


class DepthLimitedRangeSolver:
    """CFR on the first round with multi-valued leaves (module docstring).

    Args:
      walker: the walker of the game's two-round range layout.
      leaves: the K continuations' values at the first round's ends.
      player: the solving player i (the opponent picks the continuations).
      config: the CFR variant (no DCFR discount: `CFR_PLUS`, `cfr_rules.CFR`).

    Raises:
      ValueError: the player is not 0 or 1, or the config discounts (DCFR).
    """

    def __init__(
        self,
        walker: RangeWalker,
        leaves: LeafValues,
        player: int,
        config: CFRConfig = CFR_PLUS,
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
    ) -> tuple[float, FloatArray | None]:
        """The root value of player p (for o, also its continuations' values (E, K, F)).

        `strategy` None: p best-responds (o then also picks the best continuation);
        `choice`: o's continuation probabilities (E, K, F).
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
        return float(v[0] @ lay.orbits.size), picks

    def _update(self, p: int) -> None:
        """Player p's instantaneous regrets, the update rule, and p's average."""
        lay, t = self.walker.tree.rounds[0], self._iteration
        reach = self._reaches(self._strategy)
        _, picks = self._values(
            p, reach, strategy=self._strategy, choice=self._choice, regrets=self._regrets
        )
        decay, weight = average_weights(self.config, t)
        for k, g in enumerate(lay.groups):
            if g.player != p:
                continue
            average = self._average[0][k]
            average *= decay
            average += self._strategy[0][k] * (weight * reach[p][g.rows])[:, None]
            finish_regrets(self.config, self._regrets[0][k], t)
            regret_matching(
                self._regrets[0][k],
                out=self._strategy[0][k],
                nonnegative=self.config.regret_matching_plus,
            )
        if picks is not None:  # o's choices at the leaves
            self._choice_average *= decay
            self._choice_average += self._choice * (weight * reach[p][lay.ends])[:, None, :]
            self._choice_regrets += picks - (self._choice * picks).sum(axis=1, keepdims=True)
            finish_regrets(self.config, self._choice_regrets, t)
            regret_matching(
                self._choice_regrets,
                out=self._choice,
                nonnegative=self.config.regret_matching_plus,
            )

    def average_strategy(self) -> tuple[list[FloatArray], FloatArray]:
        """The average strategies: the first round's per group (n, A, F), o's choices (E, K, F)."""
        return normalise(self._average)[0], regret_matching(self._choice_average)

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """The depth-limited game's values of the average profile and both best responses."""
        strategy, choice = self.average_strategy()
        profile = [strategy]
        reach = self._reaches(profile)
        value, _ = self._values(0, reach, strategy=profile, choice=choice)
        best = [self._values(p, reach, strategy=None, choice=choice)[0] for p in (0, 1)]
        return evaluate.ProfileEvaluation((value, -value), (best[0], best[1]))

    def exploitability(self) -> float:
        """(br_0 + br_1) / 2 in the depth-limited game (zero-sum)."""
        return self.evaluate_average().exploitability


def self_generative(
    walker: RangeWalker,
    blueprint: Arrays,
    player: int,
    num_values: int,
    *,
    iterations: int = 1000,
    weaken: bool = True,
) -> tuple[LeafValues, list[Arrays]]:
    """Section 4's self-generative continuations for solving `player` (module docstring).

    Each round solves the depth-limited first round with the values so far (weakened against
    the blueprint's under its beliefs unless `weaken` is False: `LeafValues.weaken`) by
    `iterations` of CFR+, then adds the opponent's best response to (that solution, the
    blueprint below the limit). Returns the K = `num_values` values (weakened likewise) and the
    continuation profiles (the blueprint, then each best response with the solving player's
    strategy it answers). Ctrl-C or SIGTERM ends it with the set so far.

    Raises:
      ValueError: num_values < 1, or as `LeafValues.compute`.
    """
    if num_values < 1:
        raise ValueError(f"game {walker.tree.name}: num_values must be >= 1, got {num_values}")
    lay, opponent = walker.tree.rounds[0], 1 - player
    beliefs = walker.reaches(player, blueprint, rounds=1)[0][lay.ends]
    continuations = [blueprint]
    raw = LeafValues.compute(walker, continuations)

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
    return values(), continuations
