r"""Reproduce depth-limited solving with multi-valued states: Brown, Sandholm & Amos (2018),
"Depth-Limited Solving for Imperfect-Information Games" (NeurIPS), Section 2 (Figure 1),
Section 4 (multi-valued states, the bias and self-generative sets, Proposition 1) and the
compiled-game analogue of Section 6.1 (exploitability against the number of values K).

  python benchmarks/papers/depth_limited.py --output_json=docs/results/depth_limited.json \
      --plots_dir=docs/results

1. RPS+ (Figure 1): the LP equilibrium is the blueprint; player 0 solves the depth-limited game
   cut after one move (its own action) with K = 1..4 values from each set - every pure
   continuation of player 1, the bias set (the blueprint, then one action multiplied by 10),
   the self-generative set (the blueprint, then best responses). Per (set, K, solver): the
   depth-limited solution, its value in the depth-limited game, its exploitability in the full
   game, and, on a grid of step GRID_STEP over the simplex, every strategy that is optimal in
   the depth-limited game and the worst full-game exploitability among them (K = 1: every
   strategy is optimal, pure Scissors included).
2. Leduc (depth limit at the end of the first betting round, before the public card - the
   paper's Section 6 limits -, and after it, one continuation choice per public card),
   imperfect-information Goofspiel 5 (after 2 and 4 moves
   of the turn-based game = 1 and 2 rounds), Liar's dice 1,4 (after 1 and 2 bids): blueprints
   are checkpoints of one vanilla CFR run (--blueprints); depth-limited solving rooted at the
   start of the game for each player separately (its depth-limited game, the other player
   choosing among K values at its leaf information sets), the two strategies spliced into one
   profile. Sets: self-generative (K in --num_values; the K-set is the first K of the largest,
   since each round depends only on the earlier ones), bias (1 + number of action classes: the
   K of --num_values below that and the whole set, per player) and all pure continuations
   (Proposition 1's set; only where the library enumerates it for both players). Solvers: the
   LP and CFR+ (--iterations), the same solver generating the self-generative set. Beside
   each: the blueprint's exploitability, full-depth solving's (the same solver on the whole
   game; the LP's is 0) and the fixed-below bound: the least exploitability of a strategy that
   plays the blueprint at and below the depth limit (one sequence-form LP per player: what
   depth-limited solving reaches with every pure continuation, Proposition 1).

Exploitability is OpenSpiel's, of the profile ((E_0 + E_1) / 2, E_i = v_o^* less what a best
response gets against player i's strategy), from `evaluate.evaluate_profile`; E_i from
`evaluate.player_exploitability`. Prints markdown tables, writes one PNG per game
(--plots_dir) and the JSON (--output_json, one row per record).

Parts: `depth_limited_rps` (item 1), `depth_limited_games` (item 2: the settings, the records
and references it computes), `depth_limited_report` (item 2's tables and plots); this module
reads the flags and writes.
"""

import itertools
import os
import sys
import time

from absl import flags
from depth_limited_games import (
    CASES,
    SETS,
    SHORT,
    SOLVERS,
    Record,
    Reference,
    Settings,
    as_row,
    columns,
    run_case,
)
from depth_limited_report import case_plot, case_tables, summary
from depth_limited_rps import GRID_STEP, RPS_EQUILIBRIUM, rps_plot, rps_table, run_rps_plus

from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

GAMES = ("rps_plus", *CASES)

