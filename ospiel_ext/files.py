"""Result files: JSON read and written in one place (atomic writes, finite numbers, one-line
errors naming the file), and the check that a file belongs to the game it is loaded for."""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Iterator
from typing import Any

import numpy as np
import pyspiel

from ospiel_ext import tree as tree_lib


def same_game(a: pyspiel.Game, b: pyspiel.Game) -> bool:
    """True when `a` and `b` are the same game: same registered name and the same parameters
    with defaults filled in (`kuhn_poker(players=2)` is `kuhn_poker`)."""
    return a.get_type().short_name == b.get_type().short_name and (
        a.get_parameters() == b.get_parameters()
    )


def read_json(path: str | os.PathLike, what: str) -> Any:
    """The JSON document at `path`; ValueError naming the file and the problem in one line."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(f"{path} is not a {what} (not JSON: {e.msg} at line {e.lineno})") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a {what} (not UTF-8 text)") from None
    except OSError as e:
        raise ValueError(f"cannot read {what} {path}: {e.strerror or e}") from None


def check_game(path: str | os.PathLike, data: Any, game: pyspiel.Game, what: str) -> None:
    """Checks that the file's "game" names `game`; ValueError in one line otherwise."""
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise ValueError(f"{path} is not a {what} (needs a JSON object with a 'game' string)")
    try:
        saved = tree_lib.load(data["game"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path} names a game that cannot be loaded: {e}") from None
    if not same_game(saved, game):
        raise ValueError(f"{path} holds a {what} for {data['game']}, not for {game}")


def probability(value: Any) -> float | None:
    """`value` as a finite float, or None if it is not a number (strings, NaN, infinities)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if np.isfinite(value) else None


def _jsonable(value: Any) -> Any:
    """`value` with numpy types as Python ones and non-finite floats as None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike) -> Iterator[str]:
    """A temporary path beside `path` that replaces it when the block ends without error, so a
    reader never sees a half-written file (and an interrupted write leaves none)."""
    path = os.fspath(path)
    fd, tmp = tempfile.mkstemp(
        dir=os.path.dirname(path) or ".", prefix=f".{os.path.basename(path)}.", suffix=".tmp"
    )
    os.close(fd)
    try:
        yield tmp
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp's 0600 would make results private
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> None:
    """Writes `data` as strict JSON (NaN and infinities as null), ending with a newline,
    atomically."""
    with atomic_path(path) as tmp, open(tmp, "w", encoding="utf-8") as f:
        json.dump(_jsonable(data), f, indent=indent, sort_keys=False, allow_nan=False)
        f.write("\n")
