"""Helpers shared by the absl-flag scripts in scripts/ and benchmarks/: one entry point
(`main`), one flag validation (numbers, inputs, outputs that are not inputs), game loading
and compiling, tables, the outputs of a run written together (`outputs`), a command's time
limit and Ctrl-C (`stoppable`, on `ospiel_ext.interrupts`).

Scripts print; the library logs. Every problem with the input ends a script the same way:
one line `error: <reason>` on stderr and exit code 2 (`USAGE_EXIT_CODE`), before any work
where the problem can be seen from the flags; an output that cannot be written ends it with
one line and exit code 1. `--help` prints the command's docstring and its own flags and
exits 0. The whole command runs under `interrupts.handled()`: a Ctrl-C or SIGTERM outside a
graceful phase prints `interrupted while <stage>` and exits 130; inside one (a run loop, a
sweep, HiGHS), the phase stops, the script writes its result so far, and `main` exits 130.

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
import json
import logging as std_logging
import math
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, NoReturn

import pyspiel
from absl import app, flags
from absl import logging as absl_logging

import ospiel_ext.games  # noqa: F401  (registers our games with pyspiel for load_game)
from ospiel_ext import budget, files, interrupts, loading, lp, progress, provenance
from ospiel_ext import policies as policies_lib
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.tables import format_table  # noqa: F401  (the commands' tables)

USAGE_EXIT_CODE = 2
"""Exit code of a script refused because of its flags, its game or its input files."""

INTERRUPTED_EXIT_CODE = 130
"""Exit code of a script stopped by Ctrl-C (128 + SIGINT)."""

ROUNDING_TOLERANCE = 1e-9
"""Exploitabilities, NashConvs and regrets in [-ROUNDING_TOLERANCE, 0) are rounding errors of
a true 0 and are printed and written as 0 (`clip_rounding`)."""


def one_line(message: str) -> str:
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


def fail(message: str, exit_code: int = USAGE_EXIT_CODE) -> NoReturn:
    """Prints `error: <message>` on one line to stderr and exits with `exit_code`."""
    sys.stdout.flush()
    sys.stderr.write(f"error: {one_line(message)}\n")
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
_VERBOSE = flags.DEFINE_bool(
    "verbose", False, "Also log the details: every iteration's figures, every HiGHS run."
)


class _HumanFormatter(std_logging.Formatter):
    """Log lines as people read them: the message, 'warning: ' / 'error: ' before problems
    (absl's default adds a timestamp, the thread id and the source line)."""

    def format(self, record: std_logging.LogRecord) -> str:
        message = record.getMessage()
        if record.levelno >= std_logging.WARNING:
            message = f"{record.levelname.lower()}: {message}"
        return message


VERBOSE_LOG_EVERY = 100


def log_every() -> int | None:
    """How often a run loop logs its iteration with --verbose (`VERBOSE_LOG_EVERY`), else None
    (a progress bar and the final table only)."""
    return VERBOSE_LOG_EVERY if _VERBOSE.value else None


def configure_output() -> None:
    """Human log lines; with --quiet, no progress bars and no INFO lines; with --verbose, the
    detail lines too (absl verbosity 1: `logging.vlog(1, ...)`). `main` calls this once the
    flags are parsed."""
    absl_logging.get_absl_handler().setFormatter(_HumanFormatter())
    if _QUIET.value:
        progress.set_enabled(False)
        absl_logging.set_verbosity(absl_logging.WARNING)
    elif _VERBOSE.value:
        absl_logging.set_verbosity(1)


_HELP_FLAGS = ("--help", "-h", "--helpshort", "-?", "--help=true")
# Modules whose flags a command may have defined besides its own (shown by --help).
_SHARED_FLAG_MODULES = ("ospiel_ext.sweeps", __name__)


def command_help(module_name: str) -> str:
    """A command's --help: its docstring, then its own flags with their defaults, then the
    flags every command shares (absl's own are left to --helpfull)."""
    module = sys.modules[module_name]
    parts = [(module.__doc__ or "").strip(), ""]
    for name in (module_name, *_SHARED_FLAG_MODULES):
        if flags.FLAGS.get_flags_for_module(name):
            text = flags.FLAGS.module_help(name).strip()
            parts += [
                text.replace(f"{name}:", "shared flags:" if name != module_name else "flags:"),
                "",
            ]
    parts.append("absl's own flags (logging, --flagfile, ...): --helpfull")
    return "\n".join(parts)


def _parse_flags(argv: list[str], module_name: str) -> list[str]:
    """absl's flag parsing with a one-line error (exit 2); --help prints `command_help` and
    exits 0 (absl's lists the flags of the __main__ module only, which for `ospiel-ext` and
    scripts/ defines none)."""
    if any(arg in _HELP_FLAGS for arg in argv[1:]):
        print(command_help(module_name))
        raise SystemExit(0)
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

    provenance.start(sys.argv)  # before anything runs: a later commit does not relabel the run

    def guarded(argv: list[str]) -> Any:
        configure_output()
        try:
            with interrupts.handled():
                result = script_main(argv)
                if interrupts.stop_reason() == "interrupted":  # the result so far is written
                    sys.exit(INTERRUPTED_EXIT_CODE)
                return result
        except app.UsageError as e:
            fail(str(e))
        except files.OutputError as e:
            fail(str(e), exit_code=1)
        except KeyboardInterrupt as e:
            notes = getattr(e, "__notes__", ())
            stages = [n for n in notes if n.startswith(_STAGE_NOTE)]
            outputs = [n for n in notes if n.startswith("(")]  # files.all_or_nothing's
            sys.stdout.flush()
            sys.stderr.write(" ".join(["interrupted", *stages[:1], *outputs[:1]]) + "\n")
            sys.exit(INTERRUPTED_EXIT_CODE)

    app.run(guarded, flags_parser=lambda argv: _parse_flags(argv, script_main.__module__))


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
        raise app.UsageError(one_line(str(e))) from None


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
    be written, before the work that produces it: its directory is missing or not writable,
    or the path is a directory or a read-only file. A link is judged by its target (which is
    what gets replaced); a device or a FIFO is written through and passes if writable; `-` is
    standard output. `suffixes`: the files written are path + suffix (a certificate is PATH
    and PATH.npz, which cannot both go to standard output)."""
    path = holder.value
    if not path:
        return
    flag = f"--{holder.name}={path}"
    for suffix in suffixes:
        require(not os.path.isdir(path + suffix), f"{flag}: {path + suffix} is a directory")
        try:
            kind = files.output_kind(path + suffix)  # what files.output will do with it
        except files.OutputError as e:  # a path that cannot be examined
            raise app.UsageError(f"--{holder.name}: {e}") from None
        if kind != "file":  # standard output, a device, a FIFO: written through
            require(
                len(suffixes) == 1 or kind == "stream",
                f"{flag}: this output is several files, not one stream",
            )
            require(
                path == files.STDOUT or os.access(path + suffix, os.W_OK),
                f"{flag}: {path + suffix} is not writable",
            )
            continue
        target = os.path.realpath(path + suffix)  # a link: its target is replaced
        directory = os.path.dirname(target)
        require(os.path.isdir(directory), f"{flag}: directory {directory} does not exist")
        try:  # a real file, as root may "access" what it cannot write (/proc, read-only mounts)
            with tempfile.TemporaryFile(dir=directory):
                pass
        except OSError as e:
            raise app.UsageError(
                f"{flag}: cannot write in {directory} ({e.strerror or e})"
            ) from None
        require(
            not os.path.exists(target) or os.access(target, os.W_OK),
            f"{flag}: {path + suffix} is not writable",
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


def plots_dir(holder: flags.FlagHolder) -> None:
    """An output directory flag for figures: `output_dir`, and matplotlib is importable, both
    checked before the work (a run must not end by failing to plot)."""
    output_dir(holder)
    pyplot()


def _named(entries: Iterable[flags.FlagHolder | tuple[str, str | None]]) -> dict[str, str | None]:
    return {
        (f"--{e.name}" if isinstance(e, flags.FlagHolder) else e[0]): (
            e.value if isinstance(e, flags.FlagHolder) else e[1]
        )
        for e in entries
    }


def distinct_files(
    outputs: Iterable[flags.FlagHolder | tuple[str, str | None]],
    inputs: Iterable[flags.FlagHolder | tuple[str, str | None]] = (),
) -> None:
    """Refuses, before any work, an output that is the same file as an input (the command
    would destroy its own input) or as another output (real paths and inodes compared: links
    and other spellings of one file count). Entries are flags or (name, path) pairs, e.g.
    ("--certificate .npz", path + ".npz")."""
    with refuse(ValueError):
        files.check_outputs(_named(outputs), _named(inputs))


def input_file(holder: flags.FlagHolder | tuple[str, str | None]) -> None:
    """Refuses an input flag whose file does not exist, is a directory or cannot be read."""
    ((name, path),) = _named([holder]).items()
    require(bool(path), f"{name} is required")
    assert path is not None
    require(not os.path.isdir(path), f"{name}={path} is a directory, not a file")
    require(os.path.exists(path), f"{name}={path}: no such file")
    require(os.access(path, os.R_OK), f"{name}={path}: not readable")


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


def load_game(game_string: str, two_player_zero_sum: bool = True) -> pyspiel.Game:
    """Loads --game (simultaneous-move games converted to turn-based) and checks that it is a
    two-player zero-sum (or constant-sum) game (unless `two_player_zero_sum` is False);
    app.UsageError naming the problem otherwise."""
    with refuse(ValueError):
        with _quiet_stderr():  # pyspiel also prints "OpenSpiel exception: ..." on stderr
            game = loading.load(game_string)
        if two_player_zero_sum:
            loading.check_two_player_zero_sum(game)
    return game


def compile_game(game: pyspiel.Game, max_nodes: int | None = None) -> sf_lib.TreeSequenceForm:
    """The game's sequence form (`sequence_form.for_game`), or app.UsageError naming the game
    and the violated property (players, zero-sum, perfect recall, more than `max_nodes`
    nodes); a Ctrl-C meanwhile prints "interrupted while compiling <game>"."""
    with stage(f"compiling {game}"), refuse(ValueError):
        return sf_lib.for_game(game, max_nodes=max_nodes)


def walkable(game: pyspiel.Game, max_nodes: int, flag: str = "--max_nodes") -> None:
    """Refuses, in about a second and before any walk, a game that OpenSpiel's Python walk of
    every state (TabularPolicy, its best response) cannot take: infinite, or estimated above
    `max_nodes` nodes (`loading.refuse_by_estimate`)."""
    with refuse(ValueError):
        try:
            loading.refuse_by_estimate(game, loading.node_cap(game, max_nodes))
        except loading.GameTooLargeError as e:
            raise ValueError(
                f"{e}; {flag}={max_nodes} bounds OpenSpiel's walk of every state"
            ) from None


def is_infinite(game: pyspiel.Game) -> bool:
    """True for a game without a finite maximum length (e.g. limit_leduc_poker(max_raises=-1)):
    it cannot be compiled or written as a policy file."""
    return game.max_game_length() >= loading.INFINITE_GAME_LENGTH


def clip_rounding(value: Any) -> Any:
    """`value` (a float or a list / tuple of them) with entries in [-ROUNDING_TOLERANCE, 0)
    set to 0: an exploitability, NashConv or regret is >= 0, and -5.6e-17 is rounding.
    Larger negative values are left alone (they would be a bug to see)."""
    if isinstance(value, (list, tuple)):
        return type(value)(clip_rounding(v) for v in value)
    if isinstance(value, float) and -ROUNDING_TOLERANCE <= value < 0:
        return 0.0
    return value


def _with_provenance(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with the run's `provenance.record()` first (a results file says where it came
    from); a "provenance" already in `data` is kept."""
    return {"provenance": provenance.record(), **data}


def write_json(path: str | os.PathLike | None, data: dict[str, Any]) -> None:
    """Writes `data` and its provenance as JSON when a path is given (--output_json); see
    `files.write_json`."""
    if path:
        files.write_json(path, _with_provenance(data))


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


def save_figure(fig: Any, path: str, dpi: int = 100) -> None:
    """Writes a matplotlib figure to `path` as a PNG through `files.output` (atomic for a
    regular file, written through for a device or a pipe, '-' for standard output)."""
    with files.output(path, binary=True) as f:
        fig.savefig(f, format="png", dpi=dpi)


def save_plot(fig: Any, ax: Any, path: str) -> None:
    """Finishes a one-axis figure of curves the way every plot of the pack looks (log grid,
    small legend) and writes it to `path` as a 100-dpi PNG."""
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path)


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
    except interrupts.Interrupted:
        return None, None, time.perf_counter() - start, interrupts.stop_reason() or "interrupted"
    except lp.LPError as e:
        if e.status != "kTimeLimit":
            fail(f"the LP of {sf.name} was not solved: {e}", exit_code=1)
        return None, None, time.perf_counter() - start, "time_limit"
    return solution.behavioural, solution.value, solution.seconds, "optimal"


