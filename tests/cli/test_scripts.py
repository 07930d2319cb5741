"""The absl scripts: JSON outputs, policy files, and one-line errors for bad input."""

import importlib.util
import itertools
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pyspiel
import pytest
from forkserver import run_script
from helpers import KUHN_VALUE
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import policy_files
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.gameshrink import lifting
from ospiel_ext.algorithms.poker import (
    range_cfr,
    range_policy,
    range_tree,
    range_walker,
    structure,
)
from ospiel_ext.games import poker_actions as pa

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def run(script, *flags, folder="scripts"):
    """`python folder/script flags` (forked from a warm interpreter: `forkserver`)."""
    return run_script(os.path.join(ROOT, folder, script), *flags)


def test_game_stats(tmp_path):
    out = tmp_path / "stats.json"
    proc = run("stats.py", "--game=kuhn_poker", f"--output_json={out}")
    assert proc.returncode == 0, proc.stderr
    stats = json.loads(out.read_text())
    assert stats["histories"] == 58 and stats["terminals"] == 30
    assert stats["infosets_0"] == stats["infosets_1"] == 6
    assert stats["sequences_0"] == stats["sequences_1"] == 13
    assert "histories" in proc.stdout


@pytest.mark.parametrize("solver", ["lp", "cfr_plus"])
def test_solve_writes_result_and_policy(tmp_path, solver):
    out, pol_path = tmp_path / "r.json", tmp_path / "p.json"
    proc = run(
        "solve.py",
        "--game=kuhn_poker",
        f"--solver={solver}",
        "--iterations=3000",
        f"--output_json={out}",
        f"--policy_out={pol_path}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["value"] == pytest.approx(KUHN_VALUE, abs=2e-3)
    game = pyspiel.load_game("kuhn_poker")
    pol = policy_files.load_policy(game, pol_path)
    assert os_exploitability.exploitability(game, pol) == pytest.approx(
        result["exploitability"], abs=1e-9
    )


@pytest.mark.parametrize(
    "script, flags, tol",
    [
        ("solve.py", ["--iterations=30"], 1e-12),
        ("egt.py", ["--iterations=30", "--dgf_weight=0.001"], 1e-9),
    ],
    ids=["solve", "egt"],
)
def test_public_tree_form_writes_the_explicit_forms_policy_and_json(tmp_path, script, flags, tol):
    """`--form=public_tree` of `solve` (CFR+) and `egt`: the same policy file and
    JSON as `--form=explicit` after the same iterations on Leduc, every probability and figure
    to `tol` (the two forms sum the same terms in different orders; EGT's scale is
    `max_abs_payoff`, read from the public tree without the payoff matrix)."""
    outputs = {}
    for form in ("explicit", "public_tree"):
        out, pol_path = tmp_path / f"{form}.json", tmp_path / f"{form}_policy.json"
        proc = run(
            script,
            "--game=leduc_poker",
            *flags,
            f"--form={form}",
            f"--output_json={out}",
            f"--policy_out={pol_path}",
        )
        assert proc.returncode == 0, proc.stderr
        outputs[form] = json.loads(out.read_text()), json.loads(pol_path.read_text())
    (result, pol), (want_result, want_pol) = outputs["public_tree"], outputs["explicit"]
    assert pol["game"] == want_pol["game"] == "leduc_poker()"
    assert pol["policy"].keys() == want_pol["policy"].keys()
    for key, row in want_pol["policy"].items():
        assert pol["policy"][key].keys() == row.keys()
        for action, p in row.items():
            assert pol["policy"][key][action] == pytest.approx(p, abs=tol)
    assert result.keys() == want_result.keys()
    for k, want in want_result.items():
        if k in ("provenance", "seconds"):
            continue
        floats = isinstance(want, float) or (isinstance(want, list) and type(want[0]) is float)
        assert result[k] == (pytest.approx(want, abs=tol) if floats else want), k


def test_solve_with_suits_writes_a_range_policy_openspiel_evaluates(tmp_path):
    """`--form=public_tree --suits` (the range layout with suit isomorphism, the way to Rhode
    Island Hold'em whole) on Leduc: DCFR on 2 threads has the explicit form's value,
    exploitability and NashConv after the same iterations (to 1e-9, as `test_range_cfr`'s DCFR
    iterates: they are suit-symmetric, so the canonical boards lose nothing), and its .npz
    policy, loaded as an OpenSpiel policy, has the exploitability the JSON reports by
    OpenSpiel's own best response."""
    results = {}
    for form in ("explicit", "suits"):
        out = tmp_path / f"{form}.json"
        extra = ["--form=public_tree", "--suits", "--threads=2"] if form == "suits" else []
        proc = run(
            "solve.py",
            "--game=leduc_poker",
            "--solver=dcfr",
            "--iterations=40",
            *extra,
            f"--output_json={out}",
            f"--policy_out={tmp_path / 'p.npz'}" if form == "suits" else "--policy_out=",
        )
        assert proc.returncode == 0, proc.stderr
        results[form] = json.loads(out.read_text())
    got, want = results["suits"], results["explicit"]
    assert (got["threads"], got["dtype"], got["boards"]) == (2, "float64", [1, 3])
    for key in ("value", "exploitability", "nash_conv"):  # DCFR's t^1.5 weights: 1e-9
        assert got[key] == pytest.approx(want[key], abs=1e-9), key
    loaded = range_policy.load_range_policy(tmp_path / "p.npz")
    assert os_exploitability.exploitability(loaded.game, loaded) == pytest.approx(
        got["exploitability"], abs=1e-9
    )


def _interrupt(script, *flags, wait_for, seconds=1.0):
    """Runs a script, sends SIGINT `seconds` after its log shows `wait_for` (its loop runs)."""
    proc = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "scripts", script), *flags],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        for line in proc.stderr:
            if wait_for in line:
                break
        time.sleep(seconds)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, stdout, stderr


