"""Renamed flags keep their old spelling for one release (`cli_flags.rename`, `cli.main`).

The old spelling works and prints one warning line; the new one works without it; both
together are a one-line error (exit code 2). Where one old name meant different things in
different commands (--epsilon, --max_nodes, --games), each command maps it to its own flag.
"""

import glob
import json
import os

import pytest
from absl import app, flags
from forkserver import run_module, run_script

from ospiel_ext.cli import flags as cli_flags

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

RENAMED = {
    "certify": {"epsilon": "target_epsilon", "max_nodes": "max_trunk_nodes"},
    "egt": {"epsilon": "target_gap", "checkpoints": "num_checkpoints"},
    "subgame": {"epsilon": "tremble"},
    "shrink": {"solve": "solver"},
    "head-to-head": {"games": "num_games"},
    "play": {"games": "num_games"},
    "solve": {},
    "stats": {},
}
"""Command -> its deprecated flag spellings -> the flags that replace them (README's table)."""


def _command(*args):
    """`python -m ospiel_ext args` (forked from a warm interpreter: `forkserver`)."""
    return run_module("ospiel_ext", *args)


def _deprecated_in_help(help_text: str) -> dict[str, str]:
    lines = help_text.split("deprecated spellings (accepted for one more release):\n")
    if len(lines) == 1:
        return {}
    out = {}
    for line in lines[1].splitlines():
        if not line.startswith("  --"):
            break
        old, new = line.strip().split(": use ")
        out[old.removeprefix("--")] = new.removeprefix("--")
    return out


@pytest.mark.parametrize("command", sorted(RENAMED))
def test_each_command_accepts_exactly_its_old_spellings(command):
    r = _command(command, "--help")
    assert r.returncode == 0, r.stderr
    assert _deprecated_in_help(r.stdout) == RENAMED[command]


def _flag_values():
    fv = flags.FlagValues()
    flags.DEFINE_float("target_epsilon", 0.0, "new", flag_values=fv)
    flags.DEFINE_bool("solver_runs", True, "new", flag_values=fv)
    flags.DEFINE_multi_string("games", [], "new", flag_values=fv)
    cli_flags.rename("epsilon", "target_epsilon", flag_values=fv)
    cli_flags.rename("runs", "solver_runs", flag_values=fv)
    cli_flags.rename("game", "games", flag_values=fv)
    return fv


@pytest.mark.parametrize(
    "argv, values, warnings",
    [
        (["--target_epsilon=0.5"], (0.5, True, []), []),
        (["--epsilon=0.5"], (0.5, True, []), ["--epsilon is deprecated, use --target_epsilon"]),
        (
            ["--epsilon", "0.25"],
            (0.25, True, []),
            ["--epsilon is deprecated, use --target_epsilon"],
        ),
        (["--noruns"], (0.0, False, []), ["--runs is deprecated, use --solver_runs"]),
        (["--game=a", "--game=b"], (0.0, True, ["a", "b"]), ["--game is deprecated, use --games"]),
        (["--nosolver_runs", "--games=a"], (0.0, False, ["a"]), []),
    ],
)
def test_old_spelling_sets_the_new_flag_and_warns(argv, values, warnings):
    fv = _flag_values()
    fv(["prog", *argv])
    assert (fv.target_epsilon, fv.solver_runs, fv.games) == values
    assert cli_flags.deprecated_spellings(fv) == warnings


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--epsilon=0.5", "--target_epsilon=0.1"], "--epsilon is the deprecated spelling of "),
        (["--target_epsilon=0.1", "--epsilon=0.5"], "give --target_epsilon only"),
        (["--runs", "--nosolver_runs"], "--runs is the deprecated spelling of --solver_runs"),
        (["--game=a", "--games=b"], "--game is the deprecated spelling of --games"),
    ],
)
def test_old_and_new_spelling_together_are_refused(argv, message):
    fv = _flag_values()
    fv(["prog", *argv])
    with pytest.raises(app.UsageError, match=message):
        cli_flags.deprecated_spellings(fv)


@pytest.mark.parametrize(
    "argv, warnings",
    [
        (["--out_dir=d"], ["--out_dir is deprecated, use --plots_dir and --output_json"]),
        (["--plots_dir=d", "--output_json=r.json"], []),
    ],
)
def test_a_deprecated_flag_with_several_successors(argv, warnings):
    def parsed(*args):
        fv = flags.FlagValues()
        out_dir = flags.DEFINE_string("out_dir", None, "old", flag_values=fv)
        flags.DEFINE_string("plots_dir", None, "new", flag_values=fv)
        flags.DEFINE_string("output_json", None, "new", flag_values=fv)
        cli_flags.deprecate(out_dir, "plots_dir", "output_json", flag_values=fv)
        fv(["prog", *args])
        return fv

    assert cli_flags.deprecated_spellings(parsed(*argv)) == warnings
    with pytest.raises(app.UsageError, match="--out_dir is replaced by --output_json"):
        cli_flags.deprecated_spellings(parsed("--out_dir=d", "--output_json=r.json"))


