"""The scripts' shared helpers (ospiel_ext.cli.command) and Ctrl-C while HiGHS runs
(ospiel_ext.highs)."""

import os
import signal
import threading

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from absl import app, flags

from ospiel_ext import highs
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts


def _flag(kind, value):
    """A parsed absl flag `--f=value` of the given kind, in its own FlagValues."""
    fv = flags.FlagValues()
    holder = getattr(flags, f"DEFINE_{kind}")("f", None, "a flag", flag_values=fv)
    fv(["prog", f"--f={value}"])
    return holder


@pytest.mark.parametrize(
    "check, kind, value, message",
    [
        (cli_flags.positive, "integer", "0", "--f must be positive, got 0"),
        (cli_flags.positive, "integer", "-1", "--f must be positive, got -1"),
        (cli_flags.positive, "float", "nan", "--f must be a number, got nan"),
        (cli_flags.non_negative, "float", "-0.5", "--f must be non-negative, got -0.5"),
        (cli_flags.non_negative, "float", "nan", "--f must be a number, got nan"),
        (cli_flags.fraction, "float", "1", "--f must be in (0, 1), got 1.0"),
        (cli_flags.fraction, "float", "0", "--f must be in (0, 1), got 0.0"),
    ],
)
def test_number_checks_refuse(check, kind, value, message):
    with pytest.raises(app.UsageError) as e:
        check(_flag(kind, value))
    assert str(e.value) == message


@pytest.mark.parametrize(
    "check, kind, value",
    [
        (cli_flags.positive, "integer", "1"),
        (cli_flags.positive, "float", "inf"),
        (cli_flags.non_negative, "float", "0"),
        (cli_flags.fraction, "float", "0.25"),
    ],
)
def test_number_checks_accept(check, kind, value):
    holder = _flag(kind, value)
    assert check(holder) is None  # no app.UsageError (test_number_checks_refuse: the others)
    assert holder.value == float(value)  # and the value is left as given


def test_unset_flags_pass():
    fv = flags.FlagValues()
    holder = flags.DEFINE_integer("f", None, "a flag", flag_values=fv)
    fv(["prog"])
    checks = (cli_flags.positive, cli_flags.non_negative, cli_flags.fraction)
    assert [check(holder) for check in checks] == [None] * len(checks)  # none refuses
    assert holder.value is None


def test_output_path(tmp_path):
    cli_flags.output_path(_flag("string", str(tmp_path / "r.json")))
    assert list(tmp_path.iterdir()) == []  # the probe leaves nothing behind
    (tmp_path / "file").write_text("x")
    (tmp_path / "c.json.npz").mkdir()
    for path, message in (
        (tmp_path / "no" / "r.json", f"directory {tmp_path / 'no'} does not exist"),
        (tmp_path / "file" / "r.json", "does not exist"),
        (tmp_path, "is a directory"),
        ("/proc/r.json", "cannot write in /proc"),
    ):
        with pytest.raises(app.UsageError) as e:
            cli_flags.output_path(_flag("string", str(path)))
        assert message in str(e.value) and str(e.value).startswith(f"--f={path}: ")
    with pytest.raises(app.UsageError, match=r"c\.json\.npz is a directory"):
        cli_flags.output_path(_flag("string", str(tmp_path / "c.json")), suffixes=("", ".npz"))


def test_output_path_refuses_the_running_script(tmp_path, monkeypatch):
    script = tmp_path / "bench.py"
    script.write_text("print(1)\n")
    os.symlink(script, tmp_path / "link.py")
    monkeypatch.setattr("sys.argv", [str(script), "--f=x"])
    for path in (script, tmp_path / "link.py", tmp_path / "." / "bench.py"):
        with pytest.raises(app.UsageError, match="is this command's own script"):
            cli_flags.output_path(_flag("string", str(path)))
    assert script.read_text() == "print(1)\n"
    cli_flags.output_path(_flag("string", str(tmp_path / "r.json")))  # another file passes
    monkeypatch.setattr("sys.argv", ["-c"])  # `python -c`: no script file
    cli_flags.output_path(_flag("string", str(script)))


