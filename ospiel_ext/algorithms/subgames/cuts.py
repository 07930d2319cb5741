"""Cuts, subgame roots and public states (common-knowledge subgames).

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 2.1: the subgame G^{s0} of a public state s0 starts with
a chance node over the histories h in H(s0); s0 is the information set of an external
observer without private observations. Here a public state is computed, without asking the
game for public observations, as the common-knowledge closure of the histories at a cut:

1. a `Cut` marks where the trunk ends (after k player moves, after the first chance event
   that follows a player move - Leduc's flop -, at that chance node - the end of a betting
   round, which as a depth limit keeps the chance node as a leaf -, after k chance events, or
   where a predicate on pyspiel states first holds);
2. the roots are the first nodes past the cut; a chance node there is replaced by its
   children (its probabilities are part of P_c(h), which weights the subgame's initial
   chance node), and leaves are dropped (nothing is left to solve);
3. roots, both players' information states at the roots and the decision information sets
   below the roots form a bipartite graph; its connected components are the public states
   (two roots share a component when some player cannot tell them apart, transitively, and
   an information set below the roots always lies in one component).

Checks (ValueError naming the game): the cut selects no state; an information set has nodes
both above and below the cut (the cut splits it); a player's decision information set below
the roots is reached from roots in two of that player's root information sets (the gadget
games of Section 2.1 need the root information sets refined by every later one).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Literal, get_args

import numpy as np
import pyspiel
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csgraph

from ospiel_ext import arrays, loading
from ospiel_ext.arrays import IntArray
from ospiel_ext.runtime import callables
from ospiel_ext.tree import CHANCE, GameTree

CutKind = Literal[
    "after_moves", "after_public_chance", "before_public_chance", "after_chance_events", "predicate"
]
_CUT_KINDS: tuple[str, ...] = get_args(CutKind)
StatePredicate = Callable[[pyspiel.State], bool]
PublicKey = Callable[[pyspiel.State], str]


@dataclasses.dataclass(frozen=True)
class Cut:
    """Where the trunk ends; build one with the class methods.

    Attributes:
      kind: 'after_moves' (at least `count` player moves on the path; chance not counted),
        'after_public_chance' (just after the first chance node with a player move above
        it), 'before_public_chance' (at that chance node: the end of a betting round),
        'after_chance_events' (at least `count` chance events on the path) or 'predicate'
        (the first states on each path where `predicate` holds).
      count: k of 'after_moves' / 'after_chance_events'.
      predicate: the test of a 'predicate' cut.
    """

    kind: CutKind
    count: int = 0
    predicate: StatePredicate | None = None

    def __post_init__(self) -> None:
        if self.kind not in _CUT_KINDS:
            raise ValueError(f"unknown cut kind {self.kind!r}")
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 0:
            raise ValueError(f"a cut's count must be a non-negative int, got {self.count!r}")
        if (self.kind == "predicate") != (self.predicate is not None):
            raise ValueError("a predicate cut needs a predicate; other cuts take none")

    @classmethod
    def after_moves(cls, k: int) -> Cut:
        """The cut after at least `k` player moves on the path (chance not counted)."""
        return cls("after_moves", k)

    @classmethod
    def after_public_chance(cls) -> Cut:
        """The cut just after the first chance node with a player move above it."""
        return cls("after_public_chance")

    @classmethod
    def before_public_chance(cls) -> Cut:
        """The cut at the end of a betting round (Leduc: before the public card is dealt).

        The first chance node on each path with a player move above it. As subgame roots it selects
        what `after_public_chance` selects (a chance node at a cut is replaced by its children); as
        a depth limit (`depth_limited.depth_limit`) the chance node itself is the leaf, so the
        opponent picks its continuation once per history before the deal - the limits "at the end of
        the first betting round" of Brown, Sandholm & Amos (2018), "Depth-Limited Solving for
        Imperfect-Information Games", Section 6.
        """
        return cls("before_public_chance")

    @property
    def leaves_at_chance(self) -> bool:
        """True if, as a depth limit, the cut keeps its chance nodes as leaves."""
        return self.kind == "before_public_chance"

    @classmethod
    def after_chance_events(cls, k: int) -> Cut:
        """The cut after at least `k` chance events on the path."""
        return cls("after_chance_events", k)

    @classmethod
    def where(cls, predicate: StatePredicate) -> Cut:
        """The cut at the first states of each path where `predicate(state)` holds."""
        if not callable(predicate):
            raise ValueError(f"a predicate cut needs a callable, got {predicate!r}")
        return cls("predicate", 0, predicate)

    def describe(self) -> str:
        """A short label of the cut: e.g. 'after_moves(2)', 'after_public_chance()', 'predicate'."""
        if self.kind in ("after_moves", "after_chance_events"):
            return f"{self.kind}({self.count})"
        return f"{self.kind}()" if self.kind != "predicate" else "predicate"


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class RootSet:
    """The roots of a cut of a tree.

    Attributes:
      tree: the full game tree.
      cut: the cut.
      roots: root node ids (ascending).
      root_of: for every node, the index in `roots` of the root above it (or itself); -1 in
        the trunk (and at leaves past the cut that no root is above).
      keys: per player, its information state string at each root.
      key_ids: per player, the keys interned to 0 .. (distinct keys - 1).
    """

    tree: GameTree
    cut: Cut
    roots: IntArray
    root_of: IntArray
    keys: tuple[tuple[str, ...], tuple[str, ...]]
    key_ids: tuple[IntArray, IntArray]

    @property
    def num_roots(self) -> int:
        """Number of roots."""
        return len(self.roots)


def _past_cut(tree: GameTree, cut: Cut) -> NDArray[np.bool_]:
    """Nodes at or past the cut, for the counting cuts (one top-down pass)."""
    parent = np.maximum(tree.parent, 0)
    moved = tree.player[parent] >= 0  # the edge into the node is a player move
    moved[0] = False
    chance_edge = tree.player[parent] == CHANCE
    chance_edge[0] = False
    moves = tree.top_down(np.int64(0), lambda nodes, up: up + moved[nodes])
    if cut.kind == "after_moves":
        return moves >= cut.count
    if cut.kind == "after_chance_events":
        events = tree.top_down(np.int64(0), lambda nodes, up: up + chance_edge[nodes])
        return events >= cut.count
    if cut.kind == "before_public_chance":  # at or below a chance node with a move above it
        public = (tree.player == CHANCE) & (moves >= 1)
    else:  # after_public_chance: below a chance node that has a player move above it
        public = chance_edge & (moves[parent] >= 1)
    return tree.top_down(False, lambda nodes, up: up | public[nodes])


def _predicate_candidates(tree: GameTree, predicate: StatePredicate) -> IntArray:
    """The first nodes of each path whose pyspiel state satisfies `predicate`.

    One iterative walk over the trunk only; node ids follow child_start + k.
    """
    if tree.game is None:
        raise ValueError(f"{tree.name}: a predicate cut needs a tree built from a pyspiel game")
    found = []
    stack = [(0, tree.game.new_initial_state())]
    while stack:
        node, state = stack.pop()
        try:
            holds = predicate(state)
        except Exception as e:  # the user's code: one line naming it and the state
            first = str(e).strip().splitlines()[0] if str(e).strip() else ""
            raise ValueError(
                f"{tree.name}: the cut predicate {getattr(predicate, '__name__', predicate)} "
                f"raised {type(e).__name__}: {first} (at history {state.history()})"
            ) from None
        if holds:
            found.append(node)
            continue
        for child in tree.children(node):
            stack.append((child, state.child(int(tree.action[child]))))
    return np.sort(np.array(found, dtype=np.int64))


def _roots_from_candidates(tree: GameTree, candidates: IntArray) -> IntArray:
    """Candidates with every chance node replaced by its children (repeatedly), leaves dropped."""
    roots, current = [], candidates
    while len(current):
        chance = tree.player[current] == CHANCE
        roots.append(current[~chance & ~tree.is_leaf[current]])
        parents = current[chance]
        sizes = tree.num_children[parents].astype(np.int64)
        starts = np.repeat(tree.child_start[parents].astype(np.int64), sizes)
        current = starts + (
            np.arange(int(sizes.sum())) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        )
    return np.sort(np.concatenate(roots)) if roots else np.zeros(0, dtype=np.int64)


def cut_nodes(tree: GameTree, cut: Cut) -> IntArray:
    """The first nodes of each path at or past `cut` (ascending).

    Chance nodes and leaves are included, before `find_roots` replaces the one by its children
    and drops the other.
    """
    if cut.kind == "predicate":
        assert cut.predicate is not None
        return _predicate_candidates(tree, cut.predicate)
    past = _past_cut(tree, cut)
    above = past[np.maximum(tree.parent, 0)]
    above[0] = False
    return np.flatnonzero(past & ~above)


def find_roots(tree: GameTree, cut: Cut) -> RootSet:
    """The roots of `cut` in `tree` and both players' information states there.

    Raises:
      ValueError: the tree has no pyspiel game, the cut selects no state, the cut splits an
        information set, or a decision information set below the roots spans two of its
        owner's root information sets (see the module docstring).
    """
    if not isinstance(tree, GameTree):
        raise ValueError(
            f"expected a GameTree (e.g. sequence_form.for_game(game).tree), got {tree!r}"
        )
    if not isinstance(cut, Cut):
        raise ValueError(f"{tree.name}: expected a Cut, got {cut!r}")
    if tree.game is None:
        raise ValueError(f"{tree.name}: finding roots needs a tree built from a pyspiel game")
    roots = _roots_from_candidates(tree, cut_nodes(tree, cut))
    if not len(roots):
        raise ValueError(
            f"game {tree.name}: the cut {cut.describe()} selects no non-terminal state"
        )
    keys: list[list[str]] = [[], []]
    for r in roots.tolist():
        state = tree.state(r)
        for p in (0, 1):
            keys[p].append(loading.infoset_key(state, p))
    return root_set(tree, cut, roots, (keys[0], keys[1]))


def root_set(
    tree: GameTree, cut: Cut, roots: ArrayLike, keys: tuple[Sequence[str], Sequence[str]]
) -> RootSet:
    """The `RootSet` of given roots with both players' information states at them.

    The roots are ascending node ids, none below another; the result comes after the checks of
    the module docstring. For trees without a pyspiel game behind them, e.g. a public state of a
    game too large to compile (`depth_limited.sampled.bot`).
    """
    roots = np.asarray(roots, dtype=np.int64)
    if len(keys[0]) != len(roots) or len(keys[1]) != len(roots):
        raise ValueError(f"game {tree.name}: {len(roots)} roots but {len(keys[0])} / "
                         f"{len(keys[1])} information states")  # fmt: skip
    root_index = np.full(tree.num_nodes, -1, dtype=np.int64)
    root_index[roots] = np.arange(len(roots))
    root_of = tree.top_down(
        root_index[0], lambda nodes, up: np.where(root_index[nodes] >= 0, root_index[nodes], up)
    )
    if np.any(root_of[roots] != np.arange(len(roots))):
        raise ValueError(f"game {tree.name}: a root of the cut {cut.describe()} lies below another")
    key_ids = (arrays.intern(list(keys[0])), arrays.intern(list(keys[1])))
    rs = RootSet(
        tree=tree,
        cut=cut,
        roots=roots,
        root_of=root_of,
        keys=(tuple(keys[0]), tuple(keys[1])),
        key_ids=key_ids,
    )
    _check_cut(rs)
    return rs


def _check_cut(rs: RootSet) -> None:
    """The two checks of the module docstring."""
    tree = rs.tree
    decision = np.flatnonzero(tree.infoset >= 0)
    infoset = tree.infoset[decision].astype(np.int64)
    below = rs.root_of[decision] >= 0
    in_trunk = np.bincount(infoset[~below], minlength=tree.num_infosets) > 0
    in_subgame = np.bincount(infoset[below], minlength=tree.num_infosets) > 0
    split = np.flatnonzero(in_trunk & in_subgame)
    if len(split):
        raise ValueError(
            f"game {tree.name}: the cut {rs.cut.describe()} splits information set "
            f"{tree.infoset_key[int(split[0])]!r} (it has nodes above and below the cut)"
        )
    for p in (0, 1):
        mine = below & (tree.infoset_player[infoset] == p)
        pairs = np.unique(
            np.stack([infoset[mine], rs.key_ids[p][rs.root_of[decision[mine]]]]), axis=1
        )
        counts = np.bincount(pairs[0], minlength=tree.num_infosets)
        bad = np.flatnonzero(counts > 1)
        if len(bad):
            raise ValueError(
                f"game {tree.name}: information set {tree.infoset_key[int(bad[0])]!r} of "
                f"player {p} below the cut {rs.cut.describe()} is reached from two of the "
                "player's root information sets; root information sets must be refined by "
                "later ones"
            )


@dataclasses.dataclass(frozen=True, eq=False)
class Subgame:
    """One public state of a cut: the subgame G^{s0} (Section 2.1).

    Attributes:
      index: its index among the cut's subgames.
      root_set: the cut's roots (shared by all subgames of the cut).
      root_indices: indices into `root_set.roots` of this subgame's roots (ascending).
    """

    index: int
    root_set: RootSet
    root_indices: IntArray

    @property
    def tree(self) -> GameTree:
        """The full game tree."""
        return self.root_set.tree

    @property
    def roots(self) -> IntArray:
        """This subgame's root node ids (ascending)."""
        return self.root_set.roots[self.root_indices]

    @property
    def num_roots(self) -> int:
        """Number of this subgame's roots."""
        return len(self.root_indices)

    def root_keys(self, player: int) -> tuple[str, ...]:
        """`player`'s information state at each root."""
        keys = self.root_set.keys[player]
        return tuple(keys[k] for k in self.root_indices.tolist())

    def root_infosets(self, player: int) -> tuple[tuple[str, ...], IntArray]:
        """`player`'s distinct root information states and the index of each root's one.

        The distinct states come in order of first appearance.
        """
        keys = self.root_keys(player)
        ids = arrays.intern(list(keys))
        return tuple(dict.fromkeys(keys)), ids

    @property
    def nodes(self) -> IntArray:
        """The nodes at or below the roots."""
        member = np.zeros(self.root_set.num_roots + 1, dtype=bool)
        member[self.root_indices] = True
        return np.flatnonzero(member[self.root_set.root_of])  # root_of -1 -> the last entry

    def infosets(self, player: int) -> IntArray:
        """Global infoset ids of `player`'s decision information sets in the subgame."""
        nodes = self.nodes
        infoset = self.tree.infoset[nodes]
        infoset = infoset[infoset >= 0]
        return np.unique(infoset[self.tree.infoset_player[infoset] == player]).astype(np.int64)

    def stats(self) -> dict[str, int]:
        """Roots, nodes, decision information sets and root information sets per player."""
        out = {"roots": self.num_roots, "nodes": len(self.nodes)}
        for p in (0, 1):
            out[f"infosets_{p}"] = len(self.infosets(p))
            out[f"root_infosets_{p}"] = len(self.root_infosets(p)[0])
        return out


