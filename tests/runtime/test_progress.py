"""The progress display (`ospiel_ext.runtime.progress`) and the scripts' log output (`cli`)."""

import io
import os
import re
import subprocess
import sys

import pyspiel
import pytest
from helpers import LEDUC_VALUE

from ospiel_ext import lp, sequence_form, walk
from ospiel_ext.algorithms import cfr
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
