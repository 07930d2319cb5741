"""Every script against bad input: each case checks the exit code, exactly one line on stderr
naming the problem (absl's own log lines aside), no traceback, and no output file left behind
on failure; runs that succeed or are interrupted leave a complete JSON file.

The scripts run in forked copies of one warm interpreter (`forkserver`), as `python script
args` would run them after the imports; `test_fresh_interpreter` runs each script once in a
fresh interpreter too. `python tests/cli/test_bad_input.py` prints the table of cases
(script x case -> exit code, stderr line).
"""

from __future__ import annotations

import dataclasses
import glob
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import sys
import tempfile

import pytest
from forkserver import ForkServer, Result

from ospiel_ext import policies, policy_files

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = [
    "certify.py",
    "compare.py",
    "depth_limited.py",
    "stats.py",
    "shrink.py",
    "head_to_head.py",
    "egt.py",
    "solve.py",
    "subgame.py",
    "verify.py",
]
# Small, quick defaults per script; a case's flags come after them and win (absl: last wins).
BASE = {
    "certify.py": ["--game=kuhn_poker"],
    "compare.py": ["--game=kuhn_poker", "--iterations=5", "--solvers=cfr_plus,openspiel_cpp_cfr"],
    "depth_limited.py": [
        "--game=kuhn_poker",
        "--blueprint=cfr:5",
        "--iterations=20",
        "--num_values=2",
    ],
    "stats.py": ["--game=kuhn_poker"],
    "shrink.py": ["--game=kuhn_poker", "--solver=lp"],
    "head_to_head.py": [
        "--game=kuhn_poker",
        "--blueprint=cfr:5",
        "--bots=nested,blueprint",
        "--num_games=4",
        "--chunk=2",
        "--iterations=10",
        "--num_values=2",
        "--scheduler=local",
    ],
    "egt.py": ["--game=kuhn_poker", "--iterations=10", "--dgf_weight=0.05"],
    "solve.py": ["--game=kuhn_poker", "--iterations=20"],
    "subgame.py": ["--game=kuhn_poker", "--blueprint=cfr:5", "--iterations=20"],
    "verify.py": ["--game=kuhn_poker", "--certificate={cert}"],
}
ABSL_LOG_LINE = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] ")
SIMULTANEOUS = "goofspiel(num_cards=3,imp_info=True)"  # zero-sum (win/loss), converted
GENERAL_SUM = "goofspiel(num_cards=3,returns_type=total_points)"
LONG_LP = "limit_leduc_poker(num_ranks=13)"  # compiles in ~3 s, HiGHS needs ~8 s


@dataclasses.dataclass(frozen=True, kw_only=True)
class Case:
    script: str
    name: str
    flags: tuple[str, ...]
    code: int
    message: str  # in the one stderr line (exit != 0) or on stdout (exit 0)

    @property
    def id(self) -> str:
        return f"{self.script[:-3]}-{self.name}"


