"""Poker at scale: the public-tree sequence form against the explicit one.

  python benchmarks/perf/poker_scale.py --output_json=docs/results/poker_scale.json

Part 1, per game of --games, in this one process: build each form (the explicit one walks
the game into a GameTree and its sparse payoff matrix; the public tree reads the game's
description and walks no tree), run a warm-up of CFR+ iterations on it, and read the peak
resident set size of that phase (VmHWM, reset before the phase through /proc/self/clear_refs;
the public form first, so the explicit phase's peak also holds the public form, a few MB);
then time CFR+ iterations of both in interleaved rounds so that load on this shared machine
hits both alike: `iteration_speedup` is the median over rounds of explicit / public seconds per
iteration. The two solvers' average strategies are compared after the timing (their largest
difference: the forms sum the same terms in different orders).

Part 2, on --curve_game: CFR+ and DCFR on the public-tree form for --curve_time_limit seconds
each, the exact exploitability (best responses on the same form) at geometrically spaced
iterations.
The explicit form's iterates are the same (tests/algorithms/poker), so its curve per
iteration is this one; per second it is slower by the speed-up of part 1.

Part 3, on --lossless_game (Rhode Island Hold'em): the headline comparison. CFR+ on
GameShrink's lossless abstraction, the explicit product sequence form of Γ_f (5.5 M LP rows,
133 M nonzeros), against CFR+ on the range layout of the whole game with suit isomorphism
(`poker.range_cfr`, 13 / 325 boards per later round) in three variants: float64 on one
thread (the explicit form's arithmetic on its one core), float32 on one thread, and float32
on --range_threads threads. Each is built and warmed up in its own memory phase, and all are
timed in interleaved rounds: `lossless` {game, build_and_warmup_seconds {explicit, range},
peak_rss_bytes {explicit, range}, peak_rss_increase_bytes, explicit_seconds_per_iteration,
range_seconds_per_iteration, iteration_speedup (these of the float64 one-thread variant),
range_variants [{dtype, threads, seconds_per_iteration, iteration_speedup,
build_and_warmup_seconds, peak_rss_increase_bytes}], explicit_sequences,
explicit_payoff_nonzeros, range_boards, range_entries}. The variants share one layout, so a
later variant's peak RSS holds the earlier solvers: its memory is its rise.

Part 4, on each of --lp_games: the game value of the sequence-form LP (HiGHS) against
--lp_iterations of CFR+ on the range layout with suits: `lp_check` [{game, lp_value,
iterations, cfr_plus_value, exploitability, value_interval [-br_1, br_0] (holds the game
value), lp_value_in_interval}]. Rhode Island's own LP (91 M rows; Γ_f's 5.5 M) is out of
reach; these are the largest variants whose LP solves in about a minute.

On the public-tree form the pack's CFR solvers run the range layout from
`poker.range_engine.RANGE_MIN_SEQUENCES` sequences up, the sequence-form passes below.

JSON keys: games {game: {build_seconds {explicit, public_tree}, peak_rss_bytes {explicit,
public_tree}, peak_rss_increase_bytes {explicit, public_tree} (VmHWM minus the RSS before the
phase), explicit_seconds_per_iteration, public_tree_seconds_per_iteration, iteration_speedup,
sequences (per player), payoff_nonzeros (explicit), public_terminals (betting terminals x
boards), max_strategy_difference}}; for the largest game (the last of --games) the same
iteration_speedup, explicit_seconds_per_iteration, public_tree_seconds_per_iteration and
peak_rss_bytes at the top level, with largest_game; curve_game, and per solver (cfr_plus,
dcfr) {curve [{iterations, seconds, exploitability}], exploitability (final), game_value
(player 0's value of the final average profile), seconds (total, evaluations excluded),
iterations, seconds_to_1e-3 (null when not reached)}; cfr_plus's also at the top level;
stop_reason ('complete' or 'interrupted').

Ctrl-C or SIGTERM: a convergence run of part 2 stops after its current iteration, any other
phase at once; the parts so far are written with stop_reason 'interrupted' and no later part
starts (exit 130).
"""

