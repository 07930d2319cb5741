"""Comparing a fresh results JSON with the committed one (`make results-check`).

Both files are flattened to {path: value}: dictionaries by key, lists of records by the record's
identifying fields (so a slice's records are found among the full run's, in any order), other
lists by position (a slice's shorter curve or trace is a prefix of the committed one). Every
figure of the fresh file must then be in the committed file and equal to it: integers, strings
and booleans exactly, floats within `atol + rtol * |committed|`. Timings, memory, ratios and the
provenance are never compared.

Figures of a curve that amplifies floating-point rounding (EGT's steps, float32 iterates) are
compared as far as they replay on any x86-64 CPU (`Rounding`): the first points of each curve
exactly, the last point and the scalars at a tolerance measured across machines.

Figures that depend on which optimal solution HiGHS returns for an LP with many (a "vertex"
predicate per slice) are compared only when the committed file's provenance names the same
versions of open_spiel, numpy, scipy and highspy as this environment; otherwise they are
counted as skipped, and the check says so.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ospiel_ext.runtime import provenance

Path = tuple[str, ...]

IGNORED = re.compile(r"seconds|rss|ratio|^provenance$|^command$|^date$")
"""Keys never compared: timings, memory, speed ratios and where the file came from."""


def flatten(
    data: Any,
    keys: Mapping[str, Sequence[str]],
    tables: Mapping[str, str],
    drop_last: Mapping[str, int] | None = None,
    path: Path = (),
) -> dict[Path, Any]:
    """{path: leaf value} of a JSON value (module docstring).

    Args:
      data: the JSON value.
      keys: list name -> the fields that identify each of its records.
      tables: list-of-rows name -> the key of its column names in the same dictionary (a
        table {"columns": [...], "records": [[...], ...]} becomes a list of records).
      drop_last: list name -> how many of its last entries are left out (e.g. the iterations
        a time or node budget cut short).
      path: the path of `data` itself.
    """
    out: dict[Path, Any] = {}
    if isinstance(data, dict):
        for k, v in data.items():
            if IGNORED.search(k):
                continue
            if k in tables and isinstance(v, list):
                columns = data[tables[k]]
                v = [dict(zip(columns, row, strict=True)) for row in v]
            out.update(flatten(v, keys, tables, drop_last, (*path, k)))
        return out
    if isinstance(data, list):
        name = path[-1] if path else ""
        if drop_last and drop_last.get(name):
            data = data[: -drop_last[name]]
        if name in keys and all(isinstance(r, dict) for r in data):
            for r in data:
                ident = ",".join(f"{f}={r.get(f)}" for f in keys[name])
                out.update(flatten(r, keys, tables, drop_last, (*path, f"[{ident}]")))
        else:
            for i, v in enumerate(data):
                out.update(flatten(v, keys, tables, drop_last, (*path, str(i))))
        return out
    out[path] = data
    return out


def same_environment(provenance_record: Mapping[str, Any] | None) -> bool:
    """Whether a JSON's provenance names this environment's versions of
    `provenance.PACKAGES`."""
    if not provenance_record:
        return False
    return all(provenance_record.get(p) == v for p, v in provenance.versions().items())


def _equal(fresh: Any, committed: Any, atol: float, rtol: float) -> bool:
    if isinstance(fresh, bool) or isinstance(committed, bool):
        return fresh is committed
    if isinstance(fresh, int) and isinstance(committed, int):
        return fresh == committed
    if isinstance(fresh, (int, float)) and isinstance(committed, (int, float)):
        if math.isnan(fresh) or math.isnan(committed):
            return math.isnan(fresh) and math.isnan(committed)
        return abs(fresh - committed) <= atol + rtol * abs(committed)
    return fresh == committed


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


@dataclasses.dataclass(frozen=True)
class Rounding:
    """Figures that amplify rounding: what of them replays on another CPU, and how closely.

    Another x86-64 CPU runs other SIMD kernels in numpy (AVX2 instead of AVX-512: exp, log and
    sums round differently in the last bit) and in OpenBLAS; EGT's steps and float32 CFR
    amplify that last bit until the curves part. The tolerances are measured: the slice rerun
    with numpy's AVX-512 kernels disabled (`NPY_DISABLE_CPU_FEATURES="X86_V4 AVX512_ICL
    AVX512_SPR"`), with its AVX2 ones disabled too, with `OPENBLAS_NUM_THREADS=1` and with
    `OPENBLAS_CORETYPE=Haswell`, against the committed JSON; each tolerance is twice the
    largest difference seen.

    Attributes:
      paths: regular expression on a figure's "/"-joined path: the figures this applies to.
      exact_points: the first points of each curve, compared at the slice's own tolerance
        (before any of the measured runs parted from the committed one).
      loose: figure name (the last key of its path that is not a list index) -> (atol, rtol)
        for the last point of its curves and for scalars of that name.

    Other points of a matching curve, and the last point of a curve whose name is not in
    `loose`, are not compared (their spread across machines is that of the curve itself).
    """

    paths: str
    exact_points: int
    loose: Mapping[str, tuple[float, float]]


def _rounding_tolerance(
    path: Path, rounding: Rounding | None, last: Mapping[Path, int]
) -> tuple[float, float] | bool | None:
    """True: compare at the slice's tolerance; None: do not compare; else (atol, rtol)."""
    if rounding is None or not re.search(rounding.paths, "/".join(path)):
        return True
    name = next((p for p in reversed(path) if not p.isdigit()), "")
    if path[-1].isdigit():
        index = int(path[-1])
        if index < rounding.exact_points:
            return True
        if index != last[path[:-1]]:
            return None
        return rounding.loose.get(name)
    return rounding.loose.get(name, True)


