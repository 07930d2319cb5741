"""The public tree laid out for vectorised passes: per round, node x board x hand arrays.

Every betting node of round r (decision, terminal or the round's end) is a row of the
round's arrays of shape (nodes, n_B, T): n_B the round's boards (`deals`), T the hands
(Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in Large
Extensive Games", IJCAI 2011, Section 3: a vector over private hands at every public node;
Johanson et al., "Efficient Nash Equilibrium Approximation through Monte Carlo Counterfactual
Regret Minimization", AAMAS 2012, Section 3, the public-tree vector form of CFR). Nodes are
numbered breadth first inside a round, so the decisions at one depth, of one player and one
action count, are one `DecisionGroup` whose strategies are one array (n, A, n_B, T): a pass
over the tree is a few numpy calls per group, not per node.

Terminals: a fold pays player 0 a fixed amount u; a showdown pays the pot to the stronger
hand. Against the opponent's reach vector rho at board B, own hand h is worth

    fold:     u_p coef_B m_B(h) (sum_o m_B(o) rho(o) - rho(h)),
    showdown: pot sum_o coef_B W_B(h, o) sign(s_B(h) - s_B(o)) rho(o),

W_B = m_B m_B^T - diag(m_B) the card-removal matrix (Section 4.2), the fold in O(T) and the
showdown as one T x T kernel per board (`products` measured it faster in numpy than
Section 4.1's sorted prefix sums).
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import numpy as np
import scipy.sparse as sp

from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.algorithms.poker import products
from ospiel_ext.algorithms.poker.deals import RoundDeals, canonical_of, deals
from ospiel_ext.algorithms.poker.structure import PokerStructure
from ospiel_ext.arrays import FloatArray, IntArray

Arrays = list[list[FloatArray]]
"""Per round, per decision group, an array (n, A, n_B, T): strategies, regrets, averages."""


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


@dataclasses.dataclass(frozen=True, eq=False)
class RoundLayout:
    """One betting round's nodes, boards and terminals.

    Attributes:
      round: the betting round.
      num_nodes: its betting nodes.
      deals: its boards (`deals.RoundDeals`).
      groups: its decision groups, shallowest first.
      folds, fold_payoff: fold terminals' rows and player 0's payoff there.
      showdowns, pot: showdown terminals' rows and the pot the stronger hand wins.
      ends: rows of the nodes that end the round; `starts` the next round's rows they lead to.
      fold_weight: (n_B, T) coef_B m_B(h).
      kernel_t: (n_B, T, T) the transposed showdown kernels, or None without showdowns.
      symmetrise: with suit isomorphism, in a round that a deal follows, the (n_B T, n_B T)
        matrix averaging values over each hand orbit of each board (`deals.RoundDeals`
        hand_orbit); None otherwise.
    """

    round: int
    num_nodes: int
    deals: RoundDeals
    groups: tuple[DecisionGroup, ...]
    folds: IntArray
    fold_payoff: FloatArray
    showdowns: IntArray
    pot: FloatArray
    ends: IntArray
    starts: IntArray
    fold_weight: FloatArray
    kernel_t: FloatArray | None
    symmetrise: sp.csr_matrix | None

    @property
    def shape(self) -> tuple[int, int, int]:
        """(nodes, n_B, T): the shape of the round's value and reach arrays."""
        return (self.num_nodes, self.deals.num_boards, self.deals.remaining.shape[1])


