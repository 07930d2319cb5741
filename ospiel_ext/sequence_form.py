"""Sequence form of a two-player zero-sum GameTree (Koller, Megiddo, von Stengel 1996).

For each player a `Treeplex` lists the player's information sets and sequences, renumbered so
that every vectorised pass is a handful of numpy calls per treeplex level:

* infosets are ordered by treeplex depth ("level": number of own infosets above them), and
  inside a level by the sequence that leads to them (`parent_seq`);
* the sequences of one infoset are contiguous, `seq_start[i] : seq_start[i] + num_actions[i]`,
  in legal-action order; sequence 0 is the empty sequence;
* hence each level is one contiguous block of infosets and one contiguous block of sequences.

`SequenceForm` holds both treeplexes, the sparse chance-weighted payoff matrix A (player 0's
utility; player 0 maximises x^T A y, player 1 minimises it; one matrix per leaf bound when
leaves carry intervals) and, per player p, the matrix R_p giving the opponent-and-chance reach
R_p y of p's infosets: all that solvers, LPs and evaluators read, filled by whoever builds
the form. `TreeSequenceForm` builds them from a GameTree and keeps its per-node arrays (leaves,
chance reach, each player's sequence at each node); GameShrink's Γ_f builds them from its
betting tree x class pairs without a tree.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
from collections.abc import Callable

import numpy as np
import pyspiel
import scipy.sparse as sp

from ospiel_ext import arrays, loading, walk
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
        out = np.zeros(self.num_sequences)
        out[1:] = np.repeat(per_infoset, self.num_actions)
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


@dataclasses.dataclass(eq=False, repr=False, kw_only=True)
class SequenceForm:
    """All that solvers, LPs and evaluators need of a two-player zero-sum sequence form.

    Nothing here walks a game tree: a new kind of sequence form (GameShrink's Γ_f built from
    its betting tree x class pairs, a gadget game, ...) is made by filling these fields.

    Attributes:
      name: the game's name, for messages.
      treeplexes: (Treeplex of player 0, Treeplex of player 1).
      payoff_lo: n0 x n1 chance-weighted payoff matrix of player 0 with every leaf at the lower
        end of its utility interval.
      payoff_hi: the same with leaves at the upper end; pass the `payoff_lo` object itself
        when leaves carry values.
      infoset_keys: `infoset_keys(p)` lists the information-state key of each of p's
        infosets in treeplex order (a function, so that a form with millions of infosets
        builds the strings only when asked).
      build_reach: `build_reach(p)` returns R_p, the sparse (p's infosets x opponent's
        sequences) matrix with R_p[I, s] = the sum, over the histories of I at which the
        opponent's sequence is s, of the product of chance probabilities to the history; the
        opponent-and-chance reach of p's infosets under the opponent's realization plan y is
        R_p y. Called at most once per player, on first use (`reach_matrix`).
      utility_sum: u_0 + u_1 at every leaf (0 for zero-sum games).
    """

    name: str
    treeplexes: tuple[Treeplex, Treeplex]
    payoff_lo: sp.csr_matrix
    payoff_hi: sp.csr_matrix
    infoset_keys: Callable[[int], list[str]]
    build_reach: Callable[[int], sp.csr_matrix]
    utility_sum: float = 0.0
    _reach: dict[int, sp.csr_matrix] = dataclasses.field(default_factory=dict, init=False)

    def __post_init__(self) -> None:
        for label, matrix in (("payoff_lo", self.payoff_lo), ("payoff_hi", self.payoff_hi)):
            if not sp.issparse(matrix) or matrix.shape != self.shape:
                raise ValueError(
                    f"{self.name}: {label} must be a sparse matrix of shape {self.shape} "
                    "(sequences of player 0 x sequences of player 1)"
                )

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, sequences={self.shape})"

    @property
    def shape(self) -> tuple[int, int]:
        """(sequences of player 0, sequences of player 1): the payoff matrix's shape."""
        return self.treeplexes[0].num_sequences, self.treeplexes[1].num_sequences

    @functools.cached_property
    def has_bounds(self) -> bool:
        """True when some leaf carries an interval rather than a value (payoff_lo != payoff_hi)."""
        if self.payoff_hi is self.payoff_lo:
            return False
        with np.errstate(invalid="ignore"):
            return bool((self.payoff_lo != self.payoff_hi).nnz)

    @property
    def payoff(self) -> sp.csr_matrix:
        """Player 0's chance-weighted payoff matrix A (leaves must carry values, not intervals)."""
        if self.has_bounds:
            raise ValueError(
                f"{self.name} has leaves with utility intervals; use payoff_lo or payoff_hi"
            )
        return self.payoff_lo

    @functools.cached_property
    def payoff_t(self) -> sp.csr_matrix:
        """A^T in CSR, for fast A^T x."""
        return self.payoff.T.tocsr()

    def bound_payoff(self, bound: str) -> sp.csr_matrix:
        """payoff_lo for bound 'lo', payoff_hi for 'hi'."""
        if bound not in ("lo", "hi"):
            raise ValueError(f"bound must be 'lo' or 'hi', got {bound!r}")
        return self.payoff_lo if bound == "lo" else self.payoff_hi

    def sequence_values(
        self, player: int, opponent_plan: FloatArray, matrix: sp.csr_matrix | None = None
    ) -> FloatArray:
        """Immediate value of each of `player`'s sequences in the player's own zero-sum utility.

        Player 0: A y. Player 1: -A^T x. (A constant-sum offset does not change any regret.)
        """
        values: FloatArray  # scipy.sparse is untyped (Any)
        if matrix is None:
            values = (
                self.payoff @ opponent_plan if player == 0 else -(self.payoff_t @ opponent_plan)
            )
        else:
            values = matrix @ opponent_plan if player == 0 else -(matrix.T @ opponent_plan)
        return values

    def bound_sequence_values(
        self, player: int, opponent_plan: FloatArray, bound: str
    ) -> FloatArray:
        """As `sequence_values` in the game whose leaves take their `bound` ('lo' or 'hi').

        An infinite entry counts only where the opponent's plan reaches it.
        """
        matrix = self.bound_payoff(bound)
        if np.isfinite(matrix.data).all():
            return self.sequence_values(player, opponent_plan, matrix)
        coo = matrix.tocoo()
        own, opp = (coo.row, coo.col) if player == 0 else (coo.col, coo.row)
        weight = opponent_plan[opp]
        reached = weight > 0
        values = arrays.weighted_bincount(
            own[reached], weight[reached] * coo.data[reached], self.shape[player]
        )
        return values if player == 0 else -values

    def expected_value(self, x0: FloatArray, x1: FloatArray) -> float:
        """Player 0's expected utility x0^T A x1 of two realization plans."""
        return float(x0 @ (self.payoff @ x1))

    def reach_matrix(self, player: int) -> sp.csr_matrix:
        """R_player (see `build_reach`), built on first use."""
        if player not in self._reach:
            r = sp.csr_matrix(self.build_reach(player))
            expected = (self.treeplexes[player].num_infosets, self.shape[1 - player])
            if r.shape != expected:
                raise ValueError(
                    f"{self.name}: the reach matrix of player {player} has shape {r.shape}, "
                    f"not (infosets, opponent sequences) = {expected}"
                )
            self._reach[player] = r
        return self._reach[player]

    def opponent_reach(self, player: int, opponent_plan: FloatArray) -> FloatArray:
        """Opponent-and-chance reach of each of `player`'s infosets: R_player @ opponent_plan."""
        reach: FloatArray = self.reach_matrix(player) @ opponent_plan
        return reach


