"""One progress display for long phases: compiling a game, HiGHS, solver iterations, sweeps.

Bars are tqdm's, on stderr, and drawn only when stderr is a terminal (tqdm's `disable=None`);
where it is not (pipes, log files), a long count or run logs an INFO line now and then instead
(`Counter`: every 10 s unless told otherwise, `RunProgress`: every minute). Every script's
`--quiet` (`cli.command`) or `set_enabled(False)` turns both off, and sweep workers never draw
(their parent does).

    with progress.bar("CFR+", total=iterations, unit="it") as bar:
        for _ in range(iterations):
            ...
            bar.update()
"""

from __future__ import annotations

import contextlib
import math
import sys
import time
from collections.abc import Callable
from typing import Any

import tqdm
from absl import logging

from ospiel_ext.runtime import interrupts

_enabled = True

RUN_LOG_SECONDS = 60.0
"""Seconds between `RunProgress`'s log lines where stderr is not a terminal."""


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
        self._postfix: dict[str, str] = {}

    def __enter__(self) -> Counter:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.close()

    def set_postfix(self, **figures: str) -> None:
        """Figures shown after the count (on the bar, and in the log lines), e.g. epsilon."""
        self._postfix = figures
        self._bar.set_postfix(refresh=False, **figures)

    def update_to(self, n: int) -> None:
        """Moves the count to `n`: the bar, or without a bar an INFO line every `log_seconds`."""
        self._bar.update(n - self._bar.n)
        now = time.perf_counter()
        if self._bar.disable and _enabled and now - self._last >= self.log_seconds:
            self._last = now
            total = "" if self.total is None else f" of about {self.total:.3g}"
            figures = "".join(f", {k} {v}" for k, v in self._postfix.items())
            logging.info(
                "%s: %s %ss%s, %.0fs%s",
                self.desc, f"{n:,}", self.unit, total, now - self._start, figures,
            )  # fmt: skip


class RunProgress:
    """The progress of a run loop towards its budgets: iterations, seconds, or both.

    On a terminal, a bar whose total is the iterations the budgets allow (the iteration budget,
    or as many as the time left allows at the rate so far, whichever is fewer), so that its ETA
    counts against whichever budget ends first, and the NashConv of the average profile. Where
    stderr is not a terminal, an INFO line every `log_seconds` (`RUN_LOG_SECONDS`) with the
    same figures. The NashConv is measured by `measure` only for the display, at most once a
    second and only while measuring takes under `MEASURE_SHARE` of the time (a checkpoint's
    measurement, `measured`, is shown too).

        with progress.RunProgress("leduc_poker()", 1000, 15.0, measure=nash_conv) as shown:
            for done in range(1, ...):
                ...
                shown.update(done)
    """

    MEASURE_SHARE = 0.05
    """The most of the run's time that measurements for the display may take."""

    def __init__(
        self,
        desc: str,
        iterations: int | None = None,
        time_limit: float | None = None,
        *,
        measure: Callable[[], float] | None = None,
        log_seconds: float | None = None,
    ):
        self.desc, self.iterations, self.time_limit = desc, iterations, time_limit
        self.log_seconds = RUN_LOG_SECONDS if log_seconds is None else log_seconds
        self._measure = measure
        # with a time limit, the total is known once a rate is (`expected_iterations`)
        self._bar = bar(desc, total=iterations if time_limit is None else None, unit="it")
        self._start = self._last_log = time.perf_counter()
        self._last_measure, self._measure_cost = -math.inf, 0.0
        self.nash_conv: float | None = None
        self._done = 0

    def __enter__(self) -> RunProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self._bar.close()

    def expected_iterations(self, done: int, elapsed: float) -> int | None:
        """The iterations the budgets allow (None: no budget, or no rate yet).

        The fewer of the iteration budget and what the time left allows at the rate so far.
        """
        by_time = None
        if self.time_limit is not None and done > 0 and elapsed > 0:
            by_time = done + int(max(self.time_limit - elapsed, 0.0) * done / elapsed)
        if self.iterations is None:
            return by_time
        return self.iterations if by_time is None else min(self.iterations, by_time)

    def measured(self, nash_conv: float) -> None:
        """Shows a NashConv measured by the run itself (at a checkpoint)."""
        self.nash_conv = float(nash_conv)
        self._bar.set_postfix(nash_conv=f"{self.nash_conv:.3g}", refresh=False)

    def update(self, done: int) -> None:
        """After an iteration: `done` iterations of this run so far."""
        self._done = done
        now = time.perf_counter()
        elapsed = now - self._start
        drawn = not self._bar.disable
        log_due = not drawn and _enabled and now - self._last_log >= self.log_seconds
        if drawn:
            total = self.expected_iterations(done, elapsed)
            if total is not None and total != self._bar.total:
                self._bar.total = max(total, done)
        if (drawn or log_due) and self._measure is not None and self._may_measure(now):
            tick = time.perf_counter()
            with contextlib.suppress(interrupts.Interrupted):  # given up after Ctrl-C
                self.measured(self._measure())
            self._last_measure = time.perf_counter()
            self._measure_cost = self._last_measure - tick
        self._bar.update(done - self._bar.n)
        if log_due:
            self._last_log = now
            logging.info("%s", self.line(done, elapsed))

    def _may_measure(self, now: float) -> bool:
        return now - self._last_measure >= max(1.0, self._measure_cost / self.MEASURE_SHARE)

    def line(self, done: int, elapsed: float) -> str:
        """The log line: iterations (of the budget), seconds (of the limit), NashConv, ETA."""
        parts = [
            f"iteration {done:,}" + ("" if self.iterations is None else f" of {self.iterations:,}")
        ]
        parts.append(
            f"{elapsed:.0f} s" + ("" if self.time_limit is None else f" of {self.time_limit:g} s")
        )
        if self.nash_conv is not None:
            parts.append(f"NashConv {self.nash_conv:.3g}")
        total = self.expected_iterations(done, elapsed)
        if total is not None and done > 0 and elapsed > 0:
            left = (total - done) * elapsed / done
            parts.append(f"about {tqdm.tqdm.format_interval(left)} left")
        return f"{self.desc}: " + ", ".join(parts)
