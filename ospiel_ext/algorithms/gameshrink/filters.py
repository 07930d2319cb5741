"""GameShrink's information filters: lossless, as the paper writes it, and approximate.

All three on the signal tree (Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games
of Imperfect Information", ACM EC 2006).

Lossless abstraction (Section 4, Algorithm 2). Two views are merged when they are ordered game
isomorphic (Definition 5): a bijection of their subtrees with equal weights whose leaves have
equal payoffs. Under a filter, a leaf's payoff-relevant content is the opponent's filtered
signal (its information) and the showdown result. A merge therefore depends on merges of the
opponent's views (J♠ and J♥ are interchangeable only if the opponent's J♥ and J♠ are too), so
`lossless_filter` computes the largest filter closed under the relation, as a fixed point:
starting from the paper's precheck ("the same number of chances to rank higher / lower /
equal", Section 5.2, which the paper reads from a colex-indexed database; counted here per
view), every view's signature splits its class until no class splits: a last-round view's is
the multiset of (opponent's filtered signal, result) over the deals through it, an earlier
view's the multiset of its last-round descendants' signatures. All deals through a view are
equally likely, so equal signatures are exactly a perfect matching of equal-weight leaves; the
pairwise test `OrderedGameIsomorphism.isomorphic` (Algorithm 1, bottom-up with scipy's
bipartite matching) agrees with the fixed point on every sibling pair (tested). A view's
multisets are row operations on a (views x deals) table (`SignalTree.view_blocks`).

The paper's transformation as written (`paper_filter`): Definition 5 compares leaves by payoffs
only, so the opponent's filtered signal is left out of the labels and the precheck's counts
decide the last round. It is coarser, close to the published Rhode Island abstraction in size,
and not lossless (Leduc: docs/results/gameshrink.md section 6).

Approximate abstraction (Section 6.2). Starting from the lossless filter, sibling classes whose
min-cost perfect matching (scipy's `linear_sum_assignment`, leaf cost |result difference| +
[opponent's classes differ], averaged, so costs lie in [0, 3]) is at most `threshold` are
joined, round by round, in scipy's disjoint-set forest (`DisjointSet`; Section 5.2 stores the
filter in a union-find structure): threshold 0 is the lossless filter, infinity ignores all
signals (one class per round). Views revealing different public cards always differ in the
opponent's classes, so public-card siblings cost at least 1.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from typing import TYPE_CHECKING, Literal

import numpy as np
from absl import logging
from numpy.typing import NDArray
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from ospiel_ext.algorithms.gameshrink.signal_tree import SignalTree
from ospiel_ext.arrays import IntArray, first_index, group_by, row_classes, unique_rows
from ospiel_ext.runtime import interrupts, stops
from ospiel_ext.runtime.budget import Budget

if TYPE_CHECKING:  # scipy.cluster and scipy.optimize load when a filter runs, not on import:
    # the poker package imports this package for its descriptions of games
    from scipy.cluster.hierarchy import DisjointSet

ShrinkStop = Literal["fixed_point", "time_limit", "max_memory", "interrupted"]
"""The `stops.StopReason`s of GameShrink's filters."""

# ---------------------------------------------------------------------------------------------
# The lossless filter: the largest information filter closed under ordered game isomorphism.


def _to_views(st: SignalTree, round_: int, per_block: IntArray) -> IntArray:
    """A round's per-block array (`SignalTree.view_blocks` order) in view order."""
    out = np.empty_like(per_block)
    out[st.view_blocks(round_)[0]] = per_block
    return out


def _descendant_blocks(st: SignalTree, round_: int) -> IntArray:
    """The round-`round_` block of every last-round block.

    Blocks nest: a view's deals are consecutive rows, so are its descendants'.
    """
    leaves = st.num_views[-1]
    return np.arange(leaves) // (leaves // st.num_views[round_])


def _top_down(st: SignalTree, types: list[IntArray]) -> list[IntArray]:
    """Algorithm 2's top-down pass: the classes of every round from the views' types.

    Views are merged when their parents share a class and their types (view order) are equal;
    classes numbered in order of their first view.
    """
    classes: list[IntArray] = []
    for r in range(st.num_rounds):
        classes.append(row_classes(np.column_stack([st.parent_classes(classes, r), types[r]])))
    return classes


def _precheck_classes(st: SignalTree) -> list[IntArray]:
    """Section 5.2's necessary condition: views split by their counts of rank higher/equal/lower.

    Views are also split by their parent's class. The paper reads the counts from a database
    indexed by the colex indices of the private and of the public set; the counts depend on
    those sets only, so views revealing the same cards in another order have equal counts, and
    counting per view (player 0's seat; a view's counts are its descendants' sums) gives the
    same classes.
    """
    size = st.view_blocks(st.num_rounds - 1)[1]
    result = st.result.reshape(-1, size)
    counts = np.column_stack([np.count_nonzero(result == x, axis=1) for x in (-1, 0, 1)])
    types = []
    for r in range(st.num_rounds):
        owner = _descendant_blocks(st, r)
        per_block = np.stack([np.bincount(owner, weights=c) for c in counts.T], axis=1)
        types.append(_to_views(st, r, row_classes(per_block.astype(np.int64))))
    return _top_down(st, types)