import functools
import gc
import statistics
import time

import numpy as np
import timing
from absl import flags

from ospiel_ext import lp, walk
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, cfr_rules, gameshrink
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.gameshrink import abstract_game
from ospiel_ext.algorithms.poker import range_cfr, range_tree, structure
from ospiel_ext.algorithms.poker.public_tree import PublicTree
from ospiel_ext.algorithms.poker.range_form import PublicTreeSequenceForm
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import TreeSequenceForm

GAMES = [
    "limit_leduc_poker(num_ranks=13)",
    "rhode_island_holdem(num_ranks=6,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=6,num_suits=2)",
]
CURVE_GAME = "rhode_island_holdem(num_ranks=6,num_suits=2)"

_GAMES = flags.DEFINE_multi_string("games", GAMES, "A game to measure; repeat the flag for more.")
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Interleaved timing rounds.")
_CHUNK = flags.DEFINE_float("chunk_seconds", 1.0, "Seconds per form per round.")
_WARMUP = flags.DEFINE_integer("warmup", 3, "CFR+ iterations in each form's memory phase.")
_CURVE_GAME = flags.DEFINE_string("curve_game", CURVE_GAME, "The game of the convergence runs.")
_CURVE_TIME_LIMIT = flags.DEFINE_float(
    "curve_time_limit", 45.0, "Seconds of each convergence run (CFR+, DCFR); 0: none."
)
cli_flags.rename("curve_seconds", "curve_time_limit")
_LOSSLESS = flags.DEFINE_string(
    "lossless_game",
    "rhode_island_holdem",
    "Part 3's game: its GameShrink lossless abstraction (explicit) against the range layout "
    "with suit isomorphism; empty: no part 3.",
)
_RANGE_THREADS = flags.DEFINE_integer(
    "range_threads",
    2,
    "Part 3: the threads of the last range variant (float32; `range_walker.RangeWalker`).",
    lower_bound=1,
)
_LP_GAMES = flags.DEFINE_multi_string(
    "lp_games",
    [
        "rhode_island_holdem(num_ranks=3,num_suits=2)",
        "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
    ],
    "Part 4: games whose LP value is compared with the range layout's CFR+ (with suits).",
)
_LP_ITERATIONS = flags.DEFINE_integer("lp_iterations", 2000, "Part 4's CFR+ iterations.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")

TARGET = 1e-3


def _phase(make, warmup):
    """(form, CFR+ solver after `warmup` iterations, build seconds, peak RSS, its rise)."""

    def build():
        start = time.perf_counter()
        form = make()
        seconds = time.perf_counter() - start
        solver = cfr.CFRPlusSolver(form)
        for _ in range(warmup):
            solver.evaluate_and_update_policy()
        return form, solver, seconds

    (form, solver, seconds), _, peak, rise = _peak_phase(build)
    return form, solver, seconds, peak, rise


def _interleaved(solvers):
    """Seconds per iteration of solvers {name: solver} (one named 'explicit') timed in
    interleaved rounds: ({name: median seconds per iteration}, {name: median over rounds of
    explicit / name})."""
    times: dict[str, list[float]] = {k: [] for k in solvers}
    for _ in range(_ROUNDS.value):
        for key, solver in solvers.items():
            times[key].append(
                timing.seconds_per_call(solver.evaluate_and_update_policy, _CHUNK.value)
            )
    seconds = {k: statistics.median(t) for k, t in times.items()}
    speedups = {
        k: statistics.median(e / o for e, o in zip(times["explicit"], t)) for k, t in times.items()
    }
    return seconds, speedups


def _versus_explicit(explicit, other, name):
    """{explicit_seconds_per_iteration, <name>_seconds_per_iteration, iteration_speedup}."""
    seconds, speedups = _interleaved({"explicit": explicit, name: other})
    return {
        "explicit_seconds_per_iteration": seconds["explicit"],
        f"{name}_seconds_per_iteration": seconds[name],
        "iteration_speedup": speedups[name],
    }


