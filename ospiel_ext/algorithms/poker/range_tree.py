"""The public tree laid out for vectorised passes: per round, node x (board, hand orbit) arrays.

Every betting node of round r (decision, terminal or the round's end) is a row of the
round's arrays of shape (nodes, F): F entries, one per board of the round (`deals`) and
hand orbit of that board (`orbits`: one per hand without suit isomorphism) (Johanson,
Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in Large Extensive
Games", IJCAI 2011, Section 3: a vector over private hands at every public node; Johanson et
al., "Efficient Nash Equilibrium Approximation through Monte Carlo Counterfactual Regret
Minimization", AAMAS 2012, Section 3, the public-tree vector form of CFR). Nodes are numbered
breadth first inside a round, so the decisions at one depth, of one player and one action
count, are one `DecisionGroup` whose strategies are one array (n, A, F): a pass over the
tree is a few numpy calls per group, not per node. Policies and files keep per-hand arrays
(n, A, n_B, T) (`RangeTree.expand` / `contract`).

Terminals: a fold pays player 0 a fixed amount u; a showdown pays the pot to the stronger
hand. Against the opponent's reach vector rho at board B, own hand h is worth

    fold:     u_p coef_B m_B(h) (sum_o m_B(o) rho(o) - rho(h)),
    showdown: pot sum_o coef_B W_B(h, o) sign(s_B(h) - s_B(o)) rho(o),

W_B = m_B m_B^T - diag(m_B) the card-removal matrix (Section 4.2), the fold in O(T) and the
showdown as one kernel per board over its orbits (`products` measured a T x T kernel faster
in numpy than Section 4.1's sorted prefix sums); the sums over the opponent's hands o run
over orbits, each weighted by its size (`orbits`). Games whose hands or boards hold several
cards (hold'em) evaluate both by inclusion-exclusion over shared cards and strength-sorted
prefix sums instead (`set_terminals`, `RoundLayout.sets`).
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools

import numpy as np
import scipy.sparse as sp
from numpy.typing import DTypeLike

from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.algorithms.poker import orbits, products
from ospiel_ext.algorithms.poker.deals import RoundDeals, canonical_of, deals
from ospiel_ext.algorithms.poker.orbits import OrbitLayout
from ospiel_ext.algorithms.poker.set_terminals import SetTerminals
from ospiel_ext.algorithms.poker.structure import PokerStructure
from ospiel_ext.arrays import FloatArray, IntArray

Arrays = list[list[FloatArray]]
"""Per round, per decision group, an array: strategies, regrets, averages.

(n, A, F) per entry in the passes, (n, A, n_B, T) per hand in policies and files
(`RangeTree.expand`)."""

STRENGTH_BLOCK = 1 << 20
"""(board, hand) pairs whose showdown strengths are evaluated at once."""


@dataclasses.dataclass(frozen=True, eq=False)
class DecisionGroup:
    """Decisions of one round, depth, player and action count.

    Attributes:
      player: who acts.
      nodes: (n,) their rows in the round's arrays.
      children: (n, A) the rows of their children, in action order.
      betting: the BettingNodes, in row order.
    """

    player: int
    nodes: IntArray
    children: IntArray
    betting: tuple[BettingNode, ...]

    @property
    def num_actions(self) -> int:
        """A."""
        return int(self.children.shape[1])

    @functools.cached_property
    def rows(self) -> slice | IntArray:
        """`nodes` as a slice where they are consecutive (a view, not a copy), else `nodes`."""
        first = int(self.nodes[0])
        if np.array_equal(self.nodes, np.arange(first, first + len(self.nodes))):
            return slice(first, first + len(self.nodes))
        return self.nodes

    def child_rows(self, action: int) -> slice:
        """The rows of the children by `action`: consecutive, in the group's order (`_rows`)."""
        first = int(self.children[0, action])
        return slice(first, first + len(self.nodes))