_GAMES = flags.DEFINE_list("games", list(GAMES), f"Games among {list(GAMES)}.")
_NUM_VALUES = flags.DEFINE_list(
    "num_values", ["1", "2", "4", "8", "16"], "K, the number of values per leaf state."
)
_SOLVERS = flags.DEFINE_list("solvers", list(SOLVERS), f"Solvers among {list(SOLVERS)}.")
_SETS = flags.DEFINE_list("sets", list(SETS), f"Continuation sets among {list(SETS)}.")
_BLUEPRINTS = flags.DEFINE_list(
    "blueprints", ["30", "300", "3000"], "Vanilla CFR checkpoints (iterations) as blueprints."
)
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ iterations per solve.")
_LP_VERTEX = flags.DEFINE_enum(
    "lp_vertex",
    "simplex",
    ["simplex", "ipm"],
    "The LP's optimal solution where the depth-limited game has many (ggse.LP_VERTICES): "
    "HiGHS's dual simplex or interior point with crossover.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_PLOTS_DIR = flags.DEFINE_string("plots_dir", None, "Write the PNGs here.")


def _settings():
    """The flags as `Settings`, checked (one-line usage errors)."""
    cli_flags.require(set(_GAMES.value) <= set(GAMES), f"--games must be among {list(GAMES)}")
    cli_flags.require(bool(_GAMES.value), "--games is empty")
    cli_flags.require(
        set(_SOLVERS.value) <= set(SOLVERS) and bool(_SOLVERS.value),
        f"--solvers must be among {list(SOLVERS)}",
    )
    cli_flags.require(
        set(_SETS.value) <= set(SETS) and bool(_SETS.value), f"--sets must be among {list(SETS)}"
    )
    num_values = sorted(set(cli_flags.int_list(_NUM_VALUES)))
    blueprints = cli_flags.int_list(_BLUEPRINTS)
    cli_flags.require(
        all(b > a for a, b in itertools.pairwise(blueprints)),
        "--blueprints must be strictly increasing",
    )
    cli_flags.positive(_ITERATIONS)
    return Settings(
        num_values=tuple(num_values),
        blueprints=tuple(blueprints),
        solvers=tuple(_SOLVERS.value),
        sets=tuple(_SETS.value),
        iterations=_ITERATIONS.value,
        lp_vertex=_LP_VERTEX.value,
    )


def _run_rps_plus(settings, checks, plt):
    """Item 1: prints the RPS+ table (and plots it with --plots_dir); returns its JSON fields."""
    start = time.perf_counter()
    rows, optimal_sets = run_rps_plus(settings, checks)
    seconds = round(time.perf_counter() - start, 2)
    print(f"\nRPS+ (Figure 1), player 0, cut after_moves=1, LP blueprint ({seconds} s)\n")
    print(rps_table(rows))
    result = {
        "rps_plus_equilibrium": list(RPS_EQUILIBRIUM),
        "rps_plus_grid_step": GRID_STEP,
        "rps_plus_rows": [r.as_json() for r in rows],
        "rps_plus_seconds": seconds,
    }
    if _PLOTS_DIR.value:
        path = os.path.join(_PLOTS_DIR.value, "depth_limited_rps_plus.png")
        rps_plot(settings, plt, path, optimal_sets)
        print("wrote", path)
    return result


def _run_cases(settings, checks):
    """Item 2 on the --games among CASES: (records, references, {game: seconds})."""
    records: list[Record] = []
    references: list[Reference] = []
    timings, blueprint_cache = {}, {}
    for name in [g for g in _GAMES.value if g in CASES]:
        start = time.perf_counter()
        for game, cut in CASES[name]:
            rec, ref = run_case(settings, game, cut, checks=checks, blueprint_cache=blueprint_cache)
            records += rec
            references += ref
        timings[name] = round(time.perf_counter() - start, 1)
        print(f"{name}: {timings[name]} s", flush=True)
    return records, references, timings


def _report_cases(settings, plt, records, references):
    """Prints item 2's tables (and plots them with --plots_dir)."""
    for solver in settings.solvers:
        print(f"\nExploitability of the depth-limited profile, solver {solver}\n")
        print(summary(settings, records, references, solver))
    for title, table in case_tables(records, references):
        print(f"\n{title}\n")
        print(table)
    if _PLOTS_DIR.value:
        for name in [g for g in _GAMES.value if g in CASES]:
            short = SHORT.get(CASES[name][0][0])
            path = os.path.join(_PLOTS_DIR.value, f"depth_limited_{short}.png")
            case_plot(settings, plt, path, short=short, records=records, references=references)
            print("wrote", path)


def main(argv):
    cli_flags.no_arguments(argv)
    settings = _settings()
    cli_flags.output_path(_OUTPUT_JSON)
    plt = None
    if _PLOTS_DIR.value:
        cli_flags.output_dir(_PLOTS_DIR)
        plt = cli_output.pyplot()
    wall = time.perf_counter()
    result = {}
    checks: list[str] = []
    if "rps_plus" in _GAMES.value:
        result.update(_run_rps_plus(settings, checks, plt))
    records, references, timings = _run_cases(settings, checks)
    if records:
        _report_cases(settings, plt, records, references)
    wall = time.perf_counter() - wall
    print(f"\nwall time {wall:.1f} s ({timings}); checks: {checks or 'all passed'}")
    if _OUTPUT_JSON.value:
        result.update(
            {
                "wall_seconds": round(wall, 1),
                "seconds_per_game": timings,
                "settings": settings.as_json(),
                "games": {short: game for game, short in SHORT.items()},
                "checks": checks,
                "columns": columns(Record),
                "records": [cli_output.round_figures(as_row(r)) for r in records],
                "reference_columns": columns(Reference),
                "references": [cli_output.round_figures(as_row(r)) for r in references],
            }
        )
        cli_output.write_rows_json(_OUTPUT_JSON.value, result)
    if checks:
        sys.exit(1)


if __name__ == "__main__":
    cli.main(main)
