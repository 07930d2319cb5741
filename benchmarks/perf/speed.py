"""Speed of the array core against OpenSpiel (and LiteEFG), side by side in one process.

  python benchmarks/perf/speed.py --output_json=benchmarks/speed.json

For each game: CFR+ seconds per iteration (ours, pyspiel.CFRPlusSolver in C++, LiteEFG's
CFR+ when the package is installed) and our EGT's seconds per step (xi = 0.005, xi = 0, and
the aggressive rule), exploitability of a random TabularPolicy (ours vs
open_spiel.python.algorithms.exploitability), the sequence-form LP (ours on HiGHS vs
open_spiel.python.algorithms.sequence_form_lp when cvxpy is installed), and compile time.
Iteration timings are interleaved in rounds (ours, then each peer, repeated) after a warm-up,
and a ratio is the median of the per-round ratios, so load on this shared machine hits both
sides alike. Finally, in a fresh subprocess, the RSS after imports and the peak RSS while
compiling liars_dice(numdice=1,dice_sides=6) (VmHWM, reset after the imports).
"""

import statistics
import subprocess
import sys
import time

import pyspiel
import timing
from absl import flags
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, lp, policies, sequence_form, walk
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

GAMES = [
    "leduc_poker",
    "liars_dice(numdice=1,dice_sides=4)",
    "turn_based_simultaneous_game(game=goofspiel(num_cards=5,imp_info=True,"
    "points_order=descending))",
]

