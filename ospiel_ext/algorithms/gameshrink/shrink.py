"""GameShrink: the information filter of a game with ordered signals, and filters derived from one.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Algorithm 2.

`gameshrink(game, threshold)` describes the game (`descriptions`), builds its signal tree
(`signal_tree`), computes the lossless filter (or the paper's transformation as written) and,
for `threshold` > 0, the approximate joins (`filters`); the result is an `Abstraction`, which
`abstract_game` turns into the abstracted game Γ_f. `identity_filter`, `join_classes` and
`sibling_joins` derive filters from one: the original game, a single merge, and the merges one
filter makes beyond another.

A time limit, Ctrl-C or SIGTERM stops `gameshrink` in its filter phases, and it returns the
filter so far with its `stop_reason` ('fixed_point' when complete, else 'time_limit' or
'interrupted'). Which filter that is decides whether it is safe to use: the lossless filter is
a refinement from coarse to fine, so the filter so far is *coarser* than the fixed point and
not lossless (its `stop_reason` says so; its Γ_f is a well-formed game, a lossy abstraction);
the approximate joins go from the lossless filter towards coarser ones, so stopped there the
filter so far is finer than the complete approximate filter, every join made within
`threshold`. Building the signal tree is not stopped (there is no filter without it): a time
limit passing there stops the filter before it starts, and a Ctrl-C there raises
KeyboardInterrupt, as while compiling a game.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
import time

import numpy as np
import pyspiel
from absl import logging

from ospiel_ext.algorithms.gameshrink import descriptions, stage_games
from ospiel_ext.algorithms.gameshrink.filters import (
    FilterResult,
    ShrinkStop,
    approximate_filter,
    lossless_filter,
    paper_filter,
)
from ospiel_ext.algorithms.gameshrink.ordered_games import OrderedGame
from ospiel_ext.algorithms.gameshrink.signal_tree import SignalTree
from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.arrays import IntArray, first_index, group_by, unique_rows
from ospiel_ext.runtime import stops
from ospiel_ext.runtime.budget import Budget

TRANSFORMATIONS = ("coarsest", "paper")  # `gameshrink`'s choices of lossless filter


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Abstraction(stops.Stoppable):
    """An information filter of an ordered game: the class of every view in every round.

    Attributes:
      signal_tree: the game's signal tree.
      classes: per round j, f^j as the class id of each view (hierarchical: a view's class
        determines its parent view's class).
      threshold: 0 for the lossless filter, else the approximation knob of Section 6.2.
      passes: refinement passes until the fixed point (or until the filter was stopped).
      seconds: time to build the signal tree and the filter.
      betting: the stage games, read off the pyspiel game (`stage_games.betting_tree`).
      transformation: "coarsest" (`lossless_filter`) or "paper" (`paper_filter`).
      stop_reason: 'fixed_point' (the filter is complete) or why it stopped before (module
        docstring): a "coarsest" filter with threshold 0 is lossless only at its fixed point.
    """

    signal_tree: SignalTree
    classes: tuple[IntArray, ...]
    threshold: float
    passes: int
    seconds: float
    betting: BettingNode
    transformation: str = "coarsest"
    stop_reason: ShrinkStop = "fixed_point"

    @property
    def og(self) -> OrderedGame:
        """The ordered game the filter is of."""
        return self.signal_tree.og

    @property
    def num_classes(self) -> list[int]:
        """Per round, the number of classes."""
        return [int(c.max()) + 1 for c in self.classes]

    @functools.cached_property
    def class_parent(self) -> tuple[IntArray, ...]:
        """Per round j, the round j - 1 class of each class; empty for round 0.

        A view's class fixes its parent view's class, so each class has one parent class.
        """
        out = [np.zeros(0, dtype=np.int64)]
        for r in range(1, len(self.classes)):
            up = np.zeros(self.num_classes[r], dtype=np.int64)
            up[self.classes[r]] = self.signal_tree.parent_classes(list(self.classes), r)
            out.append(up)
        return tuple(out)

    def ancestor_class(self, classes: IntArray, round_: int, to_round: int) -> IntArray:
        """The round `to_round` (<= round_) class above each round `round_` class."""
        for r in range(round_, to_round, -1):
            classes = self.class_parent[r][classes]
        return classes

    def class_of(self, deal: list[int], player: int, round_: int) -> int:
        """f^round(view of `player` in a deal whose unknown cards are -1)."""
        view = self.signal_tree.view_index(np.array([deal]), player, round_)
        return int(self.classes[round_][view[0]])


def identity_filter(abstraction: Abstraction) -> Abstraction:
    """The identity filter of the same game: one class per view.

    Γ_f is then the original game (up to how chance nodes are grouped), which lets
    `abstract_game` count games too large to walk. Complete whether or not `abstraction` was
    (one view per class is a fixed point of any refinement).
    """
    views = abstraction.signal_tree.num_views
    classes = tuple(np.arange(v, dtype=np.int64) for v in views)
    return dataclasses.replace(
        abstraction, classes=classes, threshold=0.0, passes=0, stop_reason="fixed_point"
    )


def join_classes(abstraction: Abstraction, round_: int, a: int, b: int) -> Abstraction:
    """The filter with the round `round_` classes `a` and `b` joined into one.

    Algorithm 2's merge of two sibling classes, applied alone; the classes are renumbered in
    order, and the views' later classes are kept, so the filter stays hierarchical.

    Raises:
      ValueError: a and b are not distinct siblings (their parent classes differ: the joined
        class would not determine the player's earlier class, losing perfect recall).
    """
    parent = abstraction.class_parent[round_]
    if a == b or (round_ and parent[a] != parent[b]):
        raise ValueError(f"classes {a} and {b} of round {round_} are not two sibling classes")
    classes = list(abstraction.classes)
    joined = np.where(classes[round_] == b, a, classes[round_])
    classes[round_] = np.unique(joined, return_inverse=True)[1].ravel().astype(np.int64)
    kind = f"{abstraction.transformation}, round {round_} classes {a} and {b} joined"
    return dataclasses.replace(abstraction, classes=tuple(classes), transformation=kind)


def sibling_joins(finer: Abstraction, coarser: Abstraction) -> list[tuple[int, int, int]]:
    """The single merges `coarser` makes beyond `finer`, as sorted (round, a, b) triples.

    One (round, a, b) for every pair a < b of sibling classes of `finer` (same parent class)
    that `coarser` puts in one class; `join_classes` applies each of them alone.
    """
    out: list[tuple[int, int, int]] = []
    for r in range(len(finer.classes)):
        rep = first_index(finer.classes[r], finer.num_classes[r])  # a view of each class
        together = coarser.classes[r][rep]
        parent = finer.class_parent[r] if r else np.zeros(len(rep), dtype=np.int64)
        group = unique_rows(np.column_stack([parent, together]))[1]
        order, bounds = group_by(group, int(group.max()) + 1)
        for g in range(len(bounds) - 1):
            members = order[bounds[g] : bounds[g + 1]].tolist()
            out.extend((r, a, b) for a, b in itertools.combinations(sorted(members), 2))
    return sorted(out)


def gameshrink(
    game: OrderedGame | pyspiel.Game | str,
    threshold: float = 0.0,
    time_limit: float | None = None,
    *,
    check_samples: int = 200,
    transformation: str = "coarsest",
) -> Abstraction:
    """Algorithm 2: the coarsest ordered-game-isomorphic filter of `game`, then approximate joins.

    `game` is an OrderedGame, a pyspiel game or a load_game string; the approximate joins are
    made for `threshold` > 0. With `transformation="paper"`, Definition 5's leaf test as
    written instead (`paper_filter`: payoffs only; not always lossless).

    Before any work the description is checked against the game: the stage games are read off
    it and `check_samples` random plays must match the described payoffs.

    `time_limit` counts seconds from the call; it, Ctrl-C and SIGTERM stop the filter phases,
    and the filter so far is returned with its `stop_reason` (module docstring); the
    approximate joins start only from a complete lossless filter. The paper's transformation
    is one pass, faster than building the signal tree, and like it is not stopped (a Ctrl-C
    there raises KeyboardInterrupt).

    Raises:
      ValueError: the game is not a (described) game with ordered signals, or an argument is
        out of range.
    """
    if threshold < 0 or math.isnan(threshold):
        raise ValueError(f"threshold must be >= 0, got {threshold}")
    if transformation not in TRANSFORMATIONS:
        raise ValueError(f"transformation must be one of {TRANSFORMATIONS}, got {transformation!r}")
    if transformation == "paper" and threshold > 0:
        raise ValueError("the approximate filter (threshold > 0) starts from the coarsest one")
    start, budget = time.perf_counter(), Budget(time_limit)
    og = game if isinstance(game, OrderedGame) else descriptions.describe(game)
    st = SignalTree.build(og)
    betting = stage_games.betting_tree(og, st.deals, st.result)
    stage_games.check_against_game(og, betting, st.deals, labels=st.result, samples=check_samples)
    logging.info(
        "%s: signal tree of %d nodes, %d deals, views per round %s",
        og.name,
        st.num_nodes,
        len(st.deals),
        st.num_views,
    )
    if transformation == "paper":
        result = FilterResult(tuple(paper_filter(st)), "fixed_point", passes=1)
    else:
        result = lossless_filter(st, budget)
    if threshold > 0 and not result.stopped_early:
        joined = approximate_filter(st, list(result.classes), threshold, budget)
        result = dataclasses.replace(joined, passes=result.passes)
    return Abstraction(
        signal_tree=st,
        classes=result.classes,
        threshold=threshold,
        passes=result.passes,
        seconds=time.perf_counter() - start,
        betting=betting,
        transformation=transformation,
        stop_reason=result.stop_reason,
    )
