"""The game Γ_f induced by an information filter, its size, and its sequence form.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Section 3.2.

In Γ_f each player observes the class of its view instead of the view. Histories that no player
can tell apart at any point (the same classes for both players in every round, the same
betting) are one node: chance deals a pair of classes (player 0's, player 1's) per round with
the total probability of the deals in it (`joint_classes.JointClasses`), and a showdown pays the
expected payoff over those deals ("we take the average over all real signals in the filtered
class weighted by the probability of each real signal occurring"). `AbstractGame.tree` is that
game as a `GameTree`; solvers get `AbstractGame.sequence_form`, the same sequence form built
from the product of the betting tree and the class pairs without the tree
(`ProductSequenceForm`), which every ospiel_ext solver (LP, CFR+, EGT) and evaluator
(exploitability, per-infoset regrets, certificate bounds) accepts and which fits Rhode Island
Hold'em's 3.9 M sequences per player. Strategies of Γ_f are played in the original game by
`lifting` (Theorem 2).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import scipy.sparse as sp

from ospiel_ext import lp
from ospiel_ext.algorithms.gameshrink.joint_classes import JointClasses
from ospiel_ext.algorithms.gameshrink.shrink import Abstraction
from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.arrays import IntArray
from ospiel_ext.sequence_form import SequenceForm, TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder
from ospiel_ext.treeplex import Treeplex


def info_key(round_: int, cls: int, betting: str) -> str:
    """The information-state key of the abstracted game: round, own class, betting."""
    return f"r{round_} c{cls} b{betting}"


@dataclasses.dataclass(frozen=True, eq=False)
class AbstractGame:
    """Γ_f of an abstraction: its joint classes, and the GameTree of them with the betting."""

    abstraction: Abstraction
    joint: JointClasses

    @classmethod
    def of(cls, abstraction: Abstraction) -> AbstractGame:
        """Γ_f of `abstraction`, with its joint classes."""
        return cls(abstraction, JointClasses.of(abstraction))

    @property
    def betting(self) -> BettingNode:
        """The stage games: the abstraction's betting tree."""
        return self.abstraction.betting

    @property
    def name(self) -> str:
        """gameshrink(game, threshold=...), with a non-default transformation and an early stop."""
        a = self.abstraction
        kind = "" if a.transformation == "coarsest" else f", transformation={a.transformation}"
        stopped = f", stopped early: {a.stop_reason}" if a.stopped_early else ""
        return f"gameshrink({a.og.name}, threshold={a.threshold}{kind}{stopped})"

    def _leaf_value(self, utility: dict[int, float], round_: int, pair: int) -> float:
        cnt = self.joint.counts[round_][pair]
        value: float = sum(cnt[lab + 1] * u for lab, u in utility.items()) / cnt.sum()
        return value

    @functools.cached_property
    def tree(self) -> GameTree:
        """Γ_f as a GameTree (chance actions are joint-class pair indices)."""
        builder = TreeBuilder(name=self.name)
        root, joint = builder.add_root(), self.joint
        mass = joint.counts[0].sum(axis=1)
        first = builder.expand_chance(root, range(len(mass)), mass / mass.sum())
        stack = [(first + i, self.betting, i) for i in range(len(mass))]
        while stack:
            node, bn, pair = stack.pop()
            r = bn.round
            if bn.utility is not None:
                v = self._leaf_value(bn.utility, r, pair)
                builder.set_leaf(node, v, v)
            elif bn.next_round:
                order, bounds = joint.children[r]
                kids = order[bounds[pair] : bounds[pair + 1]]
                kid_mass = joint.counts[r + 1][kids].sum(axis=1)
                f = builder.expand_chance(node, kids.tolist(), kid_mass / kid_mass.sum())
                stack.extend((f + t, bn.children[0], int(k)) for t, k in enumerate(kids))
            else:
                cls = int(joint.pairs[r][pair, bn.player])
                f = builder.expand_decision(node, bn.player, info_key(r, cls, bn.key), bn.actions)
                stack.extend((f + t, child, pair) for t, child in enumerate(bn.children))
        return builder.freeze()

    @functools.cached_property
    def sequence_form(self) -> ProductSequenceForm:
        """Γ_f's sequence form, from the betting tree x the joint classes without the game tree.

        Built by `ProductSequenceForm`; equal to TreeSequenceForm(self.tree) up to the order of
        infosets within a treeplex level (tested).
        """
        return ProductSequenceForm(self)

    def size(self) -> dict[str, int]:
        """Nodes, infosets, sequences, leaves and sequence-form LP rows / columns / nonzeros of Γ_f.

        Counted from the betting tree and the joint classes without building the tree.
        `lp_nonzeros` counts every payoff entry of a (player 0 sequence, player 1 sequence)
        pair some leaf reaches, as `sequence_form` stores it; `payoff_zero_entries` how many
        of them are 0 (a showdown between classes whose deals win as often as they lose).
        """
        joint, n_nodes, leaves = self.joint, 1, 0
        infosets, sequences, nnz, zeros = [0, 0], [1, 1], 0, 0
        entries: dict[tuple[int, tuple[int, int]], IntArray] = {}
        zero_counts: dict[tuple, int] = {}
        seats = [[len(np.unique(p[:, s])) for s in (0, 1)] for p in joint.pairs]
        stack = [(self.betting, (-1, -1))]  # node, round of each player's last action
        while stack:
            bn, last = stack.pop()
            r = bn.round
            n_nodes += len(joint.pairs[r])
            if bn.utility is not None:
                leaves += len(joint.pairs[r])
                if (r, last) not in entries:
                    entries[r, last] = self._payoff_entries(r, last)
                entry = entries[r, last]
                nnz += int(entry.max()) + 1
                key = (r, last, tuple(sorted(bn.utility.items())))
                if key not in zero_counts:
                    u = np.array([bn.utility.get(lab, 0.0) for lab in (-1, 0, 1)])
                    total = np.bincount(entry, weights=joint.counts[r] @ u)
                    zero_counts[key] = int(np.count_nonzero(total == 0))
                zeros += zero_counts[key]
            elif bn.next_round:
                stack.append((bn.children[0], last))
            else:
                infosets[bn.player] += seats[r][bn.player]
                sequences[bn.player] += seats[r][bn.player] * len(bn.actions)
                acted = (r, last[1]) if bn.player == 0 else (last[0], r)
                stack.extend((child, acted) for child in bn.children)
        return {
            "nodes": n_nodes,
            "leaves": leaves,
            "infosets": sum(infosets),
            "sequences_0": sequences[0],
            "sequences_1": sequences[1],
            **lp.lp_size(infosets, sequences, nnz),
            "payoff_zero_entries": zeros,
        }

    def _payoff_entries(self, round_: int, last: tuple[int, int]) -> IntArray:
        """The payoff entry of each joint class pair of `round_`, at a terminal of that round.

        The terminal's players last acted in rounds `last` (-1: never); a payoff entry is a
        distinct pair of player 0's and player 1's sequences, numbered 0..
        """
        joint, cols = self.joint, []
        for seat, r in enumerate(last):
            if r < 0:
                cols.append(np.zeros(len(joint.pairs[round_]), dtype=np.int64))
                continue
            idx = np.arange(len(joint.pairs[round_]))
            for q in range(round_, r, -1):
                idx = joint.parent[q][idx]
            cols.append(joint.pairs[r][idx, seat])
        return np.unique(np.column_stack(cols), axis=0, return_inverse=True)[1].ravel()


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Decision:
    """A betting decision of one player, repeated once per class of its round in Γ_f."""

    node: BettingNode
    parent: tuple[int, int] | None  # (the player's previous decision, action index taken)
    opponent: tuple[int, int] | None  # the opponent's last decision before it, action taken
    first_seq: int  # provisional id of the first sequence of class 0's infoset
    first_infoset: int  # provisional index of class 0's infoset among the player's


