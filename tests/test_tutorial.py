"""docs/tutorial.md runs: its python blocks, in order, in one namespace (so it cannot rot)."""

import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TUTORIAL = os.path.join(ROOT, "docs", "tutorial.md")


def blocks():
    text = open(TUTORIAL, encoding="utf-8").read()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M)


def test_the_tutorial_has_its_sections():
    assert len(blocks()) >= 8


def test_every_block_runs_in_order(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the files the tutorial writes land here
    namespace: dict = {"__name__": "tutorial"}
    for k, code in enumerate(blocks()):
        exec(compile(code, f"{TUTORIAL} block {k + 1}", "exec"), namespace)
    assert (tmp_path / "kuhn_lp.json").exists()
    assert (tmp_path / "kuhn_certificate.json").exists()
    assert (tmp_path / "leduc_ranges.npz").exists()
