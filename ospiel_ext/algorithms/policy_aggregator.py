"""Drop-in for OpenSpiel's `open_spiel.python.algorithms.policy_aggregator`, on the arrays.

`PolicyAggregator(game, epsilon=1e-40).aggregate(pids, policies, weights)` returns, for each
player in `pids`, the behavioural strategy that plays like the mixture of that player's
`policies[pid]` with probabilities `weights[pid]` (Kuhn's theorem: the mixture's realization
plan is the weighted sum of the plans, and its behavioural strategy is each sequence's weight
over its parent's). OpenSpiel's walks every state recursively, carrying each policy's reach;
this one asks each policy once per information set (`policies.layout(...).behavioural`) and
takes the weighted sum of the realization plans in one pass per policy. As OpenSpiel's, every
probability is raised by `epsilon` and renormalised (information sets the mixture never
reaches play uniformly).

Two-player zero-sum sequential games with perfect recall only (others are refused with a
ValueError naming the game and the property, `sequence_form.for_game`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, policies, sequence_form


class PolicyFunction(policy_lib.Policy):
    """The aggregated policies of `pids`, as OpenSpiel's class of that name.

    Attributes:
      policy: per player of `pids` (in that order), {information-state key: {action: prob}}.
    """

    def __init__(
        self, pids: Sequence[int], tables: list[dict[str, dict[int, float]]], game: pyspiel.Game
    ):
        super().__init__(game, list(pids))
        self._tables = dict(zip(pids, tables))
        self._key = loading.key_function(game)
        self.policy = tables

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """The aggregated strategy at the acting (or given) player's information set."""
        player = state.current_player() if player_id is None else player_id
        return self._tables[player][self._key(state, player)]


class PolicyAggregator:
    """OpenSpiel's `PolicyAggregator` (module docstring).

    Args:
      game: a two-player zero-sum sequential game with perfect recall.
      epsilon: added to every probability before renormalising, as OpenSpiel's.
    """

    def __init__(self, game: pyspiel.Game, epsilon: float = 1e-40):
        self._game = game
        self._epsilon = epsilon
        self._sf = sequence_form.for_game(game)

    def aggregate(
        self,
        pids: Sequence[int],
        policies_per_player: Sequence[Sequence[policy_lib.Policy]],
        weights: Sequence[Sequence[float]],
    ) -> PolicyFunction:
        """The mixture of `policies_per_player[pid]` with `weights[pid]` for each pid."""
        return PolicyFunction(
            pids, [self._mixture(p, policies_per_player[p], weights[p]) for p in pids], self._game
        )

    def _mixture(
        self, player: int, pool: Sequence[policy_lib.Policy], weights: Sequence[float]
    ) -> dict[str, dict[int, float]]:
        sf = self._sf
        tp = sf.treeplexes[player]
        layout = policies.layout(sf)
        plan = np.zeros(tp.num_sequences)
        for pol, w in zip(pool, weights):
            if w:
                own = layout.behavioural(pol, players=(player,))[player]
                plan += w * tp.realization_plan(own)
        behavioural = tp.behavioural(plan) + self._epsilon  # OpenSpiel's smoothing
        behavioural[1:] /= tp.spread(tp.segment_sum(behavioural))[1:]
        keys = sf.infoset_keys(player)
        table: dict[str, dict[int, float]] = {key: {} for key in keys}
        for s in range(1, tp.num_sequences):
            table[keys[tp.seq_infoset[s]]][int(tp.seq_action[s])] = float(behavioural[s])
        return table