class RangeTree:
    """The public tree of a `PokerStructure` as `RoundLayout`s (module docstring).

    Args:
      structure: the poker structure.
      suits: one board per suit orbit (`deals`).
    """

    def __init__(self, structure: PokerStructure, *, suits: bool = False):
        self.structure, self.suits = structure, suits
        self.deals = deals(structure, suits=suits)
        rows = _rows(structure.betting)
        self.rounds = tuple(
            self._round(r, rows, self.deals[r]) for r in range(len(structure.public_cards))
        )

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

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.structure.name

    def _round(
        self, r: int, rows: dict[int, tuple[int, int, BettingNode]], dl: RoundDeals
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
        m = dl.remaining.astype(np.float64)
        kernel_t = None
        if showdowns:
            b, h = np.nonzero(dl.remaining > 0)
            strength = np.full(dl.remaining.shape, -1, dtype=np.int64)
            strength[b, h] = self.structure.strength(h, dl.types[b])
            kernel_t = np.ascontiguousarray(
                products.kernel(m, dl.coef, strength).transpose(0, 2, 1)
            )
        return RoundLayout(
            round=r,
            num_nodes=len(mine),
            deals=dl,
            groups=groups,
            folds=np.array(folds, dtype=np.int64),
            fold_payoff=np.array(fold_payoff, dtype=np.float64),
            showdowns=np.array(showdowns, dtype=np.int64),
            pot=np.array(pot, dtype=np.float64),
            ends=np.array(ends, dtype=np.int64),
            starts=np.array(starts, dtype=np.int64),
            fold_weight=dl.coef[:, None] * m,
            kernel_t=kernel_t,
            symmetrise=_orbit_means(dl) if r + 1 < len(self.deals) else None,
        )


def _orbit_means(dl: RoundDeals) -> sp.csr_matrix | None:
    """P such that x @ P averages x (board x hand, flat) over each hand orbit; None if trivial.

    Every member of an orbit gets the same sum, in the same order (one column pattern per
    orbit), so symmetric entries stay bit for bit equal.
    """
    n_b, t = dl.hand_orbit.shape
    if np.array_equal(dl.hand_orbit, np.broadcast_to(np.arange(t), (n_b, t))):
        return None
    key = (np.arange(n_b)[:, None] * t + dl.hand_orbit).ravel()
    size = np.bincount(key, minlength=n_b * t)[key].astype(np.float64)
    order = np.argsort(key, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(key[order]) != 0])
    rows, cols = [], []
    for members in np.split(order, starts[1:]):
        rows.append(np.repeat(members, len(members)))
        cols.append(np.tile(members, len(members)))
    r, c = np.concatenate(rows), np.concatenate(cols)
    return sp.csr_matrix((1.0 / size[c], (r, c)), shape=(n_b * t, n_b * t))


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
    layout: RoundLayout, rho: FloatArray, payoff: FloatArray, boards: slice
) -> FloatArray:
    """(n, n_B, T) own values at folds against the opponent's reach rho (n, n_B, T).

    In rho's floating-point type; rho and the result cover the round's `boards`.

    Overwrites rho (a gathered copy) with the result.
    """
    total = np.einsum("nbt,bt->nb", rho, layout.deals.remaining[boards].astype(rho.dtype))
    np.subtract(total[:, :, None], rho, out=rho)
    rho *= layout.fold_weight[boards].astype(rho.dtype, copy=False)
    rho *= payoff.astype(rho.dtype, copy=False)[:, None, None]
    return rho


def showdown_values(layout: RoundLayout, rho: FloatArray, boards: slice) -> FloatArray:
    """(n, n_B, T) own values at showdowns against the opponent's reach rho (n, n_B, T).

    In rho's floating-point type; rho and the result cover the round's `boards`.
    """
    assert layout.kernel_t is not None
    kernel_t = layout.kernel_t[boards].astype(rho.dtype, copy=False)
    per_board = np.matmul(rho.transpose(1, 0, 2), kernel_t)  # (n_B, n, T)
    out: FloatArray = (
        per_board.transpose(1, 0, 2) * layout.pot.astype(rho.dtype, copy=False)[:, None, None]
    )
    return out


def dealt_values(
    dealt: RoundDeals, v_next: FloatArray, ends: IntArray, boards: slice
) -> FloatArray:
    """(len(ends), n_B, T) values at a round's ends: the next round's first rows, summed.

    v_B(h) = sum_c v_canon(B + c)(pi_c(h)) over the cards c dealt to each of the round's
    `boards` (`deals` module docstring); `dealt` is the next round's `RoundDeals`, v_next its
    values, whose first rows follow `ends`.
    """
    n_b = len(dealt.deal_starts)
    first, stop, _ = boards.indices(n_b)
    starts = dealt.deal_starts[first:stop]
    end = dealt.deal_starts[stop] if stop < n_b else len(dealt.deal_child)
    e = slice(int(starts[0]), int(end))
    values = v_next[: len(ends)][:, dealt.deal_child[e, None], dealt.deal_perm[e]]
    out: FloatArray = np.add.reduceat(values, starts - starts[0], axis=1)
    return out