def public_states(root_set: RootSet, public_key: PublicKey | None = None) -> tuple[Subgame, ...]:
    """The subgames of a cut: connected components of its roots and information sets.

    The components of the graph of roots, root information states and the decision information
    sets below the roots (see the module docstring).

    Args:
      root_set: `find_roots`'s answer.
      public_key: optional public observation of a root state; roots with equal keys are put
        in one subgame (merges components, never splits them).

    Returns:
      The subgames, ordered by their first root.
    """
    if not isinstance(root_set, RootSet):
        raise ValueError(f"expected the RootSet of find_roots, got {root_set!r}")
    rs, tree = root_set, root_set.tree
    n = rs.num_roots
    k0 = int(rs.key_ids[0].max()) + 1
    k1 = int(rs.key_ids[1].max()) + 1
    decision = np.flatnonzero((tree.infoset >= 0) & (rs.root_of >= 0))
    rows: list[IntArray] = [np.arange(n), np.arange(n), rs.root_of[decision]]
    cols: list[IntArray] = [
        n + rs.key_ids[0],
        n + k0 + rs.key_ids[1],
        n + k0 + k1 + tree.infoset[decision].astype(np.int64),
    ]
    size = n + k0 + k1 + tree.num_infosets
    if public_key is not None:
        public = arrays.intern([public_key(tree.state(int(r))) for r in rs.roots])
        rows.append(np.arange(n))
        cols.append(size + public)
        size += int(public.max()) + 1
    row, col = np.concatenate(rows), np.concatenate(cols).astype(np.int64)
    graph = sp.coo_matrix((np.ones(len(row)), (row, col)), shape=(size, size))
    _, labels = csgraph.connected_components(graph, directed=False)
    _, first, inverse = np.unique(labels[:n], return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))[inverse]  # components numbered by their first root
    return tuple(Subgame(k, rs, np.flatnonzero(order == k)) for k in range(int(order.max()) + 1))


def subgames(tree: GameTree, cut: Cut, public_key: PublicKey | None = None) -> tuple[Subgame, ...]:
    """`public_states(find_roots(tree, cut), public_key)`."""
    return public_states(find_roots(tree, cut), public_key)


def parse_cut(spec: str) -> Cut:
    """A cut spec as a `Cut`.

    The spec is 'after_moves=K', 'public_chance', 'after_chance_events=K' or 'module:function'
    (a predicate on pyspiel states).
    """
    if ":" in spec:
        try:
            predicate = callables.load_callable(spec)
        except ValueError as e:
            raise ValueError(f"cut {spec!r}: cannot load the predicate: {e}") from None
        return Cut.where(predicate)
    name, _, arg = spec.partition("=")
    if name == "public_chance" and not arg:
        return Cut.after_public_chance()
    if name in ("after_moves", "after_chance_events") and arg.isdigit():
        return Cut(name, int(arg))  # type: ignore[arg-type]
    raise ValueError(
        f"unknown cut {spec!r}; cuts: after_moves=K, public_chance, after_chance_events=K, "
        "module:function"
    )