def _cases() -> list[Case]:
    cases = []

    def add(scripts, name, flags, code, message):
        for script in [scripts] if isinstance(scripts, str) else scripts:
            cases.append(
                Case(script=script, name=name, flags=tuple(flags), code=code, message=message)
            )

    every = SCRIPTS
    with_max_nodes = [s for s in SCRIPTS if s not in ("verify.py", "head_to_head.py", "certify.py")]
    with_iterations = ["compare.py", "shrink.py", "egt.py", "solve.py"]
    with_iterations += ["depth_limited.py", "head_to_head.py", "subgame.py"]
    with_time_limit = ["compare.py", "shrink.py", "egt.py", "solve.py"]
    with_time_limit += ["certify.py", "head_to_head.py"]
    solving = ["certify.py", "compare.py", "stats.py", "egt.py"]
    add(every, "help", ["--help"], 0, "--game")
    add(every, "unknown_flag", ["--no_such_flag=1"], 2, "Unknown command line flag 'no_such_flag'")
    add(every, "positional", ["stray"], 2, "unexpected arguments ['stray']")
    add(every, "unknown_game", ["--game=no_such_game"], 2, "unknown game 'no_such_game'")
    add(every, "malformed_game", ["--game=kuhn_poker(players=2"], 2, "Missing closing bracket")
    solvers = [s for s in every if s != "stats.py"]  # stats counts any game
    add(solvers, "three_players", ["--game=kuhn_poker(players=3)"], 2, "has 3 players")
    add(solvers, "general_sum", [f"--game={GENERAL_SUM}"], 2, "is not zero-sum")
    add("stats.py", "three_players", ["--game=kuhn_poker(players=3)"], 0, "has 3 players")
    add("stats.py", "general_sum", [f"--game={GENERAL_SUM}"], 0, "is not zero-sum")
    add(every, "output_missing_dir", ["--output_json={tmp}/no/r.json"], 2, "does not exist")
    add(every, "output_unwritable", ["--output_json=/proc/r.json"], 2, "cannot write in /proc")
    add(every, "output_is_dir", ["--output_json={tmp}"], 2, "is a directory")
    # malformed numbers, budgets
    add(with_iterations, "malformed_number", ["--iterations=ten"], 2, "flag --iterations=ten")
    add("stats.py", "malformed_number", ["--max_nodes=ten"], 2, "flag --max_nodes=ten")
    add(
        "certify.py",
        "malformed_number",
        ["--max_trunk_nodes=ten"],
        2,
        "flag --max_trunk_nodes=ten",
    )
    add("verify.py", "missing_flag", ["--certificate="], 2, "--certificate is required")
    add(
        with_max_nodes,
        "negative_max_nodes",
        ["--max_nodes=-1"],
        2,
        "--max_nodes must be positive, got -1",
    )
    add(
        "certify.py",
        "negative_max_trunk_nodes",
        ["--max_trunk_nodes=-1"],
        2,
        "--max_trunk_nodes must be positive, got -1",
    )
    add(
        with_iterations,
        "zero_iterations",
        ["--iterations=0"],
        2,
        "--iterations must be positive, got 0",
    )
    add(
        with_iterations,
        "negative_iterations",
        ["--iterations=-5"],
        2,
        "--iterations must be positive, got -5",
    )
    add(
        "stats.py",
        "zero_max_nodes",
        ["--max_nodes=0"],
        2,
        "--max_nodes must be positive, got 0",
    )
    add(
        with_time_limit,
        "zero_time_limit",
        ["--time_limit=0"],
        2,
        "--time_limit must be positive, got 0.0",
    )
    add(
        with_time_limit,
        "negative_time_limit",
        ["--time_limit=-1"],
        2,
        "--time_limit must be positive, got -1.0",
    )
    add("solve.py", "zero_log_every", ["--log_every=0"], 2, "--log_every must be positive, got 0")
    add(
        "egt.py",
        "zero_checkpoints",
        ["--num_checkpoints=0"],
        2,
        "--num_checkpoints must be positive, got 0",
    )
    # epsilon, xi, threshold
    add(
        "egt.py",
        "negative_target_gap",
        ["--target_gap=-1"],
        2,
        "--target_gap must be non-negative, got -1.0",
    )
    add("egt.py", "negative_xi", ["--xi=-0.1"], 2, "--xi must be non-negative, got -0.1")
    add("egt.py", "nan_xi", ["--xi=nan"], 2, "--xi must be a number, got nan")
    add("egt.py", "infeasible_xi", ["--xi=0.6"], 2, "infeasible")
    add(
        "certify.py",
        "negative_target_epsilon",
        ["--target_epsilon=-1"],
        2,
        "--target_epsilon must be non-negative, got -1.0",
    )
    add(
        "certify.py",
        "bad_nature_delta",
        [
            "--nature_epsilon=0.1",
            "--nature_delta=1.5",
            "--max_trunk_nodes=100",
            "--nature_support=6",
        ],
        2,
        "--nature_delta must be in (0, 1), got 1.5",
    )
    add(
        "certify.py",
        "nature_without_budget",
        ["--nature_epsilon=0.1"],
        2,
        "--nature_epsilon needs --nature_support (D of Theorem 5.1; N is --max_trunk_nodes)",
    )
    add(
        "shrink.py",
        "negative_threshold",
        ["--threshold=-1"],
        2,
        "--threshold must be non-negative, got -1.0",
    )
    add(
        "shrink.py",
        "nan_threshold",
        ["--threshold=nan"],
        2,
        "--threshold must be a number, got nan",
    )
    # impossible combinations, refused before any work
    add(
        "certify.py",
        "infinite_game_policy_out",
        ["--game=limit_leduc_poker(max_raises=-1)", "--policy_out={tmp}/p.json"],
        2,
        "--policy_out needs a finite game",
    )
    add(
        "certify.py",
        "sampled_certificate_out",
        [
            "--nature_epsilon=0.1",
            "--max_trunk_nodes=100",
            "--nature_support=6",
            "--certificate_out={tmp}/c.json",
        ],
        2,
        "omit --certificate_out",
    )
    add(
        "shrink.py",
        "solve_none_policy_out",
        ["--solver=none", "--policy_out={tmp}/p.json"],
        2,
        "--policy_out needs a strategy; --solver=none computes none",
    )
    add(
        "shrink.py",
        "solve_none_abstract_policy_out",
        ["--solver=none", "--abstract_policy_out={tmp}/a.npz"],
        2,
        "--abstract_policy_out needs a strategy",
    )
    add(
        "egt.py",
        "public_tree_without_the_structure",
        ["--game=liars_dice", "--form=public_tree"],
        2,
        "--form=public_tree: game liars_dice() has no public-tree poker structure",
    )
    add(
        "solve.py",
        "public_tree_without_the_structure",
        ["--game=liars_dice", "--form=public_tree"],
        2,
        "--form=public_tree: game liars_dice() has no public-tree poker structure",
    )
    add(
        "solve.py",
        "public_tree_too_large_for_a_numbering",
        ["--game=rhode_island_holdem", "--form=public_tree"],
        2,
        "its public tree has 52,128,128 information sets, more than 10,000,000",
    )
    add("solve.py", "suits_explicit", ["--suits"], 2, "--suits needs --form=public_tree")
    add(
        "solve.py",
        "suits_lp",
        ["--suits", "--form=public_tree", "--solver=lp"],
        2,
        "--suits runs a CFR variant, not --solver=lp",
    )
    add(
        "solve.py",
        "suits_json_policy",
        ["--suits", "--form=public_tree", "--policy_out={tmp}/p.json"],
        2,
        "with --suits the policy is a range policy (.npz)",
    )
    for option in ("--threads=2", "--dtype=float32"):
        add(
            "solve.py",
            f"{option[2:].split('=')[0]}_without_suits",
            [option],
            2,
            "--dtype and --threads are options of --suits",
        )
    add(
        "solve.py", "zero_threads", ["--suits", "--form=public_tree", "--threads=0"], 2, "--threads"
    )
    add(
        "solve.py",
        "suits_without_the_structure",
        ["--game=liars_dice", "--form=public_tree", "--suits"],
        2,
        "game liars_dice() has no public-tree poker structure",
    )
    add(
        "solve.py",
        "unknown_form",
        ["--form=implicit"],
        2,
        "value should be one of <explicit|public_tree>",
    )
    add("compare.py", "no_solvers", ["--solvers="], 2, "--solvers is empty")
    add("compare.py", "unknown_solver", ["--solvers=nope"], 2, "unknown solvers ['nope']")
    add("compare.py", "solver_twice", ["--solvers=cfr_plus,cfr_plus"], 2, "names a solver twice")
    add(
        "solve.py",
        "same_output_twice",
        ["--output_json={tmp}/x.json", "--policy_out={tmp}/x.json"],
        2,
        "x.json is the output --output_json (the same file)",
    )
    # other outputs into a missing directory
    for script, flag in (
        ("solve.py", "policy_out"),
        ("egt.py", "policy_out"),
        ("egt.py", "plot"),
        ("compare.py", "plot"),
        ("certify.py", "certificate_out"),
        ("certify.py", "policy_out"),
        ("shrink.py", "policy_out"),
        ("shrink.py", "abstract_policy_out"),
    ):
        add(
            script,
            f"{flag}_missing_dir",
            [f"--{flag}={{tmp}}/no/out"],
            2,
            f"--{flag}={{tmp}}/no/out: directory {{tmp}}/no does not exist",
        )
    # games: simultaneous (converted), too large
    add(solving, "simultaneous", [f"--game={SIMULTANEOUS}"], 0, "goofspiel")
    add("solve.py", "simultaneous", [f"--game={SIMULTANEOUS}", "--solver=lp"], 0, "goofspiel")
    add(
        "shrink.py",
        "simultaneous",
        [f"--game={SIMULTANEOUS}"],
        2,
        "no ordered-signals description",
    )
    add(
        "verify.py",
        "simultaneous",
        [f"--game={SIMULTANEOUS}", "--certificate={sim_cert}"],
        0,
        "verified",
    )
    add(
        [s for s in solving if s != "certify.py"] + ["solve.py"],
        "too_large",
        ["--game=chess", "--max_nodes=1000"],
        2,
        "more than the cap max_nodes=1000 (raise it with max_nodes=... in Python or --max",
    )
    add("certify.py", "too_large", ["--game=chess", "--max_trunk_nodes=300"], 0, "max_nodes")
    add("shrink.py", "too_large", ["--game=chess"], 2, "no ordered-signals description")
    suit_isomorphic = "--game=leduc_poker(suit_isomorphism=true)"
    add("shrink.py", "suit_isomorphism", [suit_isomorphic], 2, "load leduc_poker() instead")
    add(
        ["solve.py", "egt.py"],
        "public_tree_suit_isomorphism",
        [suit_isomorphic, "--form=public_tree"],
        2,
        "load leduc_poker() instead",
    )
    add(
        "shrink.py",
        "too_large_policy_out",
        ["--game=leduc_poker", "--max_nodes=100", "--policy_out={tmp}/p.json"],
        2,
        "--policy_out needs the original game to compile within --max_nodes=100",
    )
    # subgame solving, depth-limited solving, head to head
    for script in ("subgame.py", "depth_limited.py"):
        add(script, "bad_blueprint", ["--blueprint=cfr:x"], 2, "expected cfr:N (N >= 1)")
        add(script, "missing_blueprint", ["--blueprint={tmp}/none.json"], 2, "none.json")
    for script in ("subgame.py", "depth_limited.py"):
        add(script, "other_game_blueprint", ["--blueprint={files}/leduc.json"], 2, "leduc_poker")
    add("subgame.py", "deep_cut", ["--cut=after_moves=99"], 2, "selects no non-terminal")
    add("subgame.py", "bad_cut", ["--cut=after=1"], 2, "unknown cut 'after=1'")
    add("subgame.py", "zero_tremble", ["--tremble=0"], 2, "--tremble must be in (0, 1)")
    add("subgame.py", "one_tremble", ["--tremble=1"], 2, "--tremble must be in (0, 1)")
    add("subgame.py", "bad_predicate", ["--cut=os:nope"], 2, "cannot load the predicate")
    add("depth_limited.py", "deep_limit", ["--limit=after_moves=99"], 2, "selects no non-terminal")
    add(
        "depth_limited.py", "bad_values", ["--values=rollouts:x"], 2, "expected exact or rollouts:N"
    )
    add("depth_limited.py", "zero_values", ["--num_values=0"], 2, "--num_values must be positive")
    add(
        "depth_limited.py",
        "naive_k",
        ["--strategy_set=blueprint", "--num_values=3"],
        2,
        "the 'blueprint' set is the single-valued K = 1",
    )
    add(
        "depth_limited.py",
        "limit_at_root",
        ["--root=after_moves=1", "--limit=after_moves=1"],
        2,
        "must lie strictly below them",
    )
    add("depth_limited.py", "too_many_bias", ["--num_values=9"], 2, "K = 9 asked")
    add("depth_limited.py", "runs", [], 0, "depth-limited, K = 2 (bias)")
    add("depth_limited.py", "rollouts", ["--values=rollouts:20"], 0, "K = 2")
    add("head_to_head.py", "one_bot", ["--bots=nested"], 2, "at least two distinct bots")
    add("head_to_head.py", "unknown_bot", ["--bots=nested,foo"], 2, "unknown bot 'foo'")
    add("head_to_head.py", "odd_chunk", ["--chunk=3"], 2, "--chunk must be even and >= 2")
    add(
        "head_to_head.py",
        "unsafe_prior",
        ["--bots=nested/unsafe/uniform,blueprint"],
        2,
        "the unsafe subgame takes no prior",
    )
    add("head_to_head.py", "runs", [], 0, "A's mean return")
    # certificate files
    add(
        "verify.py",
        "missing_file",
        ["--certificate={tmp}/none.json"],
        2,
        "no such file",
    )
    add(
        "verify.py",
        "corrupt_file",
        ["--certificate={files}/corrupt.json"],
        1,
        "certificate rejected: {files}/corrupt.json is not a certificate (not JSON",
    )
    add(
        "verify.py",
        "wrong_game",
        ["--game=leduc_poker"],
        1,
        "holds a certificate for kuhn_poker(), not for leduc_poker()",
    )
    add(
        "verify.py",
        "nan_probability",
        ["--certificate={files}/nan.json"],
        1,
        "nan.json: non-numeric probability",
    )
    add(
        "verify.py",
        "string_probability",
        ["--certificate={files}/string.json"],
        1,
        "string.json: non-numeric probability",
    )
    add(
        "verify.py",
        "tampered_bound",
        ["--certificate={files}/tampered.json"],
        1,
        "certificate rejected: the certificate claims value_lower",
    )
    add(
        "verify.py",
        "missing_trunk",
        ["--certificate={files}/no_trunk.json"],
        1,
        "no_trunk.json.npz is missing (a certificate is two files, PATH and PATH.npz",
    )
    add(
        "verify.py",
        "garbage_trunk",
        ["--certificate={files}/garbage.json"],
        1,
        "is not a trunk file",
    )
    return cases