def _peak_phase(make):
    """(made, seconds, peak RSS over the phase, peak minus the RSS before)."""
    gc.collect()
    with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
        f.write("5")
    before, start = timing.status_bytes("VmRSS"), time.perf_counter()
    made = make()
    seconds = time.perf_counter() - start
    peak = timing.status_bytes("VmHWM")
    return made, seconds, peak, peak - before


def _lossless(game):
    """Part 3: CFR+ on GameShrink's lossless abstraction (the explicit product sequence form
    of Γ_f) against CFR+ on the range layout of the whole game with suit isomorphism, in each
    of `_range_variants` (dtype, threads), each built and run for the warm-up in its own memory
    phase (the layout is built in the first), then all timed in interleaved rounds."""

    def explicit():
        sf = abstract_game.AbstractGame.of(gameshrink.gameshrink(game)).sequence_form
        solver = cfr.CFRPlusSolver(sf)
        for _ in range(_WARMUP.value):
            solver.evaluate_and_update_policy()
        return sf, solver

    trees: list[range_tree.RangeTree] = []

    def ranged(dtype, threads):
        if not trees:
            trees.append(range_tree.RangeTree(structure.detect(game), suits=True))
        solver = range_cfr.RangeCFRSolver(
            trees[0], cfr_rules.CFR_PLUS, dtype=dtype, threads=threads
        )
        for _ in range(_WARMUP.value):
            solver.evaluate_and_update_policy()
        return solver

    variants = {}
    for dtype, threads in _range_variants():
        made, seconds, peak, rise = _peak_phase(functools.partial(ranged, dtype, threads))
        variants[f"range_{dtype}_{threads}"] = (dtype, threads, made, seconds, peak, rise)
    (sf, theirs), explicit_seconds, explicit_peak, explicit_rise = _peak_phase(explicit)
    seconds, speedups = _interleaved({"explicit": theirs, **{k: v[2] for k, v in variants.items()}})
    first = next(iter(variants))  # float64, one thread: the like-for-like comparison
    _, _, ours, range_seconds, range_peak, range_rise = variants[first]
    return {
        "game": str(game),
        "build_and_warmup_seconds": {"explicit": explicit_seconds, "range": range_seconds},
        "peak_rss_bytes": {"explicit": explicit_peak, "range": range_peak},
        "peak_rss_increase_bytes": {"explicit": explicit_rise, "range": range_rise},
        "explicit_seconds_per_iteration": seconds["explicit"],
        "range_seconds_per_iteration": seconds[first],
        "iteration_speedup": speedups[first],
        "range_variants": [
            {
                "dtype": dtype,
                "threads": threads,
                "seconds_per_iteration": seconds[key],
                "iteration_speedup": speedups[key],
                "build_and_warmup_seconds": build,
                "peak_rss_increase_bytes": rise,
            }
            for key, (dtype, threads, _, build, _, rise) in variants.items()
        ],
        "explicit_sequences": list(sf.shape),
        "explicit_payoff_nonzeros": int(sf.payoff.nnz),
        "range_boards": [lay.deals.num_boards for lay in trees[0].rounds],
        "range_entries": ours.entries,
    }


def _range_variants():
    """Part 3's range solvers (dtype, threads): float64 on one thread first (the explicit
    form's arithmetic and its one core), then float32 on one and on --range_threads."""
    out = [("float64", 1), ("float32", 1), ("float32", _RANGE_THREADS.value)]
    return list(dict.fromkeys(out))


def _lp_check(game):
    """Part 4: the LP's game value against CFR+ on the range layout (suits), which brackets
    it: the value of any profile and the game's lie in [-br_1, br_0], an interval of width
    twice the exploitability."""
    value = lp.solve(sf_lib.for_game(game)).value
    solver = range_cfr.RangeCFRSolver(
        range_tree.RangeTree(structure.detect(game), suits=True), cfr_rules.CFR_PLUS
    )
    for _ in range(_LP_ITERATIONS.value):
        solver.evaluate_and_update_policy()
    evaluation = solver.evaluate_average()
    br0, br1 = evaluation.best_response_values
    return {
        "game": str(game),
        "lp_value": value,
        "iterations": solver.iteration,
        "cfr_plus_value": evaluation.on_policy_values[0],
        "exploitability": evaluation.exploitability,
        "value_interval": [-br1, br0],
        "lp_value_in_interval": bool(-br1 - 1e-12 <= value <= br0 + 1e-12),
    }


