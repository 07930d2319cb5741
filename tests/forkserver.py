"""Runs scripts/*.py and benchmarks as forked copies of one interpreter that has already
imported what they import, so that a bad-input case costs a fork (~50 ms), not a fresh
interpreter (~0.5-0.8 s).

The server (this file run as a program) reads one JSON request per line on stdin: {"script":
path, "args": [...], "stdout": path, "stderr": path, "cwd": dir}, with optional "stdin" (a file
standard input reads; else /dev/null) and "module" (run `python -m module` instead of the
script). For each it forks a child that points file descriptors 0 / 1 / 2 at the input and
the two files, sets sys.argv and sys.path[0] (the script's folder) and executes the script as
`__main__` with `runpy.run_path` (`runpy.run_module` for a module), exactly as `python script
args` would after its imports; the exit status is what `sys.exit` / an exception would give.
The server answers {"pid": pid} at once (so a test can send the child a SIGINT) and
{"returncode": code} when the child ends (negative: killed by that signal, as subprocess).

The command tests use one server per module (`ForkServer`), or this process's (`shared`,
`run_script`, `run_module`): the scripts' tests and the results slices.

Nothing is compiled or cached in the server: each child starts from the state right after
the imports, like a fresh process.
"""

from __future__ import annotations

import atexit
import dataclasses
import json
import os
import runpy
import select
import signal
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))


def _run_main(request: dict) -> None:
    """Runs the request's script (or module) as `__main__`, as `python script` would."""
    if request.get("module"):  # python -m module
        sys.argv = [request["module"], *request["args"]]
        sys.path.insert(0, os.getcwd())
        runpy.run_module(request["module"], run_name="__main__", alter_sys=True)
        return
    sys.argv = [request["script"], *request["args"]]
    # as `python script` does: the script's folder first on the path, for its siblings
    # (benchmarks/papers/depth_limited.py imports depth_limited_games.py ...); run_path adds it
    # only for a folder
    sys.path.insert(0, os.path.dirname(os.path.abspath(request["script"])))
    runpy.run_path(request["script"], run_name="__main__")


