"""Saving certificates and re-verifying them from the game alone.

A certificate is two files: `PATH` (JSON: game, claimed epsilon and value bounds, sizes, and
the strategy {information_state_string: {action id: probability}}) and `PATH.npz` (the trunk:
parent, action, lo, hi per node). `verify_saved` rebuilds the trunk by replaying its
expansions in the game, takes every bound from the game's own oracle, and recomputes epsilon
(Def. 6.2) with the saved strategy - nothing in the files is trusted.
"""

from __future__ import annotations

import dataclasses
import os
import zipfile

import numpy as np
import pyspiel

from ospiel_ext import files, policies
from ospiel_ext import tree as tree_lib
from ospiel_ext.algorithms.certificates import certificate, trunks
from ospiel_ext.sequence_form import TreeSequenceForm

_TOLERANCE = 1e-9


def save(cert: certificate.Certificate, path: str | os.PathLike, game: pyspiel.Game) -> None:
    """Writes `path` (JSON) and `path`.npz (the trunk arrays); never pickle.

    `cert` is a certificate found by `search` (or `best_certificate`) on a trunk whose leaves
    carry the game's own bounds. A `minimal_certificate` cannot be re-verified from its file:
    its cut-off leaves carry bounds taken from the explored subtrees below them, which the
    game's oracle alone does not reproduce.
    """
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
    with files.atomic_path(f"{os.fspath(path)}.npz") as tmp, open(tmp, "wb") as f:
        np.savez_compressed(f, parent=trunk.parent, action=trunk.action, lo=trunk.lo, hi=trunk.hi)
    files.write_json(path, meta, indent=None)


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


def _read(game: pyspiel.Game, path: str | os.PathLike) -> tuple[dict, dict[str, np.ndarray]]:
    """The certificate's JSON and trunk arrays; ValueError with a one-line reason."""
    meta = files.read_json(path, "certificate")
    files.check_game(path, meta, game, "certificate")
    for field in _CLAIMS:
        if files.probability(meta.get(field)) is None:
            raise ValueError(f"{path}: {field!r} is missing or not a finite number")
    strategy = meta.get("strategy")
    if not isinstance(strategy, dict) or not all(isinstance(r, dict) for r in strategy.values()):
        raise ValueError(f"{path}: 'strategy' must map information states to distributions")
    npz = f"{os.fspath(path)}.npz"
    try:
        with np.load(npz, allow_pickle=False) as data:
            arrays = {k: data[k] for k in ("parent", "action", "lo", "hi")}
    except OSError as e:
        raise ValueError(f"cannot read the trunk file {npz}: {e.strerror or e}") from None
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile):
        raise ValueError(
            f"{npz} is not a trunk file (a .npz archive with parent, action, lo, hi)"
        ) from None
    n = len(arrays["parent"])
    if n == 0 or any(a.ndim != 1 or len(a) != n for a in arrays.values()):
        raise ValueError(f"{npz}: parent, action, lo, hi must be 1-d arrays of one length")
    return meta, arrays


_CLAIMS = ("epsilon", "value_lower", "value_upper")


def verify_saved(game: pyspiel.Game | str, path: str | os.PathLike) -> Verification:
    """Re-verifies a saved certificate against `game` (see the module docstring).

    The trunk is replayed in the game, every leaf bound is taken from the game's oracle, and
    alpha*(x), beta*(y) and epsilon are recomputed from the saved strategy; the certificate is
    rejected (with the reason) unless each claimed figure is what the recomputation proves,
    to `_TOLERANCE`.
    """
    game = tree_lib.load(game)
    try:
        meta, arrays = _read(game, path)
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
    table = _strategy_table(meta["strategy"])
    problem = _strategy_problem(sf, table) if isinstance(table, dict) else f"{path}: {table}"
    if problem:
        return Verification(False, problem)
    assert isinstance(table, dict)  # a str table is a problem, returned above
    lower, upper = certificate.verify(sf, policies.behavioural_from_table(sf, table))
    proven = {"epsilon": upper - lower, "value_lower": lower, "value_upper": upper}
    for field in _CLAIMS:
        claimed = float(meta[field])
        if abs(claimed - proven[field]) > _TOLERANCE * max(1.0, abs(proven[field])):
            return Verification(
                False,
                f"the certificate claims {field}={claimed:.6g} but its strategy proves "
                f"{proven[field]:.6g} (off by {claimed - proven[field]:+.3g})",
                upper - lower,
                lower,
                upper,
            )
    return Verification(True, "verified", upper - lower, lower, upper)


def _strategy_table(strategy: dict) -> dict[str, dict[int, float]] | str:
    """The saved strategy with int actions and float probabilities, or why it is not one (a
    probability that is not a finite number, an action that is not an integer)."""
    table: dict[str, dict[int, float]] = {}
    for key, row in strategy.items():
        table[key] = {}
        for a, p in row.items():
            prob = files.probability(p)
            if prob is None:
                return f"non-numeric probability {p!r} of action {a} at {key!r}"
            if not str(a).lstrip("-").isdigit():
                return f"action {a!r} at {key!r} is not an action id"
            table[key][int(a)] = prob
    return table


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
