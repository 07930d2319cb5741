"""One progress display for long phases: compiling a game, HiGHS, solver iterations, sweeps.

Bars are tqdm's, on stderr, and drawn only when stderr is a terminal (tqdm's `disable=None`),
so pipes, log files, tests and CI see no change; every script's `--quiet` (`cli.command`) or
`set_enabled(False)` turns them off, and sweep workers never draw (their parent does).

    with progress.bar("CFR+", total=iterations, unit="it") as bar:
        for _ in range(iterations):
            ...
            bar.update()
"""

from __future__ import annotations

import sys
import time
from typing import Any

import tqdm
from absl import logging

_enabled = True


def set_enabled(enabled: bool) -> None:
    """Turns every later bar on (when stderr is a terminal) or off."""
    global _enabled
    _enabled = bool(enabled)


def enabled() -> bool:
    """Whether bars are on (`set_enabled`; on by default)."""
    return _enabled


def bar(desc: str, total: float | None = None, unit: str = "it", **kwargs: Any) -> tqdm.tqdm:
    """A tqdm bar (a no-op object when disabled).

    It shows the rate, the elapsed time, and an ETA when `total` is known; it is cleared when
    closed (`leave=False`).
    """
    return tqdm.tqdm(
        total=total,
        desc=desc,
        unit=unit,
        disable=None if _enabled else True,
        leave=False,
        dynamic_ncols=True,
        file=sys.stderr,
        **kwargs,
    )


class Counter:
    """The progress of a long count (nodes of a walk) towards a known or estimated total.

    A bar when stderr is a terminal, otherwise an INFO log line every `log_seconds` (pipes and
    log files see the walk move, with the total it is heading for).

        with progress.Counter("compiling leduc_poker()", total=9457, unit="node") as c:
            ...
            c.update_to(nodes)
    """

    def __init__(
        self, desc: str, total: float | None = None, unit: str = "it", log_seconds: float = 10.0
    ):
        self.desc, self.total, self.unit, self.log_seconds = desc, total, unit, log_seconds
        self._bar = bar(desc, total=total, unit=unit, unit_scale=True)
        self._start = self._last = time.perf_counter()

    def __enter__(self) -> Counter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.close()

    def update_to(self, n: int) -> None:
        """Moves the count to `n`: the bar, or without a bar an INFO line every `log_seconds`."""
        self._bar.update(n - self._bar.n)
        now = time.perf_counter()
        if self._bar.disable and _enabled and now - self._last >= self.log_seconds:
            self._last = now
            total = "" if self.total is None else f" of about {self.total:.3g}"
            logging.info(
                "%s: %s %ss%s, %.0fs", self.desc, f"{n:,}", self.unit, total, now - self._start
            )
