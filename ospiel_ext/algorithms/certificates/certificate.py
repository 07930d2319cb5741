"""Certificates of equilibria in black-box games: what a certificate is, and its checks.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021.

Trunks (Defs 3.1, 3.3; `trunks.Trunk`) are grown from the root on demand; their
pseudoterminal leaves carry the bound oracle's interval [lo, hi] on player 0's utility.

* `Certificate`: a profile on a trunk with its epsilon and value interval.
* `verify` (Prop. 3.5, Def. 6.2): for a profile (x, y) on a trunk,
  epsilon = beta*(y) - alpha*(x), player 0's best response in the optimistic game (leaves at
  hi) minus player 1's in the pessimistic one (leaves at lo): two linear-time treeplex passes,
  independent of the rest of the game.
* `minimal_certificate` (Prop. 4.1): keep only the nodes reachable when at most one player
  deviates.
* `CertificatePolicy`: the certified strategy played in the full game.

The best certificate of a trunk (Section 6.1, with Section 6.4's unbounded payoffs) is in
`trunk_lps`; Algorithm 6.7's search, which grows the trunk until it certifies, in `search`.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, policies
from ospiel_ext.arrays import FloatArray
from ospiel_ext.sequence_form import SequenceForm, TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder

ZERO_TOLERANCE = 1e-12
"""A certificate is a 0-certificate when its epsilon is at most ZERO_TOLERANCE times its
trunk's payoff range (`Certificate.payoff_range`): what is left of an exact 0 after the LPs
and best responses in floating point, on the scale of the game's utilities."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Certificate:
    """A trunk with a profile on it (Def. 3.4) and its epsilon (Def. 6.2).

    Attributes:
      sequence_form: of the trunk (a GameTree whose leaves carry [lo, hi]).
      behavioural: the profile, behavioural arrays over the trunk's treeplexes.
      epsilon: beta*(y) - alpha*(x).
      value_lower, value_upper: alpha*(x) <= game value <= beta*(y).
    """

    sequence_form: TreeSequenceForm
    behavioural: tuple[FloatArray, FloatArray]
    epsilon: float
    value_lower: float
    value_upper: float

    @classmethod
    def verified(
        cls, sf: TreeSequenceForm, behavioural: tuple[FloatArray, FloatArray]
    ) -> Certificate:
        """The certificate of a profile on a trunk, its value interval and epsilon by `verify`."""
        value_lower, value_upper = verify(sf, behavioural)
        return cls(
            sequence_form=sf,
            behavioural=behavioural,
            epsilon=value_upper - value_lower,
            value_lower=value_lower,
            value_upper=value_upper,
        )

    @property
    def trunk(self) -> GameTree:
        """The trunk: the GameTree of `sequence_form`, leaves carrying [lo, hi]."""
        return self.sequence_form.tree

    @property
    def payoff_range(self) -> float:
        """Largest minus smallest finite bound on player 0's utility over the trunk's leaves.

        It is at least the payoff range of the game the trunk has seen. Infinite bounds
        (pseudo-leaves of a game with unbounded utilities) are left out, so the range stays
        finite.
        """
        leaves = self.trunk.is_leaf
        bounds = np.concatenate([self.trunk.lo[leaves], self.trunk.hi[leaves]])
        bounds = bounds[np.isfinite(bounds)]
        if not bounds.size:
            return 0.0
        return float(bounds.max() - bounds.min())

    @property
    def zero_tolerance(self) -> float:
        """`ZERO_TOLERANCE` times `payoff_range`.

        The epsilon up to which this is a 0-certificate.
        """
        return ZERO_TOLERANCE * self.payoff_range

    @property
    def is_zero(self) -> bool:
        """Whether this is a 0-certificate: epsilon is 0 up to `zero_tolerance`.

        A 0-certificate is an exact equilibrium of the game (Theorem 6.8).
        """
        return bool(np.isfinite(self.epsilon)) and self.epsilon <= self.zero_tolerance

    def size(self) -> tuple[int, int]:
        """(nodes, information sets) of the trunk."""
        return self.trunk.num_nodes, self.trunk.num_infosets

    def strategy_table(self) -> policies.Tables:
        """Per player, {information_state_string: {action: probability}}.

        The tables cover the player's infosets of the trunk (`policies.behavioural_to_table`).
        """
        return policies.behavioural_to_table(self.sequence_form, self.behavioural)