@dataclasses.dataclass(frozen=True)
class DecisionEntry:
    """Where a decision's strategy is: round, decision group, index in the group, row."""

    round: int
    group: int
    index: int
    row: int
    node: BettingNode


@dataclasses.dataclass(frozen=True, eq=False)
class RoundLayout:
    """One betting round's nodes, boards and terminals.

    Attributes:
      round: the betting round.
      num_nodes: its betting nodes.
      deals: its boards (`deals.RoundDeals`).
      orbits: its entries, one per (board, hand orbit) (`orbits.OrbitLayout`).
      groups: its decision groups, shallowest first.
      folds, fold_payoff: fold terminals' rows and player 0's payoff there (`fold_runs`:
        the rows as runs of consecutive rows).
      showdowns, pot: showdown terminals' rows and the pot the stronger hand wins.
      ends: rows of the nodes that end the round; `starts` the next round's rows they lead to.
      fold_weight: (F,) coef_B m_B(h) at each entry's representative.
      count_weight: (F,) m_B(h) times the orbit's size: the opponent's hands it stands for.
      kernels: per segment of `orbits`, the transposed showdown kernels over orbits
        (`orbits.kernels`), or None without showdowns or with `sets`.
      parent_entry: (F,) each entry's entry in the round before (`orbits.parent_entries`);
        None in the first round.
      deal_matrix: (F, F of the round before) the deal summing this round's values into the
        round before's (`orbits.deal_matrix`); None in the first round.
      sets: the folds and showdowns of a game whose hands or boards hold several cards
        (`set_terminals`), in place of the one-card weights and kernels; None otherwise.
    """

    round: int
    num_nodes: int
    deals: RoundDeals
    orbits: OrbitLayout
    groups: tuple[DecisionGroup, ...]
    folds: IntArray
    fold_payoff: FloatArray
    showdowns: IntArray
    pot: FloatArray
    ends: IntArray
    starts: IntArray
    fold_weight: FloatArray
    count_weight: FloatArray
    kernels: list[FloatArray] | None
    parent_entry: IntArray | None
    deal_matrix: sp.csc_matrix | None
    sets: SetTerminals | None = None

    @property
    def shape(self) -> tuple[int, int]:
        """(nodes, F): the shape of the round's value and reach arrays."""
        return (self.num_nodes, self.orbits.width)

    def dealt(self, values: FloatArray) -> FloatArray:
        """Values at this round's first rows (rows, F) summed over the cards dealt.

        The values at the round before's ends (rows, F of the round before): `deal_matrix`.

        Raises:
          ValueError: this is the first round (nothing is dealt into it from a round before).
        """
        if self.deal_matrix is None:
            raise ValueError(f"round {self.round} is the first: no deal into it")
        out: FloatArray = (self.deal_matrix.T @ values.T).T
        return out

    @functools.cached_property
    def fold_runs(self) -> tuple[tuple[slice, slice], ...]:
        """`row_runs` of the folds: (rows, positions in folds / fold_payoff)."""
        return row_runs(self.folds)


