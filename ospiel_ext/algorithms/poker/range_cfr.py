"""CFR, CFR+ and DCFR on the public tree with hand-range vectors.

The public-tree form of counterfactual regret minimisation (Johanson et al., "Efficient Nash
Equilibrium Approximation through Monte Carlo Counterfactual Regret Minimization", AAMAS
2012, Section 3: each public node carries a vector over private hands; Johanson, Bowling,
Waugh & Zinkevich, "Accelerating Best Response Calculation in Large Extensive Games", IJCAI
2011, Section 4, the terminal evaluation against the opponent's range): regrets, strategies
and average strategies are arrays (n, A, F) per `range_tree.DecisionGroup`, one entry per
board and hand orbit (`orbits`), and one iteration is, for the updating player p,

1. the reach vectors top down (the opponent's, and p's own for the average), one numpy call
   per group and action;
2. the values at terminals against the opponent's reach (folds in O(F), showdowns by one
   kernel per board over its orbits), and bottom up: p's decisions mix their children by
   the strategy and take the instantaneous regrets, the opponent's sum them, a round's end
   sums its dealt boards (`deals`: with suit isomorphism, relabelled hands; one sparse
   product, `orbits.deal_matrix`);
3. the update rule of `cfr_rules.CFRConfig` (regret matching with its tie rule, RM+, DCFR
   discounting, linear or t^gamma averaging) on whole arrays.

Everything a pass does below a round's first rows is independent board by board (a deal
joins the boards only at the round's ends), so with `threads` > 1 each round's entries are
cut into that many consecutive blocks of whole boards (`orbits.OrbitLayout.blocks`), one per
thread (numpy releases the GIL inside its
loops and BLAS calls). Every entry is computed by the same operations in the same order as
in one block, so the iterates do not depend on the number of threads.

These are the sequence-form solver's iterates (`cfr_variants.CFRVariantSolver`) in another
layout: the infoset (decision, board, hand) is one array entry (with suit isomorphism, the
infosets of one hand orbit share it), its sequences the A actions. The sums run in another
order, so the two agree up to rounding, which regret ties no longer turn into different
actions (`cfr_rules`, ties) but which the iteration amplifies: to 1e-9 for tens to hundreds
of iterations (`cfr_rules`), not for ever.
Nothing of size sequences x sequences and no tree of histories is built, so Rhode Island
Hold'em runs whole (with `suits=True`, one board per suit orbit). The best response is the
same walk with a maximum at the responder's decisions, an exact exploitability.

A pass is not cut short by Ctrl-C (an iteration of the 52-card game takes about 0.15 s): the
run loop (`algorithms.solver.run`) stops after the current iteration and keeps the result so
far; an exception from inside a pass would lose it.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import Self

import numpy as np
import pyspiel
import scipy.sparse as sp
from numpy.typing import DTypeLike
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate
from ospiel_ext.algorithms.cfr_rules import (
    CFR_PLUS,
    CFRConfig,
    average_weights,
    check_discount,
    finish_regrets,
    payoff_scale,
    positive_regrets,
    tie_tolerance,
)
from ospiel_ext.algorithms.poker import range_tree, structure
from ospiel_ext.algorithms.poker.range_policy import RangePolicy, arrays_from_tabular
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.arrays import FloatArray

DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
"""The floating-point types `RangeCFRSolver` iterates in."""


def regret_matching(
    regrets: FloatArray,
    out: FloatArray | None = None,
    *,
    nonnegative: bool = False,
    tol: FloatArray | float = 0.0,
) -> FloatArray:
    """Strategies proportional to positive regrets over axis 1, uniform where none is.

    Args:
      regrets: (n, A, ...) cumulative regrets.
      out: where to write the strategies (a new array if None).
      nonnegative: the regrets are known to be >= 0 (RM+), so with no tolerance none is
        clipped.
      tol: the tie tolerance, a number or an array broadcast against the regrets
        (`cfr_rules.tie_tolerance`): a regret at or below it counts as none
        (`cfr_rules.positive_regrets`).
    """
    if out is None:
        out = np.empty_like(regrets)
    if nonnegative and np.ndim(tol) == 0 and tol == 0:
        positive = regrets
    else:
        positive = positive_regrets(regrets, tol, out, nonnegative=nonnegative)
    total = positive.sum(axis=1)
    none = total <= 0
    np.divide(1.0, total, out=total, where=~none)
    np.multiply(positive, total[:, None], out=out)
    np.copyto(out, 1.0 / out.shape[1], where=none[:, None])
    return out


def normalise(weights: Arrays) -> Arrays:
    """Behavioural strategies from accumulated realization weights (uniform where none)."""
    return [[regret_matching(w) for w in per_round] for per_round in weights]


class _Closing:
    """A context manager that `close()`s its object at the end of the `with` block."""

    def close(self) -> None:
        """Releases what the object holds."""

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()


class RangeWalker(_Closing):
    """The passes over a `RangeTree`: reaches, values, best responses.

    Args:
      tree: the laid-out public tree.
      threads: threads a pass runs on, each on its own block of every round's boards
        (module docstring); at most as many blocks as a round has boards.

    With more than one thread the walker owns a thread pool: `close()` it, or use the walker
    as a context manager (`with RangeWalker(tree, threads=2) as walker:`); a walker
    garbage-collected unclosed shuts its pool down then.
    """

    def __init__(self, tree: RangeTree, *, threads: int = 1):
        if threads < 1:
            raise ValueError(f"game {tree.name}: threads must be at least 1, got {threads}")
        self.tree, self.threads = tree, threads
        self.blocks = [lay.orbits.blocks(threads) for lay in tree.rounds]
        # per round before a deal and block: the deal's transpose restricted to the block
        self._deals: list[list[sp.csr_matrix]] = [
            [_checked(nxt.deal_matrix)[:, b].T.tocsr() for b in blocks]
            for blocks, nxt in zip(self.blocks, tree.rounds[1:])
        ]
        self._pool = cf.ThreadPoolExecutor(threads) if threads > 1 else None
        self._close = (
            None if self._pool is None else weakref.finalize(self, self._pool.shutdown, wait=True)
        )
        self._values: dict[np.dtype, list[FloatArray]] = {}

    def close(self) -> None:
        """Shuts the thread pool down (a pass afterwards runs on this thread only)."""
        if self._close is not None:
            self._close()
        self._pool = None

    def each_block(self, r: int, work: Callable[[int, slice], None]) -> None:
        """work(i, boards) for every block i of round r's boards, on the walker's threads."""
        blocks = self.blocks[r]
        if self._pool is None or len(blocks) == 1:
            for i, b in enumerate(blocks):
                work(i, b)
            return
        for future in [self._pool.submit(work, i, b) for i, b in enumerate(blocks)]:
            future.result()

    def uniform(self, dtype: DTypeLike = np.float64) -> Arrays:
        """Uniform strategies of both players, per entry (n, A, F)."""
        return [
            [
                np.full(
                    (len(g.nodes), g.num_actions, lay.shape[1]), 1.0 / g.num_actions, dtype=dtype
                )
                for g in lay.groups
            ]
            for lay in self.tree.rounds
        ]

    def zeros(self, dtype: DTypeLike = np.float64) -> Arrays:
        """Zero arrays shaped as the strategies."""
        return [[np.zeros_like(s) for s in per_round] for per_round in self.uniform(dtype)]

    def reaches(
        self, player: int, strategy: Arrays, out: list[FloatArray] | None = None
    ) -> list[FloatArray]:
        """`player`'s reach vectors at every node, per round (nodes, F), top down.

        In the strategies' floating-point type.

        Args:
          player: whose reaches.
          strategy: both players' strategies, per entry (`uniform`).
          out: arrays to write them into (an earlier result, reused: a pass that writes
            fresh memory spends much of its time on the kernel's page faults).
        """
        dtype = next(s.dtype for per_round in strategy for s in per_round)
        if out is None:
            out = [np.empty(lay.shape, dtype=dtype) for lay in self.tree.rounds]
        for r, reach in enumerate(out):
            # the round's first rows, in the order of the ends before
            first = out[r - 1][self.tree.rounds[r - 1].ends] if r else None
            self.each_block(
                r,
                functools.partial(
                    self._reach_block, player=player, r=r, strategy=strategy, reach=reach,
                    first=first,
                ),
            )  # fmt: skip
        return out

    def _reach_block(
        self,
        _: int,
        b: slice,
        *,
        player: int,
        r: int,
        strategy: Arrays,
        reach: FloatArray,
        first: FloatArray | None,
    ) -> None:
        """`reaches` of round r on boards b."""
        lay = self.tree.rounds[r]
        if first is None:
            reach[0, b] = 1.0
        else:
            assert lay.parent_entry is not None
            reach[: len(first), b] = np.take(first, lay.parent_entry[b], axis=1)
        for g, s in zip(lay.groups, strategy[r]):
            here = reach[g.rows, b]
            for a in range(g.num_actions):
                rows = reach[g.child_rows(a), b]
                if g.player == player:
                    np.multiply(here, s[:, a, b], out=rows)
                else:
                    rows[...] = here

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
        below: FloatArray | None = None
        dtype = opponent_reach[0].dtype
        if dtype not in self._values:  # reused (`reaches`: page faults)
            self._values[dtype] = [np.empty(lay.shape, dtype=dtype) for lay in self.tree.rounds]
        for r in range(len(self.tree.rounds) - 1, -1, -1):
            v = self._values[dtype][r]
            self.each_block(
                r,
                functools.partial(
                    self._value_block, player=player, r=r, v=v, rho=opponent_reach[r],
                    below=below, strategy=strategy, regrets=regrets,
                ),
            )  # fmt: skip
            below = v
        assert below is not None
        return float(below[0] @ self.tree.rounds[0].orbits.size)

    def _value_block(
        self,
        i: int,
        b: slice,
        *,
        player: int,
        r: int,
        v: FloatArray,
        rho: FloatArray,
        below: FloatArray | None,
        strategy: Arrays | None,
        regrets: Arrays | None,
    ) -> None:
        """`values` of round r on entries b (block i): terminals, round ends, decisions."""
        lay = self.tree.rounds[r]
        sign = 1.0 if player == 0 else -1.0
        for rows, at in lay.fold_runs:
            range_tree.fold_values(lay, rho[rows, b], sign * lay.fold_payoff[at], b, out=v[rows, b])
        if len(lay.showdowns):
            v[lay.showdowns, b] = range_tree.showdown_values(lay, rho[lay.showdowns, b], b)
        if below is not None:  # v_B(h) = sum_c v_canon(B + c)(pi_c(h)) (`orbits.deal_matrix`)
            deal = self._deals[r][i].astype(v.dtype, copy=False)
            v[lay.ends, b] = (deal @ below[: len(lay.ends)].T).T
        for k in range(len(lay.groups) - 1, -1, -1):
            g = lay.groups[k]
            children = [v[g.child_rows(a), b] for a in range(g.num_actions)]
            if g.player != player:
                v[g.rows, b] = functools.reduce(np.add, children)
            elif strategy is None:
                v[g.rows, b] = functools.reduce(np.maximum, children)
            else:
                s = strategy[r][k][:, :, b]
                # in place where the rows are a view (`DecisionGroup.rows`)
                mixed = v[g.rows, b] if isinstance(g.rows, slice) else np.empty_like(children[0])
                np.multiply(children[0], s[:, 0], out=mixed)
                for a in range(1, g.num_actions):
                    mixed += children[a] * s[:, a]
                if not isinstance(g.rows, slice):
                    v[g.rows, b] = mixed
                if regrets is not None:
                    _add_regrets(regrets[r][k][:, :, b], children, mixed)

    def value(self, strategy: Arrays) -> float:
        """Player 0's expected utility of the profile (exact as `evaluate`)."""
        return self.values(0, self.reaches(1, strategy), strategy)

    def evaluate(self, strategy: Arrays) -> evaluate.ProfileEvaluation:
        """The profile's values and best-response values, as `evaluate.evaluate_profile`'s.

        Exact in the game the tree lays out (with suit isomorphism, for suit-symmetric
        profiles: `deals`).
        """
        c = float(self.tree.structure.game.utility_sum())
        reach = self.reaches(1, strategy)
        value = self.values(0, reach, strategy)
        br0 = self.values(0, reach, None)
        # player 0's reaches into player 1's buffers: one (nodes, F) array per round less
        br1 = self.values(1, self.reaches(0, strategy, out=reach), None)
        return evaluate.ProfileEvaluation((value, c - value), (br0, c + br1))


def opponent_reach(layout: range_tree.RoundLayout, rho: FloatArray, entries: slice) -> FloatArray:
    """(n, F') the opponent-and-chance reach of the information sets at n rows of a round.

    The sequence form's `opponent_reach` in the range layout: the fold rule against the
    opponent's reach rho (n, F') at payoff 1, on the round's `entries` (whole boards); in rho's
    floating-point type. The tie rule's reach (`cfr_rules.tie_tolerance`).
    """
    out = np.empty_like(rho)
    range_tree.fold_values(layout, rho, np.ones(len(rho)), entries, out=out)
    return out


def _add_regrets(regrets: FloatArray, children: list[FloatArray], mixed: FloatArray) -> None:
    """regrets[:, a] += children[a] - mixed: the instantaneous regrets of a decision group."""
    for a, child in enumerate(children):
        regrets[:, a] += child
        regrets[:, a] -= mixed


def _checked(deal: sp.csc_matrix | None) -> sp.csc_matrix:
    assert deal is not None, "every round after the first has a deal"
    return deal


def mix(tree: RangeTree, strategies: tuple[Arrays, Arrays]) -> Arrays:
    """The profile in which each player p plays `strategies[p]` (its own groups' arrays)."""
    return [
        [strategies[g.player][r][k] for k, g in enumerate(lay.groups)]
        for r, lay in enumerate(tree.rounds)
    ]


class RangeCFRSolver(_Closing):
    """A CFR variant (`cfr_rules.CFRConfig`) on a `RangeTree` (module docstring).

    Args:
      tree: the laid-out public tree (`RangeTree(structure.detect(game), suits=...)`).
      config: the variant (default CFR+).
      dtype: the floating-point type of the iteration: regrets, current strategies, reaches and
        values. float64 (the default) gives the sequence-form solver's iterates (up to rounding,
        module docstring); float32 halves the bytes every pass reads and writes (an iteration of
        Rhode Island Hold'em about 2x as fast), each entry then carrying float32's relative
        rounding (6e-8) into the regrets, and the tie tolerance is float32's
        (`cfr_rules.tie_tolerance`). The average strategy is accumulated in float64 either way,
        and it is evaluated in float64 (`evaluate_average`), so the exploitability reported is
        exact for the strategy returned.
      threads: threads each pass runs on (`RangeWalker`); the iterates are the same for any
        number. With more than one, `close()` the solver or use it as a context manager.

    Raises:
      ValueError: DCFR's discount is invalid (`cfr_rules.check_discount`), or the dtype or
        threads are; the message names the game.
    """

    def __init__(
        self,
        tree: RangeTree,
        config: CFRConfig = CFR_PLUS,
        *,
        dtype: DTypeLike = np.float64,
        threads: int = 1,
    ):
        check_discount(config, tree.name)
        if np.dtype(dtype) not in DTYPES:
            raise ValueError(
                f"game {tree.name}: the range solver iterates in float64 or float32, got {dtype}"
            )
        self.tree, self.config, self.dtype = tree, config, np.dtype(dtype)
        self.walker = RangeWalker(tree, threads=threads)
        self._strategy = self.walker.uniform(self.dtype)
        self._regrets = self.walker.zeros(self.dtype)
        self._average = self.walker.zeros(np.float64)
        self._iteration = 0
        self._reach: list[list[FloatArray] | None] = [None, None]  # reused buffers
        # per round and group, each decision's opponent-and-chance reach per entry (n, F)
        # summed over the iterations: the tie rule's R_t(I) (`cfr_rules.tie_tolerance`), kept
        # only with the rule on (`CFRConfig.tie_ulps`)
        self._reach_sum = [
            [np.zeros_like(a[:, 0]) for a in per_round]
            for per_round in (self._regrets if config.tie_ulps else [])
        ]
        self._scale = payoff_scale(tree.structure.game)

    def close(self) -> None:
        """Shuts the walker's thread pool down (`RangeWalker.close`)."""
        self.walker.close()

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.tree.name

    @property
    def iteration(self) -> int:
        """Iterations performed so far."""
        return self._iteration

    @property
    def entries(self) -> int:
        """Regret entries iterated (both players): one per decision, action and hand orbit."""
        return sum(a.size for per_round in self._regrets for a in per_round)

    @property
    def traversals(self) -> int:
        """Tree traversals so far: one per player per iteration."""
        return 2 * self._iteration

    def evaluate_and_update_policy(self) -> None:
        """One iteration: both players, in turn with alternating updates.

        Two reach passes: player 1's serves as player 0's opponent and as its own reach for
        the average, its strategy unchanged until its turn; player 0's, taken after its
        update, serves as player 1's opponent and, with alternating updates, as player 0's
        own reach in the next iteration (nothing changes player 0's strategy in between).
        Without alternation player 0's is taken before either update.
        """
        self._iteration += 1
        w = self.walker
        reach1 = self._reach[1] = w.reaches(1, self._strategy, self._reach[1])
        reach0 = self._reach[0]
        if reach0 is None or not self.config.alternating_updates:
            reach0 = self._reach[0] = w.reaches(0, self._strategy, reach0)
        self._update(0, opponent=reach1, own=reach0)
        if self.config.alternating_updates:
            reach0 = self._reach[0] = w.reaches(0, self._strategy, reach0)
        self._update(1, opponent=reach0, own=reach1)

    def _update(self, p: int, *, opponent: list[FloatArray], own: list[FloatArray]) -> None:
        for r in range(len(self.tree.rounds)):
            self.walker.each_block(r, functools.partial(self._accumulate, p=p, r=r, own=own[r]))
        self.walker.values(p, opponent, self._strategy, self._regrets)
        for r in range(len(self.tree.rounds)):
            self.walker.each_block(
                r, functools.partial(self._match, p=p, r=r, opponent=opponent[r])
            )

    def _accumulate(self, _: int, b: slice, *, p: int, r: int, own: FloatArray) -> None:
        """Adds iteration t's realization plans of p's decisions in round r, boards b."""
        decay, weight = average_weights(self.config, self._iteration)
        for k in self._groups_of(p, r):
            g, average = self.tree.rounds[r].groups[k], self._average[r][k][:, :, b]
            if decay != 1.0:
                average *= decay
            reach = own[g.rows, b]
            if weight != 1.0:
                reach = reach * weight
            average += self._strategy[r][k][:, :, b] * reach[:, None]

    def _match(self, _: int, b: slice, *, p: int, r: int, opponent: FloatArray) -> None:
        """The update rule on p's regrets in round r, boards b, and the next strategies.

        The tie tolerance's reach sums grow by this iteration's opponent-and-chance reach of
        p's decisions: the fold rule against the opponent's reach, at payoff 1.
        """
        lay, ulps = self.tree.rounds[r], self.config.tie_ulps
        for k in self._groups_of(p, r):
            tol: FloatArray | float = 0.0  # the tie rule off (`CFRConfig.tie_ulps`)
            if ulps:
                reach_sum = self._reach_sum[r][k][:, b]
                reach_sum += opponent_reach(lay, opponent[lay.groups[k].rows, b], b)
                tol = tie_tolerance(reach_sum, self._scale, self.dtype, ulps)[:, None]
            regrets = self._regrets[r][k][:, :, b]
            finish_regrets(self.config, regrets, self._iteration)
            regret_matching(
                regrets,
                out=self._strategy[r][k][:, :, b],
                nonnegative=self.config.regret_matching_plus,
                tol=tol,
            )

    def _groups_of(self, player: int, r: int) -> list[int]:
        return [k for k, g in enumerate(self.tree.rounds[r].groups) if g.player == player]

    def current_strategy(self) -> Arrays:
        """The strategies of this iteration, per hand (n, A, n_B, T) (`RangeTree.expand`)."""
        return self.tree.expand(self._strategy)

    def average_strategy(self) -> Arrays:
        """The average strategies per hand (`RangeTree.expand`).

        Uniform before the first iteration, and at the hands a board excludes (no
        information set there).
        """
        return self.tree.expand(normalise(self._average))

    def average_policy(self) -> RangePolicy:
        """The average strategies as an OpenSpiel policy (a new object on every call)."""
        return RangePolicy(self.tree, self.average_strategy())

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """Values and best-response values of the average profile (`RangeWalker.evaluate`).

        Makes the solver a `solver.SelfEvaluatingSolver`, which the run loop measures.
        """
        return self.walker.evaluate(normalise(self._average))

    def exploitability(self) -> float:
        """OpenSpiel's exploitability of the average profile, (br_0 + br_1) / 2 (zero-sum)."""
        return self.evaluate_average().exploitability


def for_game(
    game: pyspiel.Game | str,
    config: CFRConfig = CFR_PLUS,
    *,
    suits: bool = True,
    dtype: DTypeLike = np.float64,
    threads: int = 1,
) -> RangeCFRSolver:
    """`RangeCFRSolver` of a poker game: its structure detected, its public tree laid out.

    Args:
      game: a poker game or its load_game string (`structure.detect`).
      config: the CFR variant (`cfr_rules.PRESETS`).
      suits: one board per suit orbit (`deals`): the way to games too large for a tabular
        numbering, e.g. Rhode Island Hold'em whole (9.8 M entries instead of 52 M
        information sets).
      dtype: the iteration's floating-point type (`RangeCFRSolver`).
      threads: threads each pass runs on (`RangeCFRSolver`).

    Raises:
      ValueError: the game lacks the poker structure, its showdown sees suits (with `suits`),
        or the config, dtype or threads are invalid; the message names the game.
    """
    return RangeCFRSolver(
        range_tree.RangeTree(structure.detect(game), suits=suits),
        config,
        dtype=dtype,
        threads=threads,
    )


def evaluate_tabular(
    pol: policy_lib.TabularPolicy, *, suits: bool = False
) -> evaluate.ProfileEvaluation:
    """Exact values and best responses of a TabularPolicy of a poker game, on its range layout.

    Both players play `pol` (`arrays_from_tabular`); the best responses are exact, as
    OpenSpiel's `exploitability` (to rounding), without walking the game tree. `suits`: one
    board per suit orbit, for a suit-symmetric policy only (refused otherwise).

    Raises:
      ValueError: the game lacks the poker structure (`structure.detect`), or with `suits` the
        policy is not suit-symmetric.
    """
    tree = range_tree.RangeTree(structure.detect(pol.game), suits=suits)
    return RangeWalker(tree).evaluate(tree.contract(arrays_from_tabular(tree, pol)))
