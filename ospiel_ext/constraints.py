"""Strategy constraints shared by the LP, CFR and EGT: behavioural lower bounds.

A behavioural lower bound l(I, a) >= 0 at an information set I, with sum_a l(I, a) < 1,
restricts the player's behavioural strategy there to the polytope {b : b >= l, sum_a b = 1}.
It is the one strategy constraint the pack's algorithms share:

* Kroer, Farina & Sandholm (2017), "Smoothing Method for Approximate Extensive-Form Perfect
  Equilibrium", Section 2.3: the xi-perturbed treeplex, l = xi on every action;
* Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
  Imperfect-Information Games", Section 7, eq. 6: l = eps * prior at the opponent's auxiliary
  information sets of a gadget game (gadget game sequential equilibrium).

`BehaviouralLowerBounds` holds a default bound for every action (xi, possibly 0) and explicit
vectors for some information sets, keyed by `information_state_string` (an explicit vector
replaces the default at its information set). For a sequence form and a player it gives

* `per_sequence`: l aligned with the player's treeplex sequences (0 for the empty sequence):
  EGT's perturbed dilated entropy, and the LP rows x[s] - l[s] x[parent(s)] >= 0 on the
  realization plan x (`linear_constraints`);
* `basis_blocks` / `basis_matrix`: CFR's basis matrices (Farina, Kroer & Sandholm 2017,
  "Regret Minimization in Behaviorally-Constrained Zero-Sum Games")
  B = (1 - sum l) I + l 1^T (`lower_bound_basis`). B pi = l + (1 - sum l) pi maps the simplex
  onto exactly the polytope above: the columns of B, l + (1 - sum l) e_a, are its vertices.
"""

from __future__ import annotations

import dataclasses
import types
from collections.abc import Mapping

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike

from ospiel_ext import arrays
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.treeplex import Treeplex

PRIOR_TOLERANCE = 1e-9  # |sum(prior) - 1| allowed in `from_prior`


@dataclasses.dataclass(frozen=True)
class LinearConstraints:
    """G z >= g on a realization plan z.

    Attributes:
      matrix: G, one row per constraint, one column per sequence.
      rhs: g.
      ids: an id per row that stays the same when the game grows (keys LP warm starts);
        None for the row index.
    """

    matrix: sp.csr_matrix
    rhs: FloatArray
    ids: IntArray | None = None

    def __post_init__(self) -> None:
        if self.matrix.shape[0] != len(self.rhs):
            raise ValueError(
                f"constraint matrix has {self.matrix.shape[0]} rows but rhs {len(self.rhs)}"
            )
        if self.ids is not None and len(self.ids) != len(self.rhs):
            raise ValueError(f"{len(self.ids)} row ids for {len(self.rhs)} constraints")

    @property
    def row_ids(self) -> IntArray:
        """`ids`, or the row indices."""
        return np.arange(len(self.rhs)) if self.ids is None else np.asarray(self.ids)


def lower_bound_basis(lower: ArrayLike) -> FloatArray:
    """B = (1 - sum(l)) I + l 1^T: B pi = l + (1 - sum l) pi, the strategies with pi'[a] >= l[a].

    With l = eps * prior this is eq. 6 of Kubíček, Lisý & Sandholm (2025),
    B = (1 - eps) I + eps P with every column of P the prior.
    """
    lower = np.asarray(lower, dtype=np.float64)
    if lower.ndim != 1 or lower.min() < 0 or lower.sum() >= 1:
        raise ValueError(f"behavioural lower bounds {lower} must be >= 0 and sum to less than 1")
    n = len(lower)
    basis: FloatArray = (1 - lower.sum()) * np.eye(n) + np.outer(lower, np.ones(n))
    return basis


def _check_vector(key: str, vector: ArrayLike) -> FloatArray:
    if not isinstance(key, str):
        raise ValueError(f"lower-bound keys must be information state strings, got {key!r}")
    v = np.array(vector, dtype=np.float64)
    if v.ndim != 1 or not np.all(np.isfinite(v)) or (len(v) and v.min() < 0):
        raise ValueError(f"lower bounds at {key!r} must be a finite non-negative vector, got {v}")
    if v.sum() >= 1:
        raise ValueError(f"lower bounds at {key!r} sum to {v.sum()}; they must sum to less than 1")
    v.flags.writeable = False
    return v


