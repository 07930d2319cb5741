"""The public tree of a poker game: betting sequences x public boards, with hand ranges.

A *public state* is a betting node of round r (`stage_games.BettingNode`) and a board, the
public card types dealt so far (Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best
Response Calculation in Large Extensive Games", IJCAI 2011, Section 3; Johanson et al.,
"Efficient Nash Equilibrium Approximation through Monte Carlo Counterfactual Regret
Minimization", AAMAS 2012, Section 3, for the vector form). An information set of player p
is a public state where p acts times p's private card type h (a *hand*) that the board
leaves in the deck. All arrays over hands have the T card types as last axis.

Chance. Cards are dealt uniformly without replacement from `copies[t]` cards of each type.
With m_B(t) = copies[t] - (cards of type t on board B), the chance probability of the
private types (h0, h1) and board B is

    P(h0, h1, B) = coef_B * m_B(h0) * (m_B(h1) - [h0 = h1]),   coef_B = n_B / (N)_(2 + |B|),

n_B the card-level ways to deal B and (N)_k the falling factorial: the card-removal matrix
W_B = m_B m_B^T - diag(m_B) of the inclusion-exclusion in Johanson et al. 2011, Section 4.2.

Numbering. The treeplexes are those of `sequence_form.for_game(game)` exactly: its GameTree
is walked depth first with the last child first (`walk.game_tree`), so infosets are
numbered in the order of their first history in that walk, the lexicographically largest
history (chance outcomes and legal actions are listed in increasing action id by every
described game): the opponent's largest compatible card type. Sorting every infoset's first
history, last child first and a prefix before its extensions, gives the GameTree's infoset
ids; `Treeplex.from_provisional` with the GameTree's provisional sequence ids then gives the
same treeplexes (every array, tested), without building the game tree.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.algorithms.poker import deals
from ospiel_ext.algorithms.poker.structure import PokerStructure, refuse
from ospiel_ext.arrays import IntArray
from ospiel_ext.treeplex import Treeplex

_PAD = -(2**40)  # history padding: sorts before every (negated) action
# The most information sets a PublicTree numbers: its first-history array takes about 100
# bytes per information set (Rhode Island Hold'em's 52 M would be 7 GB), and a TabularPolicy
# of them far more.
MAX_INFOSETS = 10_000_000


class TooManyInfosetsError(ValueError):
    """A public tree with more than `MAX_INFOSETS` information sets.

    A tabular numbering would not fit; the range layout with suit isomorphism does
    (`range_cfr.for_game`).
    """


@dataclasses.dataclass(frozen=True, eq=False)
class BettingPoint:
    """A decision or terminal of the betting tree, flattened.

    Attributes:
      node: the BettingNode.
      round: its betting round.
      path: its history from the first betting decision: action ids, and -(round + 1) where
        round `round`'s public card is dealt.
      last: per player, (index of the player's last decision above it, action index), or None.
    """

    node: BettingNode
    round: int
    path: tuple[int, ...]
    last: tuple[tuple[int, int] | None, tuple[int, int] | None]


def _flatten(root: BettingNode) -> tuple[list[BettingPoint], list[BettingPoint]]:
    """(decisions, terminals) of the betting tree."""
    decisions: list[BettingPoint] = []
    terminals: list[BettingPoint] = []
    stack: list[tuple[BettingNode, tuple, tuple]] = [(root, (), (None, None))]
    while stack:
        node, path, last = stack.pop()
        if node.utility is not None:
            terminals.append(BettingPoint(node, node.round, path, last))
        elif node.next_round:
            child = node.children[0]
            stack.append((child, (*path, -(child.round + 1)), last))
        else:
            decisions.append(BettingPoint(node, node.round, path, last))
            d = len(decisions) - 1
            for a, child in enumerate(node.children):
                acted = list(last)
                acted[node.player] = (d, a)
                stack.append((child, (*path, node.actions[a]), tuple(acted)))
    return decisions, terminals


class PublicTree:
    """The public tree of a `PokerStructure` and both players' treeplexes.

    Infoset *rows* number every (decision d, board b, hand h) with m_b(h) > 0, decision-major:
    row = row_offset[d] + compatible_rank[round of d][b, h].

    Args:
      structure: the poker structure.
      max_infosets: refuse (ValueError, naming the game and the way to solve it) a tree with
        more information sets; None: no limit.

    Attributes:
      structure: the PokerStructure.
      boards: each round's boards and chance weights (`deals.RoundDeals`).
      decisions, terminals: the flattened betting tree.
      treeplexes: the two treeplexes, numbered as `sequence_form.for_game`'s.
      row_offset, compatible_rank: the row numbering above (rank -1: incompatible).
      row_infoset: the owner's treeplex infoset of every row.
      first_history: every row's first history in the GameTree walk (pyspiel action ids).
    """

    def __init__(self, structure: PokerStructure, max_infosets: int | None = MAX_INFOSETS):
        if structure.card_sets:
            raise refuse(
                structure.name,
                "hands or boards of several cards (the tabular numbering of the public tree "
                "is built for one-card hands and boards; the range layout solves such games: "
                "poker.range_cfr.for_game(game), or ospiel-ext solve --form=public_tree --suits)",
            )
        self.structure = structure
        self.boards = deals.deals(structure)
        self.decisions, self.terminals = _flatten(structure.betting)
        self.compatible_rank = tuple(
            np.where(b.remaining > 0, np.cumsum(b.remaining > 0).reshape(b.remaining.shape) - 1, -1)
            for b in self.boards
        )
        sizes = [int((self.boards[bp.round].remaining > 0).sum()) for bp in self.decisions]
        self.row_offset = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        if max_infosets is not None and self.row_offset[-1] > max_infosets:
            raise TooManyInfosetsError(
                f"game {structure.name}: its public tree has {int(self.row_offset[-1]):,} "
                f"information sets, more than {max_infosets:,} (the numbering and "
                "TabularPolicy of every one would not fit); solve it on the range layout "
                "with suit isomorphism: poker.range_cfr.for_game(game, config), or "
                "ospiel-ext solve --form=public_tree --suits"
            )
        self.first_history = self._first_histories()
        keys = np.where(self.first_history == _PAD, _PAD, -self.first_history)
        order = np.lexsort(keys.T[::-1])  # last child first, a prefix before its extensions
        global_id = np.empty(len(order), dtype=np.int64)
        global_id[order] = np.arange(len(order))
        row_infoset = np.empty(len(order), dtype=np.int64)
        tps = []
        for p in (0, 1):
            tp, mine = self._treeplex(p, global_id)
            local = np.empty(len(global_id), dtype=np.int64)  # GameTree id -> local infoset
            local[tp.infoset_ids] = np.arange(tp.num_infosets)
            row_infoset[mine] = local[global_id[mine]]
            tps.append(tp)
        self.treeplexes: tuple[Treeplex, Treeplex] = (tps[0], tps[1])
        self.row_infoset = row_infoset

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.structure.name

    def decision_rows(self, d: int) -> tuple[IntArray, IntArray]:
        """(boards, hands) of decision d's rows, in row order."""
        boards, hands = np.nonzero(self.compatible_rank[self.decisions[d].round] >= 0)
        return boards.astype(np.int64), hands.astype(np.int64)

    def board_prefix(self, boards: IntArray, round_: int, earlier: int) -> IntArray:
        """The boards of round `earlier` that are prefixes of `boards` of round `round_`."""
        for r in range(round_, earlier, -1):
            boards = self.boards[r].parent[boards]
        return boards

    def rows_of(self, d: int, boards: IntArray, hands: IntArray) -> IntArray:
        """Rows of decision d at (boards of d's round, hands); -1 where incompatible."""
        rank = self.compatible_rank[self.decisions[d].round][boards, hands]
        return np.where(rank >= 0, self.row_offset[d] + rank, -1)

    def sequences_at(
        self,
        player: int,
        last: tuple[int, int] | None,
        *,
        round_: int,
        boards: IntArray,
        hands: IntArray,
    ) -> IntArray:
        """`player`'s sequence after its decision-and-action `last` at (boards, hands).

        `last` None is the empty sequence; `boards` are boards of round `round_`, broadcast
        against `hands`; 0 where a hand is incompatible with its board.
        """
        if last is None:
            return np.zeros(np.broadcast(boards, hands).shape, dtype=np.int64)
        d, a = last
        rows = self.rows_of(d, self.board_prefix(boards, round_, self.decisions[d].round), hands)
        tp = self.treeplexes[player]
        return np.where(rows >= 0, tp.seq_start[self.row_infoset[rows]] + a, 0)

    def _first_histories(self) -> IntArray:
        """Per infoset row, the action ids of its first history in the GameTree walk.

        The two private types (own, and the opponent's largest compatible one), then the path
        with each public card; _PAD after its end.
        """
        T = self.structure.num_types
        length = 2 + max((len(bp.path) for bp in self.decisions), default=0)
        out = np.full((int(self.row_offset[-1]), length), _PAD, dtype=np.int64)
        for d, bp in enumerate(self.decisions):
            rows = slice(self.row_offset[d], self.row_offset[d + 1])
            boards, hands = self.decision_rows(d)
            avail = self.boards[bp.round].remaining[boards] - (np.arange(T) == hands[:, None])
            other = T - 1 - np.argmax((avail > 0)[:, ::-1], axis=1)
            out[rows, bp.node.player] = hands
            out[rows, 1 - bp.node.player] = other
            for j, a in enumerate(bp.path):
                # an action, or round -a - 1's public card: the board's card -a - 2
                out[rows, 2 + j] = a if a >= 0 else self.boards[bp.round].types[boards, -a - 2]
        return out

    def _treeplex(self, player: int, global_id: IntArray) -> tuple[Treeplex, IntArray]:
        """The player's treeplex (from the GameTree's provisional sequence ids) and its rows."""
        num_actions = np.zeros(len(global_id), dtype=np.int64)
        for d, bp in enumerate(self.decisions):
            num_actions[self.row_offset[d] : self.row_offset[d + 1]] = len(bp.node.actions)
        # provisional first sequence of each row of the player: 1 + actions of its earlier
        # infosets in GameTree order (Treeplex.build's numbering)
        mine = np.flatnonzero(
            np.repeat([bp.node.player == player for bp in self.decisions], np.diff(self.row_offset))
        )
        mine = mine[np.argsort(global_id[mine])]
        row_first = np.zeros(len(global_id), dtype=np.int64)
        row_first[mine] = 1 + np.concatenate([[0], np.cumsum(num_actions[mine])[:-1]])
        prov_parent = np.zeros(len(global_id), dtype=np.int64)
        for d, bp in enumerate(self.decisions):
            last = bp.last[player]
            if bp.node.player != player or last is None:
                continue
            boards, hands = self.decision_rows(d)
            d_prev, a = last
            prev = self.rows_of(
                d_prev, self.board_prefix(boards, bp.round, self.decisions[d_prev].round), hands
            )
            prov_parent[self.row_offset[d] : self.row_offset[d + 1]] = row_first[prev] + a
        width = max((len(bp.node.actions) for bp in self.decisions), default=0)
        table = np.zeros((len(self.decisions), width), dtype=np.int64)
        for d, bp in enumerate(self.decisions):
            table[d, : len(bp.node.actions)] = bp.node.actions
        per_row = table[self._row_decision[mine]]
        actions = per_row[np.arange(width)[None, :] < num_actions[mine][:, None]]
        tp, _ = Treeplex.from_provisional(
            player,
            global_id[mine],
            num_actions[mine],
            prov_first=row_first[mine],
            prov_parent=prov_parent[mine],
            prov_actions=actions,
        )
        return tp, mine

    @functools.cached_property
    def _row_decision(self) -> IntArray:
        return np.repeat(np.arange(len(self.decisions)), np.diff(self.row_offset))
