"""Helpers shared by the absl-flag scripts in scripts/ and benchmarks/: one entry point
(`main`), one flag validation, game loading and compiling, tables, JSON output, Ctrl-C
(`StopFlag`, used by the run loop `ospiel_ext.algorithms.solver.run`).

Scripts print; the library logs. Every problem with the input ends a script the same way:
one line `error: <reason>` on stderr and exit code 2 (`USAGE_EXIT_CODE`), before any work
where the problem can be seen from the flags. `--help` prints the help and exits 0. A Ctrl-C
outside a run loop prints `interrupted while <stage>` and exits 130; inside one, the script
writes its result so far and exits 130 itself.

    def main(argv):
        cli.no_arguments(argv)
        cli.positive(_ITERATIONS)
        cli.output_path(_OUTPUT_JSON)
        game = cli.load_game(_GAME.value)
        sf = cli.compile_game(game, _MAX_NODES.value)
        ...

    if __name__ == "__main__":
        cli.main(main)
"""

from __future__ import annotations

import contextlib
import logging as std_logging
import math
import os
import signal
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NoReturn

import pyspiel
from absl import app, flags
from absl import logging as absl_logging

import ospiel_ext.games  # noqa: F401  (registers our games with pyspiel for load_game)
from ospiel_ext import files, lp, progress
from ospiel_ext import policies as policies_lib
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext import tree as tree_lib

USAGE_EXIT_CODE = 2
"""Exit code of a script refused because of its flags, its game or its input files."""

INTERRUPTED_EXIT_CODE = 130
"""Exit code of a script stopped by Ctrl-C (128 + SIGINT)."""

ROUNDING_TOLERANCE = 1e-9
"""Exploitabilities, NashConvs and regrets in [-ROUNDING_TOLERANCE, 0) are rounding errors of
a true 0 and are printed and written as 0 (`clip_rounding`)."""


def _one_line(message: str) -> str:
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


def fail(message: str, exit_code: int = USAGE_EXIT_CODE) -> NoReturn:
    """Prints `error: <message>` on one line to stderr and exits with `exit_code`."""
    sys.stdout.flush()
    sys.stderr.write(f"error: {_one_line(message)}\n")
    sys.stderr.flush()
    sys.exit(exit_code)


_STAGE_NOTE = "while "


@contextlib.contextmanager
def stage(what: str) -> Iterator[None]:
    """Names what the script is doing, for the line a Ctrl-C prints ("interrupted while
    compiling leduc_poker()"): a KeyboardInterrupt leaving the block carries it as a note (the
    innermost stage is the first note)."""
    try:
        yield
    except KeyboardInterrupt as e:
        e.add_note(_STAGE_NOTE + what)
        raise


_QUIET = flags.DEFINE_bool(
    "quiet", False, "No progress bars and no INFO log lines (warnings and errors only)."
)


class _HumanFormatter(std_logging.Formatter):
    """Log lines as people read them: the message, 'warning: ' / 'error: ' before problems
    (absl's default adds a timestamp, the thread id and the source line)."""

    def format(self, record: std_logging.LogRecord) -> str:
        message = record.getMessage()
        if record.levelno >= std_logging.WARNING:
            message = f"{record.levelname.lower()}: {message}"
        return message


def configure_output() -> None:
    """Human log lines and, with --quiet, no progress bars and no INFO lines (`main` calls
    this once the flags are parsed)."""
    absl_logging.get_absl_handler().setFormatter(_HumanFormatter())
    if _QUIET.value:
        progress.set_enabled(False)
        absl_logging.set_verbosity(absl_logging.WARNING)


def _parse_flags(argv: list[str]) -> list[str]:
    """absl's flag parsing with a one-line error (exit 2) and --help exiting 0."""
    try:
        return flags.FLAGS(argv)
    except flags.Error as e:
        fail(str(e))
    except SystemExit as e:  # absl's --help / --helpfull print the help and exit 1
        raise SystemExit(0 if e.code == 1 else e.code) from None


def main(script_main: Callable[[list[str]], Any]) -> None:
    """Runs a script's `main(argv)` under `absl.app.run`.

    A bad flag value, an `app.UsageError` from `main` (flag checks, `load_game`,
    `compile_game`, `refuse`) prints `error: <reason>` on one line (absl would print the whole
    flag help first) and exits 2; a KeyboardInterrupt that reaches here prints `interrupted
    while <stage>` and exits 130; `--help` exits 0.
    """

    def guarded(argv: list[str]) -> Any:
        configure_output()
        try:
            return script_main(argv)
        except app.UsageError as e:
            fail(str(e))
        except KeyboardInterrupt as e:
            notes = [n for n in getattr(e, "__notes__", ()) if n.startswith(_STAGE_NOTE)]
            sys.stdout.flush()
            sys.stderr.write(" ".join(["interrupted", *notes[:1]]) + "\n")
            sys.exit(INTERRUPTED_EXIT_CODE)

    app.run(guarded, flags_parser=_parse_flags)


