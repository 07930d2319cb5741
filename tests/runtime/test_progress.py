"""The progress display (`ospiel_ext.runtime.progress`) and the scripts' log output (`cli`)."""

import io
import json
import os
import re
import subprocess
import sys

import pyspiel
import pytest
from helpers import LEDUC_VALUE

from ospiel_ext import lp, sequence_form, walk
from ospiel_ext.algorithms import certificates, cfr
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.runtime import progress

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.fixture(autouse=True)
def _enable_bars_again():
    yield
    progress.set_enabled(True)


def _terminal(monkeypatch):
    """stderr as a terminal (in the test body: pytest's capture resets sys.stderr after
    fixtures are set up)."""
    out = _Terminal()
    monkeypatch.setattr(sys, "stderr", out)
    monkeypatch.setenv("COLUMNS", "120")  # tqdm's width when the terminal has no size
    return out


def test_run_loop_draws_a_bar_on_a_terminal_with_the_iterations(monkeypatch):
    fake_terminal = _terminal(monkeypatch)
    solver = cfr.CFRPlusSolver(sequence_form.for_game("kuhn_poker"))
    solver_lib.run(solver, 30, checkpoints=(10,))
    text = fake_terminal.getvalue()
    assert "kuhn_poker():" in text and "/30 [" in text  # the game, the budget (ETA)


def test_disabled_bars_draw_nothing(monkeypatch):
    fake_terminal = _terminal(monkeypatch)
    progress.set_enabled(False)
    solver_lib.run(cfr.CFRPlusSolver(sequence_form.for_game("kuhn_poker")), 30)
    assert fake_terminal.getvalue() == ""


def test_no_bar_when_stderr_is_not_a_terminal(monkeypatch):
    out = io.StringIO()
    monkeypatch.setattr(sys, "stderr", out)
    solver_lib.run(cfr.CFRPlusSolver(sequence_form.for_game("kuhn_poker")), 30)
    assert out.getvalue() == ""