CASES = _cases()


def fork_server():
    """The `server` fixture of the command tests: one ForkServer per test module."""
    with tempfile.TemporaryDirectory() as scratch:
        fs = ForkServer(scratch)
        yield fs
        fs.close()


def certificate_files(server, tmp_path_factory):
    """The `files` fixture of the command tests (`make_files`)."""
    return make_files(server, tmp_path_factory.mktemp("files"))


server = pytest.fixture(scope="module", name="server")(fork_server)
files = pytest.fixture(scope="module", name="files")(certificate_files)


def make_files(server: ForkServer, d: pathlib.Path) -> pathlib.Path:
    """Certificates of Kuhn poker and of the converted Goofspiel in `d`, and broken copies."""
    for game, name in (("kuhn_poker", "cert"), (SIMULTANEOUS, "sim_cert")):
        result = server.run(
            _script("certify.py"), f"--game={game}", f"--certificate_out={d}/{name}.json"
        )
        assert result.returncode == 0, result.stderr
    cert = json.loads((d / "cert.json").read_text())
    key = next(iter(cert["strategy"][0]))
    action = next(iter(cert["strategy"][0][key]))

    def variant(name, change, trunk=b""):
        data = json.loads(json.dumps(cert))
        change(data)
        (d / f"{name}.json").write_text(json.dumps(data))  # json.dumps writes NaN as NaN
        if trunk is not None:
            npz = d / f"{name}.json.npz"
            npz.write_bytes(trunk or (d / "cert.json.npz").read_bytes())

    variant("nan", lambda c: c["strategy"][0][key].update({action: float("nan")}))
    variant("string", lambda c: c["strategy"][0][key].update({action: "0.5"}))
    variant("tampered", lambda c: c.update(value_lower=c["value_lower"] + 0.1))
    variant("no_trunk", lambda c: None, trunk=None)
    variant("garbage", lambda c: None, trunk=b"not an npz archive")
    (d / "corrupt.json").write_text("{not json")
    policy_files.save_policy(
        policies.uniform_policy("leduc_poker"), d / "leduc.json", "leduc_poker"
    )
    return d


