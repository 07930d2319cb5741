"""One progress display for long phases: compiling a game, HiGHS, solver iterations, sweeps.

Bars are tqdm's, on stderr, and drawn only when stderr is a terminal (tqdm's `disable=None`),
so pipes, log files, tests and CI see no change; every script's `--quiet` (`ospiel_ext.cli`) or
`set_enabled(False)` turns them off, and sweep workers never draw (their parent does).

    with progress.bar("CFR+", total=iterations, unit="it") as bar:
        for _ in range(iterations):
            ...
            bar.update()
"""

from __future__ import annotations

import sys

import tqdm

_enabled = True


def set_enabled(enabled: bool) -> None:
    """Turns every later bar on (when stderr is a terminal) or off."""
    global _enabled
    _enabled = bool(enabled)


def enabled() -> bool:
    return _enabled


def bar(desc: str, total: float | None = None, unit: str = "it", **kwargs) -> tqdm.tqdm:
    """A tqdm bar (a no-op object when disabled): rate, elapsed time, and an ETA when
    `total` is known; it is cleared when closed (`leave=False`)."""
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
