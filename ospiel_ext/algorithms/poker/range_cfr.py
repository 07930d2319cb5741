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

The passes are `range_walker`'s: the rounds above the last whole, the last one chunk by chunk
of boards, each chunk taken through its reaches, values, average, regrets and update rule on
one of the walker's threads (`range_walker`, the last round in chunks), so that the iterates
do not depend on the number of threads or the chunk size.

These are the sequence-form solver's iterates (`cfr_variants.CFRVariantSolver`) in another
layout: the infoset (decision, board, hand) is one array entry (with suit isomorphism, the
infosets of one hand orbit share it), its sequences the A actions. The sums run in another
order, so the two agree up to rounding, which regret ties no longer turn into different
actions (`cfr_rules`, ties) but which the iteration amplifies: to 1e-9 for tens to hundreds
of iterations (`cfr_rules`), not for ever.
Nothing of size sequences x sequences and no tree of histories is built, so Rhode Island
Hold'em runs whole (with `suits=True`, one board per suit orbit). The best response is the
same walk with a maximum at the responder's decisions, an exact exploitability.

Public chance sampling (Johanson et al. 2012, Section 3: sample the public chance outcomes,
walk every private hand exactly): with `sample_boards` = f < 1 each pass walks k = round(f x
C) of the last round's C chunks of boards, drawn uniformly without replacement, so that every
board is walked with chance q = k / C; the walked chunks' values at the round's first rows go
up multiplied by 1 / q (an unbiased estimate of the full pass's, so the rounds above update
every pass) and the chunks not drawn keep their regrets and average, to which the discounts of
the iterations that skipped them are applied when they are next drawn
(`cfr_rules.skipped_discounts`: DCFR's iterates on the boards walked are then those of a run
whose skipped iterations had zero regrets there). Measured on no-limit flop hold'em it
converges more slowly per second than walking every board (`docs/results/holdem.md`).

With a `Subgame` the solver iterates the last round alone: the rounds above play the
subgame's fixed strategies, the subgame sets both players' reaches at the last round's first
rows (e.g. the opponent's from a safe subgame solving gadget at each root,
`depth_limited.ranges.beyond_limit`) and receives their counterfactual values there after
each pass.

