"""GameShrink: lossless and approximate abstraction of games with ordered signals
(Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information", ACM EC
2006).

The filtered signal tree (Definition 4) holds every deal of the signals; it is enumerated into
arrays without touching the game tree (`SignalTree`). A player's *view* at round j is the
public signals and its own private signals revealed through round j, the domain of the
information filter f^j (Definition 2); one filter serves both players, as in the paper.

Lossless abstraction (Section 4, Algorithm 2). Two views are merged when they are ordered game
isomorphic (Definition 5): a bijection of their subtrees with equal weights whose leaves have
equal payoffs. Under a filter, a leaf's payoff-relevant content is the opponent's filtered
signal (its information) and the showdown result. A merge therefore depends on merges of the
opponent's views (J♠ and J♥ are interchangeable only if the opponent's J♥ and J♠ are too), so
`gameshrink` computes the largest filter closed under the relation, as a fixed point: starting
from the paper's precheck ("the same number of chances to rank higher / lower / equal",
Section 5.2, which the paper reads from a colex-indexed database; counted here per view),
every view's signature splits its class until no class splits: a last-round view's is the
multiset of (opponent's filtered signal, result) over the deals through it, an earlier view's
the multiset of its last-round descendants' signatures (`lossless_filter`). All deals through a
view are equally likely, so equal signatures are exactly a perfect matching of equal-weight
leaves; the pairwise test `OrderedGameIsomorphism.isomorphic` (Algorithm 1, bottom-up with
scipy's bipartite matching) agrees with the fixed point on every sibling pair (tested). The
deals are enumerated so that those through one view of player 0 are consecutive rows
(`SignalTree.view_blocks`): a view's multisets are row operations on a (views x deals) table,
with no sort of the deals.

The paper's transformation as written (`paper_filter`, `gameshrink(transformation="paper")`):
Definition 5 compares leaves by payoffs only, so the opponent's filtered signal is left out of
the labels and the precheck's counts decide the last round. It is coarser, close to the
published Rhode Island abstraction in size, and not lossless (Leduc: docs/results/
gameshrink.md section 6).

Approximate abstraction (Section 6.2). Starting from the lossless filter, sibling classes whose
min-cost perfect matching (scipy's `linear_sum_assignment`, leaf cost |result difference| +
[opponent's classes differ], averaged, so costs lie in [0, 3]) is at most `threshold` are
joined, round by round, in a union-find filter (Section 5.2): threshold 0 is the lossless
filter, infinity ignores all signals (one class per round). Views revealing different public
cards always differ in the opponent's classes, so public-card siblings cost at least 1.
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
from numpy.typing import NDArray
from scipy.optimize import linear_sum_assignment
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import maximum_bipartite_matching

from ospiel_ext.algorithms.gameshrink import ordered_games
from ospiel_ext.algorithms.gameshrink.ordered_games import BettingNode, OrderedGame, colex_index
from ospiel_ext.arrays import IntArray, first_index, group_by, row_classes, unique_rows

TRANSFORMATIONS = ("coarsest", "paper")  # `gameshrink`'s choices of lossless filter
_MAX_CARDS = 64  # deals are enumerated with uint64 card masks


@dataclasses.dataclass(frozen=True, eq=False)
class SignalTree:
    """Every deal of an ordered game, and every view of it, as arrays (Definition 4).

    Attributes:
      og: the ordered game.
      deals: (N, slots) card ids, one row per leaf of the signal tree (all equally likely).
      result: player 0's showdown result of each deal (-1, 0, 1).
      view_codes: per round, the sorted codes of the views (see `view_code`).
      views: per round, (view of player 0, view of player 1) of every deal, as indices into
        view_codes[round].
      view_parent: per round, each view's view in the round before (0 in round 0).
      num_nodes: nodes of the paper's signal tree (distinct deal prefixes, root included).
    """

    og: OrderedGame
    deals: NDArray[np.int8]
    result: NDArray[np.int8]
    view_codes: tuple[IntArray, ...]
    views: tuple[tuple[NDArray[np.int32], NDArray[np.int32]], ...]
    view_parent: tuple[IntArray, ...]
    num_nodes: int

    @property
    def num_rounds(self) -> int:
        return len(self.view_codes)

    @property
    def num_views(self) -> list[int]:
        return [len(c) for c in self.view_codes]

    def view_code(
        self, deals: NDArray, player: int, round_: int, earlier: IntArray | None = None
    ) -> IntArray:
        """A unique integer per view: the colex indices of the view's groups in mixed radix
        (the cards of each group ascending, as in `deals`). `earlier`: the same deals' codes
        one round before, which this one extends (a round's groups follow the earlier ones)."""
        og, radix = self.og, 1
        code, known = np.zeros(len(deals), dtype=np.int64), 0
        if earlier is not None:
            code, known = earlier.copy(), len(og.view_groups(player, round_ - 1))
        for i, g in enumerate(og.view_groups(player, round_)):
            start, size = og.slots[g]
            if i >= known:
                code += colex_index(deals[:, start : start + size]) * radix
            radix *= math.comb(og.num_cards, size)
        return code

    def view_index(self, deals: NDArray, player: int, round_: int) -> IntArray:
        """The view of `player` in round `round_` of deals whose groups may be in any order."""
        og, deals = self.og, np.array(np.atleast_2d(deals), dtype=np.int64)
        for start, size in og.slots:
            deals[:, start : start + size] = np.sort(deals[:, start : start + size], axis=1)
        table = self.view_codes[round_]
        codes = self.view_code(deals, player, round_)
        idx = np.minimum(np.searchsorted(table, codes), len(table) - 1)
        if np.any(table[idx] != codes):
            raise ValueError(f"{self.og.name}: a view is not in the signal tree")
        return idx

    def parent_classes(self, classes: list[IntArray], round_: int) -> IntArray:
        """The round `round_` - 1 class (in `classes`) of every view's parent view; zeros in
        round 0."""
        if round_ == 0:
            return np.zeros(self.num_views[0], dtype=np.int64)
        return classes[round_ - 1][self.view_parent[round_]]

    def view_blocks(self, round_: int) -> tuple[IntArray, int]:
        """(player 0's round-`round_` view of each block, block size): the deals through one
        view of player 0 are one block of consecutive rows (`build`'s enumeration order)."""
        size = len(self.deals) // self.num_views[round_]
        return self.views[round_][0][::size].astype(np.int64), size

    @classmethod
    def build(cls, og: OrderedGame) -> SignalTree:
        """Enumerates the deals group by group (cards of a group as an ascending set): first
        the groups player 0 sees, in deal order, then player 1's private groups, so that the
        deals through each view of player 0 are consecutive rows (`view_blocks`); columns stay
        in deal order (`OrderedGame.slots`)."""
        ordered_games.validate(og)
        if og.num_cards > _MAX_CARDS:
            raise ValueError(f"{og.name}: at most {_MAX_CARDS} cards are supported")
        seen = og.view_groups(0, og.num_rounds - 1)
        order = seen + [i for i in range(len(og.groups)) if i not in seen]
        deals = np.zeros((1, 0), dtype=np.int8)
        masks = np.zeros(1, dtype=np.uint64)  # the cards dealt so far, one bit per card
        left, rows_after = og.num_cards, []  # deals enumerated after each group of `order`
        for step, i in enumerate(order):
            size = og.groups[i].size
            combos = np.array(list(itertools.combinations(range(og.num_cards), size)), np.int8)
            cmask = np.bitwise_or.reduce(np.left_shift(np.uint64(1), combos.astype(np.uint64)), 1)
            free = (masks[:, None] & cmask[None, :]) == 0  # C(left, size) per row
            children = math.comb(left, size)
            pick = np.tile(np.arange(len(combos), dtype=np.int32), len(deals))[free.ravel()]
            deals = np.hstack([np.repeat(deals, children, axis=0), combos[pick]])
            if step + 1 < len(order):
                masks = np.repeat(masks, children) | cmask[pick]
            rows_after.append(len(deals))
            left -= size
        del masks
        columns = np.cumsum([0] + [og.groups[i].size for i in order])
        where = np.argsort(order)  # group i's columns in enumeration order
        deals = deals[:, np.concatenate([np.arange(columns[k], columns[k + 1]) for k in where])]
        num_nodes, prefixes, left = 1, 1, og.num_cards
        for g in og.groups:  # the paper's tree deals in game order
            prefixes *= math.comb(left, g.size)
            num_nodes, left = num_nodes + prefixes, left - g.size
        tree = cls(og, deals, np.zeros(0, dtype=np.int8), (), (), (), num_nodes)
        codes: list[IntArray] = []
        views: list[tuple[NDArray[np.int32], NDArray[np.int32]]] = []
        parents: list[IntArray] = []
        code1: IntArray | None = None
        for r in range(og.num_rounds):
            seen_r = len(og.view_groups(0, r))  # player 0's view: the first groups of `order`
            block = len(deals) // (rows_after[seen_r - 1] if seen_r else 1)
            code0 = tree.view_code(deals[::block], 0, r)  # one row per view of player 0
            code1 = tree.view_code(deals, 1, r, code1)
            table, (blocks, v1) = _number_codes((code0, code1))
            if len(table) != len(code0):
                raise ValueError(f"{og.name}: player 1 has views player 0 never has")
            parent = np.zeros(len(table), dtype=np.int64)
            if r:
                parent[blocks] = views[-1][0][::block]
            codes.append(table)
            views.append((np.repeat(blocks, block), v1))
            parents.append(parent)
        result = _showdown(og, deals, views[-1], block)
        _check_common_ordering(og, deals, result)
        return dataclasses.replace(
            tree,
            result=result,
            view_codes=tuple(codes),
            views=tuple(views),
            view_parent=tuple(parents),
        )


def _showdown(
    og: OrderedGame, deals: NDArray, last_views: tuple[NDArray, NDArray], block: int
) -> NDArray[np.int8]:
    """Player 0's showdown result of every deal. For an `ordered_games.RankOutcome` the hand
    strengths are evaluated once per last-round view (equal views are equal hands: the first
    deal of each of player 0's blocks of `block` deals), not once per deal."""
    if not isinstance(og.outcome, ordered_games.RankOutcome):
        return og.outcome(deals.astype(np.int64))
    v0, v1 = last_views
    strength = np.empty(len(deals) // block, dtype=np.int64)
    strength[v0[::block]] = og.outcome.strength(
        deals[::block][:, og.outcome.hands[0]].astype(np.int64)
    )
    return np.sign(strength[v0] - strength[v1]).astype(np.int8)


def _number_codes(
    codes: tuple[IntArray, IntArray],
) -> tuple[IntArray, tuple[NDArray[np.int32], NDArray[np.int32]]]:
    """(the sorted distinct codes, each player's codes as indices into them): by a dense lookup
    table when the codes are small (views of real decks), else np.unique + searchsorted."""
    top = max(int(c.max()) for c in codes) + 1
    if top <= 4 * sum(len(c) for c in codes) + 1024:
        seen = np.zeros(top, dtype=bool)
        for c in codes:
            seen[c] = True
        table = np.flatnonzero(seen)
        lookup = np.zeros(top, dtype=np.int32)
        lookup[table] = np.arange(len(table), dtype=np.int32)
        indices = [lookup[c] for c in codes]
    else:
        table = np.unique(np.concatenate(codes))
        indices = [np.searchsorted(table, c).astype(np.int32) for c in codes]
    return table, (indices[0], indices[1])


def _check_common_ordering(og: OrderedGame, deals: NDArray, result: NDArray) -> None:
    """Definition 1 (u): payoffs increase in one ordering of hands shared by both players, so
    swapping the players' private cards must negate every showdown result (true by
    construction, and not checked, for an `ordered_games.RankOutcome`)."""
    if isinstance(og.outcome, ordered_games.RankOutcome):
        return
    swapped = deals.astype(np.int64)
    own0, own1 = (og.view_columns(p, og.num_rounds - 1)[0] for p in (0, 1))
    swapped[:, own0 + own1] = deals[:, own1 + own0]
    bad = np.flatnonzero(og.outcome(swapped) != -result)
    if len(bad):
        raise ValueError(
            f"game {og.name} is not a game with ordered signals: the players do not rank hands "
            f"by a common ordering (in deal {deals[bad[0]].tolist()} player 0 gets "
            f"{int(result[bad[0]])}, but {int(og.outcome(swapped[bad[:1]])[0])} with the "
            "private cards swapped); the paper's Section 3.4 shows abstraction then fails"
        )


# ---------------------------------------------------------------------------------------------
# The lossless filter: the largest information filter closed under ordered game isomorphism.


def _to_views(st: SignalTree, round_: int, per_block: IntArray) -> IntArray:
    """A round's per-block array (`SignalTree.view_blocks` order) in view order."""
    out = np.empty_like(per_block)
    out[st.view_blocks(round_)[0]] = per_block
    return out


def _descendant_blocks(st: SignalTree, round_: int) -> IntArray:
    """The round-`round_` block of every last-round block (blocks nest: a view's deals are
    consecutive rows, so are its descendants')."""
    leaves = st.num_views[-1]
    return np.arange(leaves) // (leaves // st.num_views[round_])


def _top_down(st: SignalTree, types: list[IntArray]) -> list[IntArray]:
    """Algorithm 2's top-down pass: views are merged when their parents share a class and
    their types (view order) are equal; classes numbered in order of their first view."""
    classes: list[IntArray] = []
    for r in range(st.num_rounds):
        classes.append(row_classes(np.column_stack([st.parent_classes(classes, r), types[r]])))
    return classes


def _precheck_classes(st: SignalTree) -> list[IntArray]:
    """Section 5.2's necessary condition: views split by their counts of rank higher / equal /
    lower (and by their parent's class). The paper reads them from a database indexed by the
    colex indices of the private and of the public set; the counts depend on those sets only,
    so views revealing the same cards in another order have equal counts, and counting per
    view (player 0's seat; a view's counts are its descendants' sums) gives the same classes."""
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
    owner: NDArray[np.integer], num_owners: int, label: IntArray, num_labels: int, key: IntArray
) -> IntArray:
    """Classes of `num_owners` owners: owners are split by `key` and by the multiset of `label`
    over the items they own (`owner[i]` owns item i). With few labels the multisets are
    counted in a dense (owners x labels) table, else found by sorting the items. Either way
    classes are numbered in order of their first owner."""
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


def lossless_filter(st: SignalTree, time_limit: float | None = None) -> tuple[list[IntArray], int]:
    """The class of every view in every round, and the number of refinement passes.

    A pass (module docstring): a last-round view's type is its own class and the multiset of
    (opponent's class, result) over its deals - one sorted row per view, its deals being
    consecutive (`SignalTree.view_blocks`); an earlier view's type is its class and the
    multiset of its last-round descendants' types; then `_top_down`. Refining by the
    descendants' types instead of by the flat multiset of (own class, opponent's class,
    result) over the deals gives the same fixed point: both refinements are monotone, keep
    the old classes, and their stable filters coincide (in a stable filter all views of a
    class have one signature and equal deal counts, so a flat multiset and the counts of the
    descendants' classes determine each other). The number of passes may differ."""
    start = time.perf_counter()
    last = st.num_rounds - 1
    leaf_view, size = st.view_blocks(last)
    result = st.result.reshape(-1, size).astype(np.int64) + 1
    opponent = st.views[last][1].reshape(-1, size)
    classes = _precheck_classes(st)
    passes, sizes = 0, [int(c.max()) + 1 for c in classes]
    while True:
        passes += 1
        own = classes[last]
        leaves = np.sort(own[opponent] * 3 + result, axis=1)
        leaf_type = row_classes(np.column_stack([own[leaf_view], leaves]))
        types = [np.zeros(0, dtype=np.int64)] * last + [_to_views(st, last, leaf_type)]
        for r in range(last):
            key = classes[r][st.view_blocks(r)[0]]
            per_block = _multiset_classes(
                _descendant_blocks(st, r), st.num_views[r], leaf_type,
                int(leaf_type.max()) + 1, key,
            )  # fmt: skip
            types[r] = _to_views(st, r, per_block)
        classes, old = _top_down(st, types), sizes
        sizes = [int(c.max()) + 1 for c in classes]
        logging.vlog(1, "GameShrink pass %d: classes per round %s", passes, sizes)
        if sizes == old:
            return classes, passes
        if time_limit is not None and time.perf_counter() - start > time_limit:
            raise TimeoutError(f"GameShrink did not reach its fixed point in {time_limit} s")


def paper_filter(st: SignalTree) -> list[IntArray]:
    """Algorithm 2 with Definition 5's leaf test as the paper writes it: leaves are isomorphic
    when their payoffs are equal for every betting history, u^r(z, theta) = u^r(z, theta').

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
        st.views[last][0], st.num_views[last], st.result.astype(np.int64) + 1, 3,
        np.zeros(st.num_views[last], dtype=np.int64),
    )  # fmt: skip
    for r in range(last - 1, -1, -1):
        child = types[r + 1]
        types[r] = _multiset_classes(
            st.view_parent[r + 1], st.num_views[r], child, int(child.max()) + 1,
            np.zeros(st.num_views[r], dtype=np.int64),
        )  # fmt: skip
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
        order, bounds = self._children[round_]
        return order[bounds[view] : bounds[view + 1]]

    def _leaves(self, view: int) -> tuple[IntArray, IntArray]:
        deals = self._leaf_order[self._leaf_bounds[view] : self._leaf_bounds[view + 1]]
        return self._leaf_opp[deals], self.st.result[deals].astype(np.int64)

    def _edge_costs(self, round_: int, x: int, y: int, exact: bool) -> NDArray:
        if round_ == self.st.num_rounds - 1:
            (ox, rx), (oy, ry) = self._leaves(x), self._leaves(y)
            cost = np.abs(rx[:, None] - ry[None, :]) + (ox[:, None] != oy[None, :])
            return cost.astype(np.float64)
        kx, ky = self.children(round_, x), self.children(round_, y)
        sub = self.isomorphic_subtrees if exact else self.cost
        return np.array(
            [
                [float(not sub(round_ + 1, a, b)) if exact else sub(round_ + 1, a, b) for b in ky]
                for a in kx
            ]
        )

    def isomorphic_subtrees(self, round_: int, x: int, y: int) -> bool:
        """Algorithm 1 steps 2-5 (no sibling condition): a perfect matching of the children
        (leaves) over the edges of isomorphic (equal) pairs, by scipy's Hopcroft-Karp.
        Memoised per pair of views, so it does not assume the filter it is checked against."""
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
        """Min-cost perfect matching cost of the subtrees of views x and y (Section 6.2),
        memoised per pair of (lossless) classes: views of one class have isomorphic subtrees."""
        cx, cy = int(self.classes[round_][x]), int(self.classes[round_][y])
        key = ("cost", round_, min(cx, cy), max(cx, cy))
        if key not in self._memo:
            c = self._edge_costs(round_, x, y, exact=False)
            if c.shape[0] != c.shape[1]:
                self._memo[key] = math.inf
            else:
                rows, cols = linear_sum_assignment(c)
                self._memo[key] = float(c[rows, cols].mean())
        return float(self._memo[key])


class UnionFind:
    """Disjoint sets with path halving and union by size (Section 5.2's filter store)."""

    def __init__(self, n: int):
        self.parent = list(range(n))
        self.size = [1] * n

    def find(self, a: int) -> int:
        while self.parent[a] != a:
            self.parent[a] = self.parent[self.parent[a]]
            a = self.parent[a]
        return a

    def union(self, a: int, b: int) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            if self.size[a] < self.size[b]:
                a, b = b, a
            self.parent[b] = a
            self.size[a] += self.size[b]

    def labels(self) -> IntArray:
        """Consecutive set ids 0.. in order of first element."""
        roots = np.array([self.find(a) for a in range(len(self.parent))], dtype=np.int64)
        return np.unique(roots, return_inverse=True)[1].ravel()


def approximate_filter(
    st: SignalTree, lossless: list[IntArray], threshold: float, time_limit: float | None = None
) -> list[IntArray]:
    """Section 6.2: join sibling classes whose matching cost is at most `threshold`, rounds in
    order, so classes whose parents were joined become siblings in the next round."""
    iso = OrderedGameIsomorphism(st, lossless)
    start = time.perf_counter()
    merged: list[IntArray] = []
    for r in range(st.num_rounds):
        k = int(lossless[r].max()) + 1
        rep = first_index(lossless[r], k)  # a view of each class
        parent = st.parent_classes(merged, r)[rep]  # each class's parent class, as joined
        order, bounds = group_by(parent, int(parent.max()) + 1)
        uf = UnionFind(k)
        for g in range(len(bounds) - 1):
            siblings = order[bounds[g] : bounds[g + 1]]
            for a, b in itertools.combinations(siblings.tolist(), 2):
                if uf.find(a) == uf.find(b):
                    continue
                if time_limit is not None and time.perf_counter() - start > time_limit:
                    raise TimeoutError(f"approximate GameShrink exceeded {time_limit} s")
                if math.isinf(threshold) or iso.cost(r, rep[a], rep[b]) <= threshold:
                    uf.union(a, b)
        merged.append(uf.labels()[lossless[r]])
        logging.vlog(
            1, "approximate GameShrink round %d: %d -> %d classes", r, k, int(merged[-1].max()) + 1
        )
    return merged


# ---------------------------------------------------------------------------------------------
# Algorithm 2.


@dataclasses.dataclass(frozen=True, eq=False)
class Abstraction:
    """An information filter of an ordered game: the class of every view in every round.

    Attributes:
      signal_tree: the game's signal tree.
      classes: per round j, f^j as the class id of each view (hierarchical: a view's class
        determines its parent view's class).
      threshold: 0 for the lossless filter, else the approximation knob of Section 6.2.
      passes: refinement passes until the fixed point.
      seconds: time to build the signal tree and the filter.
      betting: the stage games, read off the pyspiel game (`ordered_games.betting_tree`).
      transformation: "coarsest" (`lossless_filter`) or "paper" (`paper_filter`).
    """

    signal_tree: SignalTree
    classes: tuple[IntArray, ...]
    threshold: float
    passes: int
    seconds: float
    betting: BettingNode
    transformation: str = "coarsest"

    @property
    def og(self) -> OrderedGame:
        return self.signal_tree.og

    @property
    def num_classes(self) -> list[int]:
        return [int(c.max()) + 1 for c in self.classes]

    @functools.cached_property
    def class_parent(self) -> tuple[IntArray, ...]:
        """Per round j, the round j - 1 class of each class (a view's class fixes its parent
        view's class); empty for round 0."""
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
    """The identity filter of the same game: Γ_f is then the original game (up to how chance
    nodes are grouped), which lets `abstract_game` count games too large to walk."""
    views = abstraction.signal_tree.num_views
    classes = tuple(np.arange(v, dtype=np.int64) for v in views)
    return dataclasses.replace(abstraction, classes=classes, threshold=0.0, passes=0)


def join_classes(abstraction: Abstraction, round_: int, a: int, b: int) -> Abstraction:
    """The filter with the round `round_` classes `a` and `b` joined into one (Algorithm 2's
    merge of two sibling classes, applied alone), classes renumbered in order; the views'
    later classes are kept, so the filter stays hierarchical.

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
    """(round, a, b) for every pair a < b of sibling classes of `finer` (same parent class)
    that `coarser` puts in one class: the single merges `coarser` makes beyond `finer`, each
    of which `join_classes` applies alone."""
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
    check_samples: int = 200,
    transformation: str = "coarsest",
) -> Abstraction:
    """Algorithm 2: the coarsest ordered-game-isomorphic filter of `game` (an OrderedGame, a
    pyspiel game or a load_game string), then the approximate joins for `threshold` > 0.
    With `transformation="paper"`, Definition 5's leaf test as written instead
    (`paper_filter`: payoffs only; not always lossless).

    Before any work the description is checked against the game: the stage games are read off
    it and `check_samples` random plays must match the described payoffs.

    Raises:
      ValueError: the game is not a (described) game with ordered signals.
      TimeoutError: `time_limit` seconds passed before the filter was complete.
    """
    if threshold < 0 or math.isnan(threshold):
        raise ValueError(f"threshold must be >= 0, got {threshold}")
    if transformation not in TRANSFORMATIONS:
        raise ValueError(f"transformation must be one of {TRANSFORMATIONS}, got {transformation!r}")
    if transformation == "paper" and threshold > 0:
        raise ValueError("the approximate filter (threshold > 0) starts from the coarsest one")
    start = time.perf_counter()
    og = game if isinstance(game, OrderedGame) else ordered_games.describe(game)
    st = SignalTree.build(og)
    betting = ordered_games.betting_tree(og, st.deals, st.result)
    ordered_games.check_against_game(og, betting, st.deals, st.result, check_samples)
    logging.info(
        "%s: signal tree of %d nodes, %d deals, views per round %s",
        og.name,
        st.num_nodes,
        len(st.deals),
        st.num_views,
    )
    if transformation == "paper":
        classes, passes = paper_filter(st), 1
    else:
        classes, passes = lossless_filter(st, time_limit)
    if threshold > 0:
        left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        classes = approximate_filter(st, classes, threshold, left)
    seconds = time.perf_counter() - start
    return Abstraction(st, tuple(classes), threshold, passes, seconds, betting, transformation)
