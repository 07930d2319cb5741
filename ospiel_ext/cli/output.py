"""What the command line writes (`ospiel-ext` commands, scripts/, benchmarks/).

Results as JSON with the run's provenance (`write_json`, and `write_rows_json` with one line
per row for the benchmarks' results files), exploitabilities without their rounding below 0
(`clip_rounding`), figures rounded for a results file (`round_figures`), markdown tables of
the benchmarks' printed results (`markdown`), matplotlib figures as PNGs (`pyplot`,
`save_figure`, `save_plot`).

Every file goes through `files.output` (atomic for a regular file, written through for a
device or a pipe, '-' for standard output); `cli.outputs` writes a command's outputs together.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np
from absl import app

from ospiel_ext.runtime import files, provenance

ROUNDING_TOLERANCE = 1e-9
"""Exploitabilities, NashConvs and regrets in [-ROUNDING_TOLERANCE, 0) are rounding errors of
a true 0 and are printed and written as 0 (`clip_rounding`)."""


def clip_rounding(value: Any) -> Any:
    """`value` with its entries in [-ROUNDING_TOLERANCE, 0) set to 0.

    `value` is a float or a list / tuple of them. An exploitability, NashConv or regret is
    >= 0, and -5.6e-17 is rounding. Larger negative values are left alone (they would be a
    bug to see).
    """
    if isinstance(value, (list, tuple)):
        return type(value)(clip_rounding(v) for v in value)
    if isinstance(value, float) and -ROUNDING_TOLERANCE <= value < 0:
        return 0.0
    return value


def round_figures(value: Any) -> Any:
    """`value` as a results file keeps it, e.g. a float to 6 significant digits.

    A float (numpy's too) to 6 significant digits, an infinite or NaN one as None (JSON has
    neither), a list or tuple entry by entry (as a list); anything else as it is. Six digits
    keep a file small and its diffs readable, and `make results-check` compares a rerun to
    them with a relative tolerance of 1e-5.
    """
    if isinstance(value, (float, np.floating)):
        return float(f"{float(value):.6g}") if math.isfinite(value) else None
    if isinstance(value, (list, tuple)):
        return [round_figures(v) for v in value]
    return value


def markdown(
    header: Sequence[str],
    rows: Iterable[Sequence[Any]],
    number: Callable[[float], str] = lambda v: f"{v:.4g}",
) -> str:
    """A markdown table (the benchmarks print the tables that docs/results/*.md show).

    Floats are written by `number` (4 significant digits by default), None as an empty cell,
    anything else by `str`.
    """

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return number(v)
        return "" if v is None else str(v)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def _with_provenance(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the run's `provenance.record()` first (a results file says where it came from).

    A "provenance" already in `data` is kept.
    """
    return {"provenance": provenance.record(), **data}


def write_json(path: str | os.PathLike | None, data: dict[str, Any]) -> None:
    """Writes `data` and its provenance as JSON when a path is given (--output_json).

    See `files.write_json`.
    """
    if path:
        files.write_json(path, _with_provenance(data))


def write_rows_json(path: str, data: dict[str, Any]) -> None:
    """Writes JSON with one line per row of the list-valued entries, and the run's provenance.

    Small, diff-friendly results files of the benchmarks, written by `files.output`.
    """
    parts = []
    for key, value in _with_provenance(data).items():
        if isinstance(value, list) and value and isinstance(value[0], (list, dict)):
            rows = ",\n  ".join(json.dumps(row, allow_nan=False) for row in value)
            parts.append(f"{json.dumps(key)}: [\n  {rows}\n]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, allow_nan=False)}")
    with files.output(path) as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, or app.UsageError if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise app.UsageError(
            "plots need matplotlib: pip install matplotlib (in a checkout of ospiel_ext: "
            "pip install -e '.[plot]')"
        ) from None
    return plt


def save_figure(fig: Any, path: str, dpi: int = 100) -> None:
    """Writes a matplotlib figure to `path` as a PNG through `files.output`.

    Atomic for a regular file, written through for a device or a pipe, '-' for standard
    output.
    """
    with files.output(path, binary=True) as f:
        fig.savefig(f, format="png", dpi=dpi)


def save_plot(fig: Any, ax: Any, path: str) -> None:
    """Finishes a one-axis figure of curves and writes it to `path` as a 100-dpi PNG.

    Finished the way every plot of the pack looks (log grid, small legend).
    """
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)