An iteration can pause between chunks of the last round (`RangeCFRSolver.iterate`): the run
loop (`algorithms.solver.run`) pauses it a second after Ctrl-C or SIGTERM
(`interrupts.overdue`), so that a 52-card hold'em run (13-14 s per iteration) stops within
about two seconds, while a small game's iteration (0.15 s in Rhode Island Hold'em) ends as
before. The paused iteration's state is kept; the next call finishes it, and the iterates are
those of a run never paused.
"""

from __future__ import annotations

import dataclasses
import functools
import json
from collections.abc import Callable, Mapping
from typing import Protocol

import numpy as np
import pyspiel
from numpy.typing import DTypeLike

from ospiel_ext import evaluate
from ospiel_ext.algorithms.cfr_rules import (
    CFR_PLUS,
    CFRConfig,
    average_weights,
    check_discount,
    finish_regrets,
    payoff_scale,
    skipped_discounts,
    tie_tolerance,
)
from ospiel_ext.algorithms.poker import range_tree, structure
from ospiel_ext.algorithms.poker.range_parts import Closing
from ospiel_ext.algorithms.poker.range_policy import RangePolicy
from ospiel_ext.algorithms.poker.range_rows import (
    normalise,
    opponent_reach,
    regret_matching,
    sliced,
    take,
)
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.algorithms.poker.range_walker import RangeWalker
from ospiel_ext.arrays import FloatArray

DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
"""The floating-point types `RangeCFRSolver` iterates in."""

KEEP_LAST_REACHES = 64_000_000
"""The most (node, entry) values of both players' last-round reaches `RangeCFRSolver` keeps
whole between passes (256 MB in float32): Rhode Island Hold'em's 20.6 M are kept, 52-card flop
hold'em's streamed (486 M in limit, 728 M in no-limit `fcpa`)."""


@dataclasses.dataclass
class _Pass:
    """A pass of `RangeCFRSolver` under way: what its remaining chunks and its end need.

    `upper`: both players' reaches in the rounds above the last; `first`: their first rows of
    the last round; `roots`: the updating players' values there, chunk by chunk; `left`: the
    indices of the last round's chunks not walked yet (`RangeWalker.each_chunk`); `weight`:
    the factor of a walked chunk's values at the first rows (1 / the chance that a chunk is
    drawn, `sample_boards`; 1 when every chunk is walked).
    """

    players: tuple[int, ...]
    upper: list[list[FloatArray]]
    first: list[FloatArray | None]
    roots: dict[int, FloatArray]
    left: list[int] | None  # None: an exception left them unknown
    weight: float = 1.0


@dataclasses.dataclass
class _ChunkSampling:
    """Public chance sampling's draws (module docstring): `drawn` of the last round's chunks.

    `chunk_of`: a chunk's first entry -> its index in `RangeWalker.chunks`; `walked`: per
    player and chunk, the iteration that last walked the player's entries there (0: none).
    """

    rng: np.random.Generator
    drawn: int
    chunk_of: dict[int, int]
    walked: np.ndarray

    @classmethod
    def of(cls, walker: RangeWalker, fraction: float | None, seed: int) -> _ChunkSampling | None:
        """The draws of round(fraction x chunks) chunks a pass; None if every chunk is walked."""
        if fraction is None or fraction == 1.0:
            return None
        chunks = len(walker.chunks)
        return cls(
            rng=np.random.default_rng(seed),
            drawn=max(1, round(fraction * chunks)),
            chunk_of={c.start: i for i, c in enumerate(walker.chunks)},
            walked=np.zeros((2, chunks), dtype=np.int64),
        )

    @property
    def weight(self) -> float:
        """1 / the chance that a chunk is drawn."""
        return len(self.chunk_of) / self.drawn

    def draw(self) -> list[int]:
        """A pass's chunks, uniformly without replacement, in order."""
        return sorted(self.rng.choice(len(self.chunk_of), self.drawn, replace=False).tolist())

    def last_walked(self, player: int, b: slice, t: int) -> int:
        """The iteration that last walked player's entries of chunk b; records t as that."""
        i = self.chunk_of[b.start]
        last = int(self.walked[player, i])
        self.walked[player, i] = t
        return last


class Subgame(Protocol):
    """The last round solved as a subgame below fixed rounds (`RangeCFRSolver`'s `subgame`).

    The rounds above the last play `strategies` throughout; each pass starts the last round
    from the reaches at its first rows that `first_rows` returns (e.g. a safe subgame solving
    gadget's at the roots, `depth_limited.ranges.gadgets`), on the round's entries, and after
    each player's pass `update` gets that player's counterfactual values at the same rows.
    """

    strategies: Arrays
    """The rounds above the last: both players' strategies per entry (`RangeWalker.uniform`)."""

    def first_rows(self, player: int, reach: FloatArray) -> FloatArray:
        """The player's reaches at the last round's first rows, (rows, F) of its entries.

        `reach`: those that `strategies` give.
        """

    def update(self, player: int, values: FloatArray, iteration: int) -> None:
        """The player's counterfactual values (rows, F) at those rows after its pass."""


