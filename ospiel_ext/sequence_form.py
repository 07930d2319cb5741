"""Sequence form of a two-player zero-sum GameTree (Koller, Megiddo, von Stengel 1996).

Koller, Megiddo & von Stengel, "Efficient Computation of Equilibria for Extensive Two-Person
Games" (Games and Economic Behavior, 1996). For each player a `treeplex.Treeplex` lists the
player's information sets and sequences, numbered level by level (see `ospiel_ext.treeplex`).

`SequenceForm` holds both treeplexes, the sparse chance-weighted payoff matrix A (player 0's
utility; player 0 maximises x^T A y, player 1 minimises it; one matrix per leaf bound when
leaves carry intervals) and, per player p, the matrix R_p giving the opponent-and-chance reach
R_p y of p's infosets: all that solvers, LPs and evaluators read, filled by whoever builds
the form. `TreeSequenceForm` builds them from a GameTree and keeps its per-node arrays (leaves,
chance reach, each player's sequence at each node); GameShrink's Γ_f builds them from its
betting tree x class pairs without a tree. `for_game` compiles and caches the form of a game.
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
from ospiel_ext.arrays import FloatArray
from ospiel_ext.tree import GameTree
from ospiel_ext.treeplex import Treeplex


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
      game: the pyspiel game whose information sets the treeplexes number (their keys are
        its `information_state_string`s), or None for a form of no pyspiel game (an
        abstraction, a gadget game); `policies.layout` needs it to make a TabularPolicy.
    """

    name: str
    treeplexes: tuple[Treeplex, Treeplex]
    payoff_lo: sp.csr_matrix
    payoff_hi: sp.csr_matrix
    infoset_keys: Callable[[int], list[str]]
    build_reach: Callable[[int], sp.csr_matrix]
    utility_sum: float = 0.0
    game: pyspiel.Game | None = None
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

    def max_abs_payoff(self) -> float:
        """The payoff matrix's largest entry in absolute value, max |A_ij| (0 without entries).

        EGT's smoothing scale (Kroer, Farina & Sandholm, "Smoothing Method for Approximate
        Extensive-Form Perfect Equilibrium", IJCAI 2017, Theorem 4) is proportional to it.
        """
        return float(np.abs(self.payoff.data).max(initial=0.0))

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
      whole_game: the tree is the whole game (`for_game`), not a trunk, subgame, gadget or
        action abstraction of it.
    """

    whole_game = False

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
            game=tree.game,
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
        sf.whole_game = True
        _CACHE[key] = sf
        if len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    elif max_nodes is not None and sf.tree.num_nodes > max_nodes:
        raise loading.GameTooLargeError(f"game {key} has more than max_nodes={max_nodes} nodes")
    _CACHE.move_to_end(key)
    return sf