def _script(name: str) -> str:
    return os.path.join(ROOT, "scripts", name)


def _fill(flags, tmp, files) -> list[str]:
    values = {"tmp": tmp, "files": files, "cert": f"{files}/cert.json"}
    values["sim_cert"] = f"{files}/sim_cert.json"
    return [f.format(**values) for f in flags]


def error_lines(stderr: str) -> list[str]:
    """stderr's problem lines: errors, warnings, interruptions, anything from a traceback
    (the scripts' INFO log lines are plain messages, absl's prefixed ones are left out too)."""
    problem = ("error:", "warning:", "interrupted", "Traceback", "  File ")
    return [
        line
        for line in stderr.splitlines()
        if line and not ABSL_LOG_LINE.match(line) and line.startswith(problem)
    ]


def check_outcome(result: Result, code: int, message: str, out_dir) -> None:
    """The case's exit code; on failure one stderr line with the message and no file left."""
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode == code, (result.returncode, result.stderr)
    left = sorted(p.name for p in out_dir.iterdir()) if out_dir.exists() else []
    if code == 0:
        assert message in result.stdout, result.stdout
        return
    lines = error_lines(result.stderr)
    assert len(lines) == 1, result.stderr
    assert message in lines[0], lines[0]
    if code == 2:  # refused: nothing was written
        assert left == [], left


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(server, files, tmp_path, case):
    out = tmp_path / "out"
    out.mkdir()
    flags = _fill([*BASE[case.script], f"--output_json={out}/result.json", *case.flags], out, files)
    result = server.run(_script(case.script), *flags)
    check_outcome(result, case.code, case.message.format(tmp=out, files=files), out)
    if case.code == 0 and case.name != "help":
        json.loads((out / "result.json").read_text())  # complete
    if case.code == 1:  # a rejected certificate: the outcome is written, complete
        assert sorted(p.name for p in out.iterdir()) == ["result.json"]
        assert json.loads((out / "result.json").read_text())["ok"] is False
    if case.name == "help":
        assert result.stderr == ""