class RangeCFRSolver(Closing):
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
      sample_boards: the fraction f of the last round's chunks of boards a pass walks (module
        docstring, public chance sampling); None or 1: all of them. Chunks are drawn, so
        `chunk_values` then sets how finely: at most one chunk per board.
      seed: the seed of the chunks drawn.
      subgame: solve the last round alone below the rounds above it, which play the
        subgame's fixed strategies (`Subgame`); every round is solved if None.

    Raises:
      ValueError: DCFR's discount is invalid (`cfr_rules.check_discount`), or the dtype,
        threads or sample_boards are, or a subgame is given for a one-round game or with
        sample_boards; the message names the game.
    """

    def __init__(
        self,
        tree: RangeTree,
        config: CFRConfig = CFR_PLUS,
        *,
        dtype: DTypeLike = np.float64,
        threads: int = 1,
        chunk_values: int | None = None,
        sample_boards: float | None = None,
        seed: int = 0,
        subgame: Subgame | None = None,
    ):
        check_discount(config, tree.name)
        if np.dtype(dtype) not in DTYPES:
            raise ValueError(
                f"game {tree.name}: the range solver iterates in float64 or float32, got {dtype}"
            )
        if sample_boards is not None and not 0.0 < sample_boards <= 1.0:
            raise ValueError(
                f"game {tree.name}: sample_boards is a fraction in (0, 1], got {sample_boards}"
            )
        if subgame is not None and (len(tree.rounds) < 2 or sample_boards not in (None, 1.0)):
            raise ValueError(
                f"game {tree.name}: a subgame is the last of 2+ rounds, all boards walked"
            )
        self.tree, self.config, self.dtype = tree, config, np.dtype(dtype)
        self.walker = RangeWalker(tree, threads=threads, chunk_values=chunk_values)
        self._strategy = self.walker.uniform(self.dtype)
        self._subgame = subgame
        if subgame is not None:  # the rounds above the last play the subgame's strategies
            for r, per_round in enumerate(subgame.strategies):
                self._strategy[r] = [np.array(a, dtype=self.dtype) for a in per_round]
        self._regrets = self.walker.zeros(self.dtype)
        self._average = self.walker.zeros(np.float64)
        self._iteration = 0
        self._reach: list[list[FloatArray] | None] = [None, None]  # reused: the upper rounds'
        # the last round's reaches of both players, kept whole where they fit in
        # `KEEP_LAST_REACHES` values: a player's serve until its strategy changes (two reach
        # passes per iteration instead of four); streamed chunk by chunk otherwise
        last = tree.rounds[-1]
        self._sampling = _ChunkSampling.of(self.walker, sample_boards, seed)
        # (a sampled pass leaves the reaches of the chunks it skips as they were)
        keep = 2 * last.num_nodes * last.orbits.width <= KEEP_LAST_REACHES and not self._sampling
        self._last_reach = [np.empty(last.shape, self.dtype) for _ in (0, 1)] if keep else None
        self._reach_valid = [False, False]
        # per round and group, each decision's opponent-and-chance reach per entry (n, F)
        # summed over the iterations: the tie rule's R_t(I) (`cfr_rules.tie_tolerance`), kept
        # only with the rule on (`CFRConfig.tie_ulps`)
        self._reach_sum = [
            [np.zeros_like(a[:, 0]) for a in per_round]
            for per_round in (self._regrets if config.tie_ulps else [])
        ]
        self._scale = payoff_scale(tree.structure.game)
        self._todo: list[tuple[int, ...]] = []  # the passes of a paused iteration still to do
        self._pass: _Pass | None = None  # the paused pass

    def close(self) -> None:
        """Shuts the walker's thread pool down (`RangeWalker.close`)."""
        self.walker.close()

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.tree.name

    @property
    def iteration(self) -> int:
        """Iterations completed so far (one paused part way is not counted: `paused`)."""
        return self._iteration - self.paused

    @property
    def paused(self) -> bool:
        """An iteration stopped part way (`iterate`); the next call finishes it.

        Meanwhile the average holds that iteration on the boards already walked: a strategy
        profile like any other (its evaluation is exact), between the iterates.
        """
        return bool(self._todo)

    @property
    def drawn(self) -> float:
        """The fraction of the last round's chunks a pass walks (`sample_boards`; 1: all)."""
        return 1.0 if self._sampling is None else 1.0 / self._sampling.weight

    @property
    def entries(self) -> int:
        """Regret entries iterated (both players): one per decision, action and hand orbit."""
        return sum(a.size for per_round in self._regrets for a in per_round)

    @property
    def traversals(self) -> int:
        """Tree traversals so far: one per player per iteration."""
        return 2 * self.iteration

    def evaluate_and_update_policy(self) -> None:
        """One iteration (the rest of a paused one first: `iterate`)."""
        self.iterate()

    def iterate(self, stop: Callable[[], bool] | None = None) -> bool:
        """One iteration, or the rest of a paused one; False if it paused (again).

        Both players, in turn with alternating updates (player 1 then updates against player
        0's new strategy; without, both against the strategies the iteration began with), each
        in one pass (`_begin`, the last round chunk by chunk, `_finish`). `stop` is asked before
        each chunk of the last round: once it holds, the chunks not begun are left and the
        iteration pauses (`paused`), its state kept; the next call walks them and goes on. The
        chunks are independent, so the iterates are those of a run never paused.
        """
        if not self._todo:
            self._iteration += 1
            self._todo = [(0,), (1,)] if self.config.alternating_updates else [(0, 1)]
        while self._todo:
            if self._pass is None:
                self._pass = self._begin(self._todo[0])
            pass_ = self._pass
            if pass_.left is None:
                raise RuntimeError(
                    f"game {self.name}: an exception (e.g. a second Ctrl-C) stopped an iteration "
                    "part way, whose chunks done are not known: start a new solver"
                )
            todo, pass_.left = pass_.left, None  # unknown until each_chunk returns
            pass_.left = self.walker.each_chunk(
                functools.partial(self._update_chunk, pass_=pass_), only=todo, stop=stop
            )
            if pass_.left:
                return False
            self._finish(pass_)
            self._pass = None
            self._todo.pop(0)
        return True

    def _begin(self, players: tuple[int, ...]) -> _Pass:
        """A pass of the players: the reaches of both players in the rounds above the last.

        The rounds above the last hold both players' reaches whole; the last round is walked
        chunk by chunk (`RangeWalker.each_chunk`, `_update_chunk`): its reaches, then each
        player's values and regrets, then the update rule, so that its reaches and values are
        never held whole. The rounds above follow, bottom up, from the players' values at the
        last round's first rows (`_finish`).
        """
        w, last = self.walker, len(self.tree.rounds) - 1
        upper = [w.reaches(q, self._strategy, self._reach[q], rounds=last) for q in (0, 1)]
        self._reach[:] = upper
        pass_ = _Pass(
            players=players,
            upper=upper,
            first=self._first_rows(upper),
            roots={p: w.roots(self.dtype) for p in players},
            left=list(range(len(w.chunks))),
        )
        if self._sampling is not None:  # the chunks not drawn add nothing at the first rows
            pass_.left, pass_.weight = self._sampling.draw(), self._sampling.weight
            for roots in pass_.roots.values():
                roots.fill(0.0)
        return pass_

    def _first_rows(self, upper: list[list[FloatArray]]) -> list[FloatArray | None]:
        """Both players' reaches at the last round's first rows (`RangeWalker.first_rows`).

        With a subgame, on the last round's entries (`Subgame.first_rows`).
        """
        first = [self.walker.first_rows(u) for u in upper]
        sub = self._subgame
        if sub is None:
            return first
        lay = self.tree.rounds[-1]
        out: list[FloatArray | None] = []
        for q, f in enumerate(first):
            reach = take(lay, f, slice(0, lay.orbits.width))
            assert reach is not None  # a subgame has rounds above the last
            out.append(sub.first_rows(q, reach))
        return out

    def _finish(self, pass_: _Pass) -> None:
        """The rounds above the last, once every chunk is walked: average, regrets, update.

        With a subgame the rounds above stay fixed: the players' values at the last round's
        first rows go to `Subgame.update` instead.
        """
        w, last, players, upper = self.walker, len(self.tree.rounds) - 1, pass_.players, pass_.upper
        self._reach_valid = [q not in players for q in (0, 1)]  # an updated player's changed
        if self._subgame is not None:
            for p in players:
                self._subgame.update(p, pass_.roots[p].astype(np.float64), self._iteration)
            return
        for p in players:
            for r in range(last):
                w.each_block(r, functools.partial(self._accumulate_block, p, r, upper[p][r]))
            w.upper_values(
                p, upper[1 - p], strategy=self._strategy, roots=pass_.roots[p],
                regrets=self._regrets,
            )  # fmt: skip
        for p in players:
            for r in range(last):
                w.each_block(r, functools.partial(self._match_block, p, r, upper[1 - p][r]))

    def _accumulate_block(self, p: int, r: int, own: FloatArray, _: int, b: slice) -> None:
        """`_accumulate` on block b of round r, `own` the round's whole reaches."""
        self._accumulate(p, r, b, own[:, b])

    def _match_block(self, p: int, r: int, opponent: FloatArray, _: int, b: slice) -> None:
        """`_match` on block b of round r, `opponent` the round's whole reaches."""
        self._match(p, r, b, opponent[:, b])

    def _update_chunk(self, b: slice, *, pass_: _Pass) -> None:
        """The pass on chunk b of the last round.

        Reaches, average, values and regrets (the players' values at the round's first rows
        into the pass's `roots`), then the update rule.
        """
        players, first, roots = pass_.players, pass_.first, pass_.roots
        last = len(self.tree.rounds) - 1
        if self._sampling is not None:
            for p in players:
                self._catch_up(p, b)
        local = sliced(self._strategy[last], b)
        rho = [self._chunk_reach(q, first[q], local, b) for q in (0, 1)]
        for p in players:
            self._accumulate(p, last, b, rho[p])
        regrets = sliced(self._regrets[last], b)
        for p in players:
            v = self.walker.chunk_values(
                p, rho[1 - p], strategy=local, b=b, slot=2, regrets=regrets
            )
            roots[p][:, b] = v[: len(roots[p])]
            if pass_.weight != 1.0:
                roots[p][:, b] *= pass_.weight
        for p in players:
            self._match(p, last, b, rho[1 - p])

    def _catch_up(self, p: int, b: slice) -> None:
        """The discounts of the iterations that skipped p's entries of chunk b (sampling)."""
        assert self._sampling is not None
        last = self._sampling.last_walked(p, b, self._iteration)
        positive, negative, decay = skipped_discounts(self.config, last, self._iteration)
        r = len(self.tree.rounds) - 1
        for k in self._groups_of(p, r):
            regrets = self._regrets[r][k][:, :, b]
            if (positive, negative) != (1.0, 1.0):
                kind = regrets.dtype.type
                regrets *= np.where(regrets > 0, kind(positive), kind(negative))
            if decay != 1.0:
                self._average[r][k][:, :, b] *= decay

    def _chunk_reach(
        self, q: int, first: FloatArray | None, local: list[FloatArray], b: slice
    ) -> FloatArray:
        """Player q's last-round reaches on chunk b, kept while valid (`KEEP_LAST_REACHES`)."""
        w, kept = self.walker, self._last_reach
        expanded = self._subgame is not None  # first rows on the last round's entries
        if kept is None:
            return w.chunk_reach(q, first=first, strategy=local, b=b, slot=q, expanded=expanded)
        if not self._reach_valid[q]:
            w.chunk_reach(
                q, first=first, strategy=local, b=b, slot=q, out=kept[q][:, b], expanded=expanded
            )
        return kept[q][:, b]

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

    def state(self) -> dict[str, np.ndarray]:
        """The solver's state between iterations, as named arrays (`restore` takes it back).

        Current strategies, regrets and average (per round and group: `strategy_r_k`,
        `regrets_r_k`, `average_r_k`), the tie rule's reach sums, the iteration, the game and
        the variant it belongs to and, with sample_boards, the draws' generator state and the
        iteration that last walked each chunk: a solver of the same tree and settings restored
        from it iterates on exactly as this one (tested bit for bit). For runs of hours that a
        Ctrl-C or the end of a session stops: keep it with `np.savez`. The arrays are the
        solver's own, not copies: write them before the next iteration changes them.

        Raises:
          ValueError: an iteration is paused part way (`paused`: finish it first), or the
            solver solves a subgame (its fixed strategies are the caller's).
        """
        if self.paused or self._subgame is not None:
            raise ValueError(
                f"game {self.name}: a state is taken between iterations of a whole-game solve"
            )
        arrays: dict[str, np.ndarray] = {
            "game": np.array(self.name),
            "config": np.array(repr(self.config)),
            "iteration": np.array(self._iteration),
        }
        for kind, values in self._state_lists().items():
            for r, per_round in enumerate(values):
                arrays.update({f"{kind}_{r}_{k}": a for k, a in enumerate(per_round)})
        if self._sampling is not None:
            arrays["rng"] = np.array(json.dumps(self._sampling.rng.bit_generator.state))
            arrays["walked"] = self._sampling.walked
        return arrays

    def restore(self, state: Mapping[str, np.ndarray]) -> None:
        """Continues from a `state` of a solver of the same tree, variant, dtype and sampling.

        Raises:
          ValueError: the state is of another game, variant, layout, dtype or sampling, or
            this solver is paused or solves a subgame.
        """
        if self.paused or self._subgame is not None:
            raise ValueError(
                f"game {self.name}: a state is restored between iterations of a whole-game solve"
            )
        for key, want in (("game", self.name), ("config", repr(self.config))):
            if str(state.get(key)) != want:
                raise ValueError(f"game {self.name}: the state is of {key} {state.get(key)}")
        if (self._sampling is None) != ("walked" not in state):
            raise ValueError(f"game {self.name}: the state was taken with other sample_boards")
        pairs = [
            (a, state.get(f"{kind}_{r}_{k}"), f"{kind} of round {r} group {k}")
            for kind, values in self._state_lists().items()
            for r, per_round in enumerate(values)
            for k, a in enumerate(per_round)
        ]
        for a, got, what in pairs:  # all checked before any is written
            if got is None or got.shape != a.shape or got.dtype != a.dtype:
                raise ValueError(
                    f"game {self.name}: the state's {what} is not this solver's (another "
                    "layout or dtype)"
                )
        for a, got, _ in pairs:
            a[...] = got
        self._iteration = int(state["iteration"])
        if self._sampling is not None:
            self._sampling.rng.bit_generator.state = json.loads(str(state["rng"]))
            self._sampling.walked[...] = state["walked"]
        self._reach_valid = [False, False]  # the kept last-round reaches are of another state

    def _state_lists(self) -> dict[str, list[list[FloatArray]]]:
        """The per-round, per-group arrays of `state`, by name."""
        lists = {"strategy": self._strategy, "regrets": self._regrets, "average": self._average}
        if self._reach_sum:
            lists["reach_sum"] = self._reach_sum
        return lists

    def _groups_of(self, player: int, r: int) -> list[int]:
        return [k for k, g in enumerate(self.tree.rounds[r].groups) if g.player == player]

    def current_strategy(self) -> Arrays:
        """The strategies of this iteration, per hand (n, A, n_B, T) (`RangeTree.expand`)."""
        return self.tree.expand(self._strategy)

    def average_strategy(self) -> Arrays:
        """The average strategies per hand (`RangeTree.expand`).

        Uniform before the first iteration, and at the hands a board excludes (no
        information set there); with a subgame, its fixed strategies above the last round.
        """
        return self.tree.expand(self._average_arrays())

    def _average_arrays(self) -> Arrays:
        """The average strategies per entry (`average_strategy` before `RangeTree.expand`)."""
        average = normalise(self._average)
        if self._subgame is not None:
            average[: len(self.tree.rounds) - 1] = self._subgame.strategies
        return average

    def average_policy(self) -> RangePolicy:
        """The average strategies as an OpenSpiel policy (a new object on every call)."""
        return RangePolicy(self.tree, self.average_strategy())

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """Values and best-response values of the average profile (`RangeWalker.evaluate`).

        Makes the solver a `solver.SelfEvaluatingSolver`, which the run loop measures. With a
        subgame, the average profile is evaluated in the whole game (its fixed strategies
        above the last round).
        """
        if self._subgame is not None:
            return self.walker.evaluate(self._average_arrays())
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
    sample_boards: float | None = None,
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
      sample_boards: public chance sampling's fraction of boards a pass walks, one board per
        chunk (`RangeCFRSolver`); None: every board, in the default chunks.

    Raises:
      ValueError: the game lacks the poker structure, its showdown sees suits (with `suits`),
        or the config, dtype or threads are invalid; the message names the game.
    """
    return RangeCFRSolver(
        range_tree.RangeTree(structure.detect(game), suits=suits),
        config,
        dtype=dtype,
        threads=threads,
        chunk_values=None if sample_boards is None else 1,
        sample_boards=sample_boards,
    )
