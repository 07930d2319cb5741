"""Every command against what destroys data or hangs (issue "Reliability 2"): outputs that are
devices, FIFOs, links, standard output or one of the command's inputs; a full disk; Ctrl-C
and SIGTERM in every long-running command (exit code 130, the result so far written, no
worker process left); time limits; the help, messages and defaults users meet first.

The scripts run in forked copies of one warm interpreter (`forkserver`), as in
test_bad_input.py; head-to-head with worker processes runs as a real subprocess in its own
session, so that a worker left behind would be seen.
"""

from __future__ import annotations

import json
import os
import signal
import stat
import subprocess
import sys
import time

import pytest
from helpers import FULL, NULL, memory_device
from test_bad_input import (
    BASE,
    ROOT,
    SCRIPTS,
    _script,
    certificate_files,
    error_lines,
    fork_server,
)

from ospiel_ext import policies, policy_files

server = pytest.fixture(scope="module", name="server")(fork_server)
files = pytest.fixture(scope="module", name="files")(certificate_files)


def _flags(script, tmp, files, *extra):
    values = {"tmp": tmp, "files": files, "cert": f"{files}/cert.json"}
    values["sim_cert"] = f"{files}/sim_cert.json"
    return [f.format(**values) for f in (*BASE[script], *extra)]


# --- outputs ------------------------------------------------------------------------------


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_full_device_fails_in_one_line_and_survives(server, files, tmp_path, script):
    full = memory_device(tmp_path, "full", FULL)
    result = server.run(_script(script), *_flags(script, tmp_path, files, f"--output_json={full}"))
    assert result.returncode == 1, result.stderr
    lines = error_lines(result.stderr)
    assert lines == [f"error: cannot write {full}: no space left on device"], result.stderr
    assert stat.S_ISCHR(os.stat(full).st_mode)


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_device_a_link_and_standard_output_are_written_as_tools_write_them(
    server, files, tmp_path, script
):
    null = memory_device(tmp_path, "null", NULL)
    target, link = tmp_path / "target.json", tmp_path / "link.json"
    target.write_text("old")
    os.symlink(target, link)
    for output in (null, str(link), "-", "/dev/stdout"):
        result = server.run(
            _script(script), *_flags(script, tmp_path, files, f"--output_json={output}")
        )
        assert result.returncode == 0, (output, result.stderr)
        if output in ("-", "/dev/stdout"):  # the JSON after the table, on standard output
            assert result.stdout.index('"game":') > 0, result.stdout
    assert stat.S_ISCHR(os.stat(null).st_mode)
    assert link.is_symlink() and json.loads(target.read_text())["game"]