@pytest.mark.parametrize("suits", [False, True], ids=["explicit", "suits"])
def test_solve_stops_on_ctrl_c_and_writes_the_result_so_far(tmp_path, suits):
    out, pol_path = tmp_path / "r.json", tmp_path / ("p.npz" if suits else "p.json")
    returncode, stdout, stderr = _interrupt(
        "solve.py",
        "--game=leduc_poker",
        "--solver=cfr_plus",
        "--iterations=100000000",
        "--log_every=100",
        *(["--form=public_tree", "--suits", "--threads=2"] if suits else []),
        f"--output_json={out}",
        f"--policy_out={pol_path}",
        wait_for="exploitability",
    )
    assert returncode == 130, stderr
    result = json.loads(out.read_text())
    assert result["stop_reason"] == "interrupted" and result["stopped_early"]
    assert 0 < result["iterations"] < 100000000
    assert "interrupted" in stdout
    game = pyspiel.load_game("leduc_poker")
    pol = (
        range_policy.load_range_policy(pol_path)
        if suits
        else policy_files.load_policy(game, pol_path)
    )
    assert os_exploitability.exploitability(game, pol) == pytest.approx(
        result["exploitability"], abs=1e-9
    )


def test_compare_stops_the_whole_run_on_ctrl_c(tmp_path):
    out = tmp_path / "c.json"
    returncode, _, stderr = _interrupt(
        "compare.py",
        "--game=kuhn_poker",
        "--iterations=100000000",
        "--time_limit=1000",
        "--solvers=cfr_plus,openspiel_cpp_cfr_plus",
        f"--output_json={out}",
        "--verbose",
        wait_for="nash_conv",  # a --verbose line
        seconds=1.0,
    )
    assert returncode == 130, stderr
    result = json.loads(out.read_text())
    assert result["interrupted"] and list(result["solvers"]) == ["cfr_plus"]  # no second solver
    curve = result["solvers"]["cfr_plus"]
    assert curve["stop_reason"] == "interrupted" and 0 < curve["iterations"][-1] < 100000000


