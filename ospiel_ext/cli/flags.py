"""Flag validation of the command line (`ospiel-ext` commands, scripts/, benchmarks/).

Numbers, lists, input files, output files and folders, each refused with one
`app.UsageError` before any work, where the problem can be seen from the flags.

`cli.main` prints such an error as one line `error: <reason>` and exits with code 2; the
library's own refusals (a ValueError: the game or an argument violates an assumption) become
the same kind of error through `refuse`.

    cli_flags.no_arguments(argv)
    cli_flags.positive(_ITERATIONS)
    cli_flags.output_path(_OUTPUT_JSON)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT], inputs=[_POLICY])

A renamed flag keeps its old spelling for one release: the module that defines the flag
declares `cli_flags.rename("epsilon", "target_epsilon")` (an alias of this command or
benchmark only), and `cli.main` prints one line `warning: --epsilon is deprecated, use
--target_epsilon` when it is given, or refuses it given beside its new spelling.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import sys
import tempfile
import weakref
from collections.abc import Iterable, Iterator, Sequence

from absl import app, flags

from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import files


@dataclasses.dataclass(frozen=True)
class _Deprecated:
    """A deprecated flag: the flags that replace it, and whether it is an alias of the one."""

    instead: tuple[str, ...]
    alias: bool


_DEPRECATED: weakref.WeakKeyDictionary[flags.FlagValues, dict[str, _Deprecated]] = (
    weakref.WeakKeyDictionary()
)
"""Per set of flags: deprecated flag name -> what replaces it (`rename`, `deprecate`)."""


def _deprecated(flag_values: flags.FlagValues) -> dict[str, _Deprecated]:
    return _DEPRECATED.setdefault(flag_values, {})


def rename(old: str, new: str, flag_values: flags.FlagValues = flags.FLAGS) -> None:
    """Keeps `--old`, the previous spelling of the flag `--new`, working for one release.

    `--old` is an alias of `--new` (`--noold` too for a boolean flag, and in flag files);
    `deprecated_spellings` names it after parsing. Declared by the module that defines
    `--new`, so where one old name meant different things in different commands, each
    command renames it to its own flag.
    """
    flags.DEFINE_alias(old, new, flag_values=flag_values, module_name=__name__)
    flag_values[old].help = f"Deprecated spelling of --{new}."
    _deprecated(flag_values)[old] = _Deprecated((new,), alias=True)


def deprecate(
    holder: flags.FlagHolder, *instead: str, flag_values: flags.FlagValues = flags.FLAGS
) -> None:
    """Marks a flag that the command still reads as deprecated in favour of `instead`.

    For an old flag that is no plain alias (e.g. one folder that became a folder and a
    file): the command maps its value itself; `deprecated_spellings` names it.
    """
    _deprecated(flag_values)[holder.name] = _Deprecated(instead, alias=False)


def deprecated_spellings(flag_values: flags.FlagValues = flags.FLAGS) -> list[str]:
    """What to warn about the deprecated flags given on the parsed command line.

    One line per flag, e.g. "--epsilon is deprecated, use --target_epsilon".

    Raises:
      app.UsageError: a deprecated flag given together with a flag that replaces it.
    """
    lines = []
    for old, deprecated in _deprecated(flag_values).items():
        if not flag_values[old].present:
            continue
        # an alias's parse counts as a presence of its flag too
        own = flag_values[old].present if deprecated.alias else 0
        for new in deprecated.instead:
            if new in flag_values and flag_values[new].present > own:
                what = "the deprecated spelling of" if deprecated.alias else "replaced by"
                raise app.UsageError(f"--{old} is {what} --{new}: give --{new} only")
        instead = " and ".join(f"--{n}" for n in deprecated.instead)
        lines.append(f"--{old} is deprecated, use {instead}")
    return lines


def renamed_help(flag_values: flags.FlagValues = flags.FLAGS) -> str:
    """The deprecated spellings this command accepts, for its --help ('' if none)."""
    lines = [
        f"  --{old}: use {' and '.join(f'--{n}' for n in d.instead)}"
        for old, d in _deprecated(flag_values).items()
    ]
    return (
        "\n".join(["deprecated spellings (accepted for one more release):", *lines])
        if lines
        else ""
    )


def one_line(message: str) -> str:
    """`message` on one line (its non-blank lines stripped and joined by spaces).

    Every error of the command line is one line.
    """
    return " ".join(line.strip() for line in str(message).splitlines() if line.strip())


def require(condition: bool, message: str) -> None:
    """Raises app.UsageError(message) unless condition holds (flag validation)."""
    if not condition:
        raise app.UsageError(message)


@contextlib.contextmanager
def refuse(*errors: type[Exception]) -> Iterator[None]:
    """Turns the library's refusals raised in the block into app.UsageError.

    The refusals are ValueError by default (the game or an argument violates an assumption);
    the UsageError has the same one-line message.
    """
    errors = errors or (ValueError,)
    try:
        yield
    except errors as e:
        raise app.UsageError(one_line(str(e))) from None


def game_at(entry: str, flag: str) -> tuple[str, int]:
    """A GAME@K flag value (a load_game string and a number K >= 0) as (GAME, K).

    A usage error naming `flag` otherwise.
    """
    game, sep, k = entry.rpartition("@")
    require(bool(sep) and k.isdigit(), f"--{flag}: {entry!r} is not GAME@K (K >= 0)")
    return game, int(k)


def no_arguments(argv: Sequence[str]) -> None:
    """Refuses positional arguments (scripts take flags only)."""
    require(len(argv) <= 1, f"unexpected arguments {list(argv[1:])} (the scripts take flags only)")


def _number(holder: flags.FlagHolder) -> float | None:
    value: float | None = holder.value
    if value is not None and isinstance(value, float) and math.isnan(value):
        raise app.UsageError(f"--{holder.name} must be a number, got nan")
    return value


def positive(holder: flags.FlagHolder) -> None:
    """Refuses a numeric flag that is set and not > 0; unset (None) passes.

    For iteration budgets, time limits, node caps.
    """
    value = _number(holder)
    require(value is None or value > 0, f"--{holder.name} must be positive, got {value}")


def non_negative(holder: flags.FlagHolder) -> None:
    """Refuses a numeric flag that is set and < 0 (epsilon, xi, thresholds)."""
    value = _number(holder)
    require(value is None or value >= 0, f"--{holder.name} must be non-negative, got {value}")


def int_list(holder: flags.FlagHolder, minimum: int = 1) -> list[int]:
    """The integers of a list flag.

    One-line error unless each is an integer >= `minimum` and the list is not empty.
    """
    out = []
    for v in holder.value or []:
        require(
            v.strip().isdigit() and int(v) >= minimum,
            f"--{holder.name}: {v!r} is not an integer >= {minimum}",
        )
        out.append(int(v))
    require(bool(out), f"--{holder.name} is empty")
    return out


def iteration_budget(
    iterations: flags.FlagHolder[int], time_limit: flags.FlagHolder[float | None]
) -> int | None:
    """--iterations, or None (no iteration budget) when --time_limit is given without it.

    A time limit given alone sets the run's length; given both, the run ends at whichever
    comes first; given neither, at --iterations' default.
    """
    if time_limit.value is not None and not iterations.present:
        return None
    return iterations.value


def float_list(holder: flags.FlagHolder) -> list[float]:
    """The numbers of a list flag (empty if the list is).

    One-line error naming the flag if an entry is not a number. What the numbers must be is
    the caller's check.
    """
    try:
        return [float(v) for v in holder.value or []]
    except ValueError as e:
        raise app.UsageError(f"--{holder.name} takes numbers: {e}") from None


def fraction(holder: flags.FlagHolder) -> None:
    """Refuses a numeric flag that is set and not strictly between 0 and 1."""
    value = _number(holder)
    require(value is None or 0 < value < 1, f"--{holder.name} must be in (0, 1), got {value}")


def output_path(holder: flags.FlagHolder, suffixes: Sequence[str] = ("",)) -> None:
    """Refuses an output flag whose file could not be written, before the work that produces it.

    Output flags are --output_json, --policy_out, --plot, ...; refused when the file's
    directory is missing or not writable, or the path is a directory or a read-only file. A
    link is judged by its target (which is what gets replaced); a device or a FIFO is written
    through and passes if writable; `-` is standard output. `suffixes`: the files written are
    path + suffix (a certificate is PATH and PATH.npz, which cannot both go to standard
    output).
    """
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
        require(
            not _is_running_script(target),
            f"{flag}: {path + suffix} is this command's own script; choose another path",
        )


def _is_running_script(path: str) -> bool:
    """Whether `path` is the same file as the script this process runs (`sys.argv[0]`).

    The script is an input of every command: writing over it would destroy the command itself.
    """
    script = sys.argv[0] if sys.argv else ""
    try:
        return bool(script) and os.path.samefile(path, script)
    except OSError:  # either is missing (a new output, `python -c`)
        return False


def output_dir(holder: flags.FlagHolder) -> None:
    """Makes an output directory flag's directory (and its parents) before the work.

    Refuses the flag if that is impossible or the directory is not writable.
    """
    path = holder.value
    require(bool(path), f"--{holder.name} is required")
    try:
        os.makedirs(path, exist_ok=True)
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as e:
        raise app.UsageError(f"--{holder.name}={path}: {e.strerror or e}") from None


def plots_dir(holder: flags.FlagHolder) -> None:
    """An output directory flag for figures: `output_dir`, and matplotlib is importable.

    Both are checked before the work (a run must not end by failing to plot).
    """
    output_dir(holder)
    cli_output.pyplot()


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
    """Refuses, before any work, an output that is the same file as an input or another output.

    The same file as an input: the command would destroy its own input; as another output:
    real paths and inodes are compared, so links and other spellings of one file count.
    Entries are flags or (name, path) pairs, e.g. ("--certificate .npz", path + ".npz").
    """
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
