"""Poker at scale (issue 36): a CFR+ iteration on the public-tree sequence form against the
explicit one, side by side in one process.

  python benchmarks/poker_scale.py --output_json=docs/results/poker_scale.json

For each game: seconds to build each form (the explicit one compiles the game tree; the
public tree reads the game's description and never walks it), the memory each adds (resident
set size after building minus before; the process's peak RSS too), and CFR+ seconds per
iteration of each, timed in interleaved rounds after a warm-up so that load on this shared
machine hits both alike; `iteration_speedup` is the median over rounds of explicit / public.
Both solvers' strategies after the timing are compared (largest difference), a check that
the two forms ran the same algorithm.

JSON keys per game: build_seconds {explicit, public_tree}, rss_increase_bytes {explicit,
public_tree}, peak_rss_bytes (the process's, after the game), explicit_seconds_per_iteration,
public_tree_seconds_per_iteration, iteration_speedup, sequences (per player),
payoff_nonzeros (explicit), public_terminals (betting terminals x boards), max_strategy_difference.
"""

import resource
import statistics
import time

import numpy as np
from absl import flags

import ospiel_ext.games  # noqa: F401  (registers limit_leduc_poker and rhode_island_holdem)
from ospiel_ext import cli
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr
from ospiel_ext.algorithms.poker import range_form

GAMES = [
    "leduc_poker",
    "limit_leduc_poker(num_ranks=13)",
    "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=6,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=13,num_suits=1,max_raises=1)",
]

_GAMES = flags.DEFINE_multi_string("games", GAMES, "A game to measure; repeat the flag for more.")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Interleaved timing rounds.")
_CHUNK = flags.DEFINE_float("chunk_seconds", 1.0, "Seconds per form per round.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def _rss_bytes() -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def _peak_rss_bytes() -> int:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _built(make):
    before, start = _rss_bytes(), time.perf_counter()
    form = make()
    return form, time.perf_counter() - start, _rss_bytes() - before


def _per_call(step, seconds):
    calls, start = 0, time.perf_counter()
    while True:
        step()
        calls += 1
        elapsed = time.perf_counter() - start
        if elapsed >= seconds:
            return elapsed / calls


def _measure(name):
    public, public_build, public_rss = _built(lambda: range_form.for_game(name))
    explicit, explicit_build, explicit_rss = _built(lambda: sf_lib.for_game(name))
    solvers = {"explicit": cfr.CFRPlusSolver(explicit), "public_tree": cfr.CFRPlusSolver(public)}
    for solver in solvers.values():
        for _ in range(2):
            solver.evaluate_and_update_policy()
    times: dict[str, list[float]] = {k: [] for k in solvers}
    for _ in range(_ROUNDS.value):
        for key, solver in solvers.items():
            times[key].append(_per_call(solver.evaluate_and_update_policy, _CHUNK.value))
    ours, theirs = (s.average_behavioural() for s in (solvers["public_tree"], solvers["explicit"]))
    return {
        "build_seconds": {"explicit": explicit_build, "public_tree": public_build},
        "rss_increase_bytes": {"explicit": explicit_rss, "public_tree": public_rss},
        "peak_rss_bytes": _peak_rss_bytes(),
        "explicit_seconds_per_iteration": statistics.median(times["explicit"]),
        "public_tree_seconds_per_iteration": statistics.median(times["public_tree"]),
        "iteration_speedup": statistics.median(
            e / p for e, p in zip(times["explicit"], times["public_tree"])
        ),
        "sequences": list(explicit.shape),
        "payoff_nonzeros": int(explicit.payoff.nnz),
        "public_terminals": int(
            sum(b.sequences[0].shape[0] * b.sequences[0].shape[1] for b in public.blocks)
        ),
        "max_strategy_difference": float(max(np.abs(a - b).max() for a, b in zip(ours, theirs))),
    }


def main(argv):
    cli.no_arguments(argv)
    cli.positive(_ROUNDS)
    cli.positive(_CHUNK)
    cli.output_path(_OUTPUT_JSON)
    for name in _GAMES.value:
        cli.load_game(name)  # every game string checked before the work
    results, rows = {}, []
    for name in _GAMES.value:
        r = results[name] = _measure(name)
        rows.append(
            (
                name,
                f"{r['sequences'][0]}",
                f"{r['build_seconds']['explicit']:.2f} / {r['build_seconds']['public_tree']:.2f}",
                f"{r['explicit_seconds_per_iteration'] * 1e3:.2f}",
                f"{r['public_tree_seconds_per_iteration'] * 1e3:.2f}",
                f"{r['iteration_speedup']:.2f}x",
                f"{r['rss_increase_bytes']['explicit'] / 2**20:.0f} / "
                f"{r['rss_increase_bytes']['public_tree'] / 2**20:.0f}",
            )
        )
    print(
        cli.format_table(
            [
                "game",
                "sequences",
                "build s (explicit / public)",
                "explicit ms/it",
                "public ms/it",
                "speed-up",
                "MB (explicit / public)",
            ],
            rows,
        )
    )
    cli.write_json(_OUTPUT_JSON.value, results)


if __name__ == "__main__":
    cli.main(main)