def test_compare_writes_curves(tmp_path):
    out = tmp_path / "c.json"
    proc = run(
        "compare.py",
        "--game=kuhn_poker",
        "--iterations=50",
        "--solvers=cfr_plus,openspiel_cpp_cfr_plus,openspiel_py_cfr",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    curves = json.loads(out.read_text())["solvers"]
    assert set(curves) == {"cfr_plus", "openspiel_cpp_cfr_plus", "openspiel_py_cfr"}
    ours, cpp = (
        curves["cfr_plus"]["exploitability"],
        curves["openspiel_cpp_cfr_plus"]["exploitability"],
    )
    assert ours[-1] == pytest.approx(cpp[-1], abs=1e-9)  # same algorithm, same iterates


def test_compare_with_a_time_limit_alone_compares_at_equal_time(tmp_path):
    """The time limit alone sets each solver's run; it used to stop at --iterations' 200."""
    out = tmp_path / "c.json"
    proc = run(
        "compare.py",
        "--game=kuhn_poker",
        "--time_limit=1",
        "--solvers=cfr_plus,openspiel_cpp_cfr_plus",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["iterations"] is None
    for curve in result["solvers"].values():
        assert curve["stop_reason"] == "time_limit"
        assert curve["iterations"] == sorted(set(curve["iterations"]))


@pytest.mark.parametrize(
    "script, flags, message",
    [
        ("solve.py", ["--iterations=-1"], "--iterations must be positive, got -1"),
        ("solve.py", ["--game=no_such_game"], "unknown game"),
        ("solve.py", ["--game=kuhn_poker(players=3)"], "3 players"),
        ("solve.py", ["--game=matrix_pd"], "not zero-sum"),
        ("solve.py", ["--game=liars_dice_ir"], "perfect recall"),
        ("solve.py", ["--game=leduc_poker", "--max_nodes=100"], "max_nodes=100"),
        ("stats.py", ["--game=leduc_poker", "--max_nodes=100"], "max_nodes=100"),
        ("compare.py", ["--solvers=nope"], "unknown solvers"),
        ("compare.py", ["--iterations=0"], "--iterations must be positive"),
    ],
)
def test_bad_input_exits_non_zero_with_the_reason(script, flags, message):
    proc = run(script, *flags)
    assert proc.returncode != 0
    assert message in proc.stderr.strip().splitlines()[-1]


def test_perturbed_egt_writes_curves_and_policy(tmp_path):
    out, pol_path = tmp_path / "e.json", tmp_path / "p.json"
    proc = run(
        "egt.py",
        "--game=kuhn_poker",
        "--xi=0.05",
        "--iterations=200",
        "--dgf_weight=0.05",
        f"--output_json={out}",
        f"--policy_out={pol_path}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["iterations"][-1] == 200 and result["traversals"][-1] >= 600
    assert result["nash_conv"][-1] < result["nash_conv"][0]
    game = pyspiel.load_game("kuhn_poker")
    pol = policy_files.load_policy(game, pol_path)
    assert pol.action_probability_array[pol.legal_actions_mask == 1].min() >= 0.05 - 1e-9


@pytest.mark.parametrize("stepping", ["aggressive", "restarted"])
def test_perturbed_egt_aggressive_stepping(tmp_path, stepping):
    out = tmp_path / "e.json"
    proc = run(
        "egt.py",
        "--game=kuhn_poker",
        "--xi=0",
        f"--stepping={stepping}",
        "--iterations=300",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["stepping"] == stepping and result["dgf_weight"] is None
    # four traversals an attempt, after the search for the initial smoothing
    assert result["traversals"][-1] >= 4 * 300
    assert result["exploitability"][-1] < 0.05 * result["exploitability"][0]


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--xi=-0.1"], "--xi must be non-negative"),
        (["--xi=0.6"], "infeasible"),
        (["--iterations=0"], "--iterations must be positive"),
        (["--stepping=aggressive", "--dgf_weight=0.1"], "applies to --stepping=theory only"),
        (["--stepping=restarted", "--dgf_weight=0.1"], "applies to --stepping=theory only"),
        (["--stepping=fast"], "--stepping"),
    ],
)
def test_perturbed_egt_bad_flags(flags, message):
    proc = run("egt.py", "--game=kuhn_poker", *flags)
    assert proc.returncode != 0
    assert message in proc.stderr.strip().splitlines()[-1]


def test_certificate_search_and_verify(tmp_path):
    out, cert, pol_path = tmp_path / "c.json", tmp_path / "cert.json", tmp_path / "p.json"
    game = "sequential_goofspiel(num_cards=3)"
    proc = run(
        "certify.py",
        f"--game={game}",
        f"--output_json={out}",
        f"--certificate_out={cert}",
        f"--policy_out={pol_path}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    keys = {
        "epsilon",
        "value_lower",
        "value_upper",
        "trunk_nodes",
        "trunk_infosets",
        "minimal_nodes",
        "minimal_infosets",
        "iterations",
        "seconds",
    }
    assert keys <= set(result) and result["epsilon"] < 1e-9
    assert result["minimal_nodes"] <= result["trunk_nodes"]
    proc = run("verify.py", f"--game={game}", f"--certificate={cert}")
    assert proc.returncode == 0 and "verified" in proc.stdout
    proc = run("verify.py", "--game=kuhn_poker", f"--certificate={cert}")
    assert proc.returncode != 0 and "certificate rejected" in proc.stderr


def test_certificate_search_bad_flags():
    proc = run("certify.py", "--target_epsilon=-1")
    assert proc.returncode != 0 and "--target_epsilon must be non-negative" in proc.stderr


def test_certificate_search_with_nature_sampling(tmp_path):
    out = tmp_path / "c.json"
    proc = run(
        "certify.py",
        "--game=kuhn_poker",
        "--nature_epsilon=0.1",
        "--nature_support=6",
        "--max_trunk_nodes=100",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["true_game_epsilon_bound"] == pytest.approx(result["epsilon"] + 0.2)
    proc = run("certify.py", "--game=kuhn_poker", "--nature_epsilon=0.1")
    assert proc.returncode != 0 and "needs --nature_support" in proc.stderr


@pytest.mark.parametrize("limit, leaves", [("round_end", 150), ("public_chance", 600)])
def test_depth_limited_round_end_limit(tmp_path, limit, leaves):
    # Leduc: 30 private deals x 5 first-round betting sequences that reach the public card
    # (cc, rc, crc, rrc, crrc) = 150 histories at the deal (round_end: the opponent chooses
    # before the card); after the deal each has 4 public cards left (public_chance: 600).
    out = tmp_path / "dl.json"
    proc = run(
        "depth_limited.py",
        "--game=leduc_poker",
        "--blueprint=cfr:10",
        f"--limit={limit}",
        "--num_values=2",
        "--strategy_set=bias",
        "--solver=lp",
        f"--output_json={out}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["limit"] == limit and result["leaf_states"] == leaves
    assert result["stop_reason"] == "solved" and result["full_depth_exploitability"] < 1e-9


def test_gameshrink_lifts_an_equilibrium(tmp_path):
    out, pol = tmp_path / "shrink.json", tmp_path / "policy.json"
    proc = run(
        "shrink.py",
        "--game=leduc_poker",
        "--solver=lp",
        f"--output_json={out}",
        f"--policy_out={pol}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["classes_per_round"] == [3, 9]
    assert result["original"]["nodes"] == 9457 and result["original"]["source"] == "compiled"
    assert result["abstracted"]["nodes"] < result["original"]["nodes"]
    assert result["exploitability"] <= 1e-9
    game = pyspiel.load_game("leduc_poker")
    loaded = policy_files.load_policy(game, pol)
    assert os_exploitability.exploitability(game, loaded) <= 1e-9


def test_gameshrink_paper_filter_is_reported_and_not_lossless(tmp_path):
    """--filter=paper (Definition 5's payoff-only leaves) on Leduc: fewer round-2 classes than
    the coarsest filter's 9, and its lifted LP equilibrium is exploitable."""
    out = tmp_path / "shrink.json"
    proc = run("shrink.py", "--game=leduc_poker", "--filter=paper", f"--output_json={out}")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["filter"] == "paper" and result["classes_per_round"][1] < 9
    assert result["exploitability"] > 0.1


def test_gameshrink_time_limit_writes_the_filter_so_far(tmp_path):
    """--time_limit passing during the filter: the classes so far are written with the stop
    reason, nothing is solved, compiled or saved; a complete filter says fixed_point."""
    out, saved = tmp_path / "shrink.json", tmp_path / "strategy.npz"
    proc = run(
        "shrink.py",
        "--game=leduc_poker",
        "--time_limit=1e-9",
        f"--output_json={out}",
        f"--abstract_policy_out={saved}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["stop_reason"] == "time_limit" and result["stopped_early"] is True
    assert result["classes_per_round"] == [1, 1] and result["refinement_passes"] == 0
    assert result["original"] is None and result["exploitability"] is None
    assert result["abstracted"]["nodes"] > 0 and not saved.exists()
    assert "before its filter was complete" in proc.stderr
    proc = run("shrink.py", "--game=leduc_poker", "--solver=none", f"--output_json={out}")
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["stop_reason"] == "fixed_point" and result["stopped_early"] is False
    assert result["classes_per_round"] == [3, 9]


_CTRL_C_IN_THE_FILTER = """
import os, signal, time
from ospiel_ext.runtime import budget, interrupts
from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import shrink

exceeded = budget.Budget.exceeded

def ctrl_c_in_the_filter(self):  # a Ctrl-C as the filter's first check inside its region
    if interrupts._state.graceful and not interrupts.requested():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)  # the handler runs at the next bytecode
    return exceeded(self)

budget.Budget.exceeded = ctrl_c_in_the_filter
cli.main(shrink.main)
"""


def test_gameshrink_ctrl_c_in_the_filter_writes_it_and_exits_130(tmp_path):
    (tmp_path / "shrink_ctrl_c.py").write_text(_CTRL_C_IN_THE_FILTER)
    out = tmp_path / "shrink.json"
    proc = run("shrink_ctrl_c.py", "--game=leduc_poker", f"--output_json={out}", folder=tmp_path)
    assert proc.returncode == 130, proc.stderr
    result = json.loads(out.read_text())
    assert result["stop_reason"] == "interrupted" and result["stopped_early"] is True
    assert result["refinement_passes"] == 0 and result["exploitability"] is None
    assert result["classes_per_round"] != [3, 9]  # the precheck's, not the fixed point


def test_gameshrink_cfr_plus_on_universal_poker(tmp_path):
    """CFR+ on Γ_f of an ACPC no-limit game: the exploitability measured in Γ_f is OpenSpiel's
    exploitability of the lifted policy in the original game; the saved abstract strategy,
    reloaded, is the same lifted policy."""
    out, saved = tmp_path / "shrink.json", tmp_path / "strategy.npz"
    game = (
        "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=1 1,firstPlayer=1 1,"
        "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=10 10)"
    )
    proc = run(
        "shrink.py",
        f"--game={game}",
        "--solver=cfr_plus",
        "--iterations=30",
        f"--output_json={out}",
        f"--abstract_policy_out={saved}",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["classes_per_round"] == [3, 9] and result["iterations"] == 30
    expl = result["exploitability"]
    assert 0 < expl == pytest.approx(result["abstract_exploitability"], abs=1e-9)
    lifted = lifting.load_lifted_policy(saved)
    reloaded = os_exploitability.exploitability(pyspiel.load_game(game), lifted.to_tabular())
    assert reloaded == pytest.approx(expl, abs=1e-12)


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--threshold=-1"], "--threshold must be non-negative, got -1.0"),
        (["--game=tic_tac_toe"], "no ordered-signals description"),
        (["--game=kuhn_poker", "--max_abstract_nonzeros=10"], "--max_abstract_nonzeros"),
        (["--filter=paper", "--threshold=0.5"], "it needs --filter=coarsest"),
    ],
)
def test_gameshrink_bad_input(flags, message):
    proc = run("shrink.py", *flags)
    assert proc.returncode != 0
    assert message in proc.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize("below, first", [(0, 1), (1, 4)])
def test_certificate_costs_benchmark_passes_expand_below(tmp_path, below, first):
    """The first iteration expands Kuhn's root (the trunk's only node); with expand_below=1
    also its 3 children, the deals of player 0's card (all pseudoterminal): 1 + 3 nodes."""
    out = tmp_path / "c.json"
    proc = run(
        "certificate_costs.py",
        "--game=kuhn_poker",
        f"--expand_below={below}",
        "--time_limit=60",
        f"--output_json={out}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["expand_below"] == below and result["epsilon"] < 1e-9
    assert result["trace"][0]["expanded"] == first
    assert len(result["trace"]) == result["iterations"]


def test_certificate_lp_methods_benchmark_runs_every_variant(tmp_path):
    """The three LP variants certify Kuhn (value -1/18, from theory) in the side-by-side run."""
    out = tmp_path / "m.json"
    proc = run(
        "certificate_lp_methods.py",
        "--runs=kuhn_poker@1",
        "--time_limit=60",
        f"--output_json={out}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    runs = json.loads(out.read_text())["runs"]
    assert [r["variant"] for r in runs] == ["simplex", "ipm"]
    for r in runs:
        assert r["stopped"] == "epsilon" and r["epsilon"] < 1e-9
        assert len(r["trace"]) == r["iterations"]
    assert "simplex s / this s" in proc.stdout


def test_highs_model_changes_benchmark_keeps_the_optimum(tmp_path):
    """Every change measured keeps Kuhn's LP at its optimum (-1/18, from theory): the run
    after it needs no pivot; a new model solved cold reaches the same value."""
    out = tmp_path / "h.json"
    proc = run(
        "highs_model_changes.py",
        "--games=kuhn_poker",
        "--rounds=2",
        f"--output_json={out}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    (result,) = json.loads(out.read_text())["runs"]
    assert result["optimum"] == pytest.approx(KUHN_VALUE, abs=1e-9)
    changes = {c["change"]: c for c in result["changes"]}
    assert {"new model", "none", "same cost", "empty column fixed at 0", "same coefficient"} <= set(
        changes
    )
    for name, c in changes.items():
        assert len(c["seconds"]) == 2
        if name != "new model":
            assert c["simplex_iterations"] == [0, 0], name


def test_certificate_lp_starts_benchmark_agrees_on_the_optimum(tmp_path):
    """Every start of the same trunk LP ends at the optimum of a cold solve (the script checks
    it and fails otherwise), for trunks no larger than asked."""
    out = tmp_path / "s.json"
    proc = run(
        "certificate_lp_starts.py",
        "--game=sequential_goofspiel(num_cards=4)",
        "--trunk_nodes=300,600",
        "--cfr_iterations=10,100",
        f"--output_json={out}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    trunks = json.loads(out.read_text())["trunks"]
    assert [t["trunk_nodes"] <= n for t, n in zip(trunks, (300, 600))] == [True, True]
    for t in trunks:
        starts = [r["start"] for r in t["runs"]]
        assert starts == [
            "dual simplex, cold",
            "interior point + crossover",
            "CFR+ 10, then dual simplex",
            "CFR+ 100, then dual simplex",
        ]
        objectives = {round(r["objective"], 9) for r in t["runs"]}
        assert len(objectives) == 1
        # CFR+'s average guarantees at most the LP's optimum (the LP maximises it)
        assert all(r["cfr_value"] <= r["objective"] + 1e-9 for r in t["runs"][2:])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_range_cfr_run_writes_a_policy_openspiel_evaluates(tmp_path, dtype):
    """The saved strategy, loaded as an OpenSpiel policy, has the exploitability the JSON
    reports (OpenSpiel's own best response against the range walker's), in either dtype."""
    out, policy = tmp_path / "r.json", tmp_path / "p.npz"
    proc = run(
        "range_cfr_run.py",
        "--game=leduc_poker",
        "--time_limit=1",
        f"--dtype={dtype}",
        f"--output_json={out}",
        f"--policy_out={policy}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    final = result["final"]
    assert result["dtype"] == dtype and final["iterations"] > 10
    loaded = range_policy.load_range_policy(policy)
    assert os_exploitability.exploitability(loaded.game, loaded) == pytest.approx(
        final["exploitability"], abs=1e-9
    )


def test_range_cfr_sampling_compares_full_and_sampled_walks(tmp_path):
    """One row per solver, fraction and time limit; a sampled run's board passes are its
    iterations times the fraction of chunks it draws (2 of Leduc's 3 boards for 0.5)."""
    out = tmp_path / "s.json"
    proc = run(
        "range_cfr_sampling.py",
        "--game=leduc_poker",
        "--solvers=cfr_plus",
        "--fractions=1,0.5",
        "--time_limits=0.3",
        f"--output_json={out}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["boards"] == 3 and result["stop_reason"] is None
    full, sampled = result["rows"]
    assert (full["fraction"], sampled["fraction"]) == (1.0, 0.5)
    assert full["board_passes"] == full["iterations"] > 0
    assert sampled["board_passes"] == pytest.approx(sampled["iterations"] * 2 / 3)
    assert all(r["exploitability_mbb"] > 0 for r in result["rows"])


def test_nested_round_robin_stops_at_its_budget_with_even_pairs(tmp_path):
    """--time_limit ends the round robin with its JSON and exit 0; the tasks go round the pairs,
    so the pairs' games differ by at most one chunk."""
    out = tmp_path / "rr.json"
    proc = run(
        "nested_solving_round_robin.py",
        "--game=liars_dice(numdice=1,dice_sides=4)",
        "--bots=nested/resolving/blueprint,nested/unsafe,nested/max_margin/none",
        "--blueprint_iterations=200",
        "--num_games=1000",
        "--chunk=2",
        "--workers=1",
        "--time_limit=4",
        f"--output_json={out}",
        folder="benchmarks/papers",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    games = [p["games"] for p in result["pairs"]]
    assert result["stop_reason"] == "time_limit" and not result["interrupted"]
    assert result["games_per_pair"] == min(games) and max(games) - min(games) <= 2
    assert sum(games) < 3 * 1000
    hours = result["projection"]["hours_by_workers"]
    assert hours["8"] == pytest.approx(hours["2"] / 4)


def test_nested_solving_speed_stops_at_its_budget_and_keeps_the_finished_games(tmp_path):
    """--time_limit stops the old path inside a game: the JSON keeps its finished games, the new
    path does not run, and there is no speed-up (no game finished by both)."""
    out = tmp_path / "speed.json"
    proc = run(
        "nested_solving_speed.py",
        "--game=liars_dice(numdice=1,dice_sides=4)",
        "--public_key=actions",
        "--blueprint_iterations=100",
        "--iterations=20",
        "--num_games=100000",
        "--time_limit=3",
        f"--output_json={out}",
        folder="benchmarks/papers",
    )
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["stop_reason"] == "time_limit" and result["games_asked"] == 100000
    assert 0 < len(result["old"]["per_game_s"]) < 100000 and "new" not in result
    assert result["games"] == [] and result["speedup"] is None
    assert result["old"]["seconds"] == pytest.approx(sum(result["old"]["per_game_s"]))


def test_poker_scale_times_each_range_variant_against_the_explicit_form(tmp_path):
    """Part 3 on Leduc: the three range variants (float64 on one thread, float32 on one and on
    --range_threads), each with its time, speed-up and memory, and the top-level keys that of
    the first."""
    out = tmp_path / "p.json"
    proc = run(
        "poker_scale.py",
        "--games=kuhn_poker",
        "--curve_time_limit=0",
        "--lossless_game=leduc_poker",
        "--lp_games=",
        "--rounds=1",
        "--chunk_seconds=0.05",
        "--warmup=1",
        "--range_threads=3",
        f"--output_json={out}",
        folder="benchmarks/perf",
    )
    assert proc.returncode == 0, proc.stderr
    lossless = json.loads(out.read_text())["lossless"]
    variants = lossless["range_variants"]
    assert [(v["dtype"], v["threads"]) for v in variants] == [
        ("float64", 1),
        ("float32", 1),
        ("float32", 3),
    ]
    assert all(v["seconds_per_iteration"] > 0 and v["iteration_speedup"] > 0 for v in variants)
    assert lossless["range_seconds_per_iteration"] == variants[0]["seconds_per_iteration"]
    assert lossless["iteration_speedup"] == variants[0]["iteration_speedup"]


@pytest.mark.parametrize("name", ["checkers(rows=4,columns=4)", "go_fish(ranks=2,suits=2)"])
def test_solve_writes_the_empty_policy_of_a_game_without_decisions(tmp_path, name):
    out, pol = tmp_path / "r.json", tmp_path / "p.json"
    proc = run("solve.py", f"--game={name}", f"--output_json={out}", f"--policy_out={pol}")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(pol.read_text())["policy"] == {}
    assert json.loads(out.read_text())["nash_conv"] == 0


@pytest.mark.parametrize(
    "flags, line",
    [
        (["--num_games=20"], "1 pairs, 1 tasks of up to 20 games"),  # below --chunk's 500
        (["--num_games=21", "--chunk=8"], "1 pairs, 3 tasks of up to 8 games"),  # 8 + 8 + 5
    ],
)
def test_head_to_head_prints_the_tasks_it_made(tmp_path, flags, line):
    """`head-to-head --games=20` printed "tasks of up to 500 games" (the --chunk asked)."""
    out = tmp_path / "h.json"
    proc = run(
        "head_to_head.py", "--game=kuhn_poker", "--blueprint=cfr:5", "--bots=naive,blueprint",
        "--iterations=10", "--num_values=2", "--scheduler=local", f"--output_json={out}", *flags,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[0] == line
    (pair,) = json.loads(out.read_text())["pairs"]
    assert pair["games"] == int(flags[0].split("=")[1])


def _nlfh(tmp_path, name, *flags):
    out = tmp_path / f"{name}.json"
    proc = run(
        "nlfh_figure2.py", "--num_ranks=3", "--stack_bb=5", "--iterations=5",
        "--value_iterations=8", "--num_values=1,2", "--dl_iterations=20", "--flop_iterations=10",
        "--gadgets=resolving", f"--output_json={out}", *flags, folder="benchmarks/papers",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text())


def test_nlfh_figure2_keeps_its_finished_solves_for_the_next_run(tmp_path):
    """With --stages_dir later runs reuse both solves (no solving seconds) and report the same
    figures, the depth-limited rows (per K, RPAT beyond the limit and the flop solved safely)
    too, after runs with other gadgets or leaf values; other settings solve again."""
    stages = f"--stages_dir={tmp_path / 'stages'}"
    first = _nlfh(tmp_path, "first", stages)
    figures = (
        "blueprint_exploitability_mbb", "value_mbb", "lower_bound_mbb", "rpat_mbb",
        "depth_limited",
    )  # fmt: skip
    rows = [(r["gadget"], r["num_values"], r["flop"]) for r in first["depth_limited"]]
    assert rows == [("resolving", k, flop) for k in (1, 2) for flop in ("rpat", "resolved")]
    assert {"blueprint", "lower_bound", "value", "self_generative"} <= set(first["stage_seconds"])
    # another gadget: its rows are solved, from the self-generative values kept
    more = _nlfh(tmp_path, "more", stages, "--gadgets=max_margin")
    assert more["depth_limited"][: len(rows)] == first["depth_limited"]
    assert "self_generative" not in more["stage_seconds"]
    assert "depth_limited_max_margin_2" in more["stage_seconds"]
    # the leaves' other sources: their own files, the solves and the rows above kept
    for leaves, made, beyond in (
        ("translated", "translated_values", "rpat"),  # from the abstraction's values kept
        ("game_bound", "self_generative", "bound"),  # game_rpat: the same, RPAT's beyond
    ):
        other = _nlfh(tmp_path, leaves, stages, f"--leaves={leaves}")
        assert [(r["num_values"], r["flop"]) for r in other["depth_limited"]] == [
            (k, beyond) for k in (1, 2)
        ]
        assert {k: other[k] for k in figures[:-1]} == {k: first[k] for k in figures[:-1]}
        assert {made, "depth_limited_resolving_1"} <= set(other["stage_seconds"])
        not_made = {"blueprint", "lower_bound", "flop_resolving_1"}
        if leaves == "translated":  # from the values kept; its own kept as they grow
            not_made.add("self_generative")
            assert (tmp_path / "stages" / "translated_values.npz").exists()
        assert not not_made & set(other["stage_seconds"])
    again = _nlfh(tmp_path, "again", stages)  # every figure kept, the rows too
    assert {k: again[k] for k in figures} == {k: first[k] for k in figures}
    kept_only = {"layout", "layout_with_bet", "rpat", "alternatives"}
    assert set(again["stage_seconds"]) == kept_only
    # a run that solves other rows keeps these too, for the next
    assert (
        "depth_limited_resolving_3"
        in _nlfh(tmp_path, "3", stages, "--num_values=3")["stage_seconds"]
    )
    whole = _nlfh(tmp_path, "whole", stages, "--gadgets=max_margin")
    assert whole["depth_limited"] == more["depth_limited"]
    assert set(whole["stage_seconds"]) == kept_only
    # other depth-limited settings: the values and the rows again
    other_dl = _nlfh(tmp_path, "other_dl", stages, "--dl_iterations=21")
    assert {"self_generative", "depth_limited_resolving_1"} <= set(other_dl["stage_seconds"])
    other = _nlfh(tmp_path, "other", stages, "--iterations=6", "--num_values=")
    assert {"blueprint", "lower_bound"} <= set(other["stage_seconds"])
    assert first["rpat_mbb"] > 0 and first["stop_reason"] == "iterations"
    # the floor: no response that plays the blueprint outside the bet is less exploitable
    floor = first["floor_mbb"]
    assert first["rpat_mbb"] >= floor - 1e-9
    assert all(r["exploitability_mbb"] >= floor - 1e-9 for r in first["depth_limited"])


def _nlfh_stages():
    """benchmarks/papers/nlfh_stages.py, imported as nlfh_figure2.py imports it."""
    path = os.path.join(ROOT, "benchmarks", "papers", "nlfh_stages.py")
    spec = importlib.util.spec_from_file_location("nlfh_stages", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_nlfh_figure2_goes_on_with_a_solve_kept_in_progress(tmp_path, monkeypatch):
    """A solve kept in progress (after every iteration here, with the arrays that go with it)
    is restored into a new solver of the same settings, which then iterates on bit for bit;
    other settings start again; a finished stage removes it; rows are kept as given."""
    stages_lib = _nlfh_stages()
    monkeypatch.setattr(stages_lib, "KEEP_SECONDS", 0.0)
    tree = range_tree.RangeTree(structure.detect("leduc_poker"), suits=True)
    stages = stages_lib.Stages(str(tmp_path), "settings")
    straight, stopped = (range_cfr.RangeCFRSolver(tree) for _ in range(2))
    solver_lib.run(straight, 6)
    partial = stages.partial("blueprint")
    partial.extra = {"extra_x": np.arange(3.0)}
    solver_lib.run(stopped, 4, after_iteration=partial.every_while)
    resumed = range_cfr.RangeCFRSolver(tree)
    again = stages.partial("blueprint")
    assert set(again.restore(resumed)) == {"extra_x"} and resumed.iteration == 4
    solver_lib.run(resumed, 2)
    for a, b in zip(straight.average_strategy(), resumed.average_strategy(), strict=True):
        assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    other = stages_lib.Stages(str(tmp_path), "other settings").partial("blueprint")
    assert other.restore(range_cfr.RangeCFRSolver(tree)) == {}
    stages.save("blueprint", tree.contract(resumed.average_strategy()), [1.0])
    assert not (tmp_path / "blueprint.partial.npz").exists()
    assert stages.load("blueprint", tree)[1].tolist() == [1.0]
    rows = [{"num_values": 1, "gadget": "resolving", "flop": "rpat", "exploitability_mbb": 2.5}]
    stages.keep_rows(rows)
    assert stages.rows() == rows and stages_lib.Stages(str(tmp_path), "other").rows() == []


def test_nlfh_stages_keep_the_self_generative_set_as_it_grows(tmp_path):
    """The set kept part way is read back for the same settings only, and the finished set
    replaces it."""
    stages_lib = _nlfh_stages()
    tree = range_tree.RangeTree(structure.detect("leduc_poker"), suits=True)
    profile = tree.contract(range_cfr.RangeCFRSolver(tree).average_strategy())
    raw = LeafValues.compute(range_walker.RangeWalker(tree), [profile])
    stages = stages_lib.Stages(str(tmp_path), "settings")
    assert stages.generating(tree) is None
    stages.keep_generating(raw, [profile])
    values, profiles = stages.generating(tree)
    assert all(np.array_equal(a, b) for a, b in zip(values.values, raw.values, strict=True))
    assert len(profiles) == 1 and stages.generated(1, tree) is None
    assert stages_lib.Stages(str(tmp_path), "other settings").generating(tree) is None
    stages.keep_generated(raw, [profile])
    assert stages.generating(tree) is None and stages.generated(1, tree) is not None


def test_nlfh_sizes_counts_the_entries_the_solver_iterates():
    """The committed sizes (whose 12-card rows the results slice reruns) against independent
    counts: a solver's regret entries of the same layout, and the flop's canonical boards as the
    orbits of 3-card boards under the suit permutations, by brute force."""
    with open(os.path.join(ROOT, "docs", "results", "nlfh_sizes.json")) as f:
        rows = json.load(f)["rows"]
    (row,) = (r for r in rows if (r["deck_cards"], r["stack_bb"]) == (12, 5))
    for name, label in (("abstraction", None), ("with_bet", "0.75p")):
        extra = None if label is None else pa.first_bet_extra(1, {label: 0.75})
        actions = pa.PotFractionAbstraction(fractions=(0.5, 1.0), extra=extra)
        tree = range_tree.RangeTree(structure.detect(row["game"], actions=actions), suits=True)
        with range_cfr.RangeCFRSolver(tree) as solver:
            assert row[name]["entries"] == solver.entries
    assert row["with_bet"]["entries"] > row["abstraction"]["entries"]
    assert row["solver_floor_gib"] == 24 * row["with_bet"]["entries"] / 2**30
    for row in (r for r in rows if r["deck_cards"] <= 20):
        suits = list(itertools.permutations(range(row["num_suits"])))
        cards = [(r, s) for r in range(row["num_ranks"]) for s in range(row["num_suits"])]
        canonical = {
            min(tuple(sorted((r, p[s]) for r, s in board)) for p in suits)
            for board in itertools.combinations(cards, 3)
        }
        assert row["with_bet"]["rounds"][1]["boards"] == len(canonical)
        assert row["with_bet"]["rounds"][0]["boards"] == 1


def test_nlfh_figure2_refuses_stacks_too_short_for_the_off_tree_bet(tmp_path):
    proc = run(
        "nlfh_figure2.py", "--num_ranks=3", "--stack_bb=2", "--iterations=2",
        f"--output_json={tmp_path / 'n.json'}", folder="benchmarks/papers",
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines()[-1].endswith("no action outside the abstraction")