@dataclasses.dataclass(frozen=True, eq=False)
class BehaviouralLowerBounds:
    """Behavioural lower bounds on both players' strategies (see the module docstring).

    Attributes:
      default: the bound on every action of every information set not in `per_infoset`
        (xi; 0 for none).
      per_infoset: {information_state_string: bound per legal action, in legal-action order};
        replaces `default` at that information set.
    """

    default: float = 0.0
    per_infoset: Mapping[str, FloatArray] = dataclasses.field(default_factory=dict)

    def __post_init__(self) -> None:
        if not (np.isfinite(self.default) and 0 <= self.default < 1):
            raise ValueError(f"the default lower bound must be in [0, 1), got {self.default}")
        vectors = {key: _check_vector(key, v) for key, v in self.per_infoset.items()}
        object.__setattr__(self, "default", float(self.default))
        object.__setattr__(self, "per_infoset", types.MappingProxyType(vectors))

    @classmethod
    def from_prior(
        cls, epsilon: float, prior: Mapping[str, ArrayLike], default: float = 0.0
    ) -> BehaviouralLowerBounds:
        """Bounds l = epsilon * prior at each keyed information set.

        Kubíček, Lisý & Sandholm 2025, eq. 6 and Definition 2: every action of an auxiliary
        information set is played with probability at least epsilon * prior.

        Args:
          epsilon: the tremble size, in [0, 1).
          prior: {information_state_string: distribution over the legal actions}.
          default: the bound elsewhere.
        """
        if not (np.isfinite(epsilon) and 0 <= epsilon < 1):
            raise ValueError(f"epsilon must be in [0, 1), got {epsilon}")
        scaled = {}
        for key, p in prior.items():
            p = np.asarray(p, dtype=np.float64)
            if p.ndim != 1 or (len(p) and p.min() < 0) or abs(p.sum() - 1) > PRIOR_TOLERANCE:
                raise ValueError(f"the prior at {key!r} must be a distribution, got {p}")
            scaled[key] = epsilon * p
        return cls(default, scaled)

    def scaled(self, factor: float) -> BehaviouralLowerBounds:
        """Every bound times `factor` in [0, 1] (e.g. to decrease GGSE's epsilon)."""
        if not 0 <= factor <= 1:
            raise ValueError(f"factor must be in [0, 1], got {factor}")
        return BehaviouralLowerBounds(
            self.default * factor, {k: v * factor for k, v in self.per_infoset.items()}
        )

    def validate(self, sf: SequenceForm) -> None:
        """Raises ValueError, naming the key and the game, for bounds that do not fit `sf`.

        That is a key that is not an information state of `sf`, a vector whose length is not
        its number of legal actions, or a default that sums to 1 or more at some information
        set.
        """
        for player in (0, 1):
            self.per_sequence(sf, player)

    def per_sequence(self, sf: SequenceForm, player: int) -> FloatArray:
        """The bound l per sequence of `player`'s treeplex (0 for the empty sequence).

        Keys of the other player's information sets are checked and skipped.
        """
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, got {player}")
        tp = sf.treeplexes[player]
        lower = tp.spread(np.full(tp.num_infosets, self.default))
        explicit = np.zeros(tp.num_infosets, dtype=bool)
        if self.per_infoset:
            local = {key: i for i, key in enumerate(sf.infoset_keys(player))}
            other = set(sf.infoset_keys(1 - player))
            for key, v in self.per_infoset.items():
                i = local.get(key)
                if i is None:
                    if key not in other:
                        raise ValueError(f"lower-bound key {key!r} is not an infoset of {sf.name}")
                    continue
                k, s = int(tp.num_actions[i]), int(tp.seq_start[i])
                if len(v) != k:
                    raise ValueError(
                        f"lower bounds at {key!r} of {sf.name} have {len(v)} entries; the "
                        f"information set has {k} legal actions"
                    )
                lower[s : s + k] = v
                explicit[i] = True
        if self.default:
            over = np.flatnonzero(~explicit & (tp.num_actions * self.default >= 1))
            if len(over):
                i = int(over[0])
                raise ValueError(
                    f"default lower bound {self.default} at {sf.infoset_keys(player)[i]!r} of "
                    f"{sf.name} is infeasible: it sums to {tp.num_actions[i] * self.default} "
                    f"over its {tp.num_actions[i]} actions; "
                    "it must sum to less than 1"
                )
        return lower

    def constrained_infosets(self, sf: SequenceForm, player: int) -> IntArray:
        """Treeplex indices of `player`'s information sets with some positive bound."""
        tp = sf.treeplexes[player]
        return np.flatnonzero(tp.segment_sum(self.per_sequence(sf, player)) > 0)

    def linear_constraints(self, sf: SequenceForm, player: int) -> LinearConstraints:
        """Constraints x[s] - l[s] x[parent(s)] >= 0 on `player`'s realization plan.

        One row per sequence with a positive bound, keyed by its `Treeplex.stable_ids`.
        """
        return sequence_lower_bounds(sf.treeplexes[player], self.per_sequence(sf, player))

    def basis_blocks(self, sf: SequenceForm, player: int) -> dict[int, FloatArray]:
        """{treeplex index of an information set: its basis matrix (`lower_bound_basis`)}.

        For every information set of `player` with some positive bound.
        """
        tp = sf.treeplexes[player]
        lower = self.per_sequence(sf, player)
        blocks = {}
        for i in self.constrained_infosets(sf, player).tolist():
            s = int(tp.seq_start[i])
            blocks[i] = lower_bound_basis(lower[s : s + int(tp.num_actions[i])])
        return blocks

    def basis_matrix(self, sf: SequenceForm, player: int) -> sp.csr_matrix:
        """The block-diagonal basis over all of `player`'s sequences.

        `lower_bound_basis` at the constrained information sets, the identity elsewhere (B pi
        is the played strategy for every behavioural pi, eq. 4 of Kubíček, Lisý & Sandholm
        2025).
        """
        tp = sf.treeplexes[player]
        lower = self.per_sequence(sf, player)
        room = tp.spread(1.0 - tp.segment_sum(lower))
        room[0] = 1.0
        # A full k x k block for the sequences of constrained infosets, a 1 elsewhere.
        inf = np.maximum(tp.seq_infoset, 0)  # (the empty sequence's is masked below)
        full = (tp.segment_sum(lower) > 0)[inf] & (tp.seq_infoset >= 0)
        seqs = np.arange(tp.num_sequences)
        width = np.where(full, tp.num_actions[inf], 1)
        rows = np.repeat(seqs, width)
        first = np.where(full, tp.seq_start[inf], seqs)
        cols = arrays.segment_indices(first, width)
        vals = lower[rows] + np.where(rows == cols, room[rows], 0.0)
        n = tp.num_sequences
        return sp.csr_matrix((vals, (rows, cols)), shape=(n, n))


