"""The installed `ospiel-ext` command (`ospiel_ext.cli.commands`) and its `scripts/` wrappers."""

import json
import os
import subprocess
import sys

import pytest
from forkserver import run_module, run_script

from ospiel_ext.cli.commands import COMMANDS, DEPRECATED_SCRIPTS, module_name

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def command(*args, program=None):
    """`python -m ospiel_ext args` (forked from a warm interpreter: `forkserver`), or the
    `program` given (the installed entry point) in a fresh process."""
    if program is None:
        return run_module("ospiel_ext", *args)
    return subprocess.run([*program, *args], capture_output=True, text=True, timeout=300)


def test_help_lists_every_subcommand():
    r = command("--help")
    assert r.returncode == 0, r.stderr
    for name, summary in COMMANDS.items():
        assert f"  {name}" in r.stdout and summary in r.stdout


def test_command_modules_and_scripts_are_named_after_their_subcommands():
    modules = {
        f[:-3]
        for f in os.listdir(os.path.join(ROOT, "ospiel_ext", "cli", "commands"))
        if f.endswith(".py") and f != "__init__.py"
    }
    assert modules == {name.replace("-", "_") for name in COMMANDS}
    assert all(module_name(name) in modules for name in COMMANDS)
    scripts = {f[:-3] for f in os.listdir(os.path.join(ROOT, "scripts")) if f.endswith(".py")}
    assert scripts == modules | set(DEPRECATED_SCRIPTS)  # the old names, for one release
    assert not modules & set(DEPRECATED_SCRIPTS)
    assert set(DEPRECATED_SCRIPTS.values()) <= set(COMMANDS)


@pytest.mark.parametrize("old", sorted(DEPRECATED_SCRIPTS))
def test_an_old_script_name_warns_and_runs_its_command(old):
    new = module_name(DEPRECATED_SCRIPTS[old])
    r = run_script(os.path.join(ROOT, "scripts", f"{old}.py"), "--help")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        f"warning: scripts/{old}.py is deprecated, use scripts/{new}.py "
        f"(= ospiel-ext {DEPRECATED_SCRIPTS[old]})"
    ]
    assert r.stdout == command(DEPRECATED_SCRIPTS[old], "--help").stdout


def test_an_old_script_name_writes_what_the_new_one_writes(tmp_path):
    outputs = []
    for script in ("game_stats", "stats"):
        out = tmp_path / f"{script}.json"
        r = run_script(
            os.path.join(ROOT, "scripts", f"{script}.py"), "--game=kuhn_poker",
            f"--output_json={out}",
        )  # fmt: skip
        assert r.returncode == 0, r.stderr
        assert ("deprecated" in r.stderr) == (script == "game_stats")
        data = json.loads(out.read_text())
        data.pop("provenance")
        outputs.append(_without_timings(data))
    assert outputs[0] == outputs[1] and outputs[0]["histories"] == 58  # Kuhn: 58 nodes


def test_no_command_and_unknown_command_are_usage_errors():
    r = command()
    assert r.returncode == 2 and "commands:" in r.stdout
    r = command("sovle", "--game=kuhn_poker")
    assert r.returncode == 2
    assert r.stderr.strip().splitlines() == [
        f"error: unknown command 'sovle'; commands: {', '.join(COMMANDS)}"
    ]


def test_subcommand_help_shows_its_docstring_and_flags():
    r = command("solve", "--help")
    assert r.returncode == 0
    assert "sequence-form LP" in r.stdout and "--solver" in r.stdout


def _without_timings(data):
    return {k: v for k, v in data.items() if "seconds" not in k}


def test_subcommand_writes_the_same_json_as_the_script(tmp_path):
    out_command, out_script = tmp_path / "a.json", tmp_path / "b.json"
    r = command("stats", "--game=leduc_poker", f"--output_json={out_command}")
    assert r.returncode == 0, r.stderr
    s = run_script(
        os.path.join(ROOT, "scripts", "stats.py"), "--game=leduc_poker",
        f"--output_json={out_script}",
    )  # fmt: skip
    assert s.returncode == 0, s.stderr
    a, b = json.loads(out_command.read_text()), json.loads(out_script.read_text())
    made_by = a.pop("provenance"), b.pop("provenance")
    typed = f"ospiel-ext stats --game=leduc_poker --output_json={out_command}"
    assert made_by[0]["command"] == typed
    assert made_by[1]["command"].startswith("python scripts/stats.py --game=leduc_poker")
    assert made_by[0]["commit"] == made_by[1]["commit"]
    assert _without_timings(a) == _without_timings(b)
    assert a["infosets_0"] == a["infosets_1"] == 468  # Leduc: 6 x 78 per player


def test_bad_flag_is_one_line_error_through_the_command():
    r = command("solve", "--game=kuhn_poker", "--iterations=-3")
    assert r.returncode == 2
    assert len(r.stderr.strip().splitlines()) == 1 and r.stderr.startswith("error:")


def test_installed_entry_point():
    if sys.prefix == sys.base_prefix:
        pytest.skip("not in a virtual environment: the package may not be installed")
    program = os.path.join(os.path.dirname(sys.executable), "ospiel-ext")
    assert os.path.exists(program), "pip install -e . did not install the ospiel-ext command"
    r = command("--help", program=(program,))
    assert r.returncode == 0 and "depth-limited" in r.stdout
