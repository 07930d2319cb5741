"""Saving certificates and re-verifying them from the game alone.

A certificate is two files, written together (`files.all_or_nothing`):

* `PATH` (JSON): {"format": "ospiel_ext certificate", "version": 2, "game", "epsilon",
  "value_lower", "value_upper", "trunk_nodes", "trunk_infosets", "strategy"}, the strategy
  being one table per player, [{information state: {action id: probability}}, {...}] (one
  per player: both players may have an information state of the same string, as in
  phantom_ttt);
* `PATH.npz`: the trunk, one array each of parent, action, lo and hi per node.

`verify_saved` rebuilds the trunk by replaying its expansions in the game, takes every bound
from the game's own oracle, checks perfect recall on it, and recomputes every figure of the
file (epsilon, both value bounds, the trunk's node and information-set counts) with the saved
strategy; any other field, a strategy row for an information state the trunk does not have,
an unknown format version or an extra array is rejected. Nothing in the files is trusted.
"""

from __future__ import annotations

import dataclasses
import os
import re
from typing import Any

import numpy as np
import pyspiel

from ospiel_ext import loading, policies
from ospiel_ext.algorithms.certificates import certificate, trunks
from ospiel_ext.runtime import files
from ospiel_ext.sequence_form import TreeSequenceForm

FORMAT = "ospiel_ext certificate"
VERSION = 2
_TOLERANCE = 1e-9
_CLAIMS = ("epsilon", "value_lower", "value_upper")
_COUNTS = ("trunk_nodes", "trunk_infosets")
_FIELDS = frozenset({"format", "version", "game", *_CLAIMS, *_COUNTS, "strategy"})
_ARRAYS = ("parent", "action", "lo", "hi")


def trunk_path(path: str | os.PathLike) -> str:
    """The trunk file that goes with the certificate at `path`: `path` + '.npz'."""
    return f"{os.fspath(path)}.npz"


def to_data(
    cert: certificate.Certificate, game: pyspiel.Game | str
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """The certificate's JSON document and trunk arrays (what `save` writes)."""
    trunk = cert.trunk
    meta: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": str(loading.load(game)),
        "epsilon": cert.epsilon,
        "value_lower": cert.value_lower,
        "value_upper": cert.value_upper,
        "trunk_nodes": trunk.num_nodes,
        "trunk_infosets": trunk.num_infosets,
        "strategy": [
            {key: {str(a): p for a, p in row.items()} for key, row in table.items()}
            for table in cert.strategy_table()
        ],
    }
    arrays: dict[str, np.ndarray] = {
        "parent": trunk.parent,
        "action": trunk.action,
        "lo": trunk.lo,
        "hi": trunk.hi,
    }
    return meta, arrays


def save(cert: certificate.Certificate, path: str | os.PathLike, game: pyspiel.Game) -> None:
    """Writes `path` (JSON) and `path`.npz (the trunk arrays), both or neither; never pickle.

    `cert` is a certificate found by `search` (or `best_certificate`) on a trunk whose leaves
    carry the game's own bounds. A `minimal_certificate` cannot be re-verified from its file:
    its cut-off leaves carry bounds taken from the explored subtrees below them, which the
    game's oracle alone does not reproduce.
    """
    meta, arrays = to_data(cert, game)
    with files.all_or_nothing():
        with files.output(trunk_path(path), binary=True) as f:
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]  # numpy's stubs
        files.write_json(path, meta, indent=None)


@dataclasses.dataclass(frozen=True, kw_only=True)
class Verification:
    """Outcome of re-verifying a saved certificate."""

    ok: bool
    reason: str
    epsilon: float = float("nan")
    value_lower: float = float("nan")
    value_upper: float = float("nan")