def test_distinct_files(tmp_path):
    fv = flags.FlagValues()
    a = flags.DEFINE_string("a", str(tmp_path / "x.json"), "", flag_values=fv)
    b = flags.DEFINE_string("b", str(tmp_path / "." / "x.json"), "", flag_values=fv)
    c = flags.DEFINE_string("c", None, "", flag_values=fv)
    fv(["prog"])
    with pytest.raises(app.UsageError, match=r"--b=.* is the output --a \(the same file\)"):
        cli_flags.distinct_files([a, c, b])
    cli_flags.distinct_files([a, c])
    (tmp_path / "in.json").write_text("{}")
    os.symlink(tmp_path / "in.json", tmp_path / "link.json")
    with pytest.raises(app.UsageError, match="is the input --policy"):
        cli_flags.distinct_files(
            [a, ("--out", str(tmp_path / "link.json"))], [("--policy", str(tmp_path / "in.json"))]
        )
    cli_flags.distinct_files([("--x", "/dev/null"), ("--y", "/dev/null")])  # devices may repeat


def test_clip_rounding():
    assert cli_output.clip_rounding(-5.6e-17) == 0.0
    assert cli_output.clip_rounding(-1e-3) == -1e-3  # not rounding: left for a bug to show
    assert cli_output.clip_rounding([0.5, -1e-12, None]) == [0.5, 0.0, None]
    assert cli_output.clip_rounding((-1e-10,)) == (0.0,)
    assert cli_output.clip_rounding(None) is None


def test_round_figures_keeps_six_significant_digits_and_no_nan():
    assert cli_output.round_figures(1 / 3) == 0.333333
    assert cli_output.round_figures(np.float32(0.1)) == 0.1  # numpy's floats too, as floats
    assert type(cli_output.round_figures(np.float64(2.0))) is float
    assert cli_output.round_figures((1234567.0, [float("nan"), float("inf")], "x", 3, None)) == [
        1234570.0, [None, None], "x", 3, None
    ]  # fmt: skip


def test_markdown_table():
    table = cli_output.markdown(["a", "b"], [[0.123456, None], ["x", 2]])
    assert table.splitlines() == ["| a | b |", "|---|---|", "| 0.1235 |  |", "| x | 2 |"]
    tiny = cli_output.markdown(["e"], [[1e-15]], number=lambda v: "0" if v < 1e-12 else str(v))
    assert tiny.splitlines()[-1] == "| 0 |"


def test_float_list():
    fv = flags.FlagValues()
    holder = flags.DEFINE_list("xs", [], "numbers", flag_values=fv)
    fv(["prog", "--xs=0.5,1e-3,-2"])
    assert cli_flags.float_list(holder) == [0.5, 1e-3, -2.0]
    fv(["prog", "--xs="])
    assert cli_flags.float_list(holder) == []  # an empty list is the caller's to refuse
    fv(["prog", "--xs=0.5,half"])
    with pytest.raises(app.UsageError, match=r"^--xs takes numbers: could not convert"):
        cli_flags.float_list(holder)


def test_stage_names_the_interrupted_step():
    with pytest.raises(KeyboardInterrupt) as e:
        with cli.stage("outer"), cli.stage("compiling kuhn_poker()"):
            raise KeyboardInterrupt
    assert e.value.__notes__[0] == "while compiling kuhn_poker()"


def test_refuse_turns_library_errors_into_one_line_usage_errors():
    with pytest.raises(app.UsageError) as e, cli_flags.refuse():
        raise ValueError("game x has\n3 players")
    assert str(e.value) == "game x has 3 players"
    with pytest.raises(KeyError), cli_flags.refuse():
        raise KeyError("not a refusal")


# --- Ctrl-C while HiGHS runs ------------------------------------------------------------


