"""CFR, CFR+ and DCFR on the public tree with hand-range vectors.

The public-tree form of counterfactual regret minimisation (Johanson et al., "Efficient Nash
Equilibrium Approximation through Monte Carlo Counterfactual Regret Minimization", AAMAS
2012, Section 3: each public node carries a vector over private hands; Johanson, Bowling,
Waugh & Zinkevich, "Accelerating Best Response Calculation in Large Extensive Games", IJCAI
2011, Section 4, the terminal evaluation against the opponent's range): regrets, strategies
and average strategies are arrays (n, A, n_B, T) per `range_tree.DecisionGroup`, and one
iteration is, for the updating player p,

1. the reach vectors top down (the opponent's, and p's own for the average), one numpy call
   per group and action;
2. the values at terminals against the opponent's reach (folds in O(T), showdowns by one
   T x T kernel per board), and bottom up: p's decisions mix their children by the strategy
   and take the instantaneous regrets, the opponent's sum them, a round's end sums its
   dealt boards (`deals`: with suit isomorphism, relabelled hands; in the rounds before a
   deal the instantaneous regrets are averaged over each board's hand orbits, so that
   isomorphic hands keep equal strategies bit for bit, which the relabelling assumes);
3. the update rule of `cfr_rules.CFRConfig` (regret matching, RM+, DCFR discounting,
   linear or t^gamma averaging) on whole arrays.

These are the sequence-form solver's iterates (`cfr_variants.CFRVariantSolver`) in another
layout: the infoset (decision, board, hand) is one array entry, its sequences the A actions.
Nothing of size sequences x sequences and no tree of histories is built, so Rhode Island
Hold'em runs whole (with `suits=True`, one board per suit orbit). The best response is the
same walk with a maximum at the responder's decisions, an exact exploitability.

A pass is not cut short by Ctrl-C (an iteration of the 52-card game takes about 0.4 s): the
run loop (`algorithms.solver.run`) stops after the current iteration and keeps the result so
far; an exception from inside a pass would lose it.
"""

from __future__ import annotations

import functools

import numpy as np
from numpy.typing import DTypeLike

from ospiel_ext import evaluate
from ospiel_ext.algorithms.cfr_rules import CFR_PLUS, CFRConfig, average_weights, finish_regrets
from ospiel_ext.algorithms.poker import range_tree
from ospiel_ext.algorithms.poker.range_policy import RangePolicy
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree, RoundLayout
from ospiel_ext.arrays import FloatArray

DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
"""The floating-point types `RangeCFRSolver` iterates in."""


def regret_matching(regrets: FloatArray) -> FloatArray:
    """Strategies proportional to positive regrets over axis 1, uniform where none is."""
    out = np.maximum(regrets, 0.0)
    total = out.sum(axis=1)
    none = total <= 0
    np.divide(1.0, total, out=total, where=~none)
    out *= total[:, None]
    np.copyto(out, 1.0 / out.shape[1], where=none[:, None])
    return out


def normalise(weights: Arrays) -> Arrays:
    """Behavioural strategies from accumulated realization weights (uniform where none)."""
    return [[regret_matching(w) for w in per_round] for per_round in weights]