def test_a_fifo_is_written_through(server, tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    pid, out, err = server.start(_script("solve.py"), "--game=kuhn_poker", f"--output_json={fifo}")
    data = fifo.read_text()  # blocks until the command opens the FIFO and writes
    result = server.finish(pid, out, err)
    assert result.returncode == 0 and json.loads(data)["game"] == "kuhn_poker()"
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


@pytest.mark.parametrize(
    "script, flag",
    [
        ("solve.py", "--policy_out"),
        ("egt.py", "--policy_out"),
        ("certify.py", "--policy_out"),
        ("shrink.py", "--abstract_policy_out"),
        ("subgame.py", "--policy_out"),
        ("depth_limited.py", "--policy_out"),
    ],
)
def test_a_run_writes_all_its_outputs_or_says_which_it_did_not(
    server, files, tmp_path, script, flag
):
    """A full disk used to end in a traceback after the JSON was written and the policy was
    not; now devices are written first and files only after, so nothing else is written."""
    full = memory_device(tmp_path, "full", FULL)
    out = tmp_path / "out"
    out.mkdir()
    result = server.run(
        _script(script),
        *_flags(script, out, files, f"--output_json={out}/r.json", f"{flag}={full}"),
    )
    assert result.returncode == 1, result.stderr
    assert error_lines(result.stderr) == [
        f"error: cannot write {full}: no space left on device; written: nothing; "
        f"not written: {full}, {out}/r.json"
    ], result.stderr
    assert list(out.iterdir()) == []


def _same_file_cases(files):
    policy = f"{files}/leduc.json"
    kuhn = f"{files}/kuhn.json"
    return [
        ("evaluate.py", ["--game=kuhn_poker", f"--policy={kuhn}", f"--output_json={kuhn}"]),
        ("evaluate.py", ["--game=kuhn_poker", f"--policy={kuhn}", f"--output_json={files}/kl"]),
        ("play.py", ["--game=kuhn_poker", f"--policy={kuhn}", f"--output_json={kuhn}"]),
        (
            "play.py",
            [
                "--game=kuhn_poker",
                f"--policy={files}/kuhn2.json",
                f"--opponent=policy:{kuhn}",
                f"--output_json={files}/./kuhn.json",
            ],
        ),
        (
            "verify.py",
            [
                "--game=kuhn_poker",
                f"--certificate={files}/cert.json",
                f"--output_json={files}/cert.json",
            ],
        ),
        (
            "verify.py",
            [
                "--game=kuhn_poker",
                f"--certificate={files}/cert.json",
                f"--output_json={files}/cert.json.npz",
            ],
        ),
        (
            "subgame.py",
            ["--game=leduc_poker", f"--blueprint={policy}", f"--policy_out={policy}"],
        ),
        (
            "depth_limited.py",
            ["--game=leduc_poker", f"--blueprint={policy}", f"--output_json={policy}"],
        ),
        (
            "head_to_head.py",
            ["--game=leduc_poker", f"--blueprint={policy}", f"--output_json={policy}"],
        ),
    ]


def test_an_output_that_is_an_input_is_refused_before_any_work(server, files):
    policy_files.save_policy(
        policies.uniform_policy("kuhn_poker"), files / "kuhn.json", "kuhn_poker"
    )
    policy_files.save_policy(
        policies.uniform_policy("kuhn_poker"), files / "kuhn2.json", "kuhn_poker"
    )
    link = files / "kl"
    if not link.exists():
        os.symlink(files / "kuhn.json", link)
    before = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    for script, flags in _same_file_cases(files):
        result = server.run(_script(script), *flags)
        assert result.returncode == 2, (script, result.stderr)
        (line,) = error_lines(result.stderr)
        assert "(the same file); choose another path" in line and "is the input" in line, line
    after = {p.name: p.read_bytes() for p in files.iterdir() if p.is_file()}
    assert after == before  # nothing was overwritten


# --- Ctrl-C and SIGTERM ---------------------------------------------------------------------


SIGNALS = [signal.SIGINT, signal.SIGTERM]
# Both signals reach one handler (tests/runtime/test_interrupts.py checks that each is
# installed and stops a computation alike); a command's test below sends one of them, the
# commands taking turns, and `test_sigterm_stops_like_ctrl_c` sends SIGTERM to five more.


def _interrupted(result, out):
    assert result.returncode == 130, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return json.loads(out.read_text())


def test_subgame_stops_with_the_iterations_that_ran(server, tmp_path):
    """It used to exit 0, print "all 30 subgames resolved" and write the iterations asked."""
    out, pol = tmp_path / "r.json", tmp_path / "p.json"
    result = server.interrupt(
        _script("subgame.py"),
        "--game=leduc_poker",
        "--cut=public_chance",
        "--iterations=100000000",
        f"--output_json={out}",
        f"--policy_out={pol}",
        wait_for="resolving 30 subgames",
        seconds=1.0,
        sig=signal.SIGINT,
    )
    row = _interrupted(result, out)
    assert row["stop_reason"] == "interrupted"
    assert 0 < row["iterations"] < row["iterations_asked"] == 100000000
    assert "all 30 subgames resolved" not in result.stdout and "stopped (interrupted)" in (
        result.stdout
    )
    policy_files.load_policy("leduc_poker", pol)


def test_depth_limited_stops_the_whole_command(server, tmp_path):
    """Each Ctrl-C used to end only the current inner solve, and nothing was written."""
    out = tmp_path / "r.json"
    result = server.interrupt(
        _script("depth_limited.py"),
        "--game=leduc_poker",
        "--iterations=100000000",
        f"--output_json={out}",
        wait_for="depth-limited solving of",
        seconds=1.0,
        sig=signal.SIGTERM,
    )
    row = _interrupted(result, out)
    assert row["stop_reason"] == "interrupted" and row["players_solved"] in ([], [0], [0, 1])
    assert row["full_depth_exploitability"] is None


def test_play_writes_the_games_played(server, files, tmp_path):
    """It used to write nothing of the games already played."""
    out = tmp_path / "r.json"
    result = server.interrupt(
        _script("play.py"),
        "--game=leduc_poker",
        f"--policy={files}/leduc.json",
        "--num_games=100000000",
        f"--output_json={out}",
        wait_for="playing 100000000 games",
        seconds=1.0,
        sig=signal.SIGINT,
    )
    row = _interrupted(result, out)
    assert row["stop_reason"] == "interrupted" and 0 < row["games"] < row["games_asked"]


@pytest.mark.parametrize(
    "script, flags, wait_for",
    [
        (
            "solve.py",
            ["--game=leduc_poker", "--iterations=100000000", "--verbose"],
            "iteration 100 ",
        ),
        (
            "compare.py",
            [
                "--game=leduc_poker",
                "--iterations=100000000",
                "--time_limit=1000",
                "--solvers=cfr_plus",
                "--verbose",
            ],
            "nash_conv",
        ),
        (
            "egt.py",
            ["--game=leduc_poker", "--iterations=100000000", "--dgf_weight=0.05", "--verbose"],
            "iteration 1 ",
        ),
        (
            "certify.py",
            ["--game=sequential_goofspiel(num_cards=5)", "--verbose"],
            "iteration 1 ",
        ),
        (
            "shrink.py",
            ["--game=leduc_poker", "--solver=cfr_plus", "--iterations=100000000", "--verbose"],
            "iteration 100 ",
        ),
    ],
)
def test_sigterm_stops_like_ctrl_c(server, tmp_path, script, flags, wait_for):
    out = tmp_path / "r.json"
    result = server.interrupt(
        _script(script),
        *flags,
        f"--output_json={out}",
        wait_for=wait_for,
        seconds=0.5,
        sig=signal.SIGTERM,
    )
    row = _interrupted(result, out)
    reasons = [row.get("stop_reason"), row.get("stopped"), row.get("interrupted")]
    assert "interrupted" in reasons or True in reasons, row


@pytest.fixture(scope="module")
def liars_dice_policy(tmp_path_factory):
    path = tmp_path_factory.mktemp("policy") / "liars_dice.json"
    policy_files.save_policy(policies.uniform_policy("liars_dice"), path, "liars_dice")
    return path


def test_commands_without_a_result_so_far_stop_and_write_nothing(
    server, liars_dice_policy, tmp_path
):
    """OpenSpiel's best responses of Liar's dice take several seconds here: the signal comes a
    second after the command logs that they began (a fixed delay from the start missed them on
    a loaded machine, where reading the policy took longer)."""
    out = tmp_path / "r.json"
    result = server.interrupt(
        _script("evaluate.py"),
        "--game=liars_dice",
        f"--policy={liars_dice_policy}",
        f"--output_json={out}",
        "--verbose",
        wait_for="stage: computing best responses",
        seconds=1.0,
        sig=signal.SIGTERM,
    )
    assert result.returncode == 130, result.stderr
    assert error_lines(result.stderr) == ["interrupted while computing best responses"]
    assert not out.exists()


def _session_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


@pytest.mark.parametrize("sig", SIGNALS)
def test_head_to_head_stops_its_workers(tmp_path, sig):
    """It took 28 s to stop and, after Ctrl-C then SIGTERM, left its worker processes running
    for minutes. Now the first signal stops it within moments, and a second one (a SIGTERM
    after the Ctrl-C) cannot leave workers behind either."""
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [sys.executable, _script("head_to_head.py"), "--game=leduc_poker", "--num_games=100000",
         "--chunk=100", "--workers=2", f"--output_json={out}"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        for line in proc.stderr:  # the workers run once the sweep has started
            if "sweep:" in line or time.monotonic() > deadline:
                break
        time.sleep(1)
        proc.send_signal(sig)
        if sig == signal.SIGINT:
            time.sleep(0.2)
            proc.send_signal(signal.SIGTERM)  # impatient: a second signal
        _stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    gone = time.monotonic() + 10
    while _session_alive(proc.pid) and time.monotonic() < gone:
        time.sleep(0.1)
    assert not _session_alive(proc.pid), "a worker process outlived the command"
    if sig == signal.SIGINT:  # the SIGTERM may come after the result, while Python exits
        assert proc.returncode in (130, -signal.SIGTERM), stderr
        return
    assert proc.returncode == 130, stderr
    if sig == signal.SIGTERM:  # one signal: the result so far is written
        row = json.loads(out.read_text())
        assert row["interrupted"] and row["stop_reason"] == "interrupted"
        assert sum(p["games"] for p in row["pairs"]) < 3 * 100000


@pytest.mark.parametrize(
    "script, flags, key",
    [
        ("subgame.py", ["--game=leduc_poker", "--iterations=100000000"], "stop_reason"),
        ("depth_limited.py", ["--game=leduc_poker", "--iterations=100000000"], "stop_reason"),
        (  # stopped inside the rollouts, which have no result so far
            "depth_limited.py",
            ["--game=leduc_poker", "--values=rollouts:100000", "--iterations=200"],
            "stop_reason",
        ),
        (
            "head_to_head.py",
            ["--game=kuhn_poker", "--num_games=100000000", "--chunk=2", "--scheduler=local"],
            "stop_reason",
        ),
    ],
)
def test_time_limits_of_the_nested_commands(server, tmp_path, script, flags, key):
    out = tmp_path / "r.json"
    result = server.run(_script(script), *flags, "--time_limit=2", f"--output_json={out}")
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())[key] == "time_limit"


def test_what_follows_a_time_limit_still_runs(server, tmp_path):
    """The time limit stops the resolving; the game's LP asked for after it still runs (an
    expired deadline used to stop it at once, leaving game_value null)."""
    out = tmp_path / "r.json"
    result = server.run(
        _script("subgame.py"),
        "--game=kuhn_poker",
        "--iterations=100000000",
        "--time_limit=1",
        "--game_value",
        f"--output_json={out}",
    )
    row = json.loads(out.read_text())
    assert result.returncode == 0 and row["stop_reason"] == "time_limit"
    assert row["game_value"] == pytest.approx(-1 / 18, abs=1e-9)


def test_standard_output_and_stderr_may_be_pipes(tmp_path):
    """/dev/stdout and /dev/stderr (and a shell's >(...)) are pipes here, not files in a
    directory: they are written through, not refused."""
    for path, stream in (("/dev/stdout", "stdout"), ("/dev/stderr", "stderr")):
        proc = subprocess.run(
            [sys.executable, _script("solve.py"), "--iterations=5", f"--output_json={path}"],
            capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        assert '"game": "kuhn_poker()"' in getattr(proc, stream)


# --- help, messages, defaults ----------------------------------------------------------------


COMMANDS = ["stats", "solve", "compare", "evaluate", "play", "egt", "certify", "verify", "shrink",
            "subgame", "depth-limited", "head-to-head"]  # fmt: skip


@pytest.mark.parametrize("command", COMMANDS)
def test_help_lists_the_commands_own_flags_with_defaults(command):
    proc = subprocess.run(
        [sys.executable, "-m", "ospiel_ext", command, "--help"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stderr == ""
    assert "\nflags:\n  --" in proc.stdout and "\n  --game: " in proc.stdout
    assert "(default: " in proc.stdout
    assert "  --[no]verbose: " in proc.stdout and "--helpfull" in proc.stdout
    examples = [line for line in proc.stdout.splitlines() if line.startswith("  ospiel-ext ")]
    assert examples and all(len(line) < 100 for line in examples)  # no two lines run together


@pytest.mark.parametrize(
    "script, flags, code, message",
    [
        ("solve.py", ["--game=goofspiel(num_cards=0)"], 2, "has a non-terminal state without"),
        ("solve.py", ["--game=goofspiel(num_cards=4)"], 2, "(goofspiel(imp_info=True) keeps"),
        ("solve.py", ["--game=liars_dice(dice_sides=9)"], 2, "more than the cap max_nodes="),
        ("solve.py", ["--game=latent_ttt"], 2, "more than the cap max_nodes="),
        ("solve.py", ["--game=gin_rummy"], 2, "no information_state_string, so its information"),
        ("stats.py", ["--game=goofspiel(num_cards=4)"], 0, "does not have perfect recall"),
        ("depth_limited.py", ["--game=kuhn_poker"], 0, "K = 3 (bias)"),
        ("depth_limited.py", ["--game=matrix_rps"], 0, "depth-limited"),
        (
            "head_to_head.py",
            ["--game=kuhn_poker", "--num_games=2", "--scheduler=local", "--iterations=5"],
            0,
            "A's mean return",
        ),
        ("compare.py", ["--game=pig(winscore=6,horizon=6)"], 2, "need information_state_string"),
        (  # OpenSpiel's TabularPolicy would walk the whole game before any check
            "evaluate.py",
            ["--game=liars_dice(dice_sides=9)", "--policy={files}/leduc.json"],
            2,
            "bounds OpenSpiel's walk of every state",
        ),
    ],
)
def test_messages_and_defaults(server, files, tmp_path, script, flags, code, message):
    flags = [f.format(files=files) for f in flags]
    result = server.run(_script(script), *flags, f"--output_json={tmp_path}/r.json")
    assert result.returncode == code, result.stderr
    if code:
        (line,) = error_lines(result.stderr)
        assert message in line and "\n" not in line.strip(), line
    else:
        assert message in result.stdout, result.stdout


def test_imperfect_recall_is_refused_readably(server, tmp_path):
    result = server.run(_script("solve.py"), "--game=goofspiel(num_cards=4)")
    (line,) = error_lines(result.stderr)
    assert "'Current player: 0 / Point card sequence: " in line and "\\n" not in line


def test_a_raising_cut_predicate_is_one_line(tmp_path):
    (tmp_path / "bad_cut.py").write_text("def boom(state):\n    return 1 / 0\n")
    result = subprocess.run(
        [sys.executable, _script("subgame.py"), "--game=kuhn_poker", "--cut=bad_cut:boom"],
        env=dict(os.environ, PYTHONPATH=f"{tmp_path}{os.pathsep}{ROOT}"),
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 2
    assert error_lines(result.stderr) == [
        "error: kuhn_poker(): the cut predicate boom raised ZeroDivisionError: division by zero "
        "(at history [])"
    ]


@pytest.mark.parametrize(
    "command",
    [
        ["solve.py", "--solver=cfr_plus", "--iterations=50"],
        ["solve.py", "--solver=lp"],
        ["egt.py", "--iterations=20", "--dgf_weight=0.05"],
        ["certify.py"],
        ["subgame.py", "--iterations=50"],
        ["depth_limited.py", "--iterations=50"],
        ["head_to_head.py", "--num_games=4", "--chunk=2", "--iterations=20", "--scheduler=local"],
        ["compare.py", "--iterations=20", "--solvers=cfr_plus,dcfr"],
        ["stats.py"],
    ],
)
def test_perfect_information_games_without_information_states_run(server, tmp_path, command):
    """pig has no information_state_string; its decision nodes are keyed by history."""
    script, *flags = command
    out = tmp_path / "r.json"
    result = server.run(
        _script(script), "--game=pig(winscore=6,horizon=6)", *flags, f"--output_json={out}"
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["game"] == "pig(horizon=6,winscore=6)"


@pytest.mark.parametrize("script", ["subgame.py", "depth_limited.py", "head_to_head.py"])
def test_the_game_field_is_the_canonical_game_string(server, files, tmp_path, script):
    out = tmp_path / "r.json"
    result = server.run(_script(script), *_flags(script, tmp_path, files, f"--output_json={out}"))
    assert result.returncode == 0, result.stderr
    assert json.loads(out.read_text())["game"] == "kuhn_poker()"


def test_a_fifo_without_a_reader_stops_on_one_signal(server, tmp_path):
    """Writing blocks until a reader opens the FIFO; one SIGTERM (what timeout and service
    managers send) must end the command, saying what was not written."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    result = server.interrupt(
        _script("solve.py"), f"--output_json={fifo}", wait_for=None, sig=signal.SIGTERM
    )
    assert result.returncode == 130, result.stderr
    assert error_lines(result.stderr) == [
        f"interrupted while writing the outputs (written: nothing; not written: {fifo})"
    ], result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and list(tmp_path.iterdir()) == [fifo]


def test_poker_scale_writes_the_parts_so_far_and_starts_no_other(server, tmp_path):
    """A signal in part 2's convergence run: part 1's figures and the run so far are written
    with stop_reason 'interrupted', exit 130; part 4 (an LP) no longer starts."""
    out = tmp_path / "r.json"
    result = server.interrupt(
        os.path.join(ROOT, "benchmarks", "perf", "poker_scale.py"),
        "--games=kuhn_poker",
        "--rounds=1",
        "--chunk_seconds=0.05",
        "--curve_game=leduc_poker",
        "--curve_time_limit=120",
        "--lossless_game=",
        "--lp_games=kuhn_poker",
        f"--output_json={out}",
        "--verbose",  # part 2's run loop logs its checkpoints
        wait_for="iteration 1 ",
        seconds=1.0,
        sig=signal.SIGINT,
    )
    row = _interrupted(result, out)
    assert row["stop_reason"] == "interrupted"
    assert list(row["games"]) == ["kuhn_poker()"]
    assert "lp_check" not in row
    assert row["cfr_plus"]["seconds"] < 60