@dataclasses.dataclass
class Comparison:
    """The outcome: figures compared, skipped (LP vertex, other environment), left out as
    rounding-sensitive (`Rounding`), and every mismatch as a line naming its path and both
    values."""

    compared: int = 0
    skipped: int = 0
    rounding: int = 0
    mismatches: list[str] = dataclasses.field(default_factory=list)


def compare(
    fresh: Mapping[str, Any],
    committed: Mapping[str, Any],
    keys: Mapping[str, Sequence[str]],
    tables: Mapping[str, str],
    drop_last: Mapping[str, int] | None = None,
    ignore: Sequence[str] = (),
    vertex: Callable[[str], bool] | None = None,
    atol: float = 1e-9,
    rtol: float = 1e-6,
    rounding: Rounding | None = None,
) -> Comparison:
    """Every figure of `fresh` against `committed` (module docstring).

    Args:
      fresh, committed: the two JSON objects.
      keys, tables, drop_last: as `flatten` (drop_last applies to `fresh` only).
      ignore: further paths left out: a path is left out when one of its parts is in `ignore`.
      vertex: predicate on a path's "/"-joined text: the figure depends on the LP vertex.
      atol, rtol: the float tolerance.
      rounding: the figures that amplify rounding and how they are compared (`Rounding`).
    """
    new = flatten(fresh, keys, tables, drop_last)
    old = flatten(committed, keys, tables)
    exact_lp = same_environment(committed.get("provenance"))
    last: dict[Path, int] = {}
    for path in new:
        if path and path[-1].isdigit():
            last[path[:-1]] = max(last.get(path[:-1], -1), int(path[-1]))
    out = Comparison()
    for path, value in new.items():
        if any(part in ignore for part in path):
            continue
        tolerance = _rounding_tolerance(path, rounding, last)
        if tolerance is None:
            out.rounding += 1
            continue
        a, r = (atol, rtol) if tolerance is True else tolerance
        text = "/".join(path)
        if vertex is not None and vertex(text) and not exact_lp:
            out.skipped += 1
            continue
        if path not in old:
            out.mismatches.append(f"{text}: {value!r} is not in the committed JSON")
            continue
        out.compared += 1
        if tolerance is True or not all(_is_number(v) for v in (value, old[path])):
            equal = _equal(value, old[path], a, r)
        else:  # a measured tolerance applies to counts too (traversals to a target)
            equal = _equal(float(value), float(old[path]), a, r)
        if not equal:
            out.mismatches.append(f"{text}: fresh {value!r}, committed {old[path]!r}")
    return out