def _compare(*flags):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "compare.py"), "--game=kuhn_poker",
         "--iterations=20", "--solvers=cfr_plus", *flags],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_log_lines_have_no_timestamps_and_quiet_silences_them():
    assert _compare().stderr == ""  # by default: the table only (no terminal, no bar)
    r = _compare("--verbose")
    assert r.returncode == 0, r.stderr
    lines = r.stderr.strip().splitlines()
    assert any(line.startswith("iteration 1 ") for line in lines)
    assert not any(re.match(r"[IWEF]\d{4} ", line) for line in lines)  # absl's prefix
    quiet = _compare("--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""
    head = [line.split() for line in r.stdout.splitlines()[:2]]
    assert [line.split() for line in quiet.stdout.splitlines()[:2]] == head  # same table


def test_lp_and_compile_draw_their_bars(monkeypatch):
    fake_terminal = _terminal(monkeypatch)
    sf = sequence_form.TreeSequenceForm(walk.game_tree(pyspiel.load_game("leduc_poker")))
    solution = lp.solve(sf)
    assert abs(solution.value - LEDUC_VALUE) < 1e-6  # the callback does not disturb HiGHS
    text = fake_terminal.getvalue()
    assert "compiling leduc_poker()" in text and "HiGHS" in text and "rows x" in text


def test_a_count_without_a_terminal_logs_its_progress_against_the_total(caplog):
    """A compile walk used to run 82 s silently when stderr was not a terminal."""
    with caplog.at_level("INFO"), progress.Counter("compiling g", 1e6, "node", 0.0) as counter:
        counter.update_to(250_000)
    assert "compiling g: 250,000 nodes of about 1e+06" in caplog.text


@pytest.mark.parametrize(
    "iterations, time_limit, done, elapsed, expected",
    [
        (10**9, 15.0, 100, 1.0, 100 + 14 * 100),  # the time limit ends first (rate 100 it/s)
        (1000, 15.0, 100, 1.0, 1000),  # the iteration budget ends first
        (None, 15.0, 100, 1.0, 1500),  # a time limit alone
        (None, 15.0, 100, 20.0, 100),  # past the limit: nothing more
        (1000, None, 100, 1.0, 1000),
        (None, None, 100, 1.0, None),  # no budget
        (None, 15.0, 0, 0.0, None),  # no rate yet
    ],
)
def test_run_progress_expects_the_iterations_of_the_budget_that_ends_first(
    iterations, time_limit, done, elapsed, expected
):
    with progress.RunProgress("g", iterations, time_limit) as shown:
        assert shown.expected_iterations(done, elapsed) == expected


def test_run_progress_log_line_names_both_budgets_the_nash_conv_and_the_time_left():
    with progress.RunProgress("CFR+ g", 10**9, 15.0) as shown:
        shown.measured(0.0123)
        line = shown.line(100, 1.0)
    assert line == (
        "CFR+ g: iteration 100 of 1,000,000,000, 1 s of 15 s, NashConv 0.0123, about 00:14 left"
    )


def _bars(text):
    """(iterations done, bar total, postfix) of every bar drawn, e.g. '12/345 [...nash_conv=1]'."""
    return [
        (int(m[1]), int(m[2]), m[3])
        for m in re.finditer(
            r"kuhn_poker\(\):.*?(\d+)/(\d+) \[[^\]]*?(, nash_conv=[^\]]+)?\]", text
        )
    ]


def test_the_bar_of_a_time_limited_run_counts_to_the_time_limit_and_shows_the_nash_conv(
    monkeypatch,
):
    """A 15-second run with a large iteration budget showed an ETA of 55,292 hours: the ETA
    counted against the iteration budget, not the time limit that ended the run."""
    fake_terminal = _terminal(monkeypatch)
    solver = cfr.CFRPlusSolver(sequence_form.for_game("kuhn_poker"))
    result = solver_lib.run(solver, 10**9, time_limit=1.5)
    assert result.stop_reason == "time_limit"
    bars = _bars(fake_terminal.getvalue())
    assert bars and all(total < 10**9 for _, total, _ in bars)  # the time limit's projection
    assert any(postfix and "nash_conv=" in postfix for _, _, postfix in bars)


def test_without_a_terminal_a_run_logs_a_line_every_run_log_seconds(monkeypatch, caplog):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(progress, "RUN_LOG_SECONDS", 0.2)
    solver = cfr.CFRPlusSolver(sequence_form.for_game("kuhn_poker"))
    with caplog.at_level("INFO"):
        result = solver_lib.run(solver, None, time_limit=1.0)
    lines = [r.getMessage() for r in caplog.records if "iteration" in r.getMessage()]
    assert result.stop_reason == "time_limit" and lines
    assert all(re.match(r"kuhn_poker\(\): iteration [\d,]+, \d+ s of 1 s, NashConv ", line)
               for line in lines)  # fmt: skip
    assert sys.stderr.getvalue() == ""  # no bar


def _solve(*flags):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "solve.py"), "--game=kuhn_poker", *flags],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def test_solve_with_a_time_limit_alone_runs_until_the_time_limit(tmp_path):
    """`solve --time_limit=15` used to stop at the default 1,000 iterations."""
    out = tmp_path / "r.json"
    r = _solve("--time_limit=1.5", f"--output_json={out}")
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "time_limit" and row["iterations"] > 0
    r = _solve("--time_limit=60", "--iterations=7", f"--output_json={out}")  # both: the first
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "iterations" and row["iterations"] == 7
    r = _solve(f"--output_json={out}")  # neither: --iterations' default
    assert json.loads(out.read_text())["iterations"] == 1000


def test_egt_with_a_time_limit_alone_runs_until_the_time_limit(tmp_path):
    """EGT planned its checkpoints from --iterations, so a time limit alone stopped at 1,000."""
    out = tmp_path / "r.json"
    r = subprocess.run(
        [sys.executable, os.path.join(ROOT, "scripts", "egt.py"), "--game=kuhn_poker",
         "--time_limit=2", f"--output_json={out}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())
    assert row["stop_reason"] == "time_limit"
    assert row["iterations"][-1] == row["final_iteration"]  # the curve ends where it stopped
    assert row["iterations"] == sorted(set(row["iterations"]))


def test_without_a_terminal_the_certificate_search_logs_its_epsilon(monkeypatch, caplog):
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setattr(progress, "RUN_LOG_SECONDS", 0.0)  # a line after every iteration
    with caplog.at_level("INFO"):
        result = certificates.search("kuhn_poker")
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("certifying")]
    assert len(lines) == result.iterations
    assert all(re.match(r"certifying kuhn_poker\(\): [\d,]+ iterations, \d+s, epsilon \S+, "
                        r"trunk_nodes [\d,]+$", line) for line in lines)  # fmt: skip
    assert lines[-1].split("epsilon ")[1].startswith(f"{result.certificate.epsilon:.3g},")
