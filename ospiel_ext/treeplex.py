"""Treeplexes: one player's information sets and sequences, numbered level by level.

The sequence form of Koller, Megiddo & von Stengel, "Efficient Computation of Equilibria for
Extensive Two-Person Games" (Games and Economic Behavior, 1996) describes a player's strategies
by the sequences of their own actions. A `Treeplex` lists one player's information sets and
sequences, renumbered so that every vectorised pass is a handful of numpy calls per treeplex
level:

* infosets are ordered by treeplex depth ("level": number of own infosets above them), and
  inside a level by the sequence that leads to them (`parent_seq`);
* the sequences of one infoset are contiguous, `seq_start[i] : seq_start[i] + num_actions[i]`,
  in legal-action order; sequence 0 is the empty sequence;
* hence each level (`Level`) is one contiguous block of infosets and one contiguous block of
  sequences.

It holds the realization-plan constraints (E x = e), the conversions between realization plans
and behavioural strategies, and the one bottom-up pass (`Treeplex.bottom_up`) that best
responses and values are computed with. `Treeplex.build` numbers a GameTree's infosets;
`Treeplex.from_provisional` numbers infosets given in any order (GameShrink's Γ_f). The
sequence form itself, both treeplexes and the payoff matrix, is `sequence_form.SequenceForm`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

from ospiel_ext import arrays
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.tree import GameTree


@dataclasses.dataclass(frozen=True)
class Level:
    """One treeplex level: infosets [inf_lo, inf_hi), sequences [seq_lo, seq_hi)."""

    inf_lo: int
    inf_hi: int
    seq_lo: int
    seq_hi: int
    starts: IntArray  # reduceat offsets of each infoset inside the level's sequences
    seq_parent: IntArray  # parent sequence of every sequence of the level
    parents: IntArray  # distinct parent sequences of the level's infosets (sorted)
    parent_starts: IntArray  # reduceat offsets of each distinct parent inside the level
    local_infoset: IntArray  # for every sequence of the level, its infoset's index in the level


# A per-level rule of the bottom-up pass: (level, values of its sequences) -> infoset values.
LocalRule = Callable[["Level", FloatArray], FloatArray]


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Treeplex:
    """The sequences and infosets of one player; see the module docstring for the ordering."""

    player: int
    infoset_ids: IntArray  # global GameTree infoset id of each local infoset
    num_actions: IntArray
    seq_start: IntArray
    parent_seq: IntArray  # sequence leading to each infoset
    seq_infoset: IntArray  # local infoset of each sequence (-1 for the empty sequence)
    seq_parent: IntArray  # parent sequence of each sequence's infoset (-1 for empty)
    seq_action: IntArray  # action id of each sequence (-1 for empty)
    levels: tuple[Level, ...]
    # Id of each sequence that stays the same while the GameTree grows by appending infosets
    # (TreeBuilder): offset of its infoset among the player's infosets in creation order plus
    # its action index plus 1; 0 for the empty sequence. Keys LP warm starts.
    stable_ids: IntArray

    @property
    def num_infosets(self) -> int:
        """The number of the player's information sets."""
        return len(self.num_actions)

    @property
    def num_sequences(self) -> int:
        """The number of the player's sequences, the empty one included."""
        return len(self.seq_infoset)

    @functools.cached_property
    def uniform(self) -> FloatArray:
        """Uniform behavioural strategy, one probability per sequence (1 for the empty one)."""
        b = np.ones(self.num_sequences)
        b[1:] = 1.0 / np.repeat(self.num_actions, self.num_actions)
        return b

    @functools.cached_property
    def constraints(self) -> tuple[sp.csr_matrix, FloatArray]:
        """(E, e) with E x = e, x >= 0 describing the realization plans (rows: root, infosets)."""
        n_inf, n_seq = self.num_infosets, self.num_sequences
        rows = np.concatenate([[0], 1 + self.seq_infoset[1:], 1 + np.arange(n_inf)])
        cols = np.concatenate([[0], np.arange(1, n_seq), self.parent_seq])
        vals = np.concatenate([[1.0], np.ones(n_seq - 1), -np.ones(n_inf)])
        e = np.zeros(n_inf + 1)
        e[0] = 1.0
        return sp.csr_matrix((vals, (rows, cols)), shape=(n_inf + 1, n_seq)), e

    def realization_plan(self, b: FloatArray) -> FloatArray:
        """x[s] = x[parent(s)] * b[s], shallowest level first."""
        x = np.empty(self.num_sequences)
        x[0] = 1.0
        for lv in self.levels:
            x[lv.seq_lo : lv.seq_hi] = x[lv.seq_parent] * b[lv.seq_lo : lv.seq_hi]
        return x

    def behavioural(self, x: FloatArray) -> FloatArray:
        """b[s] = x[s] / x[parent(s)], uniform where the infoset is never reached.

        The denominator is the sum of x over the infoset's own sequences, which equals
        x[parent(s)] for an exact realization plan; for an LP solution whose tiny negative
        entries were clipped it keeps every row a distribution (a parent at 1e-17 above
        children at 0 would otherwise give an all-zero row).
        """
        b = self.uniform.copy()
        denom = self.spread(self.segment_sum(x))[1:]
        reached = denom > 0
        b[1:][reached] = x[1:][reached] / denom[reached]
        return b

    def segment_sum(self, v: FloatArray) -> FloatArray:
        """Sum of v over the sequences of each infoset (v indexed by sequence)."""
        if not self.num_infosets:
            return np.zeros(0)
        return np.add.reduceat(v[1:], self.seq_start - 1)

    def spread(self, per_infoset: FloatArray) -> FloatArray:
        """Per-infoset values repeated onto the infoset's sequences (empty sequence gets 0)."""
        if not self.num_infosets:
            return np.zeros(self.num_sequences)
        # one gather: the empty sequence's infoset -1 reads the last entry, then set to 0
        out = np.asarray(per_infoset, dtype=np.float64).take(self.seq_infoset)
        out[0] = 0.0
        return out

    def bottom_up(self, g: FloatArray, local: LocalRule) -> tuple[FloatArray, FloatArray]:
        """The one bottom-up treeplex pass, deepest level first.

        Args:
          g: immediate value of each sequence (e.g. A y for player 0), not modified.
          local: `local(level, vs) -> vi` turns the values `vs` of a level's sequences into the
            values of its infosets (weighted sum, max, smoothed max, ...).

        Returns:
          (v_seq, v_inf): v_seq[s] = g[s] + sum of the values of the infosets right below s;
          v_inf[i] = local value of infoset i. v_seq[0] is the root value.
        """
        v_seq = g.astype(np.float64, copy=True)
        v_inf = np.empty(self.num_infosets)
        for lv in reversed(self.levels):
            vi = local(lv, v_seq[lv.seq_lo : lv.seq_hi])
            v_inf[lv.inf_lo : lv.inf_hi] = vi
            v_seq[lv.parents] += np.add.reduceat(vi, lv.parent_starts)
        return v_seq, v_inf

    def infoset_values(self, g: FloatArray, b: FloatArray | None) -> tuple[FloatArray, FloatArray]:
        """`bottom_up` playing behavioural strategy b, or a best response (segment max) if None."""
        if b is None:
            return self.bottom_up(g, lambda lv, vs: np.maximum.reduceat(vs, lv.starts))
        return self.bottom_up(
            g, lambda lv, vs: np.add.reduceat(vs * b[lv.seq_lo : lv.seq_hi], lv.starts)
        )

    def best_response(self, g: FloatArray) -> tuple[float, FloatArray]:
        """Best-response value and a pure best-response behavioural strategy against g."""
        v_seq, v_inf = self.infoset_values(g, None)
        target = self.spread(v_inf)[1:]
        # relative slack on finite values only: an infinite best value (a certificate trunk's
        # unbounded leaves) must still pick its action, and inf - inf would be NaN
        slack = 1e-12 * (1 + np.abs(np.where(np.isfinite(target), target, 0.0)))
        best = v_seq[1:] >= target - slack
        # first maximising action of every infoset
        idx = np.flatnonzero(best)
        inf_of = self.seq_infoset[1:][idx]
        first = idx[np.unique(inf_of, return_index=True)[1]] + 1
        b = np.zeros(self.num_sequences)
        b[0] = 1.0
        b[first] = 1.0
        return float(v_seq[0]), b

    @classmethod
    def build(cls, tree: GameTree, player: int) -> tuple[Treeplex, IntArray]:
        """Builds player's treeplex and the sequence of `player` leading to every tree node."""
        infoset_ids = np.flatnonzero(tree.infoset_player == player)
        action_start = tree.infoset_action_start
        all_actions = np.diff(action_start)
        counts = np.where(tree.infoset_player == player, all_actions, 0)
        prov_offset = np.concatenate([[0], np.cumsum(counts)[:-1]])  # as in own_last_move
        last = tree.own_last_move(player)
        nodes, offsets = tree.infoset_nodes
        # the player's infosets' entries of the flat infoset-action layout, in infoset order
        sizes = all_actions[infoset_ids]
        actions = tree.infoset_action_ids[arrays.segment_indices(action_start[infoset_ids], sizes)]
        tp, prov_to_new = cls.from_provisional(
            player,
            infoset_ids,
            sizes,
            prov_first=prov_offset[infoset_ids] + 1,
            prov_parent=last[nodes[offsets[infoset_ids]]],
            prov_actions=actions,
        )
        return tp, prov_to_new[last]

    @classmethod
    def from_provisional(
        cls,
        player: int,
        infoset_ids: IntArray,
        num_actions: IntArray,
        *,
        prov_first: IntArray,
        prov_parent: IntArray,
        prov_actions: IntArray,
    ) -> tuple[Treeplex, IntArray]:
        """The treeplex of infosets given in any order with provisional sequence ids.

        Args:
          player: the owner.
          infoset_ids: global id of each infoset.
          num_actions: actions of each infoset.
          prov_first: provisional id of each infoset's first sequence; its actions' sequences
            are prov_first .. prov_first + num_actions - 1, ids 1.. numbered in infoset order
            (0 is the empty sequence).
          prov_parent: provisional id of the sequence leading to each infoset.
          prov_actions: the action id of each provisional sequence 1.. .

        Returns:
          (treeplex, prov_to_new): the renumbering of provisional sequence ids.
        """
        num_prov = 1 + int(num_actions.sum())
        prov_infoset = np.full(num_prov, -1, dtype=np.int64)  # provisional seq -> local infoset
        prov_infoset[1:] = np.repeat(np.arange(len(infoset_ids)), num_actions)
        level = _treeplex_depth(prov_infoset[prov_parent])
        # Renumber level by level: infosets sorted by new parent sequence.
        prov_to_new = np.zeros(num_prov, dtype=np.int64)
        order_parts, next_seq = [], 1
        for lvl in range(int(level.max()) + 1 if len(level) else 0):
            members = np.flatnonzero(level == lvl)
            members = members[np.argsort(prov_to_new[prov_parent[members]], kind="stable")]
            order_parts.append(members)
            sizes = num_actions[members]
            starts = next_seq + np.concatenate([[0], np.cumsum(sizes)[:-1]])
            ranks = arrays.segment_ranks(sizes)
            prov_to_new[np.repeat(prov_first[members], sizes) + ranks] = (
                np.repeat(starts, sizes) + ranks
            )
            next_seq += int(sizes.sum())
        order = np.concatenate(order_parts) if order_parts else np.zeros(0, dtype=np.int64)
        num_actions = num_actions[order]
        seq_start = 1 + np.concatenate([[0], np.cumsum(num_actions)[:-1]]).astype(np.int64)
        parent_seq = prov_to_new[prov_parent[order]]
        seq_infoset = np.concatenate([[-1], np.repeat(np.arange(len(order)), num_actions)])
        seq_parent = np.concatenate([[-1], np.repeat(parent_seq, num_actions)])
        seq_action = np.full(num_prov, -1, dtype=np.int64)
        seq_action[prov_to_new[1:]] = prov_actions
        levels = _levels(
            level[order], seq_start, num_actions, parent_seq=parent_seq, seq_parent=seq_parent
        )
        stable_ids = np.empty(num_prov, dtype=np.int64)
        stable_ids[prov_to_new] = np.arange(num_prov)
        tp = cls(
            player=player,
            infoset_ids=infoset_ids[order],
            num_actions=num_actions,
            seq_start=seq_start,
            parent_seq=parent_seq,
            seq_infoset=seq_infoset,
            seq_parent=seq_parent,
            seq_action=seq_action,
            levels=tuple(levels),
            stable_ids=stable_ids,
        )
        return tp, prov_to_new