def test_old_spelling_works_through_the_command_with_one_warning(tmp_path):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    r = _command("certify", "--game=kuhn_poker", "--epsilon=0.5", f"--output_json={old}")
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == ["warning: --epsilon is deprecated, use --target_epsilon"]
    r = _command("certify", "--game=kuhn_poker", "--target_epsilon=0.5", f"--output_json={new}")
    assert r.returncode == 0 and "warning" not in r.stderr, r.stderr
    rows = [json.loads(p.read_text()) for p in (old, new)]
    for row in rows:
        row.pop("provenance")
        for key in ("seconds", "lp_seconds"):
            row.pop(key)
    assert rows[0] == rows[1]
    assert rows[0]["stop_reason"] == "epsilon" and rows[0]["epsilon"] <= 0.5


def test_old_spelling_means_each_commands_own_flag(tmp_path):
    """--epsilon is the tremble of `subgame` and the target gap of `egt`."""
    r = _command("subgame", "--game=kuhn_poker", "--blueprint=cfr:5", "--epsilon=2")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "warning: --epsilon is deprecated, use --tremble",
        "error: --tremble must be in (0, 1), got 2.0",
    ]
    out = tmp_path / "egt.json"
    r = _command(
        "egt", "--game=kuhn_poker", "--iterations=10", "--dgf_weight=0.05", "--epsilon=1000",
        f"--output_json={out}",
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    row = json.loads(out.read_text())
    assert row["epsilon"] == 1000 and row["epsilon_reached"] and row["final_iteration"] == 10


def test_old_and_new_spelling_together_end_the_command_in_one_line():
    r = _command("head-to-head", "--game=kuhn_poker", "--games=4", "--num_games=6")
    assert r.returncode == 2
    assert r.stderr.splitlines() == [
        "error: --games is the deprecated spelling of --num_games: give --num_games only"
    ]


def _benchmark(name):
    """The path of benchmarks/papers/NAME.py or benchmarks/perf/NAME.py."""
    (path,) = glob.glob(os.path.join(ROOT, "benchmarks", "*", f"{name}.py"))
    return path


RENAMED_BENCHMARKS = {
    "certificate_costs": {"max_nodes": "max_trunk_nodes"},
    "certificate_lp_methods": {"variants": "lp_methods"},
    "certificates": {"compile_max_nodes": "max_nodes"},
    "efpe": {"out_dir": "plots_dir and --output_json", "plots": "plots_dir"},
    "egt_stepping": {"target": "target_exploitability", "refine_target": "refine_target_gap"},
    "gameshrink": {
        "lossless": "lossless_games",
        "ri_seconds": "ri_time_limit",
        "approximate": "approximate_game",
    },
    "gameshrink_full_scale": {"transformations": "filters", "seconds": "time_limit"},
    "ggse": {"epsilon": "tremble"},
    "depth_limited": {"sets": "strategy_sets"},
    "nested_solving_round_robin": {"eps": "tremble", "games": "num_games", "seconds": "time_limit"},
    "nested_solving_sampling": {"eps": "tremble", "game": "games"},
    "nested_solving_speed": {"eps": "tremble", "games": "num_games", "seconds": "time_limit"},
    "depth_limited_off_tree": {"method": "solver"},
    "openspiel_iterates": {"points": "checkpoints"},
    "poker_scale": {"curve_seconds": "curve_time_limit"},
    "range_cfr_run": {"seconds": "time_limit"},
    "rhode_island_plot": {"runs": "run_jsons", "explicit": "explicit_json", "output": "plot"},
    "speed": {},
}
"""Benchmark -> its deprecated flag spellings -> what replaces them."""


@pytest.mark.parametrize("benchmark", sorted(RENAMED_BENCHMARKS))
def test_each_benchmark_accepts_exactly_its_old_spellings(benchmark):
    r = run_script(_benchmark(benchmark), "--help", cwd=ROOT)
    assert r.returncode == 0, r.stderr
    assert _deprecated_in_help(r.stdout) == RENAMED_BENCHMARKS[benchmark]


def test_efpe_old_output_folder_writes_the_json_there(tmp_path):
    """--out_dir=D --noplots (deprecated) is --output_json=D/efpe.json without --plots_dir."""
    r = run_script(
        _benchmark("efpe"), "--games=kuhn_poker", "--traversals=6", "--aggressive_xis=",
        f"--out_dir={tmp_path}", "--noplots", cwd=ROOT,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stderr.splitlines() == [
        "warning: --out_dir is deprecated, use --plots_dir and --output_json",
        "warning: --plots is deprecated, use --plots_dir",
    ]
    assert [p.name for p in tmp_path.iterdir()] == ["efpe.json"]
    assert "kuhn_poker()" in json.loads((tmp_path / "efpe.json").read_text())