def _replay(game: pyspiel.Game, parent: np.ndarray, action: np.ndarray) -> trunks.Trunk:
    """Re-expands the saved trunk in `game`; raises ValueError where they disagree."""
    if parent[0] != -1 or np.any(parent[1:] < 0) or np.any(parent[1:] >= np.arange(1, len(parent))):
        raise ValueError("the certificate's trunk is not a tree (each parent precedes its child)")
    trunk = trunks.Trunk(game)
    internal, first_child = np.unique(parent[1:], return_index=True)
    for node in internal[np.argsort(first_child, kind="stable")].tolist():
        if node not in trunk.frontier:
            raise ValueError(
                f"node {node} is expanded in the certificate but is terminal, has exact "
                "bounds in the game or is not a node of the trunk"
            )
        trunk.expand(node)
    rebuilt = trunk.tree()
    if rebuilt.num_nodes != len(parent) or not (
        np.array_equal(rebuilt.parent, parent) and np.array_equal(rebuilt.action, action)
    ):
        raise ValueError("the certificate's trunk does not match the game's tree")
    return trunk


def _check_document(meta: Any, game: pyspiel.Game, where: str) -> None:
    """The JSON document's format, version, game and fields; ValueError naming `where`."""
    if not isinstance(meta, dict):
        raise ValueError(f"{where} is not a certificate (needs a JSON object with a 'game' string)")
    if meta.get("format") != FORMAT or "version" not in meta:
        raise ValueError(
            f"{where} is not a certificate of this format (no 'format': {FORMAT!r} and "
            "'version'; one written by an older ospiel_ext must be made again with certify)"
        )
    if meta["version"] != VERSION:
        raise ValueError(
            f"{where} has certificate format version {meta['version']!r}; this ospiel_ext "
            f"reads version {VERSION}"
        )
    loading.check_game(where, meta, game, "certificate")
    unknown = sorted(set(meta) - _FIELDS)
    if unknown:
        raise ValueError(
            f"{where}: unknown field {unknown[0]!r} (a certificate has {sorted(_FIELDS)})"
        )
    for field in _CLAIMS:
        if files.probability(meta.get(field)) is None:
            raise ValueError(f"{where}: {field!r} is missing or not a finite number")
    for field in _COUNTS:
        value = meta.get(field)
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"{where}: {field!r} is missing or not an integer")
    strategy = meta.get("strategy")
    if not (
        isinstance(strategy, list)
        and len(strategy) == 2
        and all(
            isinstance(t, dict) and all(isinstance(r, dict) for r in t.values()) for t in strategy
        )
    ):
        raise ValueError(
            f"{where}: 'strategy' must be two tables (players 0 and 1) mapping information "
            "states to distributions"
        )


def _read_trunk(npz: str) -> dict[str, np.ndarray]:
    try:
        data = files.read_npz(npz, "trunk file")
    except FileNotFoundError:
        raise ValueError(
            f"the trunk file {npz} is missing (a certificate is two files, PATH and PATH.npz, "
            "written together by certify --certificate_out)"
        ) from None
    names = sorted(data)
    arrays = {k: data[k] for k in _ARRAYS if k in names}
    if names != sorted(_ARRAYS):
        raise ValueError(f"{npz} is not a trunk file (it holds {names}, not {list(_ARRAYS)})")
    n = len(arrays["parent"])
    if n == 0 or any(a.ndim != 1 or len(a) != n for a in arrays.values()):
        raise ValueError(f"{npz}: {', '.join(_ARRAYS)} must be 1-d arrays of one length")
    for name in ("parent", "action"):
        if arrays[name].dtype.kind not in "iu":
            raise ValueError(f"{npz}: {name} must be integers")
    for name in ("lo", "hi"):
        if arrays[name].dtype.kind != "f":
            raise ValueError(f"{npz}: {name} must be floats")
    return arrays


def _strategy_tables(strategy: list) -> tuple[dict[str, dict[int, float]], ...] | str:
    """The saved strategy with int actions and float probabilities, or why it is not one.

    Why not: a probability that is not a finite number, an action that is not an integer.
    """
    tables: list[dict[str, dict[int, float]]] = []
    for saved in strategy:
        table: dict[str, dict[int, float]] = {}
        for key, row in saved.items():
            table[key] = {}
            for a, p in row.items():
                prob = files.probability(p)
                if prob is None:
                    return f"non-numeric probability {p!r} of action {a} at {key!r}"
                if not re.fullmatch(r"-?[0-9]+", str(a)):
                    return f"action {a!r} at {key!r} is not an action id"
                table[key][int(a)] = prob
        tables.append(table)
    return tuple(tables)


