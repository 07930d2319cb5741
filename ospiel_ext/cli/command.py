"""The running layer of the command line (`ospiel-ext` commands, scripts/, benchmarks/).

One entry point (`main`), its log output (--quiet, --verbose) and --help, the game a command
loads and compiles, the stages a Ctrl-C names, a command's time limit and Ctrl-C
(`stoppable`, on `runtime.interrupts`) and its outputs written together (`outputs`). Flag
validation is in `cli.flags`, what a command writes (JSON, figures) in `cli.output`, what it
solves and reads beyond its game (the --form flag's sequence form, the LP, policy files) in
`cli.solving`.

Scripts print; the library logs. Every problem with the input ends a script the same way:
one line `error: <reason>` on stderr and exit code 2 (`USAGE_EXIT_CODE`), before any work
where the problem can be seen from the flags; an output that cannot be written ends it with
one line and exit code 1. `--help` prints the command's docstring and its own flags and
exits 0. The whole command runs under `interrupts.handled()`: a Ctrl-C or SIGTERM outside a
graceful phase prints `interrupted while <stage>` and exits 130; inside one (a run loop, a
sweep, HiGHS), the phase stops, the script writes its result so far, and `main` exits 130.

    def main(argv):
        cli_flags.no_arguments(argv)
        cli_flags.positive(_ITERATIONS)
        cli_flags.output_path(_OUTPUT_JSON)
        game = cli.load_game(_GAME.value)
        sf = cli.compile_game(game, _MAX_NODES.value)
        ...
        with cli.outputs():
            cli_output.write_json(_OUTPUT_JSON.value, result)

    if __name__ == "__main__":
        cli.main(main)
"""

from __future__ import annotations

import contextlib
import logging as std_logging
import os
import sys
import time
from collections.abc import Callable, Iterator
from typing import Any, NoReturn

import pyspiel
from absl import app, flags
from absl import logging as absl_logging

import ospiel_ext.games  # noqa: F401  (registers our games with pyspiel for load_game)
from ospiel_ext import loading
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.runtime import budget, files, interrupts, progress, provenance

USAGE_EXIT_CODE = 2
"""Exit code of a script refused because of its flags, its game or its input files."""

INTERRUPTED_EXIT_CODE = 130
"""Exit code of a script stopped by Ctrl-C (128 + SIGINT)."""


def _say(kind: str, message: str) -> None:
    """Prints `<kind>: <message>` on one line to stderr, after what stdout holds."""
    sys.stdout.flush()
    sys.stderr.write(f"{kind}: {cli_flags.one_line(message)}\n")
    sys.stderr.flush()


def fail(message: str, exit_code: int = USAGE_EXIT_CODE) -> NoReturn:
    """Prints `error: <message>` on one line to stderr and exits with `exit_code`."""
    _say("error", message)
    sys.exit(exit_code)


def warn(message: str) -> None:
    """Prints `warning: <message>` on one line to stderr (the command goes on)."""
    _say("warning", message)


def deprecated(old: str, new: str) -> None:
    """Warns that `old` (a script, a subcommand) is deprecated and `new` replaces it.

    Old names keep working for one release: they run the same command after this line.
    """
    warn(f"{old} is deprecated, use {new}")


_STAGE_NOTE = "while "


@contextlib.contextmanager
def stage(what: str) -> Iterator[None]:
    """Names what the script is doing, for the line a Ctrl-C prints.

    E.g. "interrupted while compiling leduc_poker()": a KeyboardInterrupt leaving the block
    carries it as a note (the innermost stage is the first note). With --verbose, the stage's
    start is logged too ("stage: compiling leduc_poker()").
    """
    absl_logging.vlog(1, "stage: %s", what)
    try:
        yield
    except KeyboardInterrupt as e:
        e.add_note(_STAGE_NOTE + what)
        raise