def default_memory_gb() -> float:
    """Three quarters of this machine's memory in GiB (a memory budget's default), or 16."""
    total = budget.physical_memory()
    return 16.0 if total is None else round(0.75 * total / budget.GIB, 1)


@contextlib.contextmanager
def outputs() -> Iterator[None]:
    """Writes a command's outputs together (`files.all_or_nothing`): all of them, or none and
    a `files.OutputError` that `main` prints in one line (exit code 1). A first Ctrl-C or
    SIGTERM meanwhile lets the writing finish (the command then exits with code 130); a
    second one stops it, and nothing is written."""
    with stage("writing the outputs"), interrupts.graceful(), files.all_or_nothing():
        yield


@contextlib.contextmanager
def stoppable(time_limit: float | None = None) -> Iterator[interrupts.Deadline]:
    """The work of a command that keeps its result so far: Ctrl-C, SIGTERM and, after
    `time_limit` seconds, the deadline (`interrupts.deadline`) stop its graceful phases (run
    loops, sweeps, HiGHS), and a phase with no result so far that raises
    `interrupts.Interrupted` ends the block quietly (so anything the block assigns must have
    a value before it). Afterwards the yielded `Deadline.reason` says why it stopped ('time_limit',
    'interrupted', None); a second Ctrl-C still interrupts at once."""
    with interrupts.deadline(time_limit) as stop, interrupts.graceful():
        try:
            yield stop
        except interrupts.Interrupted:
            pass


def write_rows_json(path: str, data: dict[str, Any]) -> None:
    """JSON with one line per row of the list-valued entries (small, diff-friendly results
    files of the benchmarks) and the run's provenance, written by `files.output`."""
    parts = []
    for key, value in _with_provenance(data).items():
        if isinstance(value, list) and value and isinstance(value[0], (list, dict)):
            rows = ",\n  ".join(json.dumps(row, allow_nan=False) for row in value)
            parts.append(f"{json.dumps(key)}: [\n  {rows}\n]")
        else:
            parts.append(f"{json.dumps(key)}: {json.dumps(value, allow_nan=False)}")
    with files.output(path) as f:
        f.write("{\n" + ",\n".join(parts) + "\n}\n")