class RangeTree:
    """The public tree of a `PokerStructure` as `RoundLayout`s (module docstring).

    Args:
      structure: the poker structure.
      suits: one board per suit orbit (`deals`).
      card_sets: evaluate terminals as hands of card sets (`set_terminals`), the one-card
        games' kernels otherwise; None: as the game needs (`PokerStructure.card_sets`), and
        a game of one-card hands and distinct cards may take either (the tests compare them).
    """

    def __init__(
        self, structure: PokerStructure, *, suits: bool = False, card_sets: bool | None = None
    ):
        self.structure, self.suits = structure, suits
        self.card_sets = structure.card_sets if card_sets is None else card_sets
        if self.card_sets and int(structure.copies.max()) > 1:
            raise ValueError(
                f"game {structure.name}: hands of card sets need distinct cards, and it deals "
                "card types in several copies"
            )
        self.deals = deals(structure, suits=suits)
        rows = _rows(structure.betting)
        rounds: list[RoundLayout] = []
        for r in range(len(structure.public_cards)):
            rounds.append(self._round(r, rows, self.deals[r], rounds[-1] if r else None))
        self.rounds = tuple(rounds)

    @property
    def per_hand_shapes(self) -> list[list[tuple[int, ...]]]:
        """Per round and decision group, the shape (n, A, n_B, H) of a per-hand array."""
        return [
            [(len(g.nodes), g.num_actions, *lay.deals.multiplicity.shape) for g in lay.groups]
            for lay in self.rounds
        ]

    def uniform(self, dtype: DTypeLike = np.float64) -> Arrays:
        """Uniform strategies of both players, per entry (n, A, F) per round and group."""
        return [
            [
                np.full(
                    (len(g.nodes), g.num_actions, lay.shape[1]), 1.0 / g.num_actions, dtype=dtype
                )
                for g in lay.groups
            ]
            for lay in self.rounds
        ]

    def expand(self, arrays: Arrays, fill: float | None = None) -> Arrays:
        """Per-entry arrays (n, A, F) as per-hand arrays (n, A, n_B, T) (`orbits.expand`).

        `fill` at the hands a board excludes; None: 1 / A, the uniform strategy.
        """
        return [
            [
                orbits.expand(lay.orbits, a, 1.0 / a.shape[1] if fill is None else fill)
                for a in per_round
            ]
            for lay, per_round in zip(self.rounds, arrays)
        ]

    def contract(self, arrays: Arrays) -> Arrays:
        """Per-hand arrays (n, A, n_B, T) as per-entry arrays (n, A, F) (`orbits.contract`)."""
        return [
            [orbits.contract(lay.orbits, a) for a in per_round]
            for lay, per_round in zip(self.rounds, arrays)
        ]

    @functools.cached_property
    def actual_deals(self) -> tuple[RoundDeals, ...]:
        """Every actual board of each round (`deals.deals`; `deals` itself without suits)."""
        return deals(self.structure) if self.suits else self.deals

    @functools.cached_property
    def canonical(self) -> list[tuple[IntArray, IntArray]]:
        """Per round, each actual board's laid-out board and hand relabelling.

        `deals.canonical_of`: where an actual information set's entry is.
        """
        return canonical_of(self.deals, self.actual_deals)

    @functools.cached_property
    def decisions(self) -> dict[str, DecisionEntry]:
        """Betting key -> where the decision with that key is in the tree's arrays."""
        return {
            node.key: DecisionEntry(r, k, j, int(g.nodes[j]), node)
            for r, lay in enumerate(self.rounds)
            for k, g in enumerate(lay.groups)
            for j, node in enumerate(g.betting)
        }

    @functools.cached_property
    def keys(self) -> tuple[tuple[str, ...], ...]:
        """Per round, the betting key of each row."""
        per_round: list[dict[int, str]] = [{} for _ in self.rounds]
        for r, row, node in _rows(self.structure.betting).values():
            per_round[r][row] = node.key
        return tuple(tuple(keys[i] for i in range(len(keys))) for keys in per_round)

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.structure.name

    def _round(
        self,
        r: int,
        rows: dict[int, tuple[int, int, BettingNode]],
        dl: RoundDeals,
        before: RoundLayout | None,
    ) -> RoundLayout:
        mine = sorted(
            ((row, node) for rr, row, node in rows.values() if rr == r), key=lambda x: x[0]
        )
        by_key: dict[tuple[int, int, int], list[BettingNode]] = collections.defaultdict(list)
        folds, fold_payoff, showdowns, pot, ends, starts = [], [], [], [], [], []
        for row, node in mine:
            if node.utility is not None:
                values = set(node.utility.values())
                if len(values) > 1:
                    showdowns.append(row)
                    pot.append(node.utility[1])
                else:
                    folds.append(row)
                    fold_payoff.append(values.pop())
            elif node.next_round:
                ends.append(row)
                starts.append(rows[id(node.children[0])][1])
            else:
                by_key[_depth(node), *_group_key(node)].append(node)
        groups = tuple(
            DecisionGroup(
                player=player,
                nodes=np.array([rows[id(n)][1] for n in nodes], dtype=np.int64),
                children=np.array(
                    [[rows[id(c)][1] for c in n.children] for n in nodes], dtype=np.int64
                ),
                betting=tuple(nodes),
            )
            for (_, player, _), nodes in sorted(by_key.items())
        )
        for g in groups:  # the layout the passes rely on (`_rows`)
            n = np.arange(len(g.nodes))[:, None]
            assert np.array_equal(g.children, g.children[0] + n), "children not consecutive"
        entries = orbits.layout(dl)
        m = dl.multiplicity.astype(np.float64)
        strength = None
        if showdowns:
            b, h = np.nonzero(dl.multiplicity > 0)
            strength = np.full(dl.multiplicity.shape, -1, dtype=np.int64)
            # in blocks: the hand evaluator's temporaries are tens of times its input
            # (52-card flops without suit isomorphism: 26 M pairs)
            for i in range(0, len(b), STRENGTH_BLOCK):
                bb, hh = b[i : i + STRENGTH_BLOCK], h[i : i + STRENGTH_BLOCK]
                strength[bb, hh] = self.structure.strength(dl.hands.cards[hh], dl.types[bb])
        sets = SetTerminals(dl, entries, strength) if self.card_sets else None
        kernels = None
        if strength is not None and sets is None:
            kernels = orbits.kernels(entries, products.kernel(m, dl.coef, strength))
        m_entry = m[entries.board, entries.hand]
        return RoundLayout(
            round=r,
            num_nodes=len(mine),
            deals=dl,
            orbits=entries,
            groups=groups,
            folds=np.array(folds, dtype=np.int64),
            fold_payoff=np.array(fold_payoff, dtype=np.float64),
            showdowns=np.array(showdowns, dtype=np.int64),
            pot=np.array(pot, dtype=np.float64),
            ends=np.array(ends, dtype=np.int64),
            starts=np.array(starts, dtype=np.int64),
            fold_weight=dl.coef[entries.board] * m_entry,
            count_weight=entries.size * m_entry,
            kernels=kernels,
            parent_entry=None
            if before is None
            else orbits.parent_entries(entries, dl, before.orbits),
            deal_matrix=None if before is None else orbits.deal_matrix(entries, dl, before.orbits),
            sets=sets,
        )