class StageTimer:
    """Runs named stages (`stage`) and keeps each one's wall-clock seconds, rounded to 0.1.

    `timed = StageTimer(); x = timed("blueprint", lambda: solve())`; `timed.seconds` maps each
    stage's name to its seconds, in the order they ran (a results JSON's `stage_seconds`).
    """

    def __init__(self) -> None:
        self.seconds: dict[str, float] = {}

    def __call__(self, name: str, f: Callable[[], Any]) -> Any:
        """Runs `f()` as the stage `name` and records its seconds; returns what it returns."""
        start = time.perf_counter()
        with stage(name):
            out = f()
        self.seconds[name] = round(time.perf_counter() - start, 1)
        return out


_QUIET = flags.DEFINE_bool(
    "quiet", False, "No progress bars and no INFO log lines (warnings and errors only)."
)
_VERBOSE = flags.DEFINE_bool(
    "verbose", False, "Also log the details: every iteration's figures, every HiGHS run."
)


class _HumanFormatter(std_logging.Formatter):
    """Log lines as people read them.

    The message, 'warning: ' / 'error: ' before problems (absl's default adds a timestamp,
    the thread id and the source line).
    """

    def format(self, record: std_logging.LogRecord) -> str:
        message = record.getMessage()
        if record.levelno >= std_logging.WARNING:
            message = f"{record.levelname.lower()}: {message}"
        return message


VERBOSE_LOG_EVERY = 100


def log_every() -> int | None:
    """How often a run loop logs its iteration with --verbose (`VERBOSE_LOG_EVERY`), else None.

    Without --verbose: a progress bar and the final table only.
    """
    return VERBOSE_LOG_EVERY if _VERBOSE.value else None


def configure_output() -> None:
    """Sets up the log output: human log lines, and what --quiet and --verbose ask for.

    With --quiet, no progress bars and no INFO lines; with --verbose, the detail lines too
    (absl verbosity 1: `logging.vlog(1, ...)`). `main` calls this once the flags are parsed.
    """
    absl_logging.get_absl_handler().setFormatter(_HumanFormatter())
    if _QUIET.value:
        progress.set_enabled(False)
        absl_logging.set_verbosity(absl_logging.WARNING)
    elif _VERBOSE.value:
        absl_logging.set_verbosity(1)


_HELP_FLAGS = ("--help", "-h", "--helpshort", "-?", "--help=true")
# Modules whose flags a command may have defined besides its own (shown by --help).
_SHARED_FLAG_MODULES = ("ospiel_ext.runtime.executors", __name__)


def command_help(module_name: str) -> str:
    """A command's --help: its docstring, its own flags, then the flags every command shares.

    Its own flags are listed with their defaults; absl's own flags are left to --helpfull.
    """
    module = sys.modules[module_name]
    parts = [(module.__doc__ or "").strip(), ""]
    for name in (module_name, *_SHARED_FLAG_MODULES):
        if flags.FLAGS.get_flags_for_module(name):
            text = flags.FLAGS.module_help(name).strip()
            parts += [
                text.replace(f"{name}:", "shared flags:" if name != module_name else "flags:"),
                "",
            ]
    renamed = cli_flags.renamed_help()
    parts += [renamed, ""] if renamed else []
    parts.append("absl's own flags (logging, --flagfile, ...): --helpfull")
    return "\n".join(parts)


def _parse_flags(argv: list[str], module_name: str) -> list[str]:
    """Parses the flags with absl, with a one-line error (exit 2).

    A deprecated spelling of a flag (`cli_flags.rename`) works and prints one warning line;
    given beside its new spelling it is an error.

    --help prints `command_help` and exits 0 (absl's lists the flags of the __main__ module
    only, which for `ospiel-ext` and scripts/ defines none).
    """
    if any(arg in _HELP_FLAGS for arg in argv[1:]):
        print(command_help(module_name))
        raise SystemExit(0)
    try:
        remaining = flags.FLAGS(argv)
        for line in cli_flags.deprecated_spellings():
            warn(line)
    except (flags.Error, app.UsageError) as e:
        fail(str(e))
    except SystemExit as e:  # absl's --help / --helpfull print the help and exit 1
        raise SystemExit(0 if e.code == 1 else e.code) from None
    return remaining


