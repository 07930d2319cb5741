"""Where a results file came from: the command, the code and the machine.

`record()` is what every results JSON of the benchmarks and commands carries under
"provenance" (written by `cli_output`'s two JSON writers): the exact command line, the git commit
of the checkout that ran it and the tracked files that differed from it (dirty), the versions of
Python and of the packages the figures depend on, the UTC date the run started, its wall time,
the CPUs it could use, and what decides the last bit of floating-point results besides the code
(the CPU model, numpy's SIMD kernels, the BLAS library and its environment). A figure in
docs/results/ can so be traced to the code that printed it, and `make results-check`
(tests/results) reruns a quick slice of the command against it.

The run's start is taken once per process (`start()`, called by `cli.main` before the script
runs), so that a commit made while a long benchmark runs does not relabel its results.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import os
import platform
import shlex
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["PACKAGES", "record", "start", "versions"]

PACKAGES = ("open_spiel", "numpy", "scipy", "highspy")
"""The packages whose versions a figure depends on (besides Python and this pack)."""

_MAX_DIRTY_PATHS = 20
_REPOSITORY = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_started: dict[str, Any] | None = None
_started_at = 0.0


def _git(*args: str) -> str | None:
    """The output of a git command in this pack's checkout, or None (no git, not a checkout)."""
    try:
        out = subprocess.run(
            ["git", "-C", _REPOSITORY, *args],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout


def _code() -> dict[str, Any]:
    """The commit of the checkout and the tracked paths that differ from it."""
    commit = _git("rev-parse", "HEAD")
    if commit is None:
        return {"commit": None, "dirty": None}
    status = _git("status", "--porcelain", "--untracked-files=no") or ""
    paths = sorted(line[3:] for line in status.splitlines() if line.strip())
    dirty: bool | list[str] = paths[:_MAX_DIRTY_PATHS] if paths else False
    if len(paths) > _MAX_DIRTY_PATHS:
        dirty = [*paths[:_MAX_DIRTY_PATHS], f"... {len(paths) - _MAX_DIRTY_PATHS} more"]
    return {"commit": commit.strip(), "dirty": dirty}


def _command(argv: Sequence[str]) -> str:
    """The command line as it would be typed in the checkout.

    `python benchmarks/x.py ...` for a script, `ospiel-ext ...` for the installed command.
    """
    if not argv:
        return ""
    program = argv[0]
    if program.endswith(".py"):
        path = os.path.abspath(program)
        if path.startswith(_REPOSITORY + os.sep):
            path = os.path.relpath(path, _REPOSITORY)
        head = ["python", path]
    else:  # `commands.run` names itself "ospiel-ext <command>"
        head = os.path.basename(program).split()
    return shlex.join([*head, *argv[1:]])


def versions() -> dict[str, str | None]:
    """This environment's version of each of `PACKAGES` (None if it is not installed)."""
    out: dict[str, str | None] = {}
    for package in PACKAGES:
        try:
            out[package] = importlib.metadata.version(package)
        except importlib.metadata.PackageNotFoundError:
            out[package] = None
    return out


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def _cpu_model() -> str:
    """The CPU's model name (Linux's /proc/cpuinfo), or what `platform` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.partition(":")[2].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _kernels() -> dict[str, Any]:
    """What decides floating-point rounding besides the code: numpy's SIMD kernels and BLAS.

    numpy picks its kernels by the CPU's features (`NPY_DISABLE_CPU_FEATURES` turns some off)
    and OpenBLAS by the CPU's core type and its thread count (`OPENBLAS_*`), so two machines
    with the same packages may differ in the last bit, which EGT's steps and float32 CFR
    amplify (tests/results).
    """
    try:  # numpy's private module: other numpy versions may lay it out otherwise
        from numpy._core import _multiarray_umath as umath  # type: ignore[attr-defined]

        enabled = umath.__cpu_features__
        simd = [f for f in umath.__cpu_dispatch__ if enabled.get(f)]
    except (ImportError, AttributeError):  # another numpy's private layout
        simd = None
    try:
        blas = np.__config__.CONFIG["Build Dependencies"]["blas"]
        blas_name = f"{blas['name']} {blas['version']}"
    except (AttributeError, KeyError, TypeError):
        blas_name = None
    environment = {
        k: v for k, v in os.environ.items() if k.startswith(("OPENBLAS_", "NPY_", "OMP_NUM"))
    }
    return {"cpu_model": _cpu_model(), "numpy_simd": simd, "blas": blas_name,
            "kernel_environment": environment}  # fmt: skip


def start(argv: Sequence[str] | None = None) -> None:
    """Takes the run's command, code state and start time.

    Once per process; later calls with the same process do nothing.
    """
    global _started, _started_at
    if _started is not None:
        return
    _started_at = time.perf_counter()
    _started = {
        "command": _command(sys.argv if argv is None else argv),
        **_code(),
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        **versions(),
        "cpus": _cpus(),
        "machine": platform.machine(),
        **_kernels(),
    }


def record() -> dict[str, Any]:
    """The provenance of the results being written now.

    `start()`'s fields (taken now if it was not called) and the wall seconds since the start.
    """
    start()
    assert _started is not None
    return {**_started, "wall_seconds": round(time.perf_counter() - _started_at, 1)}
