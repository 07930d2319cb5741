"""Result files: JSON read and written in one place, and every output path of the pack.

JSON with finite numbers and one-line errors naming the file; the check that a file belongs
to the game it is loaded for; and every output path of the pack (`output`): regular files
replaced atomically, links followed, devices, FIFOs and standard output written through,
outputs of one run put in place together (`all_or_nothing`), and never the same file as an
input (`check_outputs`).

A file is written to a hidden temporary file beside it, `.<name>.ospiel-<host>-<pid>-<random>.tmp`,
and renamed into place. A writer killed meanwhile (`kill -9`, a crash of the machine) leaves
its temporary file behind; the next write into that directory removes the ones whose writer
is gone: written on this host by a process that no longer runs (`remove_stale`). A live
process's temporary file, or another host's, is never touched.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import shutil
import socket
import stat
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from typing import IO, Any

import numpy as np

from ospiel_ext.runtime import interrupts


def read_json(path: str | os.PathLike, what: str) -> Any:
    """The JSON document at `path`; ValueError naming the file and the problem in one line."""
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except json.JSONDecodeError as e:
        raise ValueError(
            f"{path} is not a {what} (not JSON: {e.msg}, line {e.lineno} column {e.colno})"
        ) from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a {what} (not UTF-8 text)") from None
    except OSError as e:
        raise ValueError(f"cannot read {what} {path}: {e.strerror or e}") from None


def read_npz(path: str | os.PathLike, what: str) -> dict[str, np.ndarray]:
    """The arrays of the .npz archive at `path` (never pickle); ValueError in one line.

    FileNotFoundError stays itself (a reader may name what is missing); anything else that is
    not a readable .npz archive of plain arrays - text, a single .npy array, a truncated or
    corrupt archive, object arrays - is a ValueError naming the file and `what`.
    """
    try:
        loaded = np.load(path, allow_pickle=False)
        if not isinstance(loaded, np.lib.npyio.NpzFile):
            raise ValueError("a single array")
        with loaded as f:
            return {k: f[k] for k in f.files}
    except FileNotFoundError:
        raise
    except OSError as e:
        raise ValueError(f"cannot read {what} {path}: {e.strerror or e}") from None
    except (ValueError, KeyError, EOFError, zipfile.BadZipFile, zlib.error):
        raise ValueError(f"{path} is not a {what} (not a .npz archive of arrays)") from None


def probability(value: Any) -> float | None:
    """`value` as a finite float, or None if it is not a number (strings, NaN, infinities)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if np.isfinite(value) else None


def _jsonable(value: Any) -> Any:
    """`value` with numpy types as Python ones and non-finite floats as None (JSON has no NaN)."""
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return _jsonable(value.tolist())
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# --- outputs --------------------------------------------------------------------------------

STDOUT = "-"
"""The output path that means standard output."""


class OutputError(OSError):
    """An output could not be written.

    The message is one line naming the path and saying which outputs of the run were written
    and which were not.
    """


def _describe(error: OSError) -> str:
    """'no space left on device' (the OS's message, lower case), or the error's text."""
    return error.strerror.lower() if error.strerror else str(error)


def output_kind(path: str) -> str:
    """How an output path is written: 'stdout', 'stream' or 'file'.

    'stdout' ('-', or the file that standard output already is), 'stream' (a character or
    block device, a FIFO or a socket, e.g. /dev/stderr or a shell's process substitution:
    written through), or 'file' (a regular file, a new path or a link to either: replaced
    atomically).

    Raises:
      OutputError: the path is a directory or cannot be examined.
    """
    if path == STDOUT:
        return "stdout"
    try:
        st = os.stat(path)  # follows symbolic links
    except (FileNotFoundError, NotADirectoryError):  # a new path (its directory is checked
        return "file"  # when the file is made)
    except OSError as e:
        raise OutputError(f"cannot write {path}: {_describe(e)}") from None
    if stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {path}: it is a directory")
    try:
        if os.path.samestat(st, os.fstat(sys.stdout.fileno())):
            return "stdout"
    except (OSError, ValueError, AttributeError):  # no usable standard output
        pass
    return "file" if stat.S_ISREG(st.st_mode) else "stream"


