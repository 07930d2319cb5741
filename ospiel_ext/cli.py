"""Helpers shared by the absl-flag scripts in scripts/: game loading, tables, JSON output,
Ctrl-C (`StopFlag`, used by the run loop `ospiel_ext.algorithms.solver.run`).

Scripts print; the library logs. These helpers turn bad input into `app.UsageError` so a
script exits non-zero with a one-line message.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import pyspiel
from absl import app

from ospiel_ext import files
from ospiel_ext import tree as tree_lib


def load_game(game_string: str) -> pyspiel.Game:
    """Loads --game (registering ospiel_ext.games first), or raises app.UsageError."""
    import ospiel_ext.games  # noqa: F401  (registers our games with pyspiel)

    try:
        return tree_lib.load(game_string)
    except ValueError as e:
        raise app.UsageError(str(e)) from None


def require(condition: bool, message: str) -> None:
    """Raises app.UsageError(message) unless condition holds (flag validation)."""
    if not condition:
        raise app.UsageError(message)


def write_json(path: str | os.PathLike | None, data: dict[str, Any]) -> None:
    """Writes `data` as JSON when a path is given (--output_json); see `files.write_json`."""
    if path:
        files.write_json(path, data)


def format_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain aligned text table."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.6g}"
        return str(v)

    body = [[cell(v) for v in row] for row in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)
    ]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(header, widths)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


def pyplot():
    """matplotlib.pyplot on the Agg backend, or app.UsageError if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise app.UsageError("plots need matplotlib: pip install 'ospiel_ext[plot]'") from None
    return plt


INTERRUPTED_EXIT_CODE = 130
"""Exit code of a script stopped by Ctrl-C after writing its result so far (128 + SIGINT)."""


class StopFlag:
    """Turns the first Ctrl-C into a flag a long loop polls, so it can stop cleanly and
    return the best result so far; a second Ctrl-C interrupts as usual.

    Installs its SIGINT handler on entry and restores the previous one on exit (nests: an
    inner flag restores the outer one's handler). Outside the main thread, where Python
    cannot install signal handlers, it installs nothing and `stopped` stays False.
    """

    def __init__(self):
        self.stopped = False
        self._previous = None
        self._installed = False

    def __enter__(self) -> StopFlag:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def _restore(self) -> None:
        if self._installed:
            # None: the previous handler was not installed from Python; use Python's default.
            previous = signal.default_int_handler if self._previous is None else self._previous
            signal.signal(signal.SIGINT, previous)
            self._installed = False

    def _handle(self, signum, frame):
        del signum, frame
        self.stopped = True
        self._restore()

    def __exit__(self, *exc) -> None:
        self._restore()