def _random_lp(n, density=0.05):
    """max c x s.t. A x <= b, 0 <= x <= 1 with a random sparse A: HiGHS's simplex needs about
    1.5 s for n = 1000 and 30 s for n = 2000 here, and the LP builds at once."""
    rng = np.random.default_rng(0)
    a = sp.random(n, n, density=density, random_state=1, format="csr")
    a.data = rng.uniform(-1, 1, a.nnz)
    ids = np.arange(n)
    columns = highs.Block(
        name="x", kind=0, ids=ids, lower=np.zeros(n), upper=np.ones(n), cost=rng.uniform(0, 1, n)
    )
    rows = highs.Block(
        name="r", kind=1, ids=ids, lower=np.full(n, -np.inf), upper=rng.uniform(0, 1, n)
    )
    return highs.LinearProgram("random", (columns,), (rows,), (("r", "x", a),))


@pytest.fixture
def press_ctrl_c(monkeypatch):
    """press_ctrl_c(n): HiGHS's next run gets n SIGINTs, 0.2 s after it starts."""
    presses = []
    run = highspy.Highs.run

    def run_with_presses(h):
        def press():
            for _ in range(presses.pop() if presses else 0):
                os.kill(os.getpid(), signal.SIGINT)
                threading.Event().wait(0.05)

        timer = threading.Timer(0.2, press)
        timer.start()
        try:
            return run(h)
        finally:
            timer.join()

    monkeypatch.setattr(highspy.Highs, "run", run_with_presses)
    return presses.append


def test_ctrl_c_under_a_run_loop_stops_highs_and_sets_the_flag(press_ctrl_c):
    """Inside a graceful region (a run loop, a search) the first Ctrl-C stops HiGHS within
    moments (an LP of ~30 s) and the solve raises Interrupted; the flag stays set for the
    region, which restores the previous handler when it ends."""
    previous = signal.getsignal(signal.SIGINT)
    press_ctrl_c(1)
    with interrupts.graceful():
        with pytest.raises(interrupts.Interrupted):
            _random_lp(2000).run()
        assert interrupts.requested() and interrupts.stop_reason() == "interrupted"
    assert not interrupts.requested()
    assert signal.getsignal(signal.SIGINT) is previous


def test_ctrl_c_interrupts_highs_and_raises_keyboard_interrupt(press_ctrl_c):
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    press_ctrl_c(1)
    with pytest.raises(KeyboardInterrupt):
        _random_lp(2000).run()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_second_ctrl_c_inside_highs_is_raised_after_it(press_ctrl_c):
    """A second Ctrl-C inside HiGHS (C++ calling back into Python, where no exception may be
    raised) is a KeyboardInterrupt when the solve returns, also under a graceful region."""
    press_ctrl_c(2)
    with interrupts.graceful(), pytest.raises(KeyboardInterrupt):
        _random_lp(2000).run()


# --- outputs written together, also under Ctrl-C -----------------------------------------


def test_a_first_ctrl_c_while_writing_lets_every_output_be_written(tmp_path):
    """`solve --solver=lp` interrupted while writing its policy used to leave a JSON that said
    optimal and no policy: the writing now finishes (the command then exits 130)."""
    with interrupts.handled():
        with cli.outputs():
            cli_output.write_json(str(tmp_path / "r.json"), {"x": 1})
            os.kill(os.getpid(), signal.SIGINT)
            threading.Event().wait(0.01)
            cli_output.write_json(str(tmp_path / "p.json"), {"y": 2})
        assert interrupts.stop_reason() == "interrupted"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.json", "r.json"]


def test_a_second_ctrl_c_while_writing_writes_nothing(tmp_path):
    with interrupts.handled(), pytest.raises(KeyboardInterrupt) as e:
        with cli.outputs():
            cli_output.write_json(str(tmp_path / "r.json"), {"x": 1})
            for _ in range(2):
                os.kill(os.getpid(), signal.SIGINT)
                threading.Event().wait(0.01)
            cli_output.write_json(str(tmp_path / "p.json"), {"y": 2})
    assert e.value.__notes__ == ["(nothing was written)", "while writing the outputs"]
    assert list(tmp_path.iterdir()) == []