def _strategy_problem(sf: TreeSequenceForm, tables: tuple[dict[str, dict[int, float]], ...]) -> str:
    """Why `tables` is not a behavioural strategy of the trunk (one table per player), or ''."""
    tree = sf.tree
    for p in (0, 1):
        keys = set(sf.infoset_keys(p))
        extra = sorted(set(tables[p]) - keys)
        if extra:
            return (
                f"the strategy of player {p} has information state {extra[0]!r}, which the "
                "trunk does not have"
            )
    for i, key in enumerate(tree.infoset_key):
        p = int(tree.infoset_player[i])
        row = tables[p].get(key)
        if row is None:
            return f"no strategy for information state {key!r} of player {p}"
        legal = set(tree.infoset_legal_actions[i])
        if not set(row) <= legal:
            return f"illegal actions {sorted(set(row) - legal)} at {key!r}"
        probs = np.array(list(row.values()))
        if probs.min(initial=0) < 0 or abs(probs.sum() - 1) > _TOLERANCE:
            return f"the strategy at {key!r} is not a probability distribution"
    return ""


def verify_data(
    game: pyspiel.Game | str,
    meta: Any,
    arrays: dict[str, np.ndarray],
    where: str = "the certificate",
) -> Verification:
    """Verifies a certificate given as its JSON document and trunk arrays.

    See the module docstring; `where` names it in the reasons.
    """
    game = loading.load(game)
    try:
        _check_document(meta, game, where)
        trunk = _replay(game, arrays["parent"], arrays["action"])
        tree = trunk.tree()
        tree.check_perfect_recall()
    except ValueError as e:
        return Verification(ok=False, reason=str(e))
    wrong = np.flatnonzero((tree.lo != arrays["lo"]) | (tree.hi != arrays["hi"]))
    if len(wrong):
        n = int(wrong[0])
        what = "utility bounds" if tree.is_leaf[n] else "the bounds of an expanded node"
        return Verification(
            ok=False,
            reason=f"{what} at node {n} (history {tree.history(n)}) are "
            f"[{arrays['lo'][n]}, {arrays['hi'][n]}] in the certificate but the game's oracle "
            f"gives [{tree.lo[n]}, {tree.hi[n]}]",
        )
    counts = {"trunk_nodes": tree.num_nodes, "trunk_infosets": tree.num_infosets}
    for field, value in counts.items():
        if meta[field] != value:
            return Verification(
                ok=False,
                reason=f"the certificate claims {field}={meta[field]} but its trunk has {value}",
            )
    sf = TreeSequenceForm(tree)
    tables = _strategy_tables(meta["strategy"])
    problem = f"{where}: {tables}" if isinstance(tables, str) else _strategy_problem(sf, tables)
    if problem:
        return Verification(ok=False, reason=problem)
    assert not isinstance(tables, str)
    lower, upper = certificate.verify(sf, policies.behavioural_from_table(sf, tables))
    proven = {"epsilon": upper - lower, "value_lower": lower, "value_upper": upper}
    for field in _CLAIMS:
        claimed = float(meta[field])
        if abs(claimed - proven[field]) > _TOLERANCE * max(1.0, abs(proven[field])):
            return Verification(
                ok=False,
                reason=f"the certificate claims {field}={claimed:.6g} but its strategy proves "
                f"{proven[field]:.6g} (off by {claimed - proven[field]:+.3g})",
                epsilon=upper - lower,
                value_lower=lower,
                value_upper=upper,
            )
    return Verification(
        ok=True, reason="verified", epsilon=upper - lower, value_lower=lower, value_upper=upper
    )


def verify_saved(game: pyspiel.Game | str, path: str | os.PathLike) -> Verification:
    """Re-verifies the certificate saved at `path` (and `path`.npz) against `game`.

    See the module docstring: rejected, with the reason, unless every field is what the game and
    the saved strategy prove (figures to 1e-9).
    """
    game = loading.load(game)
    try:
        meta = files.read_json(path, "certificate")
        _check_document(meta, game, os.fspath(path))
        arrays = _read_trunk(trunk_path(path))
    except ValueError as e:
        return Verification(ok=False, reason=str(e))
    return verify_data(game, meta, arrays, where=os.fspath(path))
