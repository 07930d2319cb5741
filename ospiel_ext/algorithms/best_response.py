"""Drop-in for OpenSpiel's `open_spiel.python.algorithms.best_response`, computed once on arrays.

OpenSpiel's `BestResponsePolicy` walks every state of the game in Python, memoising values
per state and information set (Rhode Island 3x2 with three raises: still running after 5
minutes). This one has the same constructor and methods and computes the best response once
on the pack's compiled game: one bottom-up treeplex pass against the other player's
realization plan gives the best-responding player's action at every information set, reached
or not (the lowest action id among equally good ones, as OpenSpiel), and one bottom-up pass
over the tree's node arrays gives every node's value with the best response plugged in
(`tree_values.node_values`). `value(state)` and `q_value(state, action)` then look the state
up by its history (`GameTree.node_at`).

`CPPBestResponsePolicy` takes the signature of OpenSpiel's class of that name (whose extra
arguments, precomputed states and a C++ best-response processor, are accepted and not needed)
and is the same computation, with `all_states` and `tabular_best_response_map` as OpenSpiel's.

A simultaneous-move game is compiled turn-based (`loading.load`): the policy is asked at the
simultaneous game's states (each turn-based state replayed there, a move of player 0 that
player 1 has not seen left pending), and `best_response_actions` is keyed by the simultaneous
game's information states, as OpenSpiel's.

Differences, on purpose: two-player zero-sum games with perfect recall only (others are refused
with a ValueError naming the game and the property: `sequence_form.for_game`); `root_state`
must be the game's initial state (a ValueError otherwise); `cut_threshold` is accepted and
ignored (the values are exact).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import get_all_states

from ospiel_ext import evaluate, loading, policies, sequence_form, tree_values
from ospiel_ext.tree import GameTree


class BestResponsePolicy(policy_lib.Policy):
    """`player_id`'s best response to `policy`, as OpenSpiel's class of that name.

    Args:
      game: a two-player zero-sum sequential game with perfect recall.
      player_id: the best-responding player, 0 or 1.
      policy: the other player's strategy (an OpenSpiel `Policy` of the game).
      root_state: None or the game's initial state.
      cut_threshold: accepted for OpenSpiel's signature; the values are exact.

    Attributes:
      best_response_actions: {information-state key: action} at every information set of the
        player.

    Raises:
      ValueError: as the module docstring says.
    """

    def __init__(  # noqa: PLR0917 (OpenSpiel's positional signature)
        self,
        game: pyspiel.Game,
        player_id: int,
        policy: policy_lib.Policy,
        root_state: pyspiel.State | None = None,
        cut_threshold: float = 0.0,
    ):
        del cut_threshold
        if player_id not in (0, 1):
            raise ValueError(f"game {game}: player_id {player_id} is not 0 or 1")
        if root_state is not None and root_state.history():
            raise ValueError(
                f"game {game}: a best response from a root_state other than the initial state "
                f"({root_state.history_str()!r}) is not supported"
            )
        super().__init__(game, [player_id])
        self._player_id = player_id
        self._key = loading.key_function(game)
        sf = sequence_form.for_game(game)
        simultaneous = game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS
        if simultaneous:
            policy = _AtSimultaneousStates(game, policy)
        # the other player's strategy only: a policy of that player alone is enough
        behavioural = policies.layout(sf).behavioural(policy, players=(1 - player_id,))
        pure, self.best_response_actions = evaluate.pure_best_response(sf, behavioural, player_id)
        if simultaneous:
            self.best_response_actions = _simultaneous_keys(
                game, sf.tree, self.best_response_actions, player_id
            )
        self._tree = sf.tree
        profile = sf.tree_profile(
            (pure, behavioural[1]) if player_id == 0 else (behavioural[0], pure)
        )
        self._values = tree_values.node_values(sf.tree, profile, player=player_id)

    def value(self, state: pyspiel.State) -> float:
        """The best responder's expected utility from `state` (best response vs the policy)."""
        return float(self._values[self._tree.node_at(state.history())])

    def q_value(self, state: pyspiel.State, action: int) -> float:
        """The best responder's expected utility after `action` at `state`."""
        return self.value(state.child(action))

    def best_response_action(self, infostate: str) -> int:
        """The best-response action at the player's information set `infostate`."""
        return self.best_response_actions[infostate]

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """{best-response action: 1.0} at a state of the best responder."""
        del player_id
        return {self.best_response_action(self._key(state, self._player_id)): 1.0}


def simultaneous_state(game: pyspiel.Game, history: list[int]) -> pyspiel.State:
    """The state of simultaneous-move `game` at a history of its turn-based conversion.

    Chance outcomes apply one by one, the players' moves as joint actions; a move still
    pending (player 0's, at player 1's turn) is left out: player 1 acts without seeing it.
    """
    state = game.new_initial_state()
    pending: list[int] = []
    for a in history:
        if state.is_chance_node():
            state.apply_action(a)
            continue
        pending.append(a)
        if len(pending) == game.num_players():
            state.apply_actions(pending)
            pending = []
    return state


class _AtSimultaneousStates(policy_lib.Policy):
    """A policy of a simultaneous-move game asked at the turn-based conversion's states."""

    def __init__(self, game: pyspiel.Game, policy: policy_lib.Policy):
        super().__init__(game, [0, 1])
        self._policy = policy

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        player = state.current_player() if player_id is None else player_id
        probs: dict[int, float] = self._policy.action_probabilities(
            simultaneous_state(self.game, state.history()), player
        )
        return probs


def _simultaneous_keys(
    game: pyspiel.Game, tree: GameTree, actions: dict[str, int], player: int
) -> dict[str, int]:
    """The player's best-response actions keyed by the simultaneous game's information states.

    `actions` is keyed by the turn-based conversion's; each information set is read at its
    first node, replayed in `game` (`simultaneous_state`).
    """
    key = loading.key_function(game)
    nodes, offsets = tree.infoset_nodes
    out: dict[str, int] = {}
    for i in np.flatnonzero(tree.infoset_player == player).tolist():
        state = simultaneous_state(game, tree.history(int(nodes[offsets[i]])))
        out[key(state, player)] = actions[tree.infoset_key[i]]
    return out


class CPPBestResponsePolicy(BestResponsePolicy):
    """OpenSpiel's `CPPBestResponsePolicy` signature on the same computation (module docstring).

    Attributes:
      tabular_best_response_map: `best_response_actions`, under OpenSpiel's name.
    """

    def __init__(  # noqa: PLR0917 (OpenSpiel's positional signature)
        self,
        game: pyspiel.Game,
        best_responder_id: int,
        policy: policy_lib.Policy,
        all_states: Any = None,
        state_to_information_state: Any = None,
        best_response_processor: Any = None,
        cut_threshold: float = 0.0,
    ):
        del state_to_information_state, best_response_processor
        super().__init__(game, best_responder_id, policy, cut_threshold=cut_threshold)
        self.best_responder_id = best_responder_id
        self.tabular_best_response_map = self.best_response_actions
        if all_states is not None:
            self.__dict__["all_states"] = all_states

    @functools.cached_property
    def all_states(self) -> dict[str, pyspiel.State]:
        """Every non-terminal decision state by `history_str` (OpenSpiel's attribute).

        Walked on first use only.
        """
        states: dict[str, pyspiel.State] = get_all_states.get_all_states(
            self.game,
            depth_limit=-1,
            include_terminals=False,
            include_chance_states=False,
            to_string=lambda s: s.history_str(),
        )
        return states