def main(script_main: Callable[[list[str]], Any]) -> None:
    """Runs a script's `main(argv)` under `absl.app.run`.

    A bad flag value, an `app.UsageError` from `main` (`cli_flags`' checks, `load_game`,
    `compile_game`) prints `error: <reason>` on one line (absl would print the whole
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
    """Loads --game (simultaneous-move games converted to turn-based).

    Checks that it is a two-player zero-sum (or constant-sum) game (unless
    `two_player_zero_sum` is False); app.UsageError naming the problem otherwise.
    """
    with cli_flags.refuse(ValueError):
        with _quiet_stderr():  # pyspiel also prints "OpenSpiel exception: ..." on stderr
            game = loading.load(game_string)
        if two_player_zero_sum:
            loading.check_two_player_zero_sum(game)
    return game


def compile_game(game: pyspiel.Game, max_nodes: int | None = None) -> sf_lib.TreeSequenceForm:
    """The game's sequence form (`sequence_form.for_game`), or app.UsageError naming why not.

    The error names the game and the violated property (players, zero-sum, perfect recall,
    more than `max_nodes` nodes); a Ctrl-C meanwhile prints "interrupted while compiling
    <game>".
    """
    with stage(f"compiling {game}"), cli_flags.refuse(ValueError):
        return sf_lib.for_game(game, max_nodes=max_nodes)


def walkable(game: pyspiel.Game, max_nodes: int, flag: str = "--max_nodes") -> None:
    """Refuses a game that OpenSpiel's Python walk of every state cannot take.

    Refused in about a second and before any walk, a game that the walk (TabularPolicy, its
    best response) cannot take: infinite, or estimated above `max_nodes` nodes
    (`tree.refuse_by_estimate`).
    """
    with cli_flags.refuse(ValueError):
        try:
            loading.refuse_by_estimate(game, loading.node_cap(game, max_nodes))
        except loading.GameTooLargeError as e:
            raise ValueError(
                f"{e}; {flag}={max_nodes} bounds OpenSpiel's walk of every state"
            ) from None


def is_infinite(game: pyspiel.Game) -> bool:
    """True for a game without a finite maximum length (e.g. limit_leduc_poker(max_raises=-1)).

    Such a game cannot be compiled or written as a policy file.
    """
    return bool(game.max_game_length() >= loading.INFINITE_GAME_LENGTH)


def default_memory_gb() -> float:
    """Three quarters of this machine's memory in GiB (a memory budget's default), or 16."""
    total = budget.physical_memory()
    return 16.0 if total is None else round(0.75 * total / budget.GIB, 1)


@contextlib.contextmanager
def outputs() -> Iterator[None]:
    """Writes a command's outputs together (`files.all_or_nothing`).

    All of them, or none and a `files.OutputError` that `main` prints in one line (exit code
    1). A first Ctrl-C or SIGTERM meanwhile lets the writing finish (the command then exits
    with code 130); a second one stops it, and nothing is written.
    """
    with stage("writing the outputs"), interrupts.graceful(), files.all_or_nothing():
        yield


@contextlib.contextmanager
def stoppable(time_limit: float | None = None) -> Iterator[interrupts.Deadline]:
    """The work of a command that keeps its result so far.

    Ctrl-C, SIGTERM and, after `time_limit` seconds, the deadline (`interrupts.deadline`) stop
    its graceful phases (run loops, sweeps, HiGHS), and a phase with no result so far that
    raises `interrupts.Interrupted` ends the block quietly (so anything the block assigns must
    have a value before it). Afterwards the yielded `Deadline.reason` says why it stopped
    ('time_limit', 'interrupted', None); a second Ctrl-C still interrupts at once.
    """
    with interrupts.deadline(time_limit) as stop, interrupts.graceful():
        try:
            yield stop
        except interrupts.Interrupted:
            pass
