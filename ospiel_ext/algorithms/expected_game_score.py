"""Drop-in for OpenSpiel's `open_spiel.python.algorithms.expected_game_score`.

`policy_value(state, policies, probability_threshold=0)`: each player's expected utility from
`state` when player i plays `policies[i]`, as OpenSpiel's. On a two-player zero-sum sequential
game with perfect recall the values come from one pass over the compiled game's node arrays
(`tree_values.node_values`), each policy asked once per information set rather than once per
state, and `state` is found by its history (`GameTree.node_at`). Every other game (more
players, general-sum, simultaneous moves, imperfect recall) and a positive
`probability_threshold` (a cut OpenSpiel's walk makes) go to OpenSpiel's own function, whose
results they then are.
"""

from __future__ import annotations

from collections.abc import Sequence

import pyspiel
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score as openspiel_score

from ospiel_ext import policies as policies_lib
from ospiel_ext import sequence_form, tree_values


def policy_value(
    state: pyspiel.State,
    policies: Sequence[policy_lib.Policy] | policy_lib.Policy,
    probability_threshold: float = 0,
) -> list[float]:
    """Each player's expected utility from `state`, player i playing `policies[i]`.

    `policies` is one policy per player, or one policy of all players (OpenSpiel takes that
    for simultaneous-move games).
    """
    game = state.get_game()
    if probability_threshold > 0 or game.num_players() != 2:
        return list(openspiel_score.policy_value(state, policies, probability_threshold))
    try:
        sf = sequence_form.for_game(game)
    except ValueError:  # not two-player zero-sum, sequential, with perfect recall
        return list(openspiel_score.policy_value(state, policies, probability_threshold))
    per_player = [policies] * 2 if isinstance(policies, policy_lib.Policy) else list(policies)
    layout = policies_lib.layout(sf)
    behavioural = (
        layout.behavioural(per_player[0], players=(0,))[0],
        layout.behavioural(per_player[1], players=(1,))[1],
    )  # each policy asked at its own player's information sets only, as OpenSpiel's walk
    values = tree_values.node_values(sf.tree, sf.tree_profile(behavioural))
    value = float(values[sf.tree.node_at(state.history())])
    return [value, float(game.utility_sum()) - value]