def require(condition: bool, message: str) -> None:
    """Raises app.UsageError(message) unless condition holds (flag validation)."""
    if not condition:
        raise app.UsageError(message)


@contextlib.contextmanager
def refuse(*errors: type[Exception]) -> Iterator[None]:
    """Turns the library's refusals (ValueError by default: the game or an argument violates
    an assumption) raised in the block into app.UsageError with the same one-line message."""
    errors = errors or (ValueError,)
    try:
        yield
    except errors as e:
        raise app.UsageError(_one_line(str(e))) from None


def game_at(entry: str, flag: str) -> tuple[str, int]:
    """A GAME@K flag value (a load_game string and a number K >= 0) as (GAME, K); a usage
    error naming `flag` otherwise."""
    game, sep, k = entry.rpartition("@")
    require(bool(sep) and k.isdigit(), f"--{flag}: {entry!r} is not GAME@K (K >= 0)")
    return game, int(k)


def no_arguments(argv: Sequence[str]) -> None:
    """Refuses positional arguments (scripts take flags only)."""
    require(len(argv) <= 1, f"unexpected arguments {list(argv[1:])} (the scripts take flags only)")


def _number(holder: flags.FlagHolder) -> float | None:
    value = holder.value
    if value is not None and isinstance(value, float) and math.isnan(value):
        raise app.UsageError(f"--{holder.name} must be a number, got nan")
    return value


def positive(holder: flags.FlagHolder) -> None:
    """Refuses a numeric flag that is set and not > 0 (iteration budgets, time limits, node
    caps); unset (None) passes."""
    value = _number(holder)
    require(value is None or value > 0, f"--{holder.name} must be positive, got {value}")


def non_negative(holder: flags.FlagHolder) -> None:
    """Refuses a numeric flag that is set and < 0 (epsilon, xi, thresholds)."""
    value = _number(holder)
    require(value is None or value >= 0, f"--{holder.name} must be non-negative, got {value}")


def int_list(holder: flags.FlagHolder, minimum: int = 1) -> list[int]:
    """The integers of a list flag; one-line error unless each is an integer >= `minimum`
    and the list is not empty."""
    out = []
    for v in holder.value or []:
        require(
            v.strip().isdigit() and int(v) >= minimum,
            f"--{holder.name}: {v!r} is not an integer >= {minimum}",
        )
        out.append(int(v))
    require(bool(out), f"--{holder.name} is empty")
    return out


def fraction(holder: flags.FlagHolder) -> None:
    """Refuses a numeric flag that is set and not strictly between 0 and 1."""
    value = _number(holder)
    require(value is None or 0 < value < 1, f"--{holder.name} must be in (0, 1), got {value}")


def output_path(holder: flags.FlagHolder, suffixes: Sequence[str] = ("",)) -> None:
    """Refuses an output flag (--output_json, --policy_out, --plot, ...) whose file could not
    be written, before the work that produces it: its directory is missing or not writable, or
    the path is a directory or a read-only file. `suffixes`: the files written are path +
    suffix (a certificate is PATH and PATH.npz)."""
    path = holder.value
    if not path:
        return
    flag = f"--{holder.name}={path}"
    directory = os.path.dirname(os.path.abspath(path))
    require(os.path.isdir(directory), f"{flag}: directory {directory} does not exist")
    try:  # a real file, as root may "access" what it cannot write (/proc, read-only mounts)
        with tempfile.TemporaryFile(dir=directory):
            pass
    except OSError as e:
        raise app.UsageError(f"{flag}: cannot write in {directory} ({e.strerror or e})") from None
    for suffix in suffixes:
        target = path + suffix
        require(not os.path.isdir(target), f"{flag}: {target} is a directory")
        require(
            not os.path.exists(target) or os.access(target, os.W_OK),
            f"{flag}: {target} is not writable",
        )


def output_dir(holder: flags.FlagHolder) -> None:
    """Makes an output directory flag's directory (and its parents) before the work, or
    refuses the flag if that is impossible or the directory is not writable."""
    path = holder.value
    require(bool(path), f"--{holder.name} is required")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise app.UsageError(f"--{holder.name}={path}: {e.strerror or e}") from None


def distinct_outputs(*holders: flags.FlagHolder) -> None:
    """Refuses two output flags naming the same file (one would overwrite the other)."""
    seen: dict[str, str] = {}
    for holder in holders:
        if holder.value:
            path = os.path.realpath(holder.value)
            require(
                path not in seen,
                f"--{holder.name} and --{seen.get(path)} name the same file {holder.value}",
            )
            seen[path] = holder.name