def _multiset_classes(
    owner: NDArray[np.integer],
    num_owners: int,
    label: IntArray,
    *,
    num_labels: int,
    key: IntArray,
) -> IntArray:
    """Classes of `num_owners` owners, split by `key` and by the multiset of their items' labels.

    An owner's multiset is of `label` over the items it owns (`owner[i]` owns item i). With few
    labels the multisets are
    counted in a dense (owners x labels) table, else found by sorting the items. Either way
    classes are numbered in order of their first owner.
    """
    owner = owner.astype(np.int64)
    if num_owners * num_labels <= max(4 * len(owner), 1 << 20):
        counts = np.bincount(owner * num_labels + label, minlength=num_owners * num_labels)
        return row_classes(np.column_stack([key, counts.reshape(num_owners, num_labels)]))
    pairs, counts = np.unique(owner * num_labels + label, return_counts=True)
    bounds = np.searchsorted(pairs // num_labels, np.arange(num_owners + 1))
    lab = pairs % num_labels
    ids: dict[tuple[int, bytes, bytes], int] = {}
    out = np.empty(num_owners, dtype=np.int64)
    for v in range(num_owners):
        s, e = bounds[v], bounds[v + 1]
        sig = (int(key[v]), lab[s:e].tobytes(), counts[s:e].tobytes())
        out[v] = ids.setdefault(sig, len(ids))
    return out


@dataclasses.dataclass(frozen=True, eq=False)
class FilterResult(stops.Stoppable):
    """An information filter so far: complete, or where a time limit or Ctrl-C stopped it.

    `lossless_filter` and `approximate_filter` say which filter that is.

    Attributes:
      classes: per round, the class of each view (hierarchical: a view's class determines its
        parent view's class; numbered in order of first view).
      stop_reason: 'fixed_point' (complete), or 'time_limit' / 'interrupted'.
      passes: `lossless_filter`'s complete refinement passes (0 for `approximate_filter`).
    """

    classes: tuple[IntArray, ...]
    stop_reason: ShrinkStop
    passes: int = 0


def lossless_filter(st: SignalTree, budget: Budget | None = None) -> FilterResult:
    """The class of every view in every round, and the number of refinement passes.

    A pass (module docstring): a last-round view's type is its own class and the multiset of
    (opponent's class, result) over its deals - one sorted row per view, its deals being
    consecutive (`SignalTree.view_blocks`); an earlier view's type is its class and the
    multiset of its last-round descendants' types; then `_top_down`. Refining by the
    descendants' types instead of by the flat multiset of (own class, opponent's class,
    result) over the deals gives the same fixed point: both refinements are monotone, keep
    the old classes, and their stable filters coincide (in a stable filter all views of a
    class have one signature and equal deal counts, so a flat multiset and the counts of the
    descendants' classes determine each other). The number of passes may differ.

    `budget` (a time limit; Ctrl-C and SIGTERM always) is checked before the precheck, between
    the rounds of a pass and after every pass. Stopped early, the result is the filter of the
    last complete pass (one class per round before the precheck), which the fixed point
    refines, since a pass only splits classes: views in different classes are never ordered
    game isomorphic, but views in one class need not be, so that filter is *not* lossless, and
    its `stop_reason` says so.
    """
    budget = Budget() if budget is None else budget
    last = st.num_rounds - 1
    leaf_view, size = st.view_blocks(last)
    result = st.result.reshape(-1, size).astype(np.int64) + 1
    opponent = st.views[last][1].reshape(-1, size)
    classes = [np.zeros(n, dtype=np.int64) for n in st.num_views]  # what every filter refines
    passes = 0
    stop: ShrinkStop | None = budget.exceeded()
    with interrupts.graceful():
        if stop is None:
            classes = _precheck_classes(st)
        while stop is None:
            own = classes[last]
            leaves = np.sort(own[opponent] * 3 + result, axis=1)
            leaf_type = row_classes(np.column_stack([own[leaf_view], leaves]))
            types = [np.zeros(0, dtype=np.int64)] * last + [_to_views(st, last, leaf_type)]
            for r in range(last):
                if stop := budget.exceeded():
                    break
                key = classes[r][st.view_blocks(r)[0]]
                per_block = _multiset_classes(
                    _descendant_blocks(st, r),
                    st.num_views[r],
                    leaf_type,
                    num_labels=int(leaf_type.max()) + 1,
                    key=key,
                )
                types[r] = _to_views(st, r, per_block)
            if stop:
                break  # in the middle of a pass: the last complete pass stands
            refined, passes = _top_down(st, types), passes + 1
            sizes = [int(c.max()) + 1 for c in refined]
            logging.vlog(1, "GameShrink pass %d: classes per round %s", passes, sizes)
            unchanged = sizes == [int(c.max()) + 1 for c in classes]
            classes = refined
            stop = "fixed_point" if unchanged else budget.exceeded()
    if stop != "fixed_point":
        logging.info("GameShrink stopped (%s) before its fixed point, %d passes", stop, passes)
    assert stop is not None  # the loop ends only with a reason
    return FilterResult(tuple(classes), stop, passes)


def paper_filter(st: SignalTree) -> list[IntArray]:
    """Algorithm 2 with Definition 5's leaf test as the paper writes it.

    Leaves are isomorphic when their payoffs are equal for every betting history,
    u^r(z, theta) = u^r(z, theta').

    The reading: a view's subtree holds the signals it has not seen, the opponent's private
    signals included (they are revealed at the showdown), so its leaves are the deals through
    it and a leaf's payoff is the showdown result alone - the opponent's filtered signal does
    not enter the test (`lossless_filter` adds it). Bottom-up (Algorithm 1), a last-round
    view's isomorphism type is its multiset of results (the counts of ranking higher, equal,
    lower: Section 5.2's precheck, which thus becomes the whole test), an earlier view's type
    the multiset of its children's types (all children equally likely, so the perfect
    matching of step 5 exists exactly when these multisets are equal). Top-down (Algorithm 2,
    rounds in order), siblings - views whose parents share a class - with one type are merged.
    The filter is coarser than `lossless_filter`'s and need not be lossless (docs/results/
    gameshrink.md measures it).
    """
    types = [np.zeros(0, dtype=np.int64)] * st.num_rounds
    last = st.num_rounds - 1
    types[last] = _multiset_classes(
        st.views[last][0],
        st.num_views[last],
        st.result.astype(np.int64) + 1,
        num_labels=3,
        key=np.zeros(st.num_views[last], dtype=np.int64),
    )
    for r in range(last - 1, -1, -1):
        child = types[r + 1]
        types[r] = _multiset_classes(
            st.view_parent[r + 1],
            st.num_views[r],
            child,
            num_labels=int(child.max()) + 1,
            key=np.zeros(st.num_views[r], dtype=np.int64),
        )
    classes: list[IntArray] = []
    for r in range(st.num_rounds):
        rows = np.column_stack([st.parent_classes(classes, r), types[r]])
        classes.append(unique_rows(rows)[1])
    return classes


# ---------------------------------------------------------------------------------------------
# Algorithm 1 (OrderedGameIsomorphic) and its weighted version (Section 6.2).


class OrderedGameIsomorphism:
    """Algorithm 1 on the signal tree filtered by `classes`, bottom-up with memoisation.

    A view's children are its views one round later; a last-round view's leaves are the deals
    through it, labelled by the opponent's class and the showdown result. Two views are
    isomorphic when a perfect matching pairs their children (leaves) isomorphically (equally);
    `cost` is the min-cost perfect matching with leaf cost |result difference| + [opponent's
    classes differ], averaged over the matched pairs.
    """

    def __init__(self, st: SignalTree, classes: list[IntArray]):
        self.st, self.classes = st, classes
        self._children = [
            group_by(st.view_parent[r + 1], st.num_views[r]) for r in range(st.num_rounds - 1)
        ]
        self._leaf_order, self._leaf_bounds = group_by(st.views[-1][0], st.num_views[-1])
        self._leaf_opp = classes[-1][st.views[-1][1]]
        self._memo: dict[tuple[str, int, int, int], float | bool] = {}

    def children(self, round_: int, view: int) -> IntArray:
        """The views one round later below view `view` of round `round_`."""
        order, bounds = self._children[round_]
        return order[bounds[view] : bounds[view + 1]]

    def _leaves(self, view: int) -> tuple[IntArray, IntArray]:
        deals = self._leaf_order[self._leaf_bounds[view] : self._leaf_bounds[view + 1]]
        return self._leaf_opp[deals], self.st.result[deals].astype(np.int64)

    def _edge_costs(self, round_: int, x: int, y: int, exact: bool) -> NDArray:
        if round_ == self.st.num_rounds - 1:
            (ox, rx), (oy, ry) = self._leaves(x), self._leaves(y)
            cost = np.abs(rx[:, None] - ry[None, :]) + (ox[:, None] != oy[None, :])
            costs: NDArray[np.float64] = cost.astype(np.float64)
            return costs
        kx, ky = self.children(round_, x), self.children(round_, y)
        sub = self.isomorphic_subtrees if exact else self.cost
        return np.array(
            [
                [float(not sub(round_ + 1, a, b)) if exact else sub(round_ + 1, a, b) for b in ky]
                for a in kx
            ]
        )

    def isomorphic_subtrees(self, round_: int, x: int, y: int) -> bool:
        """Whether views x, y of round `round_` have isomorphic subtrees (Algorithm 1 steps 2-5).

        No sibling condition: a perfect matching of the children (leaves) over the edges of
        isomorphic (equal) pairs, by scipy's Hopcroft-Karp. Memoised per pair of views, so it
        does not assume the filter it is checked against.
        """
        key = ("iso", round_, min(x, y), max(x, y))
        if key not in self._memo:
            edges = self._edge_costs(round_, x, y, exact=True) == 0
            ok = edges.shape[0] == edges.shape[1]
            if ok:
                match = maximum_bipartite_matching(csr_matrix(edges), perm_type="column")
                ok = bool(np.all(match >= 0))
            self._memo[key] = ok
        return bool(self._memo[key])

    def isomorphic(self, round_: int, x: int, y: int) -> bool:
        """OrderedGameIsomorphic(x, y) of Algorithm 1 for views x, y of round `round_`."""
        parent = self.st.parent_classes(self.classes, round_)
        if parent[x] != parent[y]:
            return False  # step 1: different parents
        return self.isomorphic_subtrees(round_, x, y)

    def cost(self, round_: int, x: int, y: int) -> float:
        """Min-cost perfect matching cost of the subtrees of views x and y (Section 6.2).

        Memoised per pair of (lossless) classes: views of one class have isomorphic subtrees.
        """
        cx, cy = int(self.classes[round_][x]), int(self.classes[round_][y])
        key = ("cost", round_, min(cx, cy), max(cx, cy))
        if key not in self._memo:
            c = self._edge_costs(round_, x, y, exact=False)
            if c.shape[0] != c.shape[1]:
                self._memo[key] = math.inf
            else:
                from scipy import optimize  # loaded when a filter runs

                rows, cols = optimize.linear_sum_assignment(c)
                self._memo[key] = float(c[rows, cols].mean())
        return float(self._memo[key])


def _set_labels(sets: DisjointSet, k: int) -> IntArray:
    """The set of each element 0 .. k - 1 as consecutive ids.

    Sets are numbered in order of their smallest element: classes of joined views stay numbered
    in order of their first view, like the lossless filter's, whatever roots the disjoint-set
    forest picked.
    """
    roots = np.array([sets[a] for a in range(k)], dtype=np.int64)
    return row_classes(roots[:, None])


def approximate_filter(
    st: SignalTree, lossless: list[IntArray], threshold: float, budget: Budget | None = None
) -> FilterResult:
    """Section 6.2: join sibling classes whose matching cost is at most `threshold`.

    Rounds in order, so classes whose parents were joined become siblings in the next round.

    `budget` (a time limit; Ctrl-C and SIGTERM always) is checked before every pair of
    classes is compared. Stopped early, the result keeps the joins made so far (each of cost
    at most `threshold`) and the lossless classes of the rounds not reached: a filter between
    the lossless one (which refines it) and the complete approximate one (which it refines).
    """
    from scipy.cluster import hierarchy  # loaded when a filter runs

    budget = Budget() if budget is None else budget
    iso = OrderedGameIsomorphism(st, lossless)
    merged: list[IntArray] = []
    stop: ShrinkStop | None = None
    with interrupts.graceful():
        for r in range(st.num_rounds):
            k = int(lossless[r].max()) + 1
            rep = first_index(lossless[r], k)  # a view of each class
            parent = st.parent_classes(merged, r)[rep]  # each class's parent class, as joined
            order, bounds = group_by(parent, int(parent.max()) + 1)
            sets = hierarchy.DisjointSet(range(k))
            for g in range(len(bounds) - 1):
                siblings = order[bounds[g] : bounds[g + 1]]
                for a, b in itertools.combinations(siblings.tolist(), 2):
                    if sets.connected(a, b):
                        continue
                    if stop := budget.exceeded():
                        break
                    if math.isinf(threshold) or iso.cost(r, rep[a], rep[b]) <= threshold:
                        sets.merge(a, b)
                if stop:
                    break
            merged.append(_set_labels(sets, k)[lossless[r]])
            logging.vlog(
                1,
                "approximate GameShrink round %d: %d -> %d classes",
                r,
                k,
                int(merged[-1].max()) + 1,
            )
            if stop:
                logging.info("approximate GameShrink stopped (%s) in round %d", stop, r)
                break
    # rounds not reached: their lossless classes, which refine the joined classes above them
    return FilterResult(tuple(merged + lossless[len(merged) :]), stop or "fixed_point")