def _child(request: dict) -> None:
    """In the forked child: run the script, then leave with its exit status (never returns)."""
    code = 1
    try:
        os.chdir(request["cwd"])
        for fd, path, flags in (
            (0, request.get("stdin") or os.devnull, os.O_RDONLY),
            (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
            (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
        ):
            opened = os.open(path, flags, 0o644)
            os.dup2(opened, fd)
            os.close(opened)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        _run_main(request)
        code = 0
    except SystemExit as e:  # as the interpreter does at exit
        if e.code is None:
            code = 0
        elif isinstance(e.code, int):
            code = e.code
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:
        traceback.print_exc()
        code = -signal.SIGINT
    except BaseException:  # reported like the interpreter does
        traceback.print_exc()
        code = 1
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:
                pass
        if code < 0:  # die of the signal, as an interpreter that did not catch it
            signal.signal(-code, signal.SIG_DFL)
            os.kill(os.getpid(), -code)
        os._exit(code & 0xFF)


def serve() -> None:
    """The server loop (see the module docstring)."""
    for line in sys.stdin:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            _child(request)
        print(json.dumps({"pid": pid}), flush=True)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)


def _kill(pid: int, sig: int) -> None:
    """Sends `sig` to the child unless it has already ended."""
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _read(path: str) -> str:
    """The file's text; empty if the child has not created it (yet)."""
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


@dataclasses.dataclass(frozen=True)
class Result:
    returncode: int
    stdout: str
    stderr: str


class ForkServer:
    """Client of the server: `run` a script to completion, or `start` it and `finish` it."""

    def __init__(self, scratch: str):
        root = os.path.dirname(HERE)
        path = os.environ.get("PYTHONPATH")
        env = {**os.environ, "PYTHONPATH": root if not path else root + os.pathsep + path}
        self._proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        self._scratch = scratch
        self._count = 0

    def start(
        self,
        script: str,
        *args: str,
        cwd: str | None = None,
        stdin: str | None = None,
        module: str | None = None,
    ) -> tuple[int, str, str]:
        """Starts a script (or `python -m module` if `module`); returns (pid, stdout path,
        stderr path). `stdin`: the text its standard input reads (else /dev/null)."""
        self._count += 1
        out = os.path.join(self._scratch, f"run{self._count}.out")
        err = os.path.join(self._scratch, f"run{self._count}.err")
        request = {
            "script": script,
            "module": module,
            "args": list(args),
            "stdout": out,
            "stderr": err,
            "cwd": cwd or self._scratch,
        }
        if stdin is not None:
            request["stdin"] = os.path.join(self._scratch, f"run{self._count}.in")
            with open(request["stdin"], "w", encoding="utf-8") as f:
                f.write(stdin)
        self._proc.stdin.write(json.dumps(request) + "\n")
        self._proc.stdin.flush()
        return json.loads(self._proc.stdout.readline())["pid"], out, err

    def finish(self, pid: int, out: str, err: str, timeout: float = 120) -> Result:
        """Waits for the started script (killing it after `timeout` seconds)."""
        ready, _, _ = select.select([self._proc.stdout], [], [], timeout)
        if not ready:
            _kill(pid, signal.SIGKILL)
        code = json.loads(self._proc.stdout.readline())["returncode"]
        return Result(code, _read(out), _read(err))

    def run(
        self,
        script: str,
        *args: str,
        cwd: str | None = None,
        timeout: float = 120,
        stdin: str | None = None,
        module: str | None = None,
    ) -> Result:
        return self.finish(
            *self.start(script, *args, cwd=cwd, stdin=stdin, module=module), timeout=timeout
        )

    def interrupt(
        self,
        script: str,
        *args: str,
        wait_for: str | None,
        seconds: float = 2.0,
        sig: int = signal.SIGINT,
    ) -> Result:
        """Runs a script and sends it `sig` (SIGINT: a Ctrl-C) `seconds` after `wait_for`
        appears on its stderr (after its start if None; after 120 s if it never appears)."""
        pid, out, err = self.start(script, *args)
        try:
            deadline = time.monotonic() + 120
            while wait_for is not None and time.monotonic() < deadline:
                if wait_for in _read(err):
                    break
                time.sleep(0.05)
            time.sleep(seconds)
            _kill(pid, sig)
        except BaseException:
            _kill(pid, signal.SIGKILL)
            self.finish(pid, out, err)  # keeps the server's answers in step
            raise
        return self.finish(pid, out, err)

    def close(self) -> None:
        self._proc.stdin.close()
        self._proc.wait(timeout=60)


_SHARED: ForkServer | None = None


def shared() -> ForkServer:
    """This process's server (one per pytest worker), started on first use, closed at exit.

    For tests that run scripts through a plain helper function rather than a fixture; the
    scripts run as their child processes would, from the caller's working directory.
    """
    global _SHARED
    if _SHARED is None:
        scratch = tempfile.TemporaryDirectory()
        _SHARED = ForkServer(scratch.name)
        atexit.register(scratch.cleanup)
        atexit.register(_SHARED.close)
    return _SHARED


def run_script(
    path: str, *args: str, stdin: str | None = None, cwd: str | None = None, timeout: float = 600
) -> Result:
    """`python path args` in a fork of the shared server (from `cwd`, else the current
    directory)."""
    return shared().run(path, *args, cwd=cwd or os.getcwd(), stdin=stdin, timeout=timeout)


def run_module(module: str, *args: str, timeout: float = 600) -> Result:
    """`python -m module args` in a fork of the shared server, from the current directory."""
    return shared().run("", *args, cwd=os.getcwd(), module=module, timeout=timeout)


if __name__ == "__main__":
    # What the scripts import (so children do not), without compiling any game.
    import absl.app  # noqa: F401
    import absl.flags  # noqa: F401
    import absl.logging  # noqa: F401
    import highspy  # noqa: F401
    import numpy  # noqa: F401
    import pyspiel  # noqa: F401
    import scipy.sparse  # noqa: F401
    from open_spiel.python import policy  # noqa: F401
    from open_spiel.python.algorithms import cfr, exploitability  # noqa: F401

    import ospiel_ext.algorithms.certificates  # noqa: F401
    import ospiel_ext.algorithms.cfr  # noqa: F401
    import ospiel_ext.algorithms.depth_limited  # noqa: F401
    import ospiel_ext.algorithms.egt  # noqa: F401
    import ospiel_ext.algorithms.gameshrink  # noqa: F401
    import ospiel_ext.algorithms.subgames  # noqa: F401
    import ospiel_ext.cli.command  # noqa: F401
    import ospiel_ext.games  # noqa: F401
    import ospiel_ext.lp  # noqa: F401

    serve()
