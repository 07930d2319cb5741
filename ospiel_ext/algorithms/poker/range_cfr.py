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
thread (numpy releases the GIL inside its loops and BLAS calls).

The last round, the largest (52-card flop hold'em: hundreds of millions of (node, entry)
values), is never held whole in reaches or values: a pass cuts it into chunks of whole boards
(`CHUNK_VALUES` values each), and a thread takes a chunk through its reaches (from the round
above's ends), its values bottom up and, in the solver, the average, regrets and update rule
of that chunk, in buffers it reuses; only the values at the round's first rows go up to the
round above, which is walked whole. Each entry is computed by the same operations in the same
order in any block or chunk, so the iterates do not depend on the number of threads or the
chunk size, exactly with one-card kernels, to rounding with card sets (their products over
hand families round by their row count, `set_terminals`).

These are the sequence-form solver's iterates (`cfr_variants.CFRVariantSolver`) in another
layout: the infoset (decision, board, hand) is one array entry (with suit isomorphism, the
infosets of one hand orbit share it), its sequences the A actions. The sums run in another
order, so the two agree up to rounding, which regret ties no longer turn into different
actions (`cfr_rules`, ties) but which the iteration amplifies: to 1e-9 for tens to hundreds
of iterations (`cfr_rules`), not for ever.
Nothing of size sequences x sequences and no tree of histories is built, so Rhode Island
Hold'em runs whole (with `suits=True`, one board per suit orbit). The best response is the
same walk with a maximum at the responder's decisions, an exact exploitability.

A pass is not cut short by Ctrl-C: the run loop (`algorithms.solver.run`) stops after the
current iteration (0.15 s in 52-card Rhode Island Hold'em, 13 s in 52-card limit flop hold'em)
and keeps the result so far; an exception from inside a pass would lose it.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import threading
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
from ospiel_ext.runtime import blas

DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
"""The floating-point types `RangeCFRSolver` iterates in."""

CHUNK_VALUES = 4_000_000
"""About how many (node, entry) values of the last round a pass holds per thread and array at
once (`RangeWalker`): 32 MB in float64, where the whole round of 52-card flop hold'em is
hundreds of millions."""


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
      chunk_values: about how many (node, entry) values of the last round a thread holds at
        once (None: `CHUNK_VALUES`; module docstring, the last round in chunks).

    With more than one thread the walker owns a thread pool: `close()` it, or use the walker
    as a context manager (`with RangeWalker(tree, threads=2) as walker:`); a walker
    garbage-collected unclosed shuts its pool down then.
    """

    def __init__(self, tree: RangeTree, *, threads: int = 1, chunk_values: int | None = None):
        if threads < 1:
            raise ValueError(f"game {tree.name}: threads must be at least 1, got {threads}")
        self.tree, self.threads = tree, threads
        self.blocks = [lay.orbits.blocks(threads) for lay in tree.rounds]
        last = tree.rounds[-1]
        values = CHUNK_VALUES if chunk_values is None else chunk_values
        parts = -(-last.num_nodes * last.orbits.width // max(1, values))
        self.chunks = last.orbits.blocks(max(threads, parts))
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
        self._local = threading.local()  # per thread: its chunk buffers (`chunk_buffer`)

    def close(self) -> None:
        """Shuts the thread pool down (a pass afterwards runs on this thread only)."""
        if self._close is not None:
            self._close()
        self._pool = None

    def each_block(self, r: int, work: Callable[[int, slice], None]) -> None:
        """work(i, boards) for every block i of round r's boards, on the walker's threads."""
        self._each(self.blocks[r], work)

    def each_chunk(self, work: Callable[[slice], None]) -> None:
        """work(entries) for every chunk of the last round's boards, on the walker's threads."""
        self._each(self.chunks, lambda _, b: work(b))

    def _each(self, parts: list[slice], work: Callable[[int, slice], None]) -> None:
        """work(i, part) for every part, on the pool's threads.

        OpenBLAS meanwhile on one thread (`runtime.blas`: its own would spin beside the pool's).
        """
        if self._pool is None or len(parts) == 1:
            for i, b in enumerate(parts):
                work(i, b)
            return
        with blas.single_threaded():
            for future in [self._pool.submit(work, i, b) for i, b in enumerate(parts)]:
                future.result()

    def chunk_buffer(self, slot: int, b: slice, dtype: np.dtype) -> FloatArray:
        """A (nodes, entries) array of the last round for chunk b: this thread's `slot`.

        The memory is kept and reused from chunk to chunk (fresh memory costs page faults).
        """
        lay = self.tree.rounds[-1]
        width = b.stop - b.start
        key = (slot, dtype)
        buffers = self._local.__dict__.setdefault("buffers", {})
        if key not in buffers:
            most = max(c.stop - c.start for c in self.chunks)
            buffers[key] = np.empty(lay.num_nodes * most, dtype=dtype)
        return buffers[key][: lay.num_nodes * width].reshape(lay.num_nodes, width)

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
        self,
        player: int,
        strategy: Arrays,
        out: list[FloatArray] | None = None,
        *,
        rounds: int | None = None,
    ) -> list[FloatArray]:
        """`player`'s reach vectors at every node of the first `rounds` rounds (nodes, F).

        Top down, in the strategies' floating-point type; `rounds` None: every round (the
        passes of `evaluate` and the solver hold the last round chunk by chunk instead:
        `chunk_reach`).

        Args:
          player: whose reaches.
          strategy: both players' strategies, per entry (`uniform`).
          out: arrays to write them into (an earlier result, reused: a pass that writes
            fresh memory spends much of its time on the kernel's page faults).
          rounds: how many rounds, from the first.
        """
        layouts = self.tree.rounds[: len(self.tree.rounds) if rounds is None else rounds]
        if out is None:
            dtype = next((s.dtype for per_round in strategy for s in per_round), np.float64)
            out = [np.empty(lay.shape, dtype=dtype) for lay in layouts]
        for r, (lay, reach) in enumerate(zip(layouts, out)):
            first = self.first_rows(out[:r])
            self.each_block(
                r,
                lambda _, b, lay=lay, r=r, reach=reach, first=first: reach_rows(
                    lay, player, strategy=_sliced(strategy[r], b), reach=reach[:, b],
                    first=_take(lay, first, b),
                ),
            )  # fmt: skip
        return out

    def first_rows(self, upper: list[FloatArray]) -> FloatArray | None:
        """The first rows of the round below the rounds of `upper` (their reaches).

        The rows of the upper rounds' last ends, in order; None for the first round.
        """
        if not upper:
            return None
        return upper[-1][self.tree.rounds[len(upper) - 1].ends]

    def chunk_reach(
        self,
        player: int,
        *,
        first: FloatArray | None,
        strategy: list[FloatArray],
        b: slice,
        slot: int,
    ) -> FloatArray:
        """`player`'s reaches at the last round's nodes on chunk b (`chunk_buffer` `slot`).

        `first`: the round's first rows (`first_rows` of the reaches above; None in a
        one-round game); `strategy`: the round's strategies on the chunk (n, A, |b|).
        """
        lay = self.tree.rounds[-1]
        reach = self.chunk_buffer(slot, b, strategy[0].dtype if strategy else np.float64)
        reach_rows(lay, player, strategy=strategy, reach=reach, first=_take(lay, first, b))
        return reach

    def chunk_values(
        self,
        player: int,
        rho: FloatArray,
        *,
        strategy: list[FloatArray] | None,
        b: slice,
        slot: int,
        regrets: list[FloatArray] | None = None,
    ) -> FloatArray:
        """`player`'s values at the last round's nodes on chunk b (`chunk_buffer` `slot`).

        Against the opponent's reaches rho there (`chunk_reach`); `strategy` None for a best
        response; `regrets` (on the chunk) receive the instantaneous regrets (`value_rows`).
        """
        v = self.chunk_buffer(slot, b, rho.dtype)
        value_rows(
            self.tree.rounds[-1], player, v=v, rho=rho, b=b, ends=None, strategy=strategy,
            regrets=regrets,
        )  # fmt: skip
        return v

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
          opponent_reach: the opponent's reaches at every round (`reaches`).
          strategy: the strategies the player's decisions mix by; None for the maximum.
          regrets: if given, receives the player's instantaneous regrets (added in place).
        """
        roots = self.roots(opponent_reach[-1].dtype)

        def work(b: slice) -> None:
            v = self.chunk_values(
                player, opponent_reach[-1][:, b], b=b, slot=2,
                strategy=None if strategy is None else _sliced(strategy[-1], b),
                regrets=None if regrets is None else _sliced(regrets[-1], b),
            )  # fmt: skip
            roots[:, b] = v[: len(roots)]

        self.each_chunk(work)
        return self.upper_values(
            player, opponent_reach, strategy=strategy, roots=roots, regrets=regrets
        )

    def roots(self, dtype: DTypeLike) -> FloatArray:
        """An empty array for values at the last round's first rows, on all its entries.

        (rows, F): the rows the round ends above it lead to; the root in a one-round game.
        """
        rows = len(self.tree.rounds[-2].ends) if len(self.tree.rounds) > 1 else 1
        return np.empty((rows, self.tree.rounds[-1].orbits.width), dtype=dtype)

    def upper_values(
        self,
        player: int,
        opponent_reach: list[FloatArray],
        *,
        strategy: Arrays | None,
        roots: FloatArray,
        regrets: Arrays | None = None,
    ) -> float:
        """`player`'s value at the root: the rounds above the last, bottom up.

        Args:
          player: whose values.
          opponent_reach: the opponent's reaches in the rounds above the last (`reaches`).
          strategy: the strategies the player's decisions mix by; None for the maximum.
          roots: the player's values at the last round's first rows, on all its entries
            (from `chunk_values`).
          regrets: if given, receives the player's instantaneous regrets (added in place).
        """
        below, dtype = roots, roots.dtype
        if dtype not in self._values:  # reused (`reaches`: page faults)
            self._values[dtype] = [np.empty(lay.shape, dtype) for lay in self.tree.rounds[:-1]]
        for r in range(len(self.tree.rounds) - 2, -1, -1):
            v = self._values[dtype][r]
            self.each_block(
                r,
                functools.partial(
                    self._upper_block, player=player, r=r, v=v, rho=opponent_reach[r],
                    below=below, strategy=strategy, regrets=regrets,
                ),
            )  # fmt: skip
            below = v
        return float(below[0] @ self.tree.rounds[0].orbits.size)

    def _upper_block(
        self,
        i: int,
        b: slice,
        *,
        player: int,
        r: int,
        v: FloatArray,
        rho: FloatArray,
        below: FloatArray,
        strategy: Arrays | None,
        regrets: Arrays | None,
    ) -> None:
        """`upper_values` of round r on entries b (block i)."""
        lay = self.tree.rounds[r]
        value_rows(
            lay, player, v=v[:, b], rho=rho[:, b], b=b,
            ends=self._deals[r][i].astype(v.dtype, copy=False) @ below[: len(lay.ends)].T,
            strategy=None if strategy is None else _sliced(strategy[r], b),
            regrets=None if regrets is None else _sliced(regrets[r], b),
        )  # fmt: skip

    def profile_values(
        self,
        strategy: Arrays,
        wanted: tuple[tuple[int, bool], ...],
        *,
        weights: bool = False,
        last: Callable[[slice], list[FloatArray]] | None = None,
    ) -> list[float]:
        """Root values of (player, mixed) pairs, against the opponent's strategy.

        The player's decisions mix by the strategy (mixed) or take the maximum (a best
        response). One pass: the rounds above the last in full, the last one chunk by chunk.
        `weights`: `strategy` holds accumulated realization weights, normalised chunk by
        chunk (`normalise`), never copied whole. `last`: the strategy holds the rounds above
        the last only, and last(b) gives the last round's on chunk b (n, A, |b|) per group,
        asked once per chunk (e.g. a batched policy asked node by node: `poker.agents`).
        """
        upper_rounds = strategy if last is not None else strategy[:-1]
        top = normalise(upper_rounds) if weights else upper_rounds
        opponents = sorted({1 - p for p, _ in wanted})
        upper = {q: self.reaches(q, top, rounds=len(top)) for q in opponents}
        first = {q: self.first_rows(upper[q]) for q in opponents}
        dtype = next((s.dtype for per_round in strategy for s in per_round), np.float64)
        roots = [self.roots(dtype) for _ in wanted]

        def work(b: slice) -> None:
            local = _sliced(strategy[-1], b) if last is None else last(b)
            if weights:
                local = [regret_matching(s) for s in local]
            rho = {
                q: self.chunk_reach(q, first=first[q], strategy=local, b=b, slot=q)
                for q in opponents
            }
            for j, (p, mixed) in enumerate(wanted):
                v = self.chunk_values(p, rho[1 - p], strategy=local if mixed else None, b=b, slot=2)
                roots[j][:, b] = v[: len(roots[j])]

        self.each_chunk(work)
        return [
            self.upper_values(p, upper[1 - p], strategy=top if mixed else None, roots=roots[j])
            for j, (p, mixed) in enumerate(wanted)
        ]

    def value(self, strategy: Arrays) -> float:
        """Player 0's expected utility of the profile (exact as `evaluate`)."""
        return self.profile_values(strategy, ((0, True),))[0]

    def evaluate(
        self,
        strategy: Arrays,
        *,
        weights: bool = False,
        last: Callable[[slice], list[FloatArray]] | None = None,
    ) -> evaluate.ProfileEvaluation:
        """The profile's values and best-response values, as `evaluate.evaluate_profile`'s.

        Exact in the game the tree lays out (with suit isomorphism, for suit-symmetric
        profiles: `deals`). `weights`, `last`: the strategy is accumulated realization
        weights; the last round's comes chunk by chunk from last(b) (`profile_values`).
        """
        c = float(self.tree.structure.game.utility_sum())
        value, br0, br1 = self.profile_values(
            strategy, ((0, True), (0, False), (1, False)), weights=weights, last=last
        )
        return evaluate.ProfileEvaluation((value, c - value), (br0, c + br1))


def reach_rows(
    lay: range_tree.RoundLayout,
    player: int,
    *,
    strategy: list[FloatArray],
    reach: FloatArray,
    first: FloatArray | None,
) -> None:
    """`player`'s reaches at a round's nodes on a block of its entries, top down.

    Args:
      lay: the round.
      player: whose reaches.
      strategy: the round's strategies on the block, per group (n, A, w).
      reach: (nodes, w) written in place.
      first: (rows, w) the reaches of the round's first rows (`RangeWalker.first_rows` taken
        at the block's entries); None in the first round (the root's reach is 1).
    """
    if first is None:
        reach[0] = 1.0
    else:
        reach[: len(first)] = first
    for g, s in zip(lay.groups, strategy):
        here = reach[g.rows]
        for a in range(g.num_actions):
            rows = reach[g.child_rows(a)]
            if g.player == player:
                np.multiply(here, s[:, a], out=rows)
            else:
                rows[...] = here


def value_rows(
    lay: range_tree.RoundLayout,
    player: int,
    *,
    v: FloatArray,
    rho: FloatArray,
    b: slice,
    ends: FloatArray | None,
    strategy: list[FloatArray] | None,
    regrets: list[FloatArray] | None,
) -> None:
    """`player`'s values at a round's nodes on entries b, bottom up.

    Terminals, then the round's ends, then the decisions, deepest first.

    Args:
      lay: the round.
      player: whose values.
      v: (nodes, w) written in place.
      rho: (nodes, w) the opponent's reaches.
      b: the block's entries in the round (whole boards).
      ends: (ends, w) the values at the round's ends: the next round's dealt boards summed
        (`orbits.deal_matrix`: v_B(h) = sum_c v_canon(B + c)(pi_c(h))); None in the last round.
      strategy: the round's strategies on the block, per group; None for the maximum.
      regrets: if given, the player's regrets on the block, per group, receive the
        instantaneous regrets (added in place).
    """
    sign = 1.0 if player == 0 else -1.0
    for rows, at in lay.fold_runs:
        range_tree.fold_values(lay, rho[rows], sign * lay.fold_payoff[at], b, out=v[rows])
    if len(lay.showdowns):
        v[lay.showdowns] = range_tree.showdown_values(lay, rho[lay.showdowns], b)
    if ends is not None:
        v[lay.ends] = ends.T
    for k in range(len(lay.groups) - 1, -1, -1):
        g = lay.groups[k]
        children = [v[g.child_rows(a)] for a in range(g.num_actions)]
        if g.player != player:
            v[g.rows] = functools.reduce(np.add, children)
        elif strategy is None:
            v[g.rows] = functools.reduce(np.maximum, children)
        else:
            s = strategy[k]
            # in place where the rows are a view (`DecisionGroup.rows`)
            mixed = v[g.rows] if isinstance(g.rows, slice) else np.empty_like(children[0])
            np.multiply(children[0], s[:, 0], out=mixed)
            for a in range(1, g.num_actions):
                mixed += children[a] * s[:, a]
            if not isinstance(g.rows, slice):
                v[g.rows] = mixed
            if regrets is not None:
                _add_regrets(regrets[k], children, mixed)


def _sliced(arrays: list[FloatArray], b: slice) -> list[FloatArray]:
    """A round's per-group arrays (n, A, F) on entries b: views."""
    return [a[:, :, b] for a in arrays]


def _take(lay: range_tree.RoundLayout, first: FloatArray | None, b: slice) -> FloatArray | None:
    """The first rows' values (rows, F of the round before) at entries b of the round."""
    if first is None:
        return None
    assert lay.parent_entry is not None
    return np.take(first, lay.parent_entry[b], axis=1)


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
      chunk_values: the memory a pass holds of the last round (`RangeWalker`); the iterates
        are the same for any value.

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
        chunk_values: int | None = None,
    ):
        check_discount(config, tree.name)
        if np.dtype(dtype) not in DTYPES:
            raise ValueError(
                f"game {tree.name}: the range solver iterates in float64 or float32, got {dtype}"
            )
        self.tree, self.config, self.dtype = tree, config, np.dtype(dtype)
        self.walker = RangeWalker(tree, threads=threads, chunk_values=chunk_values)
        self._strategy = self.walker.uniform(self.dtype)
        self._regrets = self.walker.zeros(self.dtype)
        self._average = self.walker.zeros(np.float64)
        self._iteration = 0
        self._reach: list[list[FloatArray] | None] = [None, None]  # reused: the upper rounds'

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
        """One iteration: both players, in turn with alternating updates (`_update`).

        With alternating updates player 1 updates against player 0's new strategy; without,
        both update against the strategies the iteration began with.
        """
        self._iteration += 1
        if self.config.alternating_updates:
            self._update((0,))
            self._update((1,))
        else:
            self._update((0, 1))

    def _update(self, players: tuple[int, ...]) -> None:
        """The players' average, regrets and strategies, from one pass.

        The rounds above the last hold both players' reaches whole; the last round is walked
        chunk by chunk (`RangeWalker.each_chunk`): its reaches, then each player's values and
        regrets, then the update rule, so that its reaches and values are never held whole.
        The rounds above follow, bottom up, from the players' values at the last round's
        first rows.
        """
        w, last = self.walker, len(self.tree.rounds) - 1
        upper = [w.reaches(q, self._strategy, self._reach[q], rounds=last) for q in (0, 1)]
        self._reach = upper
        first = [w.first_rows(u) for u in upper]
        roots = {p: w.roots(self.dtype) for p in players}

        def work(b: slice) -> None:
            local = _sliced(self._strategy[last], b)
            rho = [w.chunk_reach(q, first=first[q], strategy=local, b=b, slot=q) for q in (0, 1)]
            for p in players:
                self._accumulate(p, last, b, rho[p])
            regrets = _sliced(self._regrets[last], b)
            for p in players:
                v = w.chunk_values(p, rho[1 - p], strategy=local, b=b, slot=2, regrets=regrets)
                roots[p][:, b] = v[: len(roots[p])]
            for p in players:
                self._match(p, last, b, rho[1 - p])

        w.each_chunk(work)
        for p in players:
            for r in range(last):
                w.each_block(r, lambda _, b, r=r, p=p: self._accumulate(p, r, b, upper[p][r][:, b]))
            w.upper_values(
                p, upper[1 - p], strategy=self._strategy, roots=roots[p], regrets=self._regrets
            )
        for p in players:
            for r in range(last):
                w.each_block(r, lambda _, b, r=r, p=p: self._match(p, r, b, upper[1 - p][r][:, b]))

    def _accumulate(self, p: int, r: int, b: slice, own: FloatArray) -> None:
        """Adds iteration t's realization plans of p's decisions in round r, entries b.

        `own`: p's reaches at the round's nodes on those entries (nodes, |b|).
        """
        decay, weight = average_weights(self.config, self._iteration)
        for k in self._groups_of(p, r):
            g, average = self.tree.rounds[r].groups[k], self._average[r][k][:, :, b]
            if decay != 1.0:
                average *= decay
            reach = own[g.rows]
            if weight != 1.0:
                reach = reach * weight
            average += self._strategy[r][k][:, :, b] * reach[:, None]

    def _match(self, p: int, r: int, b: slice, opponent: FloatArray) -> None:
        """The update rule on p's regrets in round r, entries b, and the next strategies.

        `opponent`: the opponent's reaches at the round's nodes on those entries. The tie
        tolerance's reach sums grow by this iteration's opponent-and-chance reach of p's
        decisions: the fold rule against the opponent's reach, at payoff 1.
        """
        lay, ulps = self.tree.rounds[r], self.config.tie_ulps
        for k in self._groups_of(p, r):
            tol: FloatArray | float = 0.0  # the tie rule off (`CFRConfig.tie_ulps`)
            if ulps:
                reach_sum = self._reach_sum[r][k][:, b]
                reach_sum += opponent_reach(lay, opponent[lay.groups[k].rows], b)
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
        return self.walker.evaluate(self._average, weights=True)

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
