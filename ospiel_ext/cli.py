"""Helpers shared by the absl-flag scripts in scripts/: game loading, tables, JSON output.

Scripts print; the library logs. These helpers turn bad input into `app.UsageError` so a
script exits non-zero with a one-line message.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterable, Sequence
from typing import Any

import pyspiel
from absl import app, logging

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


class StopFlag:
    """Turns the first Ctrl-C into a flag a long loop polls, so it can stop cleanly and
    return the best result so far; a second Ctrl-C interrupts as usual."""

    def __init__(self):
        self.stopped = False
        self._previous = None

    def __enter__(self) -> StopFlag:
        self._previous = signal.signal(signal.SIGINT, self._handle)
        return self

    def _handle(self, signum, frame):
        del signum, frame
        self.stopped = True
        signal.signal(signal.SIGINT, self._previous)

    def __exit__(self, *exc) -> None:
        signal.signal(signal.SIGINT, self._previous)


def run_iterations(
    solver, iterations: int, time_limit: float | None, log_every: int
) -> tuple[float, bool]:
    """Runs `solver.evaluate_and_update_policy()` up to `iterations` times, logging every
    `log_every`; stops early on Ctrl-C or after `time_limit` solver seconds. Returns (solver
    seconds, stopped early)."""
    seconds, stopped = 0.0, False
    with StopFlag() as stop:
        for it in range(1, iterations + 1):
            start = time.perf_counter()
            solver.evaluate_and_update_policy()
            seconds += time.perf_counter() - start
            if it % log_every == 0:
                logging.info(
                    "iteration %d  exploitability %.3g  %.2fs", it, solver.exploitability(), seconds
                )
            if stop.stopped or (time_limit is not None and seconds >= time_limit):
                stopped = True
                break
    return seconds, stopped