def by_key(
    source: RangeTree,
    arrays: Arrays,
    target: RangeTree,
    *,
    into: Arrays | None = None,
    player: int | None = None,
) -> Arrays:
    """Per-entry arrays of `source` on `target`, decision by betting key.

    Two layouts of one game under different action abstractions (the same entries): each
    decision of `target` whose key `source` has, with the same actions, takes `source`'s
    arrays there (only `player`'s decisions if given); the others keep `into`'s (a copy) or
    play uniformly.
    """
    out = (
        target.uniform()
        if into is None
        else [[np.array(a) for a in per_round] for per_round in into]
    )
    known = source.decisions
    for key, e in target.decisions.items():
        s = known.get(key)
        if s is None or s.node.actions != e.node.actions:
            continue
        if player is None or e.node.player == player:
            out[e.round][e.group][e.index] = arrays[s.round][s.group][s.index]
    return out


def _depth(node: BettingNode) -> int:
    """Actions since the round began (the key counts them: each ends with ',')."""
    return node.key.rsplit("|", 1)[-1].count(",")


def _rows(root: BettingNode) -> dict[int, tuple[int, int, BettingNode]]:
    """id(node) -> (round, row, node): rows level by level inside each round.

    A level's decisions are taken group by group (`_group_key`, nodes in row order) and each
    group's children action by action, so the children of one group and action are
    consecutive rows in the group's order: a pass reads and writes them as slices. A round
    begins with the nodes its deal leads to, in the order of the round ends before it.
    """
    out: dict[int, tuple[int, int, BettingNode]] = {}
    level, r = [root], 0
    while level:
        count, ends = 0, []
        while level:
            for node in level:
                out[id(node)] = (r, count, node)
                count += 1
            groups: dict[tuple[int, int], list[BettingNode]] = collections.defaultdict(list)
            for node in level:
                if node.next_round:
                    ends.append(node)
                elif node.utility is None:
                    groups[_group_key(node)].append(node)
            level = [
                nodes[i].children[a]
                for key in sorted(groups)
                for nodes in [groups[key]]
                for a in range(key[1])
                for i in range(len(nodes))
            ]
        level, r = [end.children[0] for end in ends], r + 1
    return out