def verify(sf: SequenceForm, behavioural: tuple[FloatArray, FloatArray]) -> tuple[float, float]:
    """(alpha*(x), beta*(y)) of a profile on a trunk (Def. 6.2), or on any sequence form.

    Epsilon is their difference.
    alpha*(x) = min_y' x^T A_lo y' and beta*(y) = max_x' x'^T A_hi y, by one best-response pass
    per player; infinite bounds on leaves the fixed strategy never reaches do not count.
    """
    tp0, tp1 = sf.treeplexes
    x, y = tp0.realization_plan(behavioural[0]), tp1.realization_plan(behavioural[1])
    beta, _ = tp0.best_response(sf.bound_sequence_values(0, y, "hi"))
    neg_alpha, _ = tp1.best_response(sf.bound_sequence_values(1, x, "lo"))
    return -neg_alpha, beta


def minimal_certificate(cert: Certificate) -> Certificate:
    """Prop. 4.1: the certificate on its trunk cut down to the nodes reached by one deviation.

    The trunk is cut down to the nodes some player reaches while the other follows the
    certificate (with chance), plus the children of those it keeps expanded; the cut-off
    subtrees become leaves bounded by their descendants' bounds. Epsilon is unchanged.
    """
    tree, sf = cert.trunk, cert.sequence_form
    x, y = (tp.realization_plan(b) for tp, b in zip(sf.treeplexes, cert.behavioural))
    keep = (sf.chance_reach * x[sf.node_seq[0]] > 0) | (sf.chance_reach * y[sf.node_seq[1]] > 0)
    lo, hi = _subtree_bounds(tree)
    builder = TreeBuilder(name=f"minimal {tree.name}", game=tree.game, utility_sum=tree.utility_sum)
    builder.copy_subtree(tree, 0, builder.add_root(), expand=keep, leaf_lo=lo, leaf_hi=hi)
    small = TreeSequenceForm(builder.freeze())
    behavioural = policies.behavioural_from_table(small, cert.strategy_table(), "uniform")
    return Certificate.verified(small, behavioural)


def _subtree_bounds(tree: GameTree) -> tuple[FloatArray, FloatArray]:
    """Min of lo and max of hi over the leaves below every node."""
    return tree.bottom_up(tree.lo, np.minimum), tree.bottom_up(tree.hi, np.maximum)


class CertificatePolicy(policy_lib.Policy):
    """The certified strategy as an OpenSpiel policy of the full game (Prop. 3.5).

    The certificate's distribution at information states of the trunk, uniform elsewhere. Works
    for infinite games too; `to_tabular()` gives a TabularPolicy where the game is finite.

    Args:
      game: the game.
      tables: `Certificate.strategy_table()`, one table per player.
    """

    def __init__(self, game: pyspiel.Game, tables: policies.Tables):
        super().__init__(game, list(range(game.num_players())))
        self.tables = tables

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """OpenSpiel's `Policy.action_probabilities`: the certificate's row, else uniform."""
        player = state.current_player() if player_id is None else player_id
        row = self.tables[player].get(loading.infoset_key(state, player))
        legal = state.legal_actions(player)
        if row is None:
            return {a: 1.0 / len(legal) for a in legal}
        return {a: row.get(a, 0.0) for a in legal}

    def to_tabular(self) -> policy_lib.TabularPolicy:
        """The policy as the game's TabularPolicy (`policies.tabular_policy`)."""
        return policies.tabular_from_policy(self.game, self)
