"""Policy files: an OpenSpiel policy of a game written to JSON and read back.

The policy file format (docs/policy_files.md): JSON `{"game": "<load_game string>", "policy":
{"<information_state_string>": {"<action id>": probability, ...}, ...}}`, keyed as the game's
`policies.tabular_policy` (the information_state_string almost always; `policies.shared_key`
where both players share a string). Never pickle. `save_policy` writes one
(`policies.policy_to_dict`); `load_policy` reads one into the game's `tabular_policy`, checking
the game, every information state and every distribution.
"""

from __future__ import annotations

import os

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading
from ospiel_ext.policies import policy_to_dict, tabular_policy
from ospiel_ext.runtime import files


def save_policy(pol: policy_lib.Policy, path: str | os.PathLike, game: pyspiel.Game | str) -> None:
    """Writes `pol`, a policy of `game`, to `path` in the format of docs/policy_files.md.

    JSON, never pickle; `load_policy` reads it back.
    """
    game = loading.load(game)
    files.write_json(path, {"game": str(game), "policy": policy_to_dict(pol, game)}, indent=0)


def load_policy(game: pyspiel.Game | str, path: str | os.PathLike) -> policy_lib.TabularPolicy:
    """Reads a policy file for `game` into its `tabular_policy`.

    A file keyed as OpenSpiel's TabularPolicy of a game whose two players share an
    information-state string (one row for both) loads with that row for both players.

    Raises:
      ValueError (one line, naming the file): not JSON, another game, a missing or unknown
        information state, an illegal action, a probability that is not a finite number, or
        a distribution that does not sum to one.
    """
    game = loading.load(game)
    data = files.read_json(path, "policy file")
    loading.check_game(path, data, game, "policy")
    table = data.get("policy")
    if not isinstance(table, dict):
        raise ValueError(f"{path} is not a policy file (needs a 'policy' object)")
    pol = tabular_policy(game)
    used = set()
    for (key, row), state in zip(pol.state_lookup.items(), pol.states):
        plain = loading.infoset_key(state, state.current_player())
        entry_key = key if key in table else plain
        entry = table.get(entry_key)
        if not isinstance(entry, dict):
            raise ValueError(f"{path} has no distribution for information state {key!r}")
        used.add(entry_key)
        probs = np.zeros(pol.action_probability_array.shape[1])
        legal = pol.legal_actions_mask[row]
        for a, p in entry.items():
            if not (str(a).isdigit() and int(a) < len(legal) and legal[int(a)]):
                raise ValueError(f"{path}: action {a} is not legal at information state {key!r}")
            prob = files.probability(p)
            if prob is None:
                raise ValueError(
                    f"{path}: probability {p!r} of action {a} at {key!r} is not a number"
                )
            probs[int(a)] = prob
        if abs(probs.sum() - 1.0) > 1e-6 or probs.min() < 0:
            raise ValueError(f"{path}: distribution at {key!r} is not a probability distribution")
        pol.action_probability_array[row] = probs
    unknown = [key for key in table if key not in used]
    if unknown:
        raise ValueError(
            f"{path} has information state {unknown[0]!r}, which {game} does not have "
            f"({len(unknown)} such)"
        )
    return pol