def _measure(game):
    public, ours, public_build, public_peak, public_rise = _phase(
        lambda: PublicTreeSequenceForm(PublicTree(structure.detect(game))), _WARMUP.value
    )
    explicit, theirs, explicit_build, explicit_peak, explicit_rise = _phase(
        lambda: TreeSequenceForm(walk.game_tree(game)), _WARMUP.value
    )
    timings = _versus_explicit(theirs, ours, "public_tree")
    # the same number of iterations on both before comparing the strategies
    while ours.iteration < theirs.iteration:
        ours.evaluate_and_update_policy()
    while theirs.iteration < ours.iteration:
        theirs.evaluate_and_update_policy()
    difference = max(
        float(np.abs(a - b).max())
        for a, b in zip(ours.average_behavioural(), theirs.average_behavioural())
    )
    return {
        "build_seconds": {"explicit": explicit_build, "public_tree": public_build},
        "peak_rss_bytes": {"explicit": explicit_peak, "public_tree": public_peak},
        "peak_rss_increase_bytes": {"explicit": explicit_rise, "public_tree": public_rise},
        **timings,
        "sequences": list(explicit.shape),
        "payoff_nonzeros": int(explicit.payoff.nnz),
        "public_terminals": int(
            sum(b.sequences[0].shape[0] * b.sequences[0].shape[1] for b in public.blocks)
        ),
        "max_strategy_difference": difference,
    }


def _converge(form, solver_cls, seconds):
    """CFR+ / DCFR on `form` for `seconds` of wall-clock time (the pack's run loop), the exact
    exploitability at iterations 1, 2, ... growing by about 25 % (`solver.log_spaced`)."""
    result = solver_lib.run(
        solver_cls(form), 10**6, time_limit=seconds, checkpoints=solver_lib.log_spaced(10**6, 62)
    )
    c = result.curve
    curve = [
        {"iterations": i, "seconds": s, "exploitability": e}
        for i, s, e in zip(c.iterations, c.seconds, c.exploitability)
    ]
    reached = [p["seconds"] for p in curve if p["exploitability"] <= TARGET]
    return {
        "curve": curve,
        "exploitability": curve[-1]["exploitability"],
        "game_value": c.value[-1],
        "seconds": result.seconds,
        "iterations": result.iterations,
        "seconds_to_1e-3": reached[0] if reached else None,
    }


def _part1(output, games):
    """Part 1 into `output`: each game's forms side by side; its table printed."""
    results, rows = output.setdefault("games", {}), []
    for game in games:
        interrupts.check()
        r = results[str(game)] = _measure(game)
        gc.collect()
        rows.append(
            (
                str(game),
                f"{r['sequences'][0]}",
                f"{r['build_seconds']['explicit']:.1f} / {r['build_seconds']['public_tree']:.1f}",
                f"{r['explicit_seconds_per_iteration'] * 1e3:.1f}",
                f"{r['public_tree_seconds_per_iteration'] * 1e3:.1f}",
                f"{r['iteration_speedup']:.2f}x",
                f"{r['peak_rss_bytes']['explicit'] / 2**20:.0f} / "
                f"{r['peak_rss_bytes']['public_tree'] / 2**20:.0f}",
            )
        )
    header = ["game", "sequences", "build s (explicit / public)", "explicit ms/it"]
    header += ["public ms/it", "speed-up", "peak RSS MB (explicit / public)"]
    print(format_table(header, rows))
    largest = results[str(games[-1])]
    output.update(
        {
            "largest_game": str(games[-1]),
            **{
                k: largest[k]
                for k in (
                    "iteration_speedup",
                    "explicit_seconds_per_iteration",
                    "public_tree_seconds_per_iteration",
                    "peak_rss_bytes",
                )
            },
        }
    )


