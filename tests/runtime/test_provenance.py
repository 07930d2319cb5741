"""provenance: what a results file records about the run that wrote it."""

import json
import os
import subprocess
import sys

import pytest

from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import provenance


def _git(repo, *args):
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def fresh(monkeypatch):
    """provenance as in a new process (no start taken yet)."""
    monkeypatch.setattr(provenance, "_started", None)


def test_record_names_command_code_versions_and_machine(fresh, monkeypatch):
    monkeypatch.setattr(provenance, "_REPOSITORY", "/nonexistent")  # not a checkout
    provenance.start(["/some/where/.venv/bin/ospiel-ext", "solve", "--game=kuhn poker"])
    r = provenance.record()
    assert r["command"] == "ospiel-ext solve '--game=kuhn poker'"  # quoted to be retyped
    assert r["commit"] is None and r["dirty"] is None
    assert set(provenance.PACKAGES) <= set(r) and all(r[p] for p in provenance.PACKAGES)
    assert r["python"].startswith("3.") and r["cpus"] >= 1 and r["date"].endswith("+00:00")
    assert r["wall_seconds"] >= 0


def test_record_names_the_kernels_that_decide_rounding(fresh, monkeypatch):
    """The CPU model, numpy's SIMD kernels and the BLAS library, so that a figure that differs
    in its last bits on another machine can be attributed (tests/results)."""
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", "1")
    r = provenance.record()
    assert r["cpu_model"] and r["blas"] and "openblas" in r["blas"].lower()
    assert r["kernel_environment"]["OPENBLAS_NUM_THREADS"] == "1"
    assert isinstance(r["numpy_simd"], list)
    code = "from ospiel_ext.runtime import provenance; print(provenance.record()['numpy_simd'])"
    off = os.environ.get("NPY_DISABLE_CPU_FEATURES", "")  # kernels already off stay off
    less = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "NPY_DISABLE_CPU_FEATURES": " ".join([off, *r["numpy_simd"]])},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert less.returncode == 0, less.stderr
    assert less.stdout.strip() == "[]"  # every dispatched kernel turned off: numpy's baseline


def test_commit_and_dirty_paths_come_from_git(fresh, monkeypatch, tmp_path):
    _git(tmp_path, "init", "-q")
    (tmp_path / "code.py").write_text("x = 1\n")
    (tmp_path / "notes.txt").write_text("n\n")
    _git(tmp_path, "add", ".")
    _git(tmp_path, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "c")
    head = subprocess.run(
        ["git", "-C", str(tmp_path), "rev-parse", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    monkeypatch.setattr(provenance, "_REPOSITORY", str(tmp_path))
    (tmp_path / "untracked.json").write_text("{}")  # an output being written is not dirt
    assert provenance._code() == {"commit": head, "dirty": False}
    (tmp_path / "code.py").write_text("x = 2\n")
    assert provenance._code() == {"commit": head, "dirty": ["code.py"]}
    script = tmp_path / "benchmarks" / "b.py"
    assert provenance._command([str(script), "--x=1"]) == "python benchmarks/b.py --x=1"


def test_start_is_taken_once(fresh):
    provenance.start(["a.py"])
    provenance.start(["b.py"])  # e.g. a second cli.main in the same process
    assert provenance.record()["command"].endswith("a.py")


def test_results_json_carry_provenance_first(tmp_path):
    path = tmp_path / "r.json"
    cli_output.write_json(path, {"value": 1.5})
    data = json.loads(path.read_text())
    assert list(data) == ["provenance", "value"] and "commit" in data["provenance"]
    cli_output.write_rows_json(str(path), {"rows": [{"a": 1}, {"a": 2}]})
    data = json.loads(path.read_text())
    assert list(data) == ["provenance", "rows"] and data["rows"] == [{"a": 1}, {"a": 2}]
