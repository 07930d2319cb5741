"""Saving certificates and re-verifying them from the game alone.

A certificate is two files: `PATH` (JSON: game, claimed epsilon and value bounds, sizes, and
the strategy {information_state_string: {action id: probability}}) and `PATH.npz` (the trunk:
parent, action, lo, hi per node). `verify_saved` rebuilds the trunk by replaying its
expansions in the game, takes every bound from the game's own oracle, and recomputes epsilon
(Def. 6.2) with the saved strategy - nothing in the files is trusted.
"""

from __future__ import annotations

import dataclasses
import json
import os

import numpy as np
import pyspiel

from ospiel_ext import policies
from ospiel_ext import tree as tree_lib
from ospiel_ext.algorithms.certificates import certificate, trunks
from ospiel_ext.sequence_form import TreeSequenceForm

_TOLERANCE = 1e-9


def save(cert: certificate.Certificate, path: str | os.PathLike, game: pyspiel.Game) -> None:
    """Writes `path` (JSON) and `path`.npz (the trunk arrays); never pickle."""
    trunk = cert.trunk
    meta = {
        "game": str(tree_lib.load(game)),
        "epsilon": cert.epsilon,
        "value_lower": cert.value_lower,
        "value_upper": cert.value_upper,
        "trunk_nodes": trunk.num_nodes,
        "trunk_infosets": trunk.num_infosets,
        "strategy": {
            key: {str(a): p for a, p in row.items()} for key, row in cert.strategy_table().items()
        },
    }
    with open(path, "w", encoding="utf-8") as f:
        json.dump(meta, f)
    np.savez_compressed(
        f"{os.fspath(path)}.npz", parent=trunk.parent, action=trunk.action, lo=trunk.lo, hi=trunk.hi
    )


@dataclasses.dataclass(frozen=True)
class Verification:
    """Outcome of re-verifying a saved certificate."""

    ok: bool
    reason: str
    epsilon: float = float("nan")
    value_lower: float = float("nan")
    value_upper: float = float("nan")


def _replay(game: pyspiel.Game, parent: np.ndarray, action: np.ndarray) -> trunks.Trunk:
    """Re-expands the saved trunk in `game`; raises ValueError where they disagree."""
    trunk = trunks.Trunk(game)
    internal = np.unique(parent[1:])
    first_child = {int(p): int(np.flatnonzero(parent == p)[0]) for p in internal}
    for node in sorted(internal, key=lambda p: first_child[int(p)]):
        node = int(node)
        if node not in trunk.frontier:
            raise ValueError(
                f"node {node} is expanded in the certificate but is terminal or has exact "
                "bounds in the game"
            )
        trunk.expand(node)
    rebuilt = trunk.tree()
    if rebuilt.num_nodes != len(parent) or not (
        np.array_equal(rebuilt.parent, parent) and np.array_equal(rebuilt.action, action)
    ):
        raise ValueError("the certificate's trunk does not match the game's tree")
    return trunk


def verify_saved(game: pyspiel.Game | str, path: str | os.PathLike) -> Verification:
    """Re-verifies a saved certificate against `game` (see the module docstring)."""
    game = tree_lib.load(game)
    try:
        with open(path, encoding="utf-8") as f:
            meta = json.load(f)
        arrays = np.load(f"{os.fspath(path)}.npz")
    except (OSError, ValueError) as e:
        return Verification(False, f"cannot read the certificate: {e}")
    if meta.get("game") != str(game):
        return Verification(False, f"the certificate is for {meta.get('game')}, not {game}")
    try:
        trunk = _replay(game, arrays["parent"], arrays["action"])
    except ValueError as e:
        return Verification(False, str(e))
    tree = trunk.tree()
    wrong = np.flatnonzero((tree.lo != arrays["lo"]) | (tree.hi != arrays["hi"]))
    wrong = wrong[tree.is_leaf[wrong]]
    if len(wrong):
        n = int(wrong[0])
        return Verification(
            False,
            f"utility bounds at node {n} (history {tree.history(n)}) are "
            f"[{arrays['lo'][n]}, {arrays['hi'][n]}] in the certificate but the game's oracle "
            f"gives [{tree.lo[n]}, {tree.hi[n]}]",
        )
    sf = TreeSequenceForm(tree)
    table = {k: {int(a): float(p) for a, p in row.items()} for k, row in meta["strategy"].items()}
    problem = _strategy_problem(sf, table)
    if problem:
        return Verification(False, problem)
    lower, upper = certificate.verify(sf, policies.behavioural_from_table(sf, table))
    epsilon = upper - lower
    if epsilon > meta["epsilon"] + _TOLERANCE:
        return Verification(
            False,
            f"the strategy certifies epsilon={epsilon:.6g}, more than the claimed "
            f"{meta['epsilon']:.6g}",
            epsilon,
            lower,
            upper,
        )
    return Verification(True, "verified", epsilon, lower, upper)


def _strategy_problem(sf: TreeSequenceForm, table) -> str:
    """Why `table` is not a behavioural strategy of the trunk, or ''."""
    tree = sf.tree
    for i, key in enumerate(tree.infoset_key):
        row = table.get(key)
        if row is None:
            return f"no strategy for information state {key!r}"
        legal = set(tree.infoset_legal_actions[i])
        if not set(row) <= legal:
            return f"illegal actions {sorted(set(row) - legal)} at {key!r}"
        probs = np.array(list(row.values()))
        if probs.min(initial=0) < 0 or abs(probs.sum() - 1) > 1e-6:
            return f"the strategy at {key!r} is not a probability distribution"
    return ""