def resolve_lower_bounds(
    xi: float, lower_bounds: BehaviouralLowerBounds | None
) -> BehaviouralLowerBounds:
    """The solvers' two ways to give bounds as one object.

    `xi` (the same bound on every action, a shorthand) or `lower_bounds`; ValueError when both
    are given.
    """
    if isinstance(xi, bool) or not isinstance(xi, (int, float, np.integer, np.floating)):
        raise ValueError(f"xi must be one number (the bound on every action), got {xi!r}")
    if lower_bounds is None:
        return BehaviouralLowerBounds(float(xi))
    if xi:
        raise ValueError("give either xi or lower_bounds, not both")
    if not isinstance(lower_bounds, BehaviouralLowerBounds):
        raise ValueError(f"lower_bounds must be a BehaviouralLowerBounds, got {lower_bounds!r}")
    return lower_bounds


def sequence_lower_bounds(tp: Treeplex, lower: float | ArrayLike) -> LinearConstraints:
    """Constraints x[s] - l[s] x[parent(s)] >= 0 for every sequence s with l[s] > 0.

    `l` is a scalar or one value per sequence of `tp`; the rows are keyed by the sequences'
    `stable_ids`.
    """
    n = tp.num_sequences
    lower = np.broadcast_to(np.asarray(lower, dtype=np.float64), (n,))
    seqs = np.flatnonzero(lower[1:] > 0) + 1
    m = len(seqs)
    rows = np.concatenate([np.arange(m), np.arange(m)])
    cols = np.concatenate([seqs, tp.seq_parent[seqs]])
    vals = np.concatenate([np.ones(m), -lower[seqs]])
    matrix = sp.csr_matrix((vals, (rows, cols)), shape=(m, n))
    return LinearConstraints(matrix, np.zeros(m), np.asarray(tp.stable_ids)[seqs])