def _treeplex_depth(parent_infoset: IntArray) -> IntArray:
    """Number of own infosets above each infoset, given each one's parent infoset (-1: none)."""
    level = np.zeros(len(parent_infoset), dtype=np.int64)
    for _ in range(len(parent_infoset) + 1):
        new = np.where(parent_infoset < 0, 0, level[np.maximum(parent_infoset, 0)] + 1)
        if np.array_equal(new, level):
            return level
        level = new
    raise AssertionError("the infoset parent relation has a cycle")


def _levels(
    level: IntArray,
    seq_start: IntArray,
    num_actions: IntArray,
    *,
    parent_seq: IntArray,
    seq_parent: IntArray,
) -> tuple[Level, ...]:
    """The contiguous blocks of each treeplex level (infosets already ordered by level)."""
    levels = []
    for lvl in range(int(level.max()) + 1 if len(level) else 0):
        inf = np.flatnonzero(level == lvl)
        lo, hi = int(inf[0]), int(inf[-1]) + 1
        s_lo, s_hi = int(seq_start[lo]), int(seq_start[hi - 1] + num_actions[hi - 1])
        par = parent_seq[lo:hi]
        parent_starts = np.concatenate([[0], np.flatnonzero(np.diff(par)) + 1])
        levels.append(
            Level(
                inf_lo=lo,
                inf_hi=hi,
                seq_lo=s_lo,
                seq_hi=s_hi,
                starts=seq_start[lo:hi] - s_lo,
                seq_parent=seq_parent[s_lo:s_hi],
                parents=par[parent_starts],
                parent_starts=parent_starts,
                local_infoset=np.repeat(np.arange(hi - lo), num_actions[lo:hi]),
            )
        )
    return tuple(levels)
