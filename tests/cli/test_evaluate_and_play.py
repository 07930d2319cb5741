"""scripts/evaluate.py and scripts/play.py: a saved policy evaluated with OpenSpiel's tools and
played against OpenSpiel bots, checked against values known from theory (Kuhn's equilibrium
value -1/18; the uniform policy's NashConv 11/12) or computed by OpenSpiel directly, and
one-line errors for bad input."""

import json
import os

import numpy as np
import pyspiel
import pytest
from forkserver import run_script
from helpers import KUHN_VALUE
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms.expected_game_score import policy_value

from ospiel_ext import lp, policies, policy_files, sequence_form
from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms.poker import range_cfr, range_policy

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(*flags, script="evaluate.py", stdin=None):
    """`python scripts/script flags` (forked from a warm interpreter: `forkserver`)."""
    return run_script(os.path.join(ROOT, "scripts", script), *flags, stdin=stdin)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("policies")
    game = pyspiel.load_game("kuhn_poker")
    sf = sequence_form.for_game(game)
    equilibrium = policies.layout(sf).to_tabular(lp.solve(sf).behavioural)
    policy_files.save_policy(equilibrium, d / "lp.json", game)
    policy_files.save_policy(policies.uniform_policy(game), d / "uniform.json", game)
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
        ([], "one of --policy and --agent is required"),
        (["--policy={lp}", "--agent=x.py:f"], "one of --policy and --agent is required"),
        (["--agent=x.py:f", "--against={lp}"], "--against takes policy files, not --agent"),
        (["--agent=nothing"], "not MODULE:NAME or FILE.py:NAME"),
        (["--agent=/nonexistent/a.py:f"], "no file /nonexistent/a.py"),
        (["--agent=no_such_module_here:f"], "No module named 'no_such_module_here'"),
        (["--agent={agent}:missing"], "has no callable missing"),
        (["--game=leduc_poker", "--agent={agent}:sums_to_two"], "does not sum to 1"),
        (["--game=go(board_size=5)", "--agent={agent}:uniform"], "no public-tree poker"),
        (["--agent={agent}:uniform", "--output_json={agent}"], "--agent file"),
        (["--policy=/nonexistent/p.json"], "/nonexistent/p.json"),
        (["--game=leduc_poker", "--policy={lp}"], "not for leduc_poker()"),
        (["--game=kuhn_poker(players=3)", "--policy={lp}"], "has 3 players"),
        (["--policy={lp}", "--max_nodes=10"], "--max_nodes=10 bounds OpenSpiel's walk"),
        (["--policy={lp}", "--against=/nonexistent/q.json"], "/nonexistent/q.json"),
        # range policies (.npz)
        (["--game=leduc_poker", "--policy={a}", "--against={lp}"], "both range policies (.npz)"),
        (["--game=kuhn_poker", "--policy={a}"], "is a range policy of leduc_poker(), not of kuhn"),
        (["--game=leduc_poker", "--policy={a}", "--against={c}"], "laid out with suits False"),
        (["--game=leduc_poker", "--policy={other_npz}"], "is not a range-policy file"),
    ],
)
def test_bad_input_is_one_line(files, range_files, tmp_path, flags, message):
    np.savez(tmp_path / "other.npz", x=np.zeros(2))
    (tmp_path / "agent.py").write_text(AGENTS)
    paths = {
        "agent": tmp_path / "agent.py",
        "lp": files / "lp.json",
        "a": range_files / "a.npz",
        "c": range_files / "c.npz",
        "other_npz": tmp_path / "other.npz",
    }
    proc = run(*[f.format(**paths) for f in flags])
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], proc.stderr


AGENTS = """
import numpy as np


def uniform(node):
    return np.full((len(node.hands), len(node.actions)), 1 / len(node.actions))


def sums_to_two(node):
    return 2 * uniform(node)


def first_action(node):
    probs = np.zeros((len(node.hands), len(node.actions)))
    probs[:, 0] = 1
    return probs
"""


@pytest.mark.parametrize("name", ["uniform", "first_action"])
def test_an_agent_is_evaluated_on_the_public_tree_as_openspiel_walks_it(tmp_path, name):
    """--agent=FILE.py:NAME, a batched policy, against OpenSpiel's walk of the same play."""
    game = pyspiel.load_game(
        "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=2 1,raiseSize=2 4,"
        "firstPlayer=2 1,maxRaises=2 2,numSuits=2,numRanks=3,numHoleCards=2,numBoardCards=0 2)"
    )
    (tmp_path / "agent.py").write_text(AGENTS)
    out = tmp_path / "e.json"
    proc = run(f"--game={game}", f"--agent={tmp_path / 'agent.py'}:{name}", f"--output_json={out}")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text())
    pol = policies.uniform_policy(game)
    if name == "first_action":
        pol.action_probability_array[:] = 0
        for s, row_ in enumerate(pol.states):
            pol.action_probability_array[s, row_.legal_actions()[0]] = 1
    assert row["best_response_by"] == "ospiel_ext (public tree)"
    assert row["exploitability"] == pytest.approx(
        os_exploitability.exploitability(game, pol), abs=1e-9
    )
    assert row["exploitability_mbb"] == pytest.approx(1000 * row["exploitability"] / 2)
    assert row["agent"].endswith(f"agent.py:{name}")