@pytest.mark.parametrize("script", SCRIPTS)
def test_fresh_interpreter(script, tmp_path):
    """One case per script outside the fork server: a real `python script.py`."""
    proc = subprocess.run(
        [sys.executable, _script(script), "--no_such_flag", f"--output_json={tmp_path}/r.json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr == "error: Unknown command line flag 'no_such_flag'\n"
    assert list(tmp_path.iterdir()) == []


# --- Ctrl-C: the result so far is written, exit code 130 ---------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_sigint_during_compilation(server, tmp_path, sig):
    result = server.interrupt(
        _script("stats.py"),
        "--game=rhode_island_holdem(num_ranks=3,num_suits=2)",
        f"--output_json={tmp_path}/r.json",
        wait_for=None,
        seconds=1.0,
        sig=sig,
    )
    check_outcome(result, 130, "interrupted while compiling rhode_island_holdem(", tmp_path)
    assert error_lines(result.stderr)[0].startswith("interrupted while compiling")
    assert list(tmp_path.iterdir()) == []  # nothing computed, nothing written


def test_sigint_during_the_lp(server, tmp_path):
    out, pol = tmp_path / "r.json", tmp_path / "p.json"
    result = server.interrupt(
        _script("solve.py"),
        f"--game={LONG_LP}",
        "--solver=lp",
        f"--output_json={out}",
        f"--policy_out={pol}",
        wait_for="solving the sequence-form LP",
        seconds=1.0,
    )
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "interrupted" and row["stopped_early"]
    assert row["value"] is None and row["exploitability"] is None
    assert not pol.exists()  # no strategy: no policy file


def test_lp_time_limit(server, tmp_path):
    out, pol = tmp_path / "r.json", tmp_path / "p.json"
    result = server.run(
        _script("solve.py"),
        "--game=limit_leduc_poker(num_ranks=9)",
        "--solver=lp",
        "--time_limit=0.01",
        f"--output_json={out}",
        f"--policy_out={pol}",
    )
    assert result.returncode == 0, result.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "time_limit" and row["value"] is None
    assert not pol.exists()


def test_sigint_perturbed_egt_epsilon_mode(server, tmp_path):
    out = tmp_path / "r.json"
    result = server.interrupt(
        _script("egt.py"),
        "--game=leduc_poker",
        "--iterations=100000",
        "--target_gap=0",
        "--xi=0.01",
        "--dgf_weight=0.05",
        f"--output_json={out}",
        "--verbose",
        wait_for="iteration 1 ",  # a --verbose line
    )
    assert result.returncode == 130, result.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "interrupted" and row["epsilon_reached"] is False
    assert row["iterations"][-1] == row["final_iteration"] < 1_000_000


@pytest.mark.parametrize("lp_flags", [[], ["--lp_method=ipm"]])
def test_sigint_certificate_search(server, tmp_path, lp_flags):
    out, cert = tmp_path / "r.json", tmp_path / "c.json"
    game = "sequential_goofspiel(num_cards=5)"
    result = server.interrupt(
        _script("certify.py"),
        f"--game={game}",
        *lp_flags,
        f"--output_json={out}",
        f"--certificate_out={cert}",
        "--verbose",
        wait_for="iteration 1 ",  # a --verbose line
        seconds=1.0,
    )
    assert result.returncode == 130, result.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "interrupted" and row["stopped_early"]
    verified = server.run(_script("verify.py"), f"--game={game}", f"--certificate={cert}")
    assert verified.returncode == 0, verified.stderr  # the certificate so far is sound


def test_sigint_gameshrink_cfr_plus(server, tmp_path):
    out, pol = tmp_path / "r.json", tmp_path / "p.json"
    result = server.interrupt(
        _script("shrink.py"),
        "--game=leduc_poker",
        "--solver=cfr_plus",
        "--iterations=100000000",
        f"--output_json={out}",
        f"--policy_out={pol}",
        "--verbose",
        wait_for="iteration 100 ",  # a --verbose line
        seconds=0.5,
    )
    assert result.returncode == 130, result.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "interrupted" and 100 <= row["iterations"] < 100000000
    policy_files.load_policy("leduc_poker", pol)  # complete and valid


# --- outputs of the fixed defects -------------------------------------------------------


def test_perturbed_egt_epsilon_figures_are_of_one_run(server, tmp_path):
    """--target_gap continues the same run: the curve ends at the final iterate (not at
    --iterations), and whether the gap was reached is written."""
    out = tmp_path / "r.json"
    result = server.run(
        _script("egt.py"),
        "--game=kuhn_poker",
        "--iterations=10",
        "--target_gap=0",
        "--dgf_weight=0.05",
        f"--output_json={out}",
    )
    assert result.returncode == 0, result.stderr
    row = json.loads(out.read_text())
    assert row["final_iteration"] == row["iterations"][-1] == 100  # 10 x --iterations
    assert row["epsilon"] == 0 and row["epsilon_reached"] is False
    assert row["stop_reason"] == "iterations"
    assert "target gap 0.0 not reached" in result.stdout
    reached = server.run(
        _script("egt.py"),
        "--game=kuhn_poker",
        "--iterations=10",
        "--target_gap=1000",
        "--dgf_weight=0.05",
        f"--output_json={out}",
    )
    row = json.loads(out.read_text())
    assert reached.returncode == 0 and row["epsilon_reached"] is True
    assert row["stop_reason"] == "target" and row["final_iteration"] == 10


@pytest.mark.parametrize("lp_flag", ["--nowarm_start", "--lp_method=ipm"])
def test_certificate_search_lp_flags(server, tmp_path, lp_flag):
    out = tmp_path / "r.json"
    result = server.run(
        _script("certify.py"),
        "--game=kuhn_poker",
        lp_flag,
        f"--output_json={out}",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["epsilon"] < 1e-9


def test_gameshrink_counts_before_compiling(server, tmp_path):
    """The original game is counted first and not compiled when the count exceeds
    --max_nodes (Rhode Island Hold'em's 6.7e9 nodes were walked up to 2e6 before)."""
    out = tmp_path / "r.json"
    result = server.run(
        _script("shrink.py"),
        "--game=leduc_poker",
        "--solver=lp",
        "--max_nodes=9000",  # Leduc has 9457
        f"--output_json={out}",
    )
    assert result.returncode == 0, result.stderr
    row = json.loads(out.read_text())
    assert row["original"]["source"] == "counted" and row["exploitability"] is None
    assert "not compiled" in result.stderr and "compiling" not in result.stderr.replace(
        "not compiled", ""
    )


def _table() -> str:
    """The table of cases with what each gives now (for the issue's closing note)."""
    rows = ["| script | case | exit | stderr (one line) / stdout |", "|---|---|---|---|"]
    with tempfile.TemporaryDirectory() as scratch:
        fs = ForkServer(scratch)
        d = make_files(fs, pathlib.Path(scratch))
        for case in CASES:
            out = os.path.join(scratch, case.id)
            os.mkdir(out)
            flags = _fill([*BASE[case.script], *case.flags], out, d)
            r = fs.run(_script(case.script), *flags)
            lines = error_lines(r.stderr) if r.returncode else ["(stdout has) " + case.message]
            shown = (lines[0] if lines else "").replace(out, "<dir>").replace(str(d), "<files>")
            rows.append(f"| {case.script} | {case.name} | {r.returncode} | {shown} |")
            shutil.rmtree(out)
        fs.close()
    return "\n".join(rows)


if __name__ == "__main__":
    print(_table())


def _benchmark(name: str) -> str:
    """The path of benchmarks/papers/<name> or benchmarks/perf/<name>."""
    (path,) = glob.glob(os.path.join(ROOT, "benchmarks", "*", name))
    return path


BENCHMARK_CASES = [
    ("certificates.py", ["--time_limit=0"], "--time_limit must be positive, got 0.0"),
    ("certificates.py", ["--games=kuhn_poker(players=3)"], "has 3 players"),
    ("efpe.py", ["--traversals=5"], "--traversals must be at least 6, got 5"),
    ("efpe.py", ["--games=no_such_game"], "unknown game 'no_such_game'"),
    ("efpe.py", ["--plots_dir=/proc/x"], "--plots_dir=/proc/x"),
    ("efpe.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("efpe.py", ["--aggressive_xis=0,x"], "--aggressive_xis takes numbers"),
    ("efpe.py", ["--aggressive_xis=0.5"], "--aggressive_xis must lie in [0, 0.5)"),
    ("range_cfr_run.py", ["--policy_out={tmp}/no/p.npz"], "does not exist"),
    ("range_cfr_run.py", ["--time_limit=0"], "--time_limit must be positive"),
    ("range_cfr_run.py", ["--game=chess"], "no public-tree poker structure"),
    ("range_cfr_run.py", ["--dtype=float16"], "--dtype"),
    ("range_cfr_run.py", ["--threads=0"], "--threads"),
    (
        "range_cfr_run.py",
        ["--output_json={tmp}/x.json", "--policy_out={tmp}/x.json"],
        "x.json is the output --output_json (the same file)",
    ),
    ("range_cfr_run.py", ["--sample_boards=2"], "sample_boards is a fraction in (0, 1]"),
    ("nlfh_figure2.py", ["--num_values=2,0"], "--num_values"),
    ("nlfh_figure2.py", ["--plots_dir=/proc/x"], "--plots_dir=/proc/x"),
    ("nlfh_figure2.py", ["--flop_iterations=-1"], "flop_iterations"),
    ("nlfh_figure2.py", ["--num_ranks=2", "--num_suits=2"], "7 cards from a deck of 4"),
    ("nlfh_sizes.py", ["--decks=13"], "--decks: '13' is not RANKSxSUITS"),
    ("nlfh_sizes.py", ["--decks=3x5"], "numSuits=5: universal_poker allows 1 to 4"),
    ("nlfh_sizes.py", ["--decks=3x4", "--stacks_bb=2"], "no 0.75x pot bet fits"),
    ("range_cfr_sampling.py", ["--fractions=0.5,0"], "--fractions must lie in (0, 1]"),
    ("range_cfr_sampling.py", ["--time_limits=0"], "--time_limits must be positive"),
    ("range_cfr_sampling.py", ["--game=chess"], "no public-tree poker structure"),
    ("cfr_rounding.py", ["--variants=cfr,foo"], "--variants: 'foo' is not one of"),
    ("cfr_rounding.py", ["--games=chess"], "no public-tree poker structure"),
    ("cfr_rounding.py", ["--iterations=0"], "--iterations"),
    ("range_dtype.py", ["--iterations=0"], "--iterations must be positive"),
    ("range_dtype.py", ["--game=chess"], "no public-tree poker structure"),
    ("gameshrink_full_scale.py", ["--checkpoints=10,x"], "--checkpoints must be integers"),
    ("gameshrink_full_scale.py", ["--checkpoints=0"], "--checkpoints must be positive integers"),
    ("gameshrink_full_scale.py", ["--filters=nosuch"], "unknown --filters"),
    ("gameshrink_full_scale.py", ["--game=kuhn_poker(players=3)"], "has 3 players"),
    ("gameshrink.py", ["--thresholds=0,abc"], "--thresholds: 'abc' is not a number >= 0"),
    ("gameshrink.py", ["--ri_checkpoints=10,x"], "--ri_checkpoints: 'x' is not an integer"),
    ("gameshrink.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("ggse.py", ["--tremble=0"], "--tremble must be in (0, 1), got 0.0"),
    ("ggse.py", ["--techniques=foo"], "unknown technique 'foo'"),
    ("ggse.py", ["--games=chess"], "--games must be among"),
    ("ggse.py", ["--lp_vertices=foo"], "unknown LP vertex 'foo'"),
    ("ggse.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("depth_limited.py", ["--games=chess"], "--games must be among"),
    ("depth_limited.py", ["--num_values=0"], "--num_values: '0' is not an integer >= 1"),
    ("depth_limited.py", ["--blueprints=300,30"], "--blueprints must be strictly increasing"),
    ("depth_limited.py", ["--iterations=0"], "--iterations must be positive, got 0"),
    ("depth_limited_off_tree.py", ["--num_values=1,x"], "--num_values: 'x' is not an integer >= 1"),
    ("depth_limited_off_tree.py", ["--stack=6"], "--stack must be at least 8"),
    ("depth_limited_off_tree.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("speed.py", ["--rounds=0"], "--rounds must be positive, got 0"),
    (
        "egt_stepping.py",
        ["--target_exploitability=0"],
        "--target_exploitability must be positive, got 0.0",
    ),
    ("egt_stepping.py", ["--xis=0.7"], "--xis must lie in (0, 0.5)"),
    ("egt_stepping.py", ["--xis=abc"], "--xis takes numbers"),
    ("egt_stepping.py", ["--refine_xi=0"], "--refine_xi must lie in (0, 0.5), got 0.0"),
    ("egt_stepping.py", ["--rounding_perturbations=x"], "--rounding_perturbations takes numbers"),
    ("egt_stepping.py", ["--rounding_perturbations=1"], "--rounding_perturbations must lie in"),
    ("egt_stepping.py", ["--refine_games=no_such_game"], "unknown game 'no_such_game'"),
    ("egt_stepping.py", ["--tight_targets=1e-5,1e-4"], "--tight_targets must be positive and"),
    ("egt_stepping.py", ["--tight_targets=x"], "--tight_targets takes numbers"),
    ("certificate_costs.py", ["--time_limit=0"], "--time_limit must be positive, got 0.0"),
    ("certificate_costs.py", ["--game=no_such_game"], "unknown game 'no_such_game'"),
    ("certificate_costs.py", ["--plot={tmp}/no/c.png"], "does not exist"),
    ("certificate_lp_methods.py", ["--runs=kuhn_poker"], "'kuhn_poker' is not GAME@K"),
    ("certificate_lp_methods.py", ["--runs=no_such_game@1"], "unknown game 'no_such_game'"),
    ("certificate_lp_methods.py", ["--time_limit=0"], "--time_limit must be positive"),
    ("highs_model_changes.py", ["--rounds=0"], "--rounds must be positive, got 0"),
    ("highs_model_changes.py", ["--games=no_such_game"], "unknown game 'no_such_game'"),
    ("highs_model_changes.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("certificate_lp_starts.py", ["--trunk_nodes=0"], "--trunk_nodes: '0' is not an integer"),
    ("certificate_lp_starts.py", ["--cfr_iterations=x"], "--cfr_iterations: 'x' is not an"),
    ("certificate_lp_starts.py", ["--game=no_such_game"], "unknown game 'no_such_game'"),
    ("gameshrink_dominance.py", ["--games=no_such_game"], "unknown game 'no_such_game'"),
    ("gameshrink_filters.py", ["--games=no_such_game"], "unknown game 'no_such_game'"),
    ("gameshrink_filters.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("gameshrink_lossless.py", ["--games=no_such_game"], "unknown game 'no_such_game'"),
    ("gameshrink_lossless.py", ["--games=kuhn_poker"], "only leduc_poker or rhode_island_holdem"),
    ("gameshrink_lossless.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("gameshrink.py", ["--rhode_island=no_such_game"], "unknown game 'no_such_game'"),
    ("gameshrink_dominance.py", ["--output_json={tmp}/no/r.json"], "does not exist"),
    ("nested_solving_round_robin.py", ["--chunk=3"], "--chunk must be even and >= 2"),
    ("nested_solving_round_robin.py", ["--time_limit=0"], "--time_limit must be positive"),
    (
        "nested_solving_round_robin.py",
        ["--projected_games=0"],
        "--projected_games must be positive",
    ),
    (
        "nested_solving_round_robin.py",
        ["--bots=blueprint"],
        "--bots needs at least two distinct bots",
    ),
    ("nested_solving_round_robin.py", ["--tremble=0.7"], "--tremble must be in (0, 1/2)"),
    ("nested_solving_round_robin.py", ["--game=no_such_game"], "unknown game 'no_such_game'"),
    ("speed.py", ["--chunk_seconds=-1"], "--chunk_seconds must be positive, got -1.0"),
    ("nested_solving_speed.py", ["--time_limit=0"], "--time_limit must be positive"),
    ("nested_solving_speed.py", ["--num_games=0"], "--num_games must be positive"),
    (
        "nested_solving_speed.py",
        ["--max_belief_histories=-1"],
        "--max_belief_histories must be non-",
    ),
    ("nested_solving_speed.py", ["--bots=nested/unsafe"], "--bots needs two bots"),
    (
        "nested_solving_speed.py",
        ["--output_json=" + _benchmark("nested_solving_speed.py")],
        "is this command's own script",
    ),
    ("nested_solving_sampling.py", ["--max_belief_histories=5"], "--max_belief_histories: give"),
    ("nested_solving_sampling.py", ["--belief_budgets=-1"], "--belief_budgets"),
]


@pytest.mark.parametrize(
    "name",
    [
        "certificate_costs.py",
        "certificate_lp_starts.py",
        "certificates.py",
        "gameshrink_dominance.py",
        "efpe.py",
        "egt_stepping.py",
        "gameshrink.py",
        "gameshrink_lossless.py",
        "gameshrink_full_scale.py",
        "ggse.py",
        "highs_model_changes.py",
        "depth_limited.py",
        "nested_solving_round_robin.py",
        "nested_solving_sampling.py",
        "nested_solving_speed.py",
        "depth_limited_off_tree.py",
        "nlfh_leaves_plot.py",
        "speed.py",
    ],
)
def test_benchmark_help_and_unknown_flag(server, name):
    script = _benchmark(name)
    assert server.run(script, "--help").returncode == 0
    result = server.run(script, "--no_such_flag")
    check_outcome(
        result, 2, "Unknown command line flag 'no_such_flag'", pathlib.Path("/nonexistent")
    )


@pytest.mark.parametrize("name, flags, message", BENCHMARK_CASES)
def test_benchmark_bad_flags(server, tmp_path, name, flags, message):
    """The benchmarks' flags are checked (every game loaded) before any work."""
    flags = [f.format(tmp=tmp_path) for f in flags]
    result = server.run(_benchmark(name), *flags)
    check_outcome(result, 2, message, tmp_path)


def test_rhode_island_plot_refuses_an_output_that_is_its_input(server, tmp_path):
    """The plot reads JSONs; naming one of them as --plot is refused before any work and
    leaves it as it was."""
    runs = tmp_path / "in" / "r.json"
    runs.parent.mkdir()
    runs.write_text("{}")
    (tmp_path / "out").mkdir()
    result = server.run(
        _benchmark("rhode_island_plot.py"),
        f"--run_jsons={runs}",
        f"--plot={runs}",
    )
    check_outcome(result, 2, f"--plot={runs} is the input --run_jsons ({runs}) (the same file)",
                  tmp_path / "out")  # fmt: skip
    assert runs.read_text() == "{}"


def test_nlfh_leaves_plot_refuses_its_input_as_output_and_another_run(server, tmp_path):
    """The plot reads JSONs of one run's settings: naming one as --plot, or JSONs of another
    game, is refused before any plotting, and the input is left as it was."""
    results = os.path.join(ROOT, "docs", "results")
    ours, other = (
        os.path.join(results, f"nlfh_figure2_{n}.json") for n in ("16cards", "12cards_2000")
    )
    copy = tmp_path / "in.json"
    copy.write_text(pathlib.Path(ours).read_text())
    (tmp_path / "out").mkdir()
    script = _benchmark("nlfh_leaves_plot.py")
    result = server.run(script, f"--jsons={copy}", f"--plot={copy}")
    check_outcome(result, 2, f"--plot={copy} is the input --jsons ({copy}) (the same file)",
                  tmp_path / "out")  # fmt: skip
    assert copy.read_text() == pathlib.Path(ours).read_text()
    result = server.run(script, f"--jsons={ours},{other}", f"--plot={tmp_path / 'out' / 'p.png'}")
    check_outcome(result, 2, f"--jsons: {other} has another game than {ours}", tmp_path / "out")
