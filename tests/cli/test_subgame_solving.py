"""scripts/subgame_solving.py: JSON keys, the written policy's exploitability (OpenSpiel's),
a module:function cut, and one-line errors for bad input."""

import json
import os
import subprocess
import sys

import pyspiel
import pytest
from forkserver import run_script
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import policies, policy_files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPT = os.path.join(ROOT, "scripts", "subgame.py")


def run(*flags, env=None):
    """`python scripts/subgame.py flags`: forked from a warm interpreter (`forkserver`), or in
    a fresh process where `env` changes the environment."""
    if env is None:
        return run_script(SCRIPT, *flags)
    return subprocess.run(
        [sys.executable, SCRIPT, *flags], capture_output=True, text=True, timeout=600, env=env
    )


@pytest.mark.parametrize(
    "gadget, prior, solver",
    [
        ("resolving", "blueprint", "cfr_plus"),
        ("max_margin", "uniform", "lp"),
        ("unsafe", "none", "egt"),
    ],
)
def test_json_and_policy(tmp_path, gadget, prior, solver):
    out, pol = tmp_path / "r.json", tmp_path / "p.json"
    proc = run(
        "--game=leduc_poker",
        "--cut=public_chance",
        "--blueprint=dirichlet:3",
        f"--gadget={gadget}",
        f"--prior={prior}",
        f"--solver={solver}",
        "--iterations=200",
        "--game_value",
        f"--output_json={out}",
        f"--policy_out={pol}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    game = pyspiel.load_game("leduc_poker")
    blueprint = policies.random_policy(game, 3, 1.0)
    assert result["blueprint_exploitability"] == pytest.approx(
        os_exploitability.exploitability(game, blueprint), abs=1e-9
    )
    resolved = policy_files.load_policy(game, pol)
    assert result["exploitability"] == pytest.approx(
        os_exploitability.exploitability(game, resolved), abs=1e-9
    )
    assert len(result["subgames"]) == 30  # 6 public cards x 5 first-round betting sequences
    for row in result["subgames"]:
        assert set(row) >= {"index", "blueprint_exploitability", "exploitability", "min_delta"}
    if gadget != "unsafe":  # safe gadgets: no player's exploitability grows (Section 2.1)
        for p in (0, 1):
            assert (
                result["player_exploitability"][p]
                <= result["blueprint_player_exploitability"][p] + 1e-6
            )
    assert "E(this resolved)" in proc.stdout


def test_predicate_cut_equals_after_moves(tmp_path):
    (tmp_path / "kuhn_cut.py").write_text(
        "def one_move(state):\n    return len(state.history()) >= 3\n"
    )
    env = dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}")
    values = []
    for cut in ("after_moves=1", "kuhn_cut:one_move"):
        out = tmp_path / f"{cut.replace(':', '_')}.json"
        proc = run(
            "--game=kuhn_poker",
            f"--cut={cut}",
            "--blueprint=cfr:5",
            "--solver=lp",
            f"--output_json={out}",
            env=env,
        )
        assert proc.returncode == 0, proc.stderr
        values.append(json.loads(out.read_text()))
    assert values[0]["exploitability"] == pytest.approx(values[1]["exploitability"], abs=1e-12)
    assert len(values[0]["subgames"]) == len(values[1]["subgames"]) == 2


def test_bad_input_ends_with_one_line(tmp_path):
    pol = tmp_path / "kuhn.json"
    game = pyspiel.load_game("kuhn_poker")
    policy_files.save_policy(policies.uniform_policy(game), pol, game)
    cases = [
        (["--cut=after_moves=9"], "selects no non-terminal state"),
        ([f"--blueprint={pol}", "--game=leduc_poker", "--cut=public_chance"], "not for leduc"),
        (["--tremble=0"], "--tremble must be in (0, 1)"),
        (["--tremble=1"], "--tremble must be in (0, 1)"),
        (["--game=kuhn_poker(players=3)"], "3 players"),
        (["--cut=no_such_module:f"], "cannot load the predicate"),
    ]
    for flags, message in cases:
        proc = run(*flags, "--iterations=10")
        assert proc.returncode != 0, flags
        assert message in proc.stderr.strip().splitlines()[-1], (flags, proc.stderr)