class RangeWalker:
    """The passes over a `RangeTree`: reaches, values, best responses.

    Args:
      tree: the laid-out public tree.
    """

    def __init__(self, tree: RangeTree):
        self.tree = tree

    def uniform(self, dtype: DTypeLike = np.float64) -> Arrays:
        """Uniform strategies of both players."""
        return [
            [
                np.full(
                    (len(g.nodes), g.num_actions, *lay.shape[1:]), 1.0 / g.num_actions, dtype=dtype
                )
                for g in lay.groups
            ]
            for lay in self.tree.rounds
        ]

    def zeros(self, dtype: DTypeLike = np.float64) -> Arrays:
        """Zero arrays shaped as the strategies."""
        return [[np.zeros_like(s) for s in per_round] for per_round in self.uniform(dtype)]

    def reaches(self, player: int, strategy: Arrays) -> list[FloatArray]:
        """`player`'s reach vectors at every node, per round (nodes, n_B, T), top down.

        In the strategies' floating-point type.
        """
        dtype = next(s.dtype for per_round in strategy for s in per_round)
        out = []
        prev: tuple[RoundLayout, FloatArray] | None = None
        for lay, strat in zip(self.tree.rounds, strategy):
            reach = np.empty(lay.shape, dtype=dtype)
            if prev is None:
                reach[0] = 1.0
            else:  # the round's first rows, in the order of the ends before
                before, prev_reach = prev
                np.take(
                    prev_reach[before.ends], lay.deals.parent, axis=1, out=reach[: len(before.ends)]
                )
            for g, s in zip(lay.groups, strat):
                here = reach[g.nodes]
                for a in range(g.num_actions):
                    rows = reach[g.child_rows(a)]
                    if g.player == player:
                        np.multiply(here, s[:, a], out=rows)
                    else:
                        rows[...] = here
            out.append(reach)
            prev = (lay, reach)
        return out

    def values(
        self,
        player: int,
        opponent_reach: list[FloatArray],
        strategy: Arrays | None,
        regrets: Arrays | None = None,
    ) -> float:
        """`player`'s value at the root, bottom up; a best response where `strategy` is None.

        In the floating-point type of `opponent_reach`.

        Args:
          player: whose values.
          opponent_reach: the opponent's reaches (`reaches`).
          strategy: the strategies the player's decisions mix by; None for the maximum.
          regrets: if given, receives the player's instantaneous regrets (added in place).
        """
        below: tuple[RoundLayout, FloatArray] | None = None
        for r in range(len(self.tree.rounds) - 1, -1, -1):
            lay = self.tree.rounds[r]
            v = np.empty(lay.shape, dtype=opponent_reach[r].dtype)
            rho = opponent_reach[r]
            if len(lay.folds):
                sign = 1.0 if player == 0 else -1.0
                v[lay.folds] = range_tree.fold_values(lay, rho[lay.folds], sign * lay.fold_payoff)
            if len(lay.showdowns):
                v[lay.showdowns] = range_tree.showdown_values(lay, rho[lay.showdowns])
            if below is not None:
                dl, v_next = below[0].deals, below[1]
                dealt = v_next[: len(lay.ends)][:, dl.deal_child[:, None], dl.deal_perm]
                v[lay.ends] = np.add.reduceat(dealt, dl.deal_starts, axis=1)
            for k in range(len(lay.groups) - 1, -1, -1):
                g = lay.groups[k]
                children = [v[g.child_rows(a)] for a in range(g.num_actions)]
                if g.player != player:
                    v[g.nodes] = functools.reduce(np.add, children)
                elif strategy is None:
                    v[g.nodes] = functools.reduce(np.maximum, children)
                else:
                    s = strategy[r][k]
                    mixed = children[0] * s[:, 0]
                    for a in range(1, g.num_actions):
                        mixed += children[a] * s[:, a]
                    v[g.nodes] = mixed
                    if regrets is not None:
                        self._add_regrets(lay, regrets[r][k], children, mixed)
            below = (lay, v)
        assert below is not None
        return float(below[1][0].sum())

    def evaluate(self, strategy: Arrays) -> evaluate.ProfileEvaluation:
        """The profile's values and best-response values, as `evaluate.evaluate_profile`'s.

        Exact in the game the tree lays out (with suit isomorphism, for suit-symmetric
        profiles: `deals`).
        """
        c = float(self.tree.structure.game.utility_sum())
        reach1 = self.reaches(1, strategy)
        value = self.values(0, reach1, strategy)
        br0 = self.values(0, reach1, None)
        br1 = self.values(1, self.reaches(0, strategy), None)
        return evaluate.ProfileEvaluation((value, c - value), (br0, c + br1))

    @staticmethod
    def _add_regrets(
        lay: RoundLayout, regrets: FloatArray, children: list[FloatArray], mixed: FloatArray
    ) -> None:
        """regrets[:, a] += children[a] - mixed, suit-symmetrised where the round needs it."""
        if lay.symmetrise is None:
            for a, child in enumerate(children):
                regrets[:, a] += child
                regrets[:, a] -= mixed
            return
        inst = np.stack([child - mixed for child in children], axis=1)
        flat = inst.reshape(-1, lay.symmetrise.shape[0])  # bit for bit equal on each orbit
        regrets += np.asarray(flat @ lay.symmetrise).reshape(inst.shape)