_GAMES = flags.DEFINE_multi_string("games", GAMES, "A game to measure; repeat the flag for more.")
_ROUNDS = flags.DEFINE_integer("rounds", 5, "Interleaved timing rounds.")
_CHUNK = flags.DEFINE_float("chunk_seconds", 0.5, "Seconds per solver per round.")
_LP_PEER = flags.DEFINE_boolean("lp_peer", True, "Also time OpenSpiel's cvxpy LP.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def interleaved(steps, rounds, seconds, warmup=3):
    """Per-call seconds of each step (median over rounds) and per-round ratios to the first."""
    for step in steps.values():
        for _ in range(warmup):
            step()
    per_round = {name: [] for name in steps}
    for _ in range(rounds):
        for name, step in steps.items():
            per_round[name].append(timing.seconds_per_call(step, seconds))
    first = next(iter(steps))
    return {
        name: {
            "seconds": statistics.median(times),
            "ratio_to_ours": statistics.median(t / o for t, o in zip(times, per_round[first])),
        }
        for name, times in per_round.items()
    }


def _liteefg_step(game):
    try:
        import LiteEFG as leg
        from LiteEFG.baselines.CFRplus import graph
    except ImportError:
        return None
    g = graph()
    env = leg.OpenSpielEnv(game, traverse_type="Enumerate", regenerate=False)
    env.set_graph(g)

    def step():
        g.update_graph(env)
        env.update_strategy(g.current_strategy(), update_best=False)

    return step


def _cfr_rows(game, sf):
    ours = cfr.CFRPlusSolver(sf)
    steps = {
        "ours": ours.evaluate_and_update_policy,
        # EGT steps (the 1.5x goal's row: xi = 0.005, Algorithm 1's step), unperturbed, aggressive
        "ours_egt_step": egt.EGTSolver(sf, xi=0.005, dgf_weight=1e-4).evaluate_and_update_policy,
        "ours_egt_step_xi0": egt.EGTSolver(sf, dgf_weight=1e-4).evaluate_and_update_policy,
        "ours_egt_aggressive_step": egt.EGTSolver(
            sf, stepping="aggressive"
        ).evaluate_and_update_policy,
        "openspiel_cpp": pyspiel.CFRPlusSolver(game).evaluate_and_update_policy,
    }
    lite = _liteefg_step(game)
    if lite is not None:
        steps["liteefg"] = lite
    return interleaved(steps, _ROUNDS.value, _CHUNK.value)


def _exploitability_rows(game, sf):
    pol = policies.random_policy(game, seed=0)
    evaluate.exploitability(game, pol)  # warm: compile and layout are cached per game
    steps = {
        "ours": lambda: evaluate.exploitability(game, pol),
        "openspiel_py": lambda: os_exploitability.exploitability(game, pol),
    }
    return interleaved(steps, max(1, _ROUNDS.value // 2), _CHUNK.value, warmup=1)


def _lp_rows(game, sf):
    start = time.perf_counter()
    ours = lp.solve(sf)
    rows = {"ours": {"seconds": time.perf_counter() - start, "value": ours.value}}
    if _LP_PEER.value:
        try:
            from open_spiel.python.algorithms import sequence_form_lp
        except ImportError as e:
            rows["openspiel_cvxpy"] = {"skipped": f"needs cvxpy ({e})"}
            return rows
        start = time.perf_counter()
        try:
            value = sequence_form_lp.solve_zero_sum_game(game)[0]
        except Exception as e:  # pylint: disable=broad-except  (report the peer's failure)
            rows["openspiel_cvxpy"] = {"skipped": f"failed: {type(e).__name__}: {e}"}
            return rows
        seconds = time.perf_counter() - start
        rows["openspiel_cvxpy"] = {
            "seconds": seconds,
            "value": value,
            "ratio_to_ours": seconds / rows["ours"]["seconds"],
        }
    return rows


_RSS_SCRIPT = """
import re
from ospiel_ext import sequence_form
def status(field):
  return int(re.search(field + r":\\s+(\\d+)", open("/proc/self/status").read()).group(1))
before = status("VmRSS")
with open("/proc/self/clear_refs", "w") as f:   # resets VmHWM, the peak RSS, to now
  f.write("5")
sequence_form.for_game("liars_dice(numdice=1,dice_sides=6)")
print(before, status("VmHWM"))
"""


def _peak_rss_mb():
    """(RSS after imports, peak RSS while compiling) in MB, in a fresh subprocess."""
    out = subprocess.run(
        [sys.executable, "-c", _RSS_SCRIPT], check=True, capture_output=True, text=True
    ).stdout.split()
    return int(out[-2]) / 1024, int(out[-1]) / 1024


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_ROUNDS)
    cli_flags.positive(_CHUNK)
    cli_flags.output_path(_OUTPUT_JSON)
    games = {name: cli.load_game(name) for name in _GAMES.value}  # every game, before the work
    results = {}
    for name, game in games.items():
        start = time.perf_counter()
        sequence_form.TreeSequenceForm(walk.game_tree(game))
        compile_seconds = time.perf_counter() - start
        sf = sequence_form.for_game(game)
        results[name] = {
            "compile_seconds": compile_seconds,
            "cfr_plus": _cfr_rows(game, sf),
            "exploitability": _exploitability_rows(game, sf),
            "lp": _lp_rows(game, sf),
        }
        r = results[name]
        rows = [
            ("CFR+ iteration", name_, v["seconds"], v["ratio_to_ours"])
            for name_, v in r["cfr_plus"].items()
        ]
        rows += [
            ("exploitability", name_, v["seconds"], v["ratio_to_ours"])
            for name_, v in r["exploitability"].items()
        ]
        rows += [
            (
                "sequence-form LP",
                name_,
                v.get("seconds", "-"),
                v.get("ratio_to_ours", 1.0) if "seconds" in v else v.get("skipped"),
            )
            for name_, v in r["lp"].items()
        ]
        print(f"\n{name} (compile {compile_seconds:.2f}s)")
        print(format_table(["measure", "implementation", "seconds", "time / ours"], rows))
    base, compiled = _peak_rss_mb()
    results["peak_rss_mb_liars_dice_1x6"] = {
        "import_only": base,
        "compiled": compiled,
        "compile_increment": compiled - base,
    }
    print(
        f"\npeak RSS, liars_dice(numdice=1,dice_sides=6): imports {base:.0f} MB, "
        f"compiled {compiled:.0f} MB (+{compiled - base:.0f} MB)"
    )
    cli_output.write_json(_OUTPUT_JSON.value, results)


if __name__ == "__main__":
    cli.main(main)