def _group_key(node: BettingNode) -> tuple[int, int]:
    """(player, actions): decisions of one level with the same key form a group."""
    return node.player, len(node.actions)


def fold_values(
    layout: RoundLayout, rho: FloatArray, payoff: FloatArray, entries: slice, *, out: FloatArray
) -> None:
    """Writes (n, F') own values at folds against the opponent's reach rho (n, F') to out.

    In rho's floating-point type; rho and out cover the round's `entries` (whole boards);
    both may be views (`RoundLayout.fold_runs`).
    """
    if layout.sets is not None:
        out[...] = layout.sets.fold(rho, payoff, entries)
        return
    weight = layout.count_weight[entries].astype(rho.dtype)
    for part, q, _ in layout.orbits.cut(entries):
        w = layout.orbits.segments[q].width
        x = _by_board(rho, part, w)
        total = np.einsum("nkw,kw->nk", x, weight[part].reshape(-1, w))
        np.subtract(total[:, :, None], x, out=_by_board(out, part, w))
    out *= layout.fold_weight[entries].astype(rho.dtype, copy=False)
    out *= payoff.astype(rho.dtype, copy=False)[:, None]


def showdown_values(layout: RoundLayout, rho: FloatArray, entries: slice) -> FloatArray:
    """(n, F') own values at showdowns against the opponent's reach rho (n, F').

    In rho's floating-point type; rho and the result cover the round's `entries`. One
    batched product per segment, (boards, n, w) @ (boards, w, w), written into the result's
    view (no copy of the product). rho is gathered over all the showdowns, not read run by
    run as in `fold_values`: a product's rounding depends on its row count, and float32 runs
    replay their iterates bit for bit.
    """
    if layout.sets is not None:
        return layout.sets.showdown(rho, layout.pot, entries)
    assert layout.kernels is not None
    out = np.empty_like(rho)
    for part, q, boards in layout.orbits.cut(entries):
        w = layout.orbits.segments[q].width
        kernel_t = layout.kernels[q][boards].astype(rho.dtype, copy=False)
        x = _by_board(rho, part, w).transpose(1, 0, 2)
        np.matmul(x, kernel_t, out=_by_board(out, part, w).transpose(1, 0, 2))
    out *= layout.pot.astype(rho.dtype, copy=False)[:, None]
    return out


def _by_board(a: FloatArray, part: slice, width: int) -> FloatArray:
    """a[:, part] as a (n, boards, width) view: a part holds whole boards of one width."""
    return a[:, part].reshape(len(a), -1, width, copy=False)


def row_runs(rows: IntArray) -> tuple[tuple[slice, slice], ...]:
    """Per run of consecutive rows: the rows' slice and the slice of their positions.

    A pass reads and writes a run as views, not a gathered copy.
    """
    edges = [0, *(np.flatnonzero(np.diff(rows) != 1) + 1).tolist(), len(rows)]
    return tuple(
        (slice(int(rows[i]), int(rows[j - 1]) + 1), slice(i, j))
        for i, j in itertools.pairwise(edges)
        if j > i
    )
