"""Behavioural arrays <-> OpenSpiel `TabularPolicy`, and the policy file format.

A behavioural strategy of player p is a float array over p's sequences (see
`sequence_form.Treeplex`): entry s is the probability of the sequence's last action at its
infoset; entry 0 (the empty sequence) is 1. `PolicyLayout` maps those entries to rows and
columns of `TabularPolicy.action_probability_array` once per game, so conversion in either
direction is one fancy-indexing operation.

Policy file format (DESIGN.md): JSON `{"game": "<load_game string>", "policy":
{"<information_state_string>": {"<action id>": probability, ...}, ...}}`.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import Any

import numpy as np
import pyspiel
from numpy.typing import NDArray
from open_spiel.python import policy as policy_lib

from ospiel_ext import files
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext import tree as tree_lib
from ospiel_ext.sequence_form import SequenceForm, TreeSequenceForm

Behavioural = tuple[NDArray[np.float64], NDArray[np.float64]]


class PolicyLayout:
    """Where each sequence of each player lives in the game's `TabularPolicy` arrays."""

    def __init__(self, sf: SequenceForm):
        if not isinstance(sf, TreeSequenceForm):
            raise ValueError(
                f"a TabularPolicy needs a game tree; {sf.name} is a sequence form without one"
            )
        tree = sf.tree
        if tree.game is None:
            raise ValueError(f"{tree.name} was not built from a pyspiel game")
        self.sf = sf
        self.template = policy_lib.TabularPolicy(tree.game)
        self.rows, self.cols = [], []
        for p, tp in enumerate(sf.treeplexes):
            keys = sf.infoset_keys(p)
            missing = [k for k in keys if k not in self.template.state_lookup]
            if missing:
                raise ValueError(
                    f"information state {missing[0]!r} of {tree.name} is not in "
                    "the game's TabularPolicy"
                )
            inf_rows = np.array([self.template.state_lookup[k] for k in keys], dtype=np.int64)
            self.rows.append(np.repeat(inf_rows, tp.num_actions))
            self.cols.append(tp.seq_action[1:])

    def to_tabular(self, behavioural: Behavioural) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy playing the given behavioural strategies."""
        pol = self.template.__copy__(copy_action_probability_array=True)
        for p in (0, 1):
            pol.action_probability_array[self.rows[p], self.cols[p]] = behavioural[p][1:]
        return pol

    def from_tabular(self, pol: policy_lib.TabularPolicy) -> Behavioural:
        """Behavioural arrays of a TabularPolicy of the same game (keyed like ours)."""
        if (
            pol.state_lookup is not self.template.state_lookup
            and pol.state_lookup != self.template.state_lookup
        ):
            return self.from_policy(pol)
        table = pol.action_probability_array
        return (
            self._with_root(table[self.rows[0], self.cols[0]]),
            self._with_root(table[self.rows[1], self.cols[1]]),
        )

    def from_policy(self, pol: policy_lib.Policy) -> Behavioural:
        """Behavioural arrays of any OpenSpiel Policy, queried at one state per infoset."""
        tree = self.sf.tree
        nodes, offsets = tree.infoset_nodes
        table = {}
        for tp in self.sf.treeplexes:
            for g in tp.infoset_ids:
                try:
                    table[tree.infoset_key[g]] = pol.action_probabilities(
                        tree.state(int(nodes[offsets[g]]))
                    )
                except (KeyError, IndexError):
                    raise ValueError(
                        f"the policy does not cover information state "
                        f"{tree.infoset_key[g]!r} of {tree.name}"
                    ) from None
        return self.from_table(table)

    def from_table(self, table: Mapping[str, Any]) -> Behavioural:
        """Behavioural arrays from {info state: [(action, prob), ...] or {action: prob}}, e.g.
        `pyspiel.TabularPolicy.policy_table()`; see `behavioural_from_table`."""
        return behavioural_from_table(self.sf, table)

    def behavioural(self, pol: policy_lib.Policy) -> Behavioural:
        """Behavioural arrays of `pol`, using the fast path for TabularPolicy."""
        if isinstance(pol, policy_lib.TabularPolicy):
            return self.from_tabular(pol)
        return self.from_policy(pol)

    @staticmethod
    def _with_root(b: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate([[1.0], b])


def behavioural_from_table(
    sf: SequenceForm, table: Mapping[str, Any], missing: str = "raise"
) -> Behavioural:
    """Behavioural arrays of `sf` from {info state: [(action, prob), ...] or {action: prob}};
    actions missing from a row get probability 0. An information state missing from the
    table raises ValueError (`missing="raise"`) or plays uniformly (`missing="uniform"`)."""
    out: list[NDArray[np.float64]] = []
    for p, tp in enumerate(sf.treeplexes):
        b = tp.uniform.copy()
        for i, key in enumerate(sf.infoset_keys(p)):
            if key not in table:
                if missing == "raise":
                    raise ValueError(
                        f"the policy has no entry for information state {key!r} of {sf.name}"
                    )
                continue
            row = dict(table[key])
            s, n = int(tp.seq_start[i]), int(tp.num_actions[i])
            b[s : s + n] = [row.get(int(a), 0.0) for a in tp.seq_action[s : s + n]]
        out.append(b)
    return out[0], out[1]


def behavioural_to_table(
    sf: SequenceForm, behavioural: Behavioural
) -> dict[tuple[int, str], list[tuple[int, float]]]:
    """{(player, infoset key): [(action, probability), ...]} of behavioural arrays of `sf`."""
    table = {}
    for p, (tp, b) in enumerate(zip(sf.treeplexes, behavioural)):
        for i, key in enumerate(sf.infoset_keys(p)):
            s, n = int(tp.seq_start[i]), int(tp.num_actions[i])
            table[p, key] = list(zip(tp.seq_action[s : s + n].tolist(), b[s : s + n].tolist()))
    return table


@functools.lru_cache(maxsize=8)
def layout(sf: SequenceForm) -> PolicyLayout:
    """The PolicyLayout of a SequenceForm, built once."""
    return PolicyLayout(sf)


def layout_for_game(game: pyspiel.Game | str) -> PolicyLayout:
    return layout(sf_lib.for_game(game))


def uniform_policy(game: pyspiel.Game | str) -> policy_lib.TabularPolicy:
    """The uniform random TabularPolicy of `game`."""
    return policy_lib.TabularPolicy(tree_lib.load(game))


def random_policy(
    game: pyspiel.Game | str, seed: int = 0, alpha: float = 1.0
) -> policy_lib.TabularPolicy:
    """A TabularPolicy whose every information state draws its action distribution from
    a symmetric Dirichlet(alpha) over the legal actions."""
    pol = uniform_policy(game)
    rng = np.random.default_rng(seed)
    mask = pol.legal_actions_mask.astype(bool)
    gamma = rng.gamma(alpha, size=mask.shape) * mask
    pol.action_probability_array = gamma / gamma.sum(axis=1, keepdims=True)
    return pol


def policy_to_dict(pol: policy_lib.Policy, game: pyspiel.Game) -> dict[str, dict[str, float]]:
    """{information_state_string: {action id: probability}} for every info state of `game`."""
    template = pol if isinstance(pol, policy_lib.TabularPolicy) else uniform_policy(game)
    out = {}
    for key, row in template.state_lookup.items():
        legal = np.flatnonzero(template.legal_actions_mask[row])
        if isinstance(pol, policy_lib.TabularPolicy):
            probs = {int(a): float(pol.action_probability_array[row, a]) for a in legal}
        else:
            state_probs = pol.action_probabilities(template.states[row])
            probs = {int(a): float(state_probs.get(int(a), 0.0)) for a in legal}
        out[key] = {str(a): p for a, p in probs.items()}
    return out


def save(game: pyspiel.Game | str, pol: policy_lib.Policy, path: str | os.PathLike) -> None:
    """Writes `pol`, a policy of `game`, to `path` (JSON policy file, never pickle): the
    game-first argument order of `load(game, path)`; `save_policy` is the same with the fixed
    order (policy, path, game)."""
    save_policy(pol, path, game)


def load(game: pyspiel.Game | str, path: str | os.PathLike) -> policy_lib.TabularPolicy:
    """Reads a policy file of `game` (= `load_policy(game, path)`)."""
    return load_policy(game, path)


def save_policy(pol: policy_lib.Policy, path: str | os.PathLike, game: pyspiel.Game | str) -> None:
    """Writes `pol` in the policy file format of DESIGN.md (JSON, never pickle); the fixed
    entry point (policy, path, game). `save(game, policy, path)` takes the game first, as
    `load` and `load_policy` do."""
    game = tree_lib.load(game)
    files.write_json(path, {"game": str(game), "policy": policy_to_dict(pol, game)}, indent=0)


def load_policy(game: pyspiel.Game | str, path: str | os.PathLike) -> policy_lib.TabularPolicy:
    """Reads a policy file for `game`.

    Raises:
      ValueError (one line, naming the file): not JSON, another game, a missing information
        state, an illegal action, a probability that is not a finite number, or a distribution
        that does not sum to one.
    """
    game = tree_lib.load(game)
    data = files.read_json(path, "policy file")
    files.check_game(path, data, game, "policy")
    table = data.get("policy")
    if not isinstance(table, dict):
        raise ValueError(f"{path} is not a policy file (needs a 'policy' object)")
    pol = uniform_policy(game)
    for key, row in pol.state_lookup.items():
        if not isinstance(table.get(key), dict):
            raise ValueError(f"{path} has no distribution for information state {key!r}")
        probs = np.zeros(pol.action_probability_array.shape[1])
        legal = pol.legal_actions_mask[row]
        for a, p in table[key].items():
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
    return pol
