"""scripts/evaluate.py: a saved policy evaluated with OpenSpiel's tools, checked against values
known from theory (Kuhn's equilibrium value -1/18; the uniform policy's NashConv 11/12,
computed here by OpenSpiel directly) and one-line errors for bad input."""

import json
import os
import subprocess
import sys

import pyspiel
import pytest
from conftest import KUHN_VALUE
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import lp, policies, sequence_form

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*flags):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "evaluate.py"), *flags],
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("policies")
    game = pyspiel.load_game("kuhn_poker")
    sf = sequence_form.for_game(game)
    equilibrium = policies.layout(sf).to_tabular(lp.solve(sf).behavioural)
    policies.save_policy(equilibrium, d / "lp.json", game)
    policies.save_policy(policies.uniform_policy(game), d / "uniform.json", game)
    return d


def test_equilibrium_and_uniform_policies(files, tmp_path):
    out = tmp_path / "e.json"
    proc = run("--game=kuhn_poker", f"--policy={files / 'lp.json'}", f"--output_json={out}")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text())
    assert row["exploitability"] < 1e-9
    assert row["on_policy_values"][0] == pytest.approx(KUHN_VALUE, abs=1e-9)
    assert row["best_response_values"][0] == pytest.approx(KUHN_VALUE, abs=1e-9)

    proc = run(
        "--game=kuhn_poker",
        f"--policy={files / 'uniform.json'}",
        f"--against={files / 'lp.json'}",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text())
    game = pyspiel.load_game("kuhn_poker")
    direct = os_exploitability.nash_conv(game, policies.uniform_policy(game), False)
    assert row["nash_conv"] == pytest.approx(11 / 12, abs=1e-12)
    assert row["player_improvements"] == pytest.approx(list(direct.player_improvements))
    # Uniform against the equilibrium: it cannot win in either seat, and on average it loses
    # at least what the equilibrium guarantees (the game's value is -1/18 for player 0).
    a = row["against"]
    assert a["as_player_0"] <= KUHN_VALUE + 1e-9 and a["as_player_1"] <= -KUHN_VALUE + 1e-9
    assert a["average"] == pytest.approx((a["as_player_0"] + a["as_player_1"]) / 2)
    assert "NashConv 0.916667" in proc.stdout


@pytest.mark.parametrize(
    "flags, message",
    [
        ([], "--policy is required"),
        (["--policy=/nonexistent/p.json"], "/nonexistent/p.json"),
        (["--game=leduc_poker", "--policy={lp}"], "not for leduc_poker()"),
        (["--game=kuhn_poker(players=3)", "--policy={lp}"], "has 3 players"),
        (["--policy={lp}", "--max_nodes=10"], "more than --max_nodes=10"),
        (["--policy={lp}", "--against=/nonexistent/q.json"], "/nonexistent/q.json"),
    ],
)
def test_bad_input_is_one_line(files, flags, message):
    proc = run(*[f.format(lp=files / "lp.json") for f in flags])
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], proc.stderr