_Last = list[tuple[int, int] | None]
"""Each player's last decision on a betting path and the action index it took (None: none)."""


class ProductSequenceForm(SequenceForm):
    """The sequence form of Γ_f from its product structure, without a game tree.

    An infoset of player p is a betting decision of p in round j times a class of round j; its
    parent sequence is p's previous
    decision on the betting path times the ancestor class, with the action taken; a betting
    terminal of round j adds, for every joint class pair of round j, the pair's chance mass
    times its expected payoff to the entry (player 0's sequence, player 1's sequence). This is
    the tree `AbstractGame.tree` describes, without its 10^8 nodes on Rhode Island Hold'em:
    it fills SequenceForm's fields (treeplexes, payoff, infoset keys, reach matrices) and
    keeps no tree.
    """

    def __init__(self, game: AbstractGame):
        self._game = game
        num_classes = game.abstraction.num_classes
        decisions: tuple[list[_Decision], list[_Decision]] = ([], [])
        terminals: list[tuple[BettingNode, _Last]] = []
        next_seq, next_infoset = [1, 1], [0, 0]
        stack: list[tuple[BettingNode, _Last]] = [(game.betting, [None, None])]
        while stack:
            bn, last = stack.pop()
            if bn.utility is not None:
                terminals.append((bn, last))
            elif bn.next_round:
                stack.append((bn.children[0], last))
            else:
                p, mine = bn.player, decisions[bn.player]
                mine.append(
                    _Decision(
                        node=bn,
                        parent=last[p],
                        opponent=last[1 - p],
                        first_seq=next_seq[p],
                        first_infoset=next_infoset[p],
                    )
                )
                next_seq[p] += num_classes[bn.round] * len(bn.actions)
                next_infoset[p] += num_classes[bn.round]
                for a, child in enumerate(bn.children):
                    acted = list(last)
                    acted[p] = (len(mine) - 1, a)
                    stack.append((child, acted))
        self._decisions = decisions
        tps: list[Treeplex] = []
        renumber = []
        for p in (0, 1):
            tp, prov_to_new = self._treeplex(p, tps[0].num_infosets if p else 0)
            tps.append(tp)
            renumber.append(prov_to_new)
        self._renumber = tuple(renumber)
        shape = (tps[0].num_sequences, tps[1].num_sequences)
        payoff = self._payoff_matrix(terminals, shape)
        super().__init__(
            name=game.name,
            treeplexes=(tps[0], tps[1]),
            payoff_lo=payoff,
            payoff_hi=payoff,
            infoset_keys=self._infoset_keys,
            build_reach=self._reach_matrix,
        )

    def _sequence(
        self, player: int, ref: tuple[int, int] | None, classes: IntArray, round_: int
    ) -> IntArray:
        """Provisional sequence of `player` after decision `ref`, for round `round_` classes.

        A `ref` of None is the empty sequence.
        """
        if ref is None:
            return np.zeros(len(classes), dtype=np.int64)
        d = self._decisions[player][ref[0]]
        anc = self._game.abstraction.ancestor_class(classes, round_, d.node.round)
        sequence: IntArray = d.first_seq + anc * len(d.node.actions) + ref[1]
        return sequence

    def _treeplex(self, player: int, id_offset: int) -> tuple[Treeplex, IntArray]:
        num_classes = self._game.abstraction.num_classes
        sizes: list[IntArray] = []
        first: list[IntArray] = []
        parent: list[IntArray] = []
        actions: list[IntArray] = []
        for d in self._decisions[player]:
            k, n = num_classes[d.node.round], len(d.node.actions)
            classes = np.arange(k)
            sizes.append(np.full(k, n, dtype=np.int64))
            first.append(d.first_seq + classes * n)
            parent.append(self._sequence(player, d.parent, classes, d.node.round))
            actions.append(np.tile(np.array(d.node.actions, dtype=np.int64), k))
        num_actions = np.concatenate(sizes)
        return Treeplex.from_provisional(
            player,
            id_offset + np.arange(len(num_actions)),
            num_actions,
            prov_first=np.concatenate(first),
            prov_parent=np.concatenate(parent),
            prov_actions=np.concatenate(actions),
        )

    def _payoff_matrix(
        self, terminals: list[tuple[BettingNode, _Last]], shape: tuple[int, int]
    ) -> sp.csr_matrix:
        joint, renumber = self._game.joint, self._renumber
        total = joint.counts[0].sum()
        size = sum(len(joint.pairs[bn.round]) for bn, _ in terminals)
        rows, cols = np.empty(size, dtype=np.int32), np.empty(size, dtype=np.int32)
        data, at = np.empty(size), 0
        for bn, last in terminals:
            r, pairs = bn.round, joint.pairs[bn.round]
            assert bn.utility is not None  # a terminal of the betting tree
            u = np.array([bn.utility.get(lab, 0.0) for lab in (-1, 0, 1)])
            end = at + len(pairs)
            rows[at:end] = renumber[0][self._sequence(0, last[0], pairs[:, 0], r)]
            cols[at:end] = renumber[1][self._sequence(1, last[1], pairs[:, 1], r)]
            data[at:end] = joint.counts[r] @ u / total
            at = end
        return sp.csr_matrix((data, (rows, cols)), shape=shape)

    def infosets_by_betting(self, player: int) -> dict[tuple[int, str], IntArray]:
        """(round, betting key) -> `player`'s infoset index of each class of the round.

        The index is the infoset's row in `treeplexes[player]`; the same table that parsing
        `infoset_keys(player)` (`info_key`: round, class, betting) would give, read from the
        decisions instead of 10^5-10^6 strings.
        """
        local = self._treeplex_infoset(player)
        num_classes = self._game.abstraction.num_classes
        return {
            (d.node.round, d.node.key): local[
                d.first_infoset + np.arange(num_classes[d.node.round])
            ]
            for d in self._decisions[player]
        }

    def _treeplex_infoset(self, player: int) -> IntArray:
        """The treeplex row of each of `player`'s infosets, by provisional index."""
        tp = self.treeplexes[player]
        local = np.empty(tp.num_infosets, dtype=np.int64)
        local[tp.infoset_ids - (self.treeplexes[0].num_infosets if player else 0)] = np.arange(
            tp.num_infosets
        )
        return local

    def _reach_matrix(self, player: int) -> sp.csr_matrix:
        """R_player: the chance reach of each infoset of `player` through each opponent sequence.

        A decision of `player` in round j is one node of Γ_f per joint class pair of round
        j, in the infoset of the pair's class for `player`, reached by the opponent's
        sequence after its last decision on the betting path (at the pair's ancestor class)
        with chance reach = the pair's deals / all deals (the chance probabilities of
        `AbstractGame.tree` telescope: a pair's children's deals are the pair's deals).
        """
        joint, opp, tp = self._game.joint, 1 - player, self.treeplexes[player]
        total = joint.counts[0].sum()
        local = self._treeplex_infoset(player)
        rows, cols, data = [], [], []
        for d in self._decisions[player]:
            r, pairs = d.node.round, joint.pairs[d.node.round]
            rows.append(local[d.first_infoset + pairs[:, player]])
            cols.append(self._renumber[opp][self._sequence(opp, d.opponent, pairs[:, opp], r)])
            data.append(joint.counts[r].sum(axis=1) / total)
        return sp.csr_matrix(
            (np.concatenate(data), (np.concatenate(rows), np.concatenate(cols))),
            shape=(tp.num_infosets, self.shape[opp]),
        )

    def _infoset_keys(self, player: int) -> list[str]:
        num_classes = self._game.abstraction.num_classes
        keys = [
            info_key(d.node.round, c, d.node.key)
            for d in self._decisions[player]
            for c in range(num_classes[d.node.round])
        ]
        offset = 0 if player == 0 else self.treeplexes[0].num_infosets
        return [keys[g - offset] for g in self.treeplexes[player].infoset_ids]


def game_size(sf: TreeSequenceForm) -> dict[str, int]:
    """Nodes, infosets and LP rows / columns / nonzeros of a compiled game.

    The keys are those of `AbstractGame.size`.
    """
    tps = sf.treeplexes
    return {
        "nodes": sf.tree.num_nodes,
        "infosets": sf.tree.num_infosets,
        **lp.lp_size(
            [tp.num_infosets for tp in tps], [tp.num_sequences for tp in tps], sf.payoff.nnz
        ),
    }
