"""`make results-check`: every results JSON a doc cites carries its provenance, and a quick
slice of its command, rerun now, reproduces its figures (`result_slices`, `result_compare`).

A change that moves a documented figure fails here until the doc's command is rerun and the
JSON (and the doc) updated. Figures that depend on HiGHS's choices (which optimal LP solution it
returns; the path of a certificate search) are compared only in the environment that wrote the
JSON (make's .venv installs it: constraints.txt); elsewhere they are skipped with a warning.
"""

import glob
import json
import os
import warnings

import pytest
from forkserver import run_script
from result_compare import compare
from result_slices import NOT_COVERED, SLICES

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RESULTS = sorted(
    os.path.relpath(p, ROOT)
    for pattern in ("docs/results/*.json", "benchmarks/*.json")
    for p in glob.glob(os.path.join(ROOT, pattern))
)
PROVENANCE_FIELDS = ("command", "commit", "dirty", "date", "python", "open_spiel", "numpy",
                     "scipy", "highspy", "cpus")  # fmt: skip


def test_every_results_json_has_a_slice_or_a_reason():
    covered = {s.json for s in SLICES} | set(NOT_COVERED)
    assert sorted(set(RESULTS) - covered) == []
    assert sorted(covered - set(RESULTS)) == []  # no slice of a file that is gone


@pytest.mark.parametrize("path", RESULTS)
def test_results_json_records_its_provenance(path):
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        provenance = json.load(f).get("provenance")
    assert provenance, f"{path} has no provenance: rerun the command that wrote it"
    missing = [k for k in PROVENANCE_FIELDS if k not in provenance]
    assert not missing, f"{path}: provenance lacks {missing}"
    assert provenance["command"].split()[0] in ("python", "ospiel-ext")


@pytest.mark.slow
@pytest.mark.parametrize("piece", SLICES, ids=[s.name for s in SLICES])
def test_quick_slice_reproduces_the_committed_figures(piece, tmp_path):
    out = str(tmp_path / "fresh.json")
    argv = [a.replace("{out}", out).replace("{dir}", str(tmp_path)) for a in piece.argv]
    proc = run_script(os.path.join(ROOT, argv[0]), *argv[1:], cwd=ROOT)
    assert proc.returncode == 0, f"{' '.join(argv)}\n{proc.stderr[-3000:]}"
    fresh_path = piece.fresh.replace("{out}", out).replace("{dir}", str(tmp_path))
    with open(fresh_path, encoding="utf-8") as f:
        fresh = json.load(f)
    with open(os.path.join(ROOT, piece.json), encoding="utf-8") as f:
        committed = json.load(f)
    result = compare(
        fresh, committed, piece.keys, piece.tables, piece.drop_last, piece.ignore,
        piece.vertex, piece.atol, piece.rtol, piece.rounding,
    )  # fmt: skip
    shown = "\n".join(result.mismatches[:20])
    assert not result.mismatches, (
        f"{len(result.mismatches)} figures of {piece.json} moved (guards {piece.guards}); "
        f"rerun its command ({committed.get('provenance', {}).get('command')}) and update the "
        f"doc:\n{shown}"
    )
    if not result.compared and result.skipped:
        pytest.skip(
            f"{piece.name}: all {result.skipped} figures depend on HiGHS's choices and this "
            "environment's packages differ from the provenance of the committed JSON"
        )
    assert result.compared > 0
    if result.skipped:
        warnings.warn(
            f"{piece.name}: {result.skipped} LP-vertex figures not compared (this environment's "
            "packages differ from the provenance of the committed JSON)",
            stacklevel=1,
        )