def _part2(output, curve_game):
    """Part 2 into `output`: CFR+ and DCFR on the public-tree form of `curve_game`."""
    form = PublicTreeSequenceForm(PublicTree(structure.detect(curve_game)))
    runs = {
        name: _converge(form, solver_cls, _CURVE_TIME_LIMIT.value)
        for name, solver_cls in (("cfr_plus", cfr.CFRPlusSolver), ("dcfr", cfr.DCFRSolver))
    }
    output.update(curve_game=str(curve_game), **runs, **runs["cfr_plus"])
    print(
        format_table(
            ["solver", "iterations", "seconds", "exploitability", "seconds to 1e-3", "value"],
            [
                (
                    name,
                    r["iterations"],
                    f"{r['seconds']:.1f}",
                    f"{r['exploitability']:.2e}",
                    r["seconds_to_1e-3"],
                    f"{r['game_value']:.6f}",
                )
                for name, r in runs.items()
            ],
        )
    )


def _part3(output):
    """Part 3 into `output`: the lossless comparison of --lossless_game."""
    lossless = _lossless(_LOSSLESS.value)
    output["lossless"] = lossless
    print(
        format_table(
            ["Γ_f explicit / range layout", "s/it", "speed-up", "peak RSS rise MB"],
            [
                (
                    "explicit, float64, 1 thread",
                    f"{lossless['explicit_seconds_per_iteration']:.3f}",
                    "",
                    f"{lossless['peak_rss_increase_bytes']['explicit'] / 2**20:.0f}",
                ),
                *(
                    (
                        f"range, {v['dtype']}, {v['threads']} thread(s)",
                        f"{v['seconds_per_iteration']:.3f}",
                        f"{v['iteration_speedup']:.2f}x",
                        f"{v['peak_rss_increase_bytes'] / 2**20:.0f}",
                    )
                    for v in lossless["range_variants"]
                ),
            ],
        )
    )


def _part4(output, lp_games):
    """Part 4 into `output`: the LP values of `lp_games`."""
    output["lp_check"] = [_lp_check(g) for g in lp_games]
    print(
        format_table(
            ["game", "LP value", "CFR+ value", "exploitability", "LP in [-br1, br0]"],
            [
                (
                    r["game"],
                    f"{r['lp_value']:.6f}",
                    f"{r['cfr_plus_value']:.6f}",
                    f"{r['exploitability']:.2e}",
                    r["lp_value_in_interval"],
                )
                for r in output["lp_check"]
            ],
        )
    )


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_ROUNDS)
    cli_flags.positive(_CHUNK)
    cli_flags.output_path(_OUTPUT_JSON)
    games = [cli.load_game(name) for name in _GAMES.value]  # every game checked before the work
    curve_game = cli.load_game(_CURVE_GAME.value) if _CURVE_TIME_LIMIT.value > 0 else None
    lp_games = [g for g in _LP_GAMES.value if g]  # --lp_games= : none
    later = [cli.load_game(g) for g in [_LOSSLESS.value, *lp_games] if g]
    for game in [*games, *([curve_game] if curve_game else []), *later]:
        with cli_flags.refuse(ValueError):
            structure.detect(game)
    output = {}
    parts = [functools.partial(_part1, output, games)]
    if curve_game is not None:
        parts.append(functools.partial(_part2, output, curve_game))
    if _LOSSLESS.value:
        parts.append(functools.partial(_part3, output))
    if lp_games:
        parts.append(functools.partial(_part4, output, lp_games))
    try:
        for part in parts:
            interrupts.check()  # a run loop that stopped on Ctrl-C: no later part starts
            part()
        interrupts.check()
    except KeyboardInterrupt:  # the figures so far, then exit 130
        output["stop_reason"] = "interrupted"
        cli_output.write_json(_OUTPUT_JSON.value, output)
        raise SystemExit(cli.INTERRUPTED_EXIT_CODE) from None
    output["stop_reason"] = "complete"
    cli_output.write_json(_OUTPUT_JSON.value, output)


if __name__ == "__main__":
    cli.main(main)
