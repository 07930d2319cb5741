"""The passes over a `RangeTree`: reaches, values, exact best responses, chunk by chunk.

The public tree x hand ranges layout (Johanson, Bowling, Waugh & Zinkevich, "Accelerating
Best Response Calculation in Large Extensive Games", IJCAI 2011, Sections 3-4): every public
node carries a vector over (board, hand orbit) entries (`range_tree`), a player's reaches go
top down one numpy call per decision group and action, and values go bottom up from the
terminals against the opponent's reach (folds in O(F), showdowns by one kernel per board over
its orbits or, for hands of card sets, by sorted prefix sums: `set_terminals`); a round's end
sums its dealt boards (`deals`: with suit isomorphism, relabelled hands; one sparse product,
`orbits.deal_matrix`). A player's decisions mix their children by a strategy, or take the
maximum: the best response, an exact exploitability (`RangeWalker.evaluate`). The CFR solver
on the same passes is `range_cfr`.

Everything a pass does below a round's first rows is independent board by board (a deal
joins the boards only at the round's ends), so with `threads` > 1 each round's entries are
cut into that many consecutive blocks of whole boards, one per thread (`range_parts`).

The last round, the largest (52-card flop hold'em: hundreds of millions of (node, entry)
values), is never held whole in reaches or values: a pass cuts it into chunks of whole boards
(`range_parts.CHUNK_VALUES` values each), and a thread takes a chunk through its reaches (from
the round above's ends), its values bottom up and, in the solver, the average, regrets and
update rule of that chunk, in buffers it reuses; only the values at the round's first rows go
up to the round above, which is walked whole. Each entry is computed by the same operations in
the same order in any block or chunk, so the iterates do not depend on the number of threads or
the chunk size, exactly with one-card kernels, to rounding with card sets (their products over
hand families round by their row count, `set_terminals`).

Ctrl-C or SIGTERM stops a pass between chunks once `interrupts.overdue()` (a second after
the signal): an evaluation (`profile_values`) raises `interrupts.Interrupted`, having no result
so far; a solver's pass leaves its remaining chunks for later (`each_chunk`'s `stop`,
`range_cfr`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp
from numpy.typing import DTypeLike
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate
from ospiel_ext.algorithms.poker import range_tree, structure
from ospiel_ext.algorithms.poker.range_parts import BoardParts
from ospiel_ext.algorithms.poker.range_policy import RangePolicy, arrays_from_tabular
from ospiel_ext.algorithms.poker.range_rows import (
    normalise,
    reach_rows,
    regret_matching,
    sliced,
    take,
    value_rows,
)
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import interrupts


class RangeWalker(BoardParts):
    """The passes over a `RangeTree`: reaches, values, best responses.

    Args:
      tree: the laid-out public tree.
      threads: threads a pass runs on, each on its own block of every round's boards
        (module docstring); at most as many blocks as a round has boards.
      chunk_values: about how many (node, entry) values of the last round a thread holds at
        once (None: `range_parts.CHUNK_VALUES`; module docstring, the last round in chunks).

    With more than one thread the walker owns a thread pool: `close()` it, or use the walker
    as a context manager (`with RangeWalker(tree, threads=2) as walker:`); a walker
    garbage-collected unclosed shuts its pool down then.
    """

    def __init__(self, tree: RangeTree, *, threads: int = 1, chunk_values: int | None = None):
        super().__init__(tree, threads=threads, chunk_values=chunk_values)
        # per round before a deal and block: the deal's transpose restricted to the block
        self._deals: list[list[sp.csr_matrix]] = [
            [_checked(nxt.deal_matrix)[:, b].T.tocsr() for b in blocks]
            for blocks, nxt in zip(self.blocks, tree.rounds[1:])
        ]
        self._values: dict[np.dtype, list[FloatArray]] = {}

    def uniform(self, dtype: DTypeLike = np.float64) -> Arrays:
        """Uniform strategies of both players, per entry (n, A, F) (`RangeTree.uniform`)."""
        return self.tree.uniform(dtype)

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

            def work(
                _: int,
                b: slice,
                *,
                lay: range_tree.RoundLayout = lay,
                r: int = r,
                reach: FloatArray = reach,
                first: FloatArray | None = first,
            ) -> None:
                reach_rows(
                    lay, player, strategy=sliced(strategy[r], b), reach=reach[:, b],
                    first=take(lay, first, b),
                )  # fmt: skip

            self.each_block(r, work)
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
        out: FloatArray | None = None,
        expanded: bool = False,
    ) -> FloatArray:
        """`player`'s reaches at the last round's nodes on chunk b (`chunk_buffer` `slot`).

        `first`: the round's first rows (`first_rows` of the reaches above; None in a
        one-round game), or with `expanded` already on the last round's entries (rows, F');
        `strategy`: the round's strategies on the chunk (n, A, |b|); `out`: (nodes, |b|) to
        write them into instead of the buffer.
        """
        lay = self.tree.rounds[-1]
        dtype = strategy[0].dtype if strategy else np.float64
        reach = self.chunk_buffer(slot, b, dtype) if out is None else out
        top = first[:, b] if expanded and first is not None else take(lay, first, b)
        reach_rows(lay, player, strategy=strategy, reach=reach, first=top)
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
        best: list[FloatArray] | None = None,
    ) -> FloatArray:
        """`player`'s values at the last round's nodes on chunk b (`chunk_buffer` `slot`).

        Against the opponent's reaches rho there (`chunk_reach`); `strategy` None for a best
        response; `regrets` (on the chunk) receive the instantaneous regrets, `best` (on the
        chunk) the best response's actions (`value_rows`).
        """
        v = self.chunk_buffer(slot, b, rho.dtype)
        value_rows(
            self.tree.rounds[-1], player, v=v, rho=rho, b=b, ends=None, strategy=strategy,
            regrets=regrets, best=best,
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
                strategy=None if strategy is None else sliced(strategy[-1], b),
                regrets=None if regrets is None else sliced(regrets[-1], b),
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

    def first_row_values(
        self,
        player: int,
        first: FloatArray,
        last: list[FloatArray],
        *,
        expanded: bool = False,
        best: bool = False,
    ) -> FloatArray:
        """`player`'s counterfactual values at the last round's first rows (`roots`).

        The last round walked chunk by chunk from the opponent's reaches `first` at those rows
        (`chunk_reach`'s `first`, on the last round's entries with `expanded`), both players
        mixing by `last` (the round's strategies, per entry), or `player` best-responding with
        `best`. Nothing above the last round is walked (e.g. values of a depth limit at the
        round's start, or of subgames rooted there).
        """
        roots = self.roots(np.float64)

        def work(b: slice) -> None:
            local = sliced(last, b)
            rho = self.chunk_reach(
                1 - player, first=first, strategy=local, b=b, slot=1 - player, expanded=expanded
            )
            v = self.chunk_values(player, rho, strategy=None if best else local, b=b, slot=2)
            roots[:, b] = v[: len(roots)]

        self.each_chunk(work)
        return roots

    def upper_values(
        self,
        player: int,
        opponent_reach: list[FloatArray],
        *,
        strategy: Arrays | None,
        roots: FloatArray,
        regrets: Arrays | None = None,
        best: Arrays | None = None,
    ) -> float:
        """`player`'s value at the root: the rounds above the last, bottom up.

        Args:
          player: whose values.
          opponent_reach: the opponent's reaches in the rounds above the last (`reaches`).
          strategy: the strategies the player's decisions mix by; None for the maximum.
          roots: the player's values at the last round's first rows, on all its entries
            (from `chunk_values`).
          regrets: if given, receives the player's instantaneous regrets (added in place).
          best: with `strategy` None, if given, receives the best response's actions at the
            player's decisions (`range_rows.value_rows`).
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
                    below=below, strategy=strategy, regrets=regrets, best=best,
                ),
            )  # fmt: skip
            below = v
        return float(below[0] @ self.tree.rounds[0].orbits.size)

    def upper_rows(self, dtype: DTypeLike = np.float64) -> list[FloatArray]:
        """The values of the rounds above the last at every node (nodes, F), per round.

        From the last `upper_values` pass in that floating-point type (e.g. inside
        `best_response` or `evaluate`): the walker's buffers, which the next pass reuses.
        """
        return self._values[np.dtype(dtype)]

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
        best: Arrays | None,
    ) -> None:
        """`upper_values` of round r on entries b (block i)."""
        lay = self.tree.rounds[r]
        value_rows(
            lay, player, v=v[:, b], rho=rho[:, b], b=b,
            ends=self._deals[r][i].astype(v.dtype, copy=False) @ below[: len(lay.ends)].T,
            strategy=None if strategy is None else sliced(strategy[r], b),
            regrets=None if regrets is None else sliced(regrets[r], b),
            best=None if best is None else sliced(best[r], b),
        )  # fmt: skip

    def best_response(self, player: int, strategy: Arrays) -> tuple[float, Arrays]:
        """`player`'s best response to the opponent's strategy, and its value.

        The same pass as the best-response value of `evaluate` (the last round chunk by
        chunk), which records the maximising action of every decision of the player, per entry
        (at a tie the first: `range_rows.value_rows`). Returns (the value, the profile in which
        the player plays that pure strategy and the opponent `strategy`'s arrays): with suit
        isomorphism a suit-symmetric pure strategy, as OpenSpiel's best responses are pure.
        """
        best = self.zeros(np.float64)
        (value,) = self.profile_values(strategy, ((player, False),), best=best)
        return value, mix(self.tree, (best, strategy) if player == 0 else (strategy, best))

    def profile_values(
        self,
        strategy: Arrays,
        wanted: tuple[tuple[int, bool], ...],
        *,
        weights: bool = False,
        last: Callable[[slice], list[FloatArray]] | None = None,
        best: Arrays | None = None,
    ) -> list[float]:
        """Root values of (player, mixed) pairs, against the opponent's strategy.

        The player's decisions mix by the strategy (mixed) or take the maximum (a best
        response). One pass: the rounds above the last in full, the last one chunk by chunk.
        `weights`: `strategy` holds accumulated realization weights, normalised chunk by
        chunk (`normalise`), never copied whole. `last`: the strategy holds the rounds above
        the last only, and last(b) gives the last round's on chunk b (n, A, |b|) per group,
        asked once per chunk (e.g. a batched policy asked node by node: `poker.agents`).
        `best` (shaped as `zeros`): each best-responding player's decisions receive its
        maximising actions (`range_rows.value_rows`).
        """
        upper_rounds = strategy if last is not None else strategy[:-1]
        top = normalise(upper_rounds) if weights else upper_rounds
        opponents = sorted({1 - p for p, _ in wanted})
        upper = {q: self.reaches(q, top, rounds=len(top)) for q in opponents}
        first = {q: self.first_rows(upper[q]) for q in opponents}
        dtype = next((s.dtype for per_round in strategy for s in per_round), np.float64)
        roots = [self.roots(dtype) for _ in wanted]

        def work(b: slice) -> None:
            local = sliced(strategy[-1], b) if last is None else last(b)
            if weights:
                local = [regret_matching(s) for s in local]
            rho = {
                q: self.chunk_reach(q, first=first[q], strategy=local, b=b, slot=q)
                for q in opponents
            }
            for j, (p, mixed) in enumerate(wanted):
                v = self.chunk_values(
                    p, rho[1 - p], strategy=local if mixed else None, b=b, slot=2,
                    best=None if mixed or best is None else sliced(best[-1], b),
                )  # fmt: skip
                roots[j][:, b] = v[: len(roots[j])]

        if self.each_chunk(work, stop=interrupts.overdue):  # a 52-card pass: tens of seconds
            raise interrupts.Interrupted
        return [
            self.upper_values(
                p,
                upper[1 - p],
                strategy=top if mixed else None,
                roots=roots[j],
                best=None if mixed else best,
            )
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


def _checked(deal: sp.csc_matrix | None) -> sp.csc_matrix:
    assert deal is not None, "every round after the first has a deal"
    return deal


def mix(tree: RangeTree, strategies: tuple[Arrays, Arrays]) -> Arrays:
    """The profile in which each player p plays `strategies[p]` (its own groups' arrays)."""
    return [
        [strategies[g.player][r][k] for k, g in enumerate(lay.groups)]
        for r, lay in enumerate(tree.rounds)
    ]


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
    tree, arrays = _tabular_layout(pol, suits)
    return RangeWalker(tree).evaluate(arrays)


def best_response_to_tabular(
    pol: policy_lib.TabularPolicy, player: int, *, suits: bool = False
) -> tuple[float, RangePolicy]:
    """`player`'s best response to a TabularPolicy of a poker game, and its value.

    On the range layout (`RangeWalker.best_response`): returns the value and an OpenSpiel
    policy in which `player` plays the pure best response and the opponent `pol`, without
    walking the game tree. `suits`: as `evaluate_tabular`.

    Raises:
      ValueError: as `evaluate_tabular`.
    """
    tree, arrays = _tabular_layout(pol, suits)
    value, profile = RangeWalker(tree).best_response(player, arrays)
    return value, RangePolicy(tree, tree.expand(profile))


def _tabular_layout(pol: policy_lib.TabularPolicy, suits: bool) -> tuple[RangeTree, Arrays]:
    """The range layout of a TabularPolicy's poker game and the policy's per-entry arrays."""
    tree = range_tree.RangeTree(structure.detect(pol.game), suits=suits)
    return tree, tree.contract(arrays_from_tabular(tree, pol))