_HOST = re.sub(r"[^A-Za-z0-9_]", "_", socket.gethostname())[:40] or "host"
_TEMP_TAG = "ospiel"
_TEMP_NAME = re.compile(rf"^\..*\.{_TEMP_TAG}-(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-[^.]*\.tmp$")
"""Our temporary files: `.<name>.ospiel-<host>-<pid>-<random>.tmp` (`_Staged`)."""


def _temp_prefix(real: str) -> str:
    return f".{os.path.basename(real)}.{_TEMP_TAG}-{_HOST}-{os.getpid()}-"


def _alive(pid: int) -> bool:
    """Whether process `pid` runs on this host (another user's counts as running)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True


def remove_stale(directory: str) -> list[str]:
    """Removes the temporary files left in `directory` by writers that no longer run.

    Ours only (`_TEMP_NAME`), written on this host by a process that is gone; a running
    process's, another host's and other programs' files stay. Returns the paths removed
    (errors, e.g. a file removed meanwhile or a directory not listable, are skipped).
    """
    removed: list[str] = []
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return removed
    for entry in entries:
        match = _TEMP_NAME.match(entry.name)
        if match is None or match["host"] != _HOST or _alive(int(match["pid"])):
            continue
        with contextlib.suppress(OSError):
            if entry.is_file(follow_symlinks=False):
                os.remove(entry.path)
                removed.append(entry.path)
    return removed


def _read_umask() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return umask


_UMASK = _read_umask()  # once: setting it to read it races with threads creating files


def _new_mode(real: str) -> int:
    """The permissions of the file written at `real`.

    Those of the file it replaces, else what a plain open() would give (0666 less the umask;
    mkstemp's 0600 would make results private).
    """
    try:
        return stat.S_IMODE(os.stat(real).st_mode)
    except OSError:
        return 0o666 & ~_UMASK


class _Staged:
    """One output of a run, written to a temporary file and put in place by `commit`."""

    def __init__(self, path: str):
        self.path = path
        self.kind = output_kind(path)
        # a link is followed: its target is replaced, never the link itself
        self.real = os.path.realpath(path) if self.kind == "file" else path
        directory = os.path.dirname(self.real) if self.kind == "file" else None
        remove_stale(directory or tempfile.gettempdir())
        try:
            fd, self.tmp = tempfile.mkstemp(
                dir=directory, prefix=_temp_prefix(self.real), suffix=".tmp"
            )
        except OSError as e:
            where = directory or tempfile.gettempdir()
            raise OutputError(f"cannot write {path}: {_describe(e)} in {where}") from None
        os.close(fd)

    def discard(self) -> None:
        with contextlib.suppress(OSError):
            os.remove(self.tmp)

    def commit(self) -> None:
        """Puts the written temporary file in place (or copies it through), then removes it.

        A device or FIFO may block (a FIFO without a reader): a Ctrl-C then interrupts it at
        once (`interrupts.immediate`).
        """
        try:
            if self.kind == "file":
                os.chmod(self.tmp, _new_mode(self.real))
                os.replace(self.tmp, self.real)
                return
            with open(self.tmp, "rb") as source, interrupts.immediate():
                if self.kind == "stdout":
                    sys.stdout.flush()
                    target = getattr(sys.stdout, "buffer", None)
                    if target is None:  # a text stream (tests, notebooks)
                        sys.stdout.write(source.read().decode("utf-8"))
                    else:
                        shutil.copyfileobj(source, target)
                        target.flush()
                else:
                    with open(self.real, "wb") as target:
                        shutil.copyfileobj(source, target)
        except OSError as e:
            raise OutputError(f"cannot write {self.path}: {_describe(e)}") from None
        finally:
            self.discard()


class _Batch:
    """The outputs of one run (`all_or_nothing`)."""

    def __init__(self) -> None:
        self.staged: list[_Staged] = []


_batches: list[_Batch] = []
NOTHING_WRITTEN = "(nothing was written)"
"""The note `all_or_nothing` adds to an exception that left it before any output was put in
place (after that, the note says which outputs were written)."""


@contextlib.contextmanager
def all_or_nothing() -> Iterator[None]:
    """Puts the outputs written in the block in place together when the block ends.

    Outputs written by `output` and every writer built on it: either all of them or, if
    writing one fails (a full disk), none, and an `OutputError` says so. Devices, FIFOs and
    standard output are written through first, then the files are renamed into place, so a
    failure there names what was written before it. Nests: the outermost block commits.
    """
    batch = _Batch()
    _batches.append(batch)
    try:
        yield
    except BaseException as e:
        for staged in batch.staged:
            staged.discard()
        if not _batches[:-1]:
            e.add_note(NOTHING_WRITTEN)
        raise
    finally:
        _batches.pop()
    if _batches:  # an enclosing block commits these too
        _batches[-1].staged += batch.staged
        return
    order = sorted(batch.staged, key=lambda s: s.kind == "file")  # streams first
    done: list[str] = []
    try:
        for staged in order:
            staged.commit()
            done.append(staged.path)
    except OutputError as e:
        if len(order) == 1:
            raise
        raise OutputError(f"{e}; {_written(order, done)}") from None
    except BaseException as e:  # a second Ctrl-C, or one while a FIFO waits for a reader
        e.add_note(f"({_written(order, done)})")
        raise
    finally:
        for staged in order[len(done) :]:
            staged.discard()


def _written(order: list[_Staged], done: list[str]) -> str:
    """'written: a, b; not written: c' of a batch's outputs."""
    rest = [s.path for s in order[len(done) :]]
    return f"written: {', '.join(done) or 'nothing'}; not written: {', '.join(rest)}"


@contextlib.contextmanager
def output(path: str | os.PathLike, binary: bool = False) -> Iterator[IO[Any]]:
    """A file object whose contents end up at `path` when the block ends without error.

    Written as the tools users know write: a regular file or a new path is replaced atomically
    (a temporary file beside it, renamed; a reader never sees half a file, an interrupted write
    leaves none); a symbolic link is followed and its target replaced, never the link; a
    character or block device, a FIFO or a socket is written through (its errors reported:
    /dev/full says "no space left on device"); `-` and the file standard output already is are
    written to standard output. Inside `all_or_nothing`, the result is put in place when that
    block ends.

    Raises:
      OutputError: the path cannot be written (one line, naming it).
    """
    path = os.fspath(path)
    staged = _Staged(path)
    try:
        with open(staged.tmp, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())  # the data is on disk before a rename puts it in place
    except OSError as e:
        staged.discard()
        message = f"cannot write {path}: {_describe(e)}"
        raise OutputError(message + ("; no output was written" if _batches else "")) from None
    except BaseException:
        staged.discard()
        raise
    if _batches:
        _batches[-1].staged.append(staged)
    else:
        staged.commit()


def write_json(path: str | os.PathLike, data: Any, indent: int | None = 1) -> None:
    """Writes `data` as strict JSON (NaN and infinities as null), ending with a newline.

    Written by `output` (atomic for a regular file).
    """
    text = json.dumps(_jsonable(data), indent=indent, sort_keys=False, allow_nan=False)
    with output(path) as f:
        f.write(text + "\n")


def _stat(path: str | os.PathLike) -> os.stat_result | None:
    """The status of the file at `path` (links followed), or None if there is none."""
    try:
        return os.stat(path)
    except OSError:
        return None


def check_outputs(
    outputs: Mapping[str, str | os.PathLike | None],
    inputs: Mapping[str, str | os.PathLike | None] | None = None,
) -> None:
    """Refuses, before any work, an output that is the same regular file as an input or output.

    The same file as an input or as another output: real paths and inodes are compared, so
    links and other spellings count.

    Args:
      outputs: {name shown in the message (e.g. '--output_json'): path or None}.
      inputs: the inputs in the same form (default: none).

    Raises:
      ValueError: naming both and the file.
    """
    inputs = inputs or {}
    seen: dict[tuple[int, int] | str, str] = {}
    for name, path in inputs.items():
        st = None if path is None else _stat(path)
        if st is not None:
            seen.setdefault((st.st_dev, st.st_ino), name)
    for name, path in outputs.items():
        if path is None:
            continue
        if output_kind(os.fspath(path)) == "stdout":
            key: tuple[int, int] | str = STDOUT  # one stream cannot take two outputs
        else:
            st = _stat(path)
            if st is not None and not stat.S_ISREG(st.st_mode):  # /dev/null twice is fine
                continue
            key = (st.st_dev, st.st_ino) if st is not None else os.path.realpath(path)
        if key in seen:
            other = seen[key]
            role = "the input" if other in inputs else "the output"
            raise ValueError(
                f"{name}={path} is {role} {other} (the same file); choose another path"
            )
        seen[key] = name