@pytest.fixture(scope="module")
def range_files(tmp_path_factory):
    """Range policies of Leduc: with suit isomorphism CFR+ after 20 iterations (a) and DCFR
    after 3 (b); without, uniform (c)."""
    d = tmp_path_factory.mktemp("range_policies")
    game = pyspiel.load_game("leduc_poker")
    for name, config, iterations in (("a", cfr_rules.CFR_PLUS, 20), ("b", cfr_rules.DCFR, 3)):
        solver = range_cfr.for_game(game, config)
        for _ in range(iterations):
            solver.evaluate_and_update_policy()
        range_policy.save_range_policy(solver.average_policy(), d / f"{name}.npz")
    solver = range_cfr.for_game(game, cfr_rules.CFR_PLUS, suits=False)
    range_policy.save_range_policy(solver.average_policy(), d / "c.npz")  # uniform, no suits
    return d


def test_range_policies_are_evaluated_on_the_public_tree(range_files, tmp_path):
    """A .npz range policy: its best responses and values from the range walker, equal to
    OpenSpiel's own on the loaded policies (which ask them at every state)."""
    out = tmp_path / "e.json"
    proc = run(
        "--game=leduc_poker",
        f"--policy={range_files / 'a.npz'}",
        f"--against={range_files / 'b.npz'}",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text())
    a, b = (range_policy.load_range_policy(range_files / f"{n}.npz") for n in "ab")
    game, root = a.game, a.game.new_initial_state()
    direct = os_exploitability.nash_conv(game, a, return_only_nash_conv=False)
    assert row["best_response_by"] == "ospiel_ext (public tree)"
    assert row["nash_conv"] == pytest.approx(direct.nash_conv, abs=1e-9) and direct.nash_conv > 0.01
    assert row["player_improvements"] == pytest.approx(list(direct.player_improvements), abs=1e-9)
    assert row["on_policy_values"] == pytest.approx(list(policy_value(root, [a, a])), abs=1e-9)
    against = row["against"]
    assert against["as_player_0"] == pytest.approx(policy_value(root, [a, b])[0], abs=1e-9)
    assert against["as_player_1"] == pytest.approx(policy_value(root, [b, a])[1], abs=1e-9)


def test_play_against_random_matches_the_exact_value(files, tmp_path):
    out = tmp_path / "p.json"
    flags = ["--game=kuhn_poker", f"--policy={files / 'lp.json'}", "--num_games=2000", "--seed=3"]
    proc = run(*flags, f"--output_json={out}", script="play.py")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text())
    del row["provenance"]  # the command and its date differ between the two runs
    # The uniform random bot plays the uniform policy: the exact value from OpenSpiel.
    game = pyspiel.load_game("kuhn_poker")
    lp_policy = policy_files.load_policy(game, files / "lp.json")
    uniform = policies.uniform_policy(game)
    root = game.new_initial_state()
    exact = (
        policy_value(root, [lp_policy, uniform])[0] + policy_value(root, [uniform, lp_policy])[1]
    ) / 2
    assert row["games"] == 2000
    assert abs(row["mean"] - exact) < 2 * row["ci95"]  # 4 standard errors
    assert run(*flags, f"--output_json={tmp_path / 'q.json'}", script="play.py").returncode == 0
    again = json.loads((tmp_path / "q.json").read_text())
    assert {k: v for k, v in again.items() if k != "provenance"} == row  # a seed fixes the play


def test_range_policies_play_with_the_exact_mean(range_files, tmp_path):
    """Two .npz range policies play each other (no walk of the game): the mean return is
    within 4 standard errors of the exact value from OpenSpiel's policy_value."""
    out = tmp_path / "p.json"
    a_path, b_path = range_files / "a.npz", range_files / "b.npz"
    proc = run(
        "--game=leduc_poker",
        f"--policy={a_path}",
        f"--opponent=policy:{b_path}",
        "--num_games=2000",
        "--seed=5",
        "--max_nodes=10",  # a TabularPolicy would be refused: a range policy walks nothing
        f"--output_json={out}",
        script="play.py",
    )
    assert proc.returncode == 0, proc.stderr
    row = json.loads(out.read_text())
    a, b = (range_policy.load_range_policy(p) for p in (a_path, b_path))
    root = a.game.new_initial_state()
    exact = (policy_value(root, [a, b])[0] + policy_value(root, [b, a])[1]) / 2
    assert row["games"] == 2000 and abs(row["mean"] - exact) < 2 * row["ci95"]


def test_human_player_reads_actions_and_stops_at_end_of_input(files, tmp_path):
    out = tmp_path / "h.json"
    proc = run(
        "--game=kuhn_poker",
        f"--policy={files / 'lp.json'}",
        "--opponent=human",
        "--num_games=4",
        f"--output_json={out}",
        script="play.py",
        stdin="x\nBet\n1\n1\n1\n1\n1\n1\n",
    )
    assert proc.returncode == 0, proc.stderr
    assert "'x' is not a legal action" in proc.stdout
    assert "legal actions: 0=Pass, 1=Bet" in proc.stdout
    row = json.loads(out.read_text())
    assert row["games"] in (0, 2, 4)


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--opponent=chess"], "--opponent must be random, policy:FILE, mcts or human"),
        (["--num_games=0"], "--num_games must be positive"),
        (["--opponent=policy:/nonexistent/q.json"], "/nonexistent/q.json"),
    ],
)
def test_play_bad_input_is_one_line(files, flags, message):
    proc = run(f"--policy={files / 'lp.json'}", *flags, script="play.py")
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and message in lines[0], proc.stderr