class TreeSequenceForm(SequenceForm):
    """The sequence form of a GameTree, with the per-node arrays of tree algorithms.

    E.g. certificate trunks, TabularPolicy layouts.

    Attributes (besides SequenceForm's):
      tree: the GameTree.
      node_seq: per player, the sequence of that player leading to each tree node.
      chance_reach: product of chance probabilities from the root to each node.
      leaves: the leaf nodes.
    """

    def __init__(self, tree: GameTree):
        tp0, seq0 = Treeplex.build(tree, 0)
        tp1, seq1 = Treeplex.build(tree, 1)
        self.tree = tree
        self.node_seq = (seq0, seq1)
        self.chance_reach = tree.chance_reach
        self.leaves = np.flatnonzero(tree.is_leaf)
        shape = (tp0.num_sequences, tp1.num_sequences)
        lo, hi = tree.lo[self.leaves], tree.hi[self.leaves]
        payoff_lo = self._leaf_matrix(lo, shape)
        payoff_hi = payoff_lo if np.array_equal(lo, hi) else self._leaf_matrix(hi, shape)
        super().__init__(
            name=tree.name,
            treeplexes=(tp0, tp1),
            payoff_lo=payoff_lo,
            payoff_hi=payoff_hi,
            infoset_keys=self._infoset_keys,
            build_reach=self._reach_matrix,
            utility_sum=tree.utility_sum,
        )

    def _infoset_keys(self, player: int) -> list[str]:
        return [self.tree.infoset_key[g] for g in self.treeplexes[player].infoset_ids]

    def _reach_matrix(self, player: int) -> sp.csr_matrix:
        """R_player from the tree.

        One entry per decision node of the player, at (its infoset, the opponent's sequence
        leading to it), weighted by its chance reach.
        """
        tp = self.treeplexes[player]
        nodes, offsets = self.tree.infoset_nodes
        counts = offsets[tp.infoset_ids + 1] - offsets[tp.infoset_ids]
        node = nodes[arrays.segment_indices(offsets[tp.infoset_ids], counts)]
        return sp.csr_matrix(
            (
                self.chance_reach[node],
                (np.repeat(np.arange(tp.num_infosets), counts), self.node_seq[1 - player][node]),
            ),
            shape=(tp.num_infosets, self.shape[1 - player]),
        )

    def _leaf_matrix(self, leaf_values: FloatArray, shape: tuple[int, int]) -> sp.csr_matrix:
        z = self.leaves
        return sp.csr_matrix(
            (self.chance_reach[z] * leaf_values, (self.node_seq[0][z], self.node_seq[1][z])),
            shape=shape,
        )

    def tree_profile(self, behavioural: tuple[FloatArray, FloatArray]) -> FloatArray:
        """The flat infoset-action profile of `tree_values` of behavioural arrays.

        The profile of reaches, node values, counterfactual values; from behavioural arrays,
        one per player indexed by sequence.
        """
        tree = self.tree
        profile = np.empty(tree.num_infoset_actions)
        for p, tp in enumerate(self.treeplexes):
            b = np.asarray(behavioural[p], dtype=np.float64)
            if b.shape != (tp.num_sequences,):
                raise ValueError(
                    f"{self.name}: player {p}'s behavioural strategy has shape {b.shape}, not "
                    f"({tp.num_sequences},) (one entry per sequence)"
                )
            local = tp.seq_infoset[1:]
            rank = np.arange(1, tp.num_sequences) - tp.seq_start[local]
            profile[tree.infoset_action_start[tp.infoset_ids[local]] + rank] = b[1:]
        return profile

    def leaf_matrix(self, leaf_values: FloatArray) -> sp.csr_matrix:
        """Sparse n0 x n1 matrix of chance_reach * value summed over leaves (values per leaf)."""
        return self._leaf_matrix(leaf_values, self.shape)

    def leaf_bound(self, bound: str) -> FloatArray:
        """tree.lo (bound 'lo') or tree.hi ('hi') at every leaf."""
        if bound not in ("lo", "hi"):
            raise ValueError(f"bound must be 'lo' or 'hi', got {bound!r}")
        return (self.tree.lo if bound == "lo" else self.tree.hi)[self.leaves]

    def leaf_sequence_values(
        self, player: int, opponent_plan: FloatArray, leaf_values: FloatArray
    ) -> FloatArray:
        """As `sequence_values` for given leaf values (e.g. tree.lo[leaves]), computed per leaf.

        Per leaf, so that infinite utilities at leaves the opponent never reaches contribute
        nothing.
        """
        z = self.leaves
        weight = self.chance_reach[z] * opponent_plan[self.node_seq[1 - player][z]]
        contribution = np.zeros(len(z))
        reached = weight > 0
        contribution[reached] = weight[reached] * leaf_values[reached]
        own = self.node_seq[player][z]
        values = arrays.weighted_bincount(own, contribution, self.shape[player])
        return values if player == 0 else -values

    def bound_sequence_values(
        self, player: int, opponent_plan: FloatArray, bound: str
    ) -> FloatArray:
        """As SequenceForm's, per leaf (`leaf_sequence_values`).

        An infinite leaf counts only where the opponent's plan and chance reach it.
        """
        return self.leaf_sequence_values(player, opponent_plan, self.leaf_bound(bound))


_CACHE: collections.OrderedDict[str, TreeSequenceForm] = collections.OrderedDict()
_CACHE_SIZE = 8


def for_game(game: pyspiel.Game | str, max_nodes: int | None = None) -> TreeSequenceForm:
    """The TreeSequenceForm of a pyspiel game, compiled once and cached (keyed by the game string).

    Raises:
      ValueError, GameTooLargeError: as `walk.game_tree`.
    """
    game = loading.load(game)
    key = str(game)
    sf = _CACHE.get(key)
    if sf is None:
        sf = TreeSequenceForm(walk.game_tree(game, max_nodes=max_nodes))
        _CACHE[key] = sf
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    elif max_nodes is not None and sf.tree.num_nodes > max_nodes:
        raise loading.GameTooLargeError(f"game {key} has more than max_nodes={max_nodes} nodes")
    _CACHE.move_to_end(key)
    return sf