class RangeCFRSolver:
    """A CFR variant (`cfr_rules.CFRConfig`) on a `RangeTree` (module docstring).

    Args:
      tree: the laid-out public tree (`RangeTree(structure.detect(game), suits=...)`).
      config: the variant (default CFR+).
      dtype: the floating-point type of the iteration: regrets, current strategies, reaches
        and values. float64 (the default) gives the sequence-form solver's iterates; float32
        halves the bytes every pass reads and writes (an iteration of Rhode Island Hold'em
        about 2x as fast), each entry then carrying float32's relative rounding (6e-8) into
        the regrets. The average strategy is accumulated in float64 either way, and it is
        evaluated in float64 (`evaluate_average`), so the exploitability reported is exact
        for the strategy returned.
    """

    def __init__(
        self, tree: RangeTree, config: CFRConfig = CFR_PLUS, *, dtype: DTypeLike = np.float64
    ):
        if np.dtype(dtype) not in DTYPES:
            raise ValueError(
                f"game {tree.name}: the range solver iterates in float64 or float32, got {dtype}"
            )
        self.tree, self.config, self.dtype = tree, config, np.dtype(dtype)
        self.walker = RangeWalker(tree)
        self._strategy = self.walker.uniform(self.dtype)
        self._regrets = self.walker.zeros(self.dtype)
        self._average = self.walker.zeros(np.float64)
        self._iteration = 0

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.tree.name

    @property
    def iteration(self) -> int:
        """Iterations performed so far."""
        return self._iteration

    @property
    def traversals(self) -> int:
        """Tree traversals so far: one per player per iteration."""
        return 2 * self._iteration

    def evaluate_and_update_policy(self) -> None:
        """One iteration: both players, in turn with alternating updates.

        Three reach passes (two without alternation): player 1's serves as player 0's
        opponent and as its own reach for the average, its strategy unchanged until its turn.
        """
        self._iteration += 1
        w = self.walker
        reach1, reach0 = w.reaches(1, self._strategy), w.reaches(0, self._strategy)
        self._update(0, opponent=reach1, own=reach0)
        if self.config.alternating_updates:
            reach0 = w.reaches(0, self._strategy)
        self._update(1, opponent=reach0, own=reach1)

    def _update(self, p: int, *, opponent: list[FloatArray], own: list[FloatArray]) -> None:
        t, cfg = self._iteration, self.config
        decay, weight = average_weights(cfg, t)
        for r, k in self._groups_of(p):
            g, average = self.tree.rounds[r].groups[k], self._average[r][k]
            if decay != 1.0:
                average *= decay
            plan = self._strategy[r][k] * own[r][g.nodes][:, None]
            if weight != 1.0:
                plan *= weight
            average += plan
        self.walker.values(p, opponent, self._strategy, self._regrets)
        for r, k in self._groups_of(p):
            finish_regrets(cfg, self._regrets[r][k], t)
            self._strategy[r][k] = regret_matching(self._regrets[r][k])

    def _groups_of(self, player: int) -> list[tuple[int, int]]:
        return [
            (r, k)
            for r, lay in enumerate(self.tree.rounds)
            for k, g in enumerate(lay.groups)
            if g.player == player
        ]

    def current_strategy(self) -> Arrays:
        """The strategies of this iteration (copies)."""
        return [[s.copy() for s in per_round] for per_round in self._strategy]

    def average_strategy(self) -> Arrays:
        """The average strategies (uniform before the first iteration)."""
        return normalise(self._average)

    def average_policy(self) -> RangePolicy:
        """The average strategies as an OpenSpiel policy (a new object on every call)."""
        return RangePolicy(self.tree, self.average_strategy())

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """Values and best-response values of the average profile (`RangeWalker.evaluate`).

        Makes the solver a `solver.SelfEvaluatingSolver`, which the run loop measures.
        """
        return self.walker.evaluate(self.average_strategy())

    def exploitability(self) -> float:
        """OpenSpiel's exploitability of the average profile, (br_0 + br_1) / 2 (zero-sum)."""
        return self.evaluate_average().exploitability