def input_file(holder: flags.FlagHolder) -> None:
    """Refuses an input flag whose file does not exist or cannot be read."""
    path = holder.value
    require(bool(path), f"--{holder.name} is required")
    require(os.path.isfile(path), f"--{holder.name}={path}: no such file")
    require(os.access(path, os.R_OK), f"--{holder.name}={path}: not readable")


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """Discards what C++ code writes to file descriptor 2 in the block."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def load_game(game_string: str) -> pyspiel.Game:
    """Loads --game (simultaneous-move games converted to turn-based) and checks that it is a
    two-player zero-sum (or constant-sum) game; app.UsageError naming the problem otherwise."""
    with refuse(ValueError):
        with _quiet_stderr():  # pyspiel also prints "OpenSpiel exception: ..." on stderr
            game = tree_lib.load(game_string)
        tree_lib.check_two_player_zero_sum(game)
    return game


def compile_game(game: pyspiel.Game, max_nodes: int | None = None) -> sf_lib.TreeSequenceForm:
    """The game's sequence form (`sequence_form.for_game`), or app.UsageError naming the game
    and the violated property (players, zero-sum, perfect recall, more than `max_nodes`
    nodes); a Ctrl-C meanwhile prints "interrupted while compiling <game>"."""
    with stage(f"compiling {game}"), refuse(ValueError):
        return sf_lib.for_game(game, max_nodes=max_nodes)


def is_infinite(game: pyspiel.Game) -> bool:
    """True for a game without a finite maximum length (e.g. limit_leduc_poker(max_raises=-1)):
    it cannot be compiled or written as a policy file."""
    return game.max_game_length() >= tree_lib.INFINITE_GAME_LENGTH


def clip_rounding(value: Any) -> Any:
    """`value` (a float or a list / tuple of them) with entries in [-ROUNDING_TOLERANCE, 0)
    set to 0: an exploitability, NashConv or regret is >= 0, and -5.6e-17 is rounding.
    Larger negative values are left alone (they would be a bug to see)."""
    if isinstance(value, (list, tuple)):
        return type(value)(clip_rounding(v) for v in value)
    if isinstance(value, float) and -ROUNDING_TOLERANCE <= value < 0:
        return 0.0
    return value


def write_json(path: str | os.PathLike | None, data: dict[str, Any]) -> None:
    """Writes `data` as JSON when a path is given (--output_json); see `files.write_json`."""
    if path:
        files.write_json(path, data)


def format_table(header: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain aligned text table."""

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.6g}"
        return str(v)

    body = [[cell(v) for v in row] for row in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in body)) if body else len(h) for i, h in enumerate(header)
    ]
    lines = [
        "  ".join(h.ljust(w) for h, w in zip(header, widths)),
        "  ".join("-" * w for w in widths),
    ]
    lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(lines)


def pyplot() -> Any:
    """matplotlib.pyplot on the Agg backend, or app.UsageError if matplotlib is missing."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise app.UsageError(
            "plots need matplotlib: pip install matplotlib (in a checkout of ospiel_ext: "
            "pip install -e '.[plot]')"
        ) from None
    return plt


def save_plot(fig: Any, ax: Any, path: str) -> None:
    """Finishes a one-axis figure of curves the way every plot of the pack looks (log grid,
    small legend) and writes it to `path` as a 100-dpi PNG."""
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)


class StopFlag:
    """Turns the first Ctrl-C into a flag a long loop polls, so it can stop cleanly and
    return the best result so far; a second Ctrl-C interrupts as usual.

    Installs its SIGINT handler on entry and restores the previous one on exit (nests: an
    inner flag restores the outer one's handler). Outside the main thread, where Python
    cannot install signal handlers, it installs nothing and `stopped` stays False.
    """

    def __init__(self):
        self.stopped = False
        self._previous = None
        self._installed = False

    def __enter__(self) -> StopFlag:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def _restore(self) -> None:
        if self._installed:
            # None: the previous handler was not installed from Python; use Python's default.
            previous = signal.default_int_handler if self._previous is None else self._previous
            signal.signal(signal.SIGINT, previous)
            self._installed = False

    def _handle(self, signum, frame):
        del signum, frame
        self.stopped = True
        self._restore()

    def __exit__(self, *exc) -> None:
        self._restore()


def run_lp(
    sf: sf_lib.SequenceForm, time_limit: float | None
) -> tuple[policies_lib.Behavioural | None, float | None, float, str]:
    """Solves `sf`'s sequence-form LP for a script: (behavioural or None, value or None,
    seconds, stop reason 'optimal' | 'interrupted' | 'time_limit'). The strategy is None when
    HiGHS was stopped before its solution; any other LP failure ends the script (exit 1)."""
    start = time.perf_counter()
    try:
        with stage(f"solving the LP of {sf.name}"):
            solution = lp.solve(sf, time_limit=time_limit)
    except KeyboardInterrupt:
        return None, None, time.perf_counter() - start, "interrupted"
    except lp.LPError as e:
        if e.status != "kTimeLimit":
            fail(f"the LP of {sf.name} was not solved: {e}", exit_code=1)
        return None, None, time.perf_counter() - start, "time_limit"
    return solution.behavioural, solution.value, solution.seconds, "optimal"
