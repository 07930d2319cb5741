r"""Head to head of bots: the nested depth-limited solving bot, the naive bot and the blueprint.

The naive bot is single-valued. Sources: Brown, Sandholm & Amos 2018, "Depth-Limited Solving
for Imperfect-Information Games", Table 1; Kubíček, Lisý & Sandholm 2025, "Equilibrium
Refinements Improve Subgame Solving in Imperfect-Information Games", Section 8.1's round robin
of gadget x prior.

  ospiel-ext head-to-head --game=leduc_poker --blueprint=cfr:100 \
      --bots=nested,naive,blueprint --num_games=10000 --num_values=4 --workers=2

Every pair of --bots (or, with --pairs=first_vs_rest, the first against each other one) plays
--num_games games through `pyspiel.evaluate_bots` in duplicate (games 2k and 2k + 1 deal from
chance seed --seed + 2k with the seats swapped; the bots' own streams are seeded from the two
bots' names, so the order of --bots changes nothing); prints each pair's mean return of the
first bot with 95 % confidence intervals over games and over deals (each deal is played from
both seats) and its win rate (draws count half), and for a round robin each bot's win rate
against its worst matchup (the paper's Figure 4). Bots: blueprint, naive[/GADGET[/PRIOR]]
(K = 1) and nested[/GADGET[/PRIOR]] (K = --num_values from --strategy_set); GADGET in resolving,
max_margin, reach_max_margin, unsafe; PRIOR in none, uniform, blueprint. --num_values: K
(default: 4, or fewer where the strategy set has fewer, as Kuhn poker's bias set has 3). The
games are split into tasks of --chunk games run on local processes (--workers, at most the
usable cores) or a Dask cluster (--scheduler).

--time_limit (the games; --solve_time_limit bounds each solve of a nested bot), Ctrl-C and
SIGTERM stop the run within moments: tasks not begun are cancelled, the running ones (also in
worker processes, which never outlive the command) return the games they finished, and those
are printed and written with stop_reason (exit code 130 after Ctrl-C or SIGTERM).

JSON keys: game, blueprint, settings, seconds, interrupted, stop_reason ('games',
'interrupted', 'time_limit'), pairs (a, b, games, mean, ci95, ci95_deals, win_rate,
chunk_totals: bot A's total return over each task's games, in game order), worst_matchups
(round robin: bot, win_rate, opponent, mean_win_rate).
"""

import itertools
import time
from typing import cast

from absl import app, flags, logging

from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms.depth_limited import match_report, matches
from ospiel_ext.algorithms.subgames import blueprints, ggse
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import executors, sweeps

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "cfr:100", "FILE, cfr:N or dirichlet:SEED.")
_BOTS = flags.DEFINE_list("bots", ["nested", "naive", "blueprint"], "Bot specs (2 or more).")
_PAIRS = flags.DEFINE_enum(
    "pairs", "round_robin", ["round_robin", "first_vs_rest"],
    "Every pair of --bots, or the first bot against each of the others (Table 1).",
)  # fmt: skip
_NUM_GAMES = flags.DEFINE_integer("num_games", 1000, "Games per pair.")
cli_flags.rename("games", "num_games")
_CHUNK = flags.DEFINE_integer("chunk", 500, "Games per task (even).")
_SEED = flags.DEFINE_integer("seed", 0, "First chance seed.")
_DEPTH = flags.DEFINE_integer("depth", 2, "Nested bots: player moves to the depth limit.")
_NUM_VALUES = flags.DEFINE_integer(
    "num_values", None, "Nested bots: K values per leaf state (default: 4, or the set's size)."
)
_SET = flags.DEFINE_enum(
    "strategy_set", "bias", ["bias", "self_generative"], "Nested bots' strategy set."
)
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", list(ggse.SOLVER_METHODS), "Solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 500, "CFR+ / EGT iterations per solve.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Stop the games after this many seconds.")
_SOLVE_TIME_LIMIT = flags.DEFINE_float(
    "solve_time_limit", None, "Seconds per solve of a nested bot (CFR+ / EGT)."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_SCHEDULER = executors.define_scheduler_flag()
_WORKERS = executors.define_workers_flag()


def main(argv: list[str]) -> None:
    """Plays the pairs of --bots in --game; prints and writes each pair's mean return."""
    cli_flags.no_arguments(argv)
    cli_flags.require(len(set(_BOTS.value)) >= 2, "--bots needs at least two distinct bots")
    for holder in (_NUM_GAMES, _DEPTH, _NUM_VALUES, _ITERATIONS, _TIME_LIMIT, _SOLVE_TIME_LIMIT):
        cli_flags.positive(holder)
    cli_flags.require(_CHUNK.value >= 2 and _CHUNK.value % 2 == 0, "--chunk must be even and >= 2")
    cli_flags.output_path(_OUTPUT_JSON)
    blueprint_file = blueprints.blueprint_file(_BLUEPRINT.value)
    cli_flags.distinct_files([_OUTPUT_JSON], inputs=[("--blueprint", blueprint_file)])
    game = cli.load_game(_GAME.value)
    num_values = _NUM_VALUES.value
    if num_values is None:
        sf = cli.compile_game(game)
        num_values = dl.default_num_values(sf, _SET.value)
    settings = dl.NestedSettings(
        depth=_DEPTH.value,
        num_values=num_values,
        strategy_set=cast(dl.SetKind, _SET.value),
        method=ggse.SOLVER_METHODS[_SOLVER.value],
        iterations=_ITERATIONS.value,
        time_limit=_SOLVE_TIME_LIMIT.value,
    )
    bots = list(dict.fromkeys(_BOTS.value))
    if _PAIRS.value == "round_robin":
        pairs = list(itertools.combinations(bots, 2))
    else:
        pairs = [(bots[0], b) for b in bots[1:]]
    try:
        tasks = [
            m
            for a, b in pairs
            for m in matches.chunks(
                _GAME.value, _BLUEPRINT.value, a, b=b, settings=settings, games=_NUM_GAMES.value,
                seed=_SEED.value, chunk=_CHUNK.value,
            )
        ]  # fmt: skip
    except ValueError as e:
        raise app.UsageError(str(e).strip().splitlines()[0]) from None
    chunk = matches.chunk_size(_NUM_GAMES.value, _CHUNK.value)
    if chunk != _CHUNK.value:
        logging.warning(
            "--chunk=%d raised to %d: at most %d tasks per pair",
            _CHUNK.value, chunk, matches.MAX_TASKS_PER_PAIR,
        )  # fmt: skip
    largest = max(task.games for task in tasks)  # --num_games below --chunk: one smaller task
    print(f"{len(pairs)} pairs, {len(tasks)} tasks of up to {largest} games", flush=True)
    start = time.perf_counter()
    returns: dict[tuple[str, str], list[float]] = {pair: [] for pair in pairs}
    with (
        cli.stoppable(_TIME_LIMIT.value) as stop,
        executors.executor(_SCHEDULER.value, _WORKERS.value) as executor,
    ):
        try:
            returns, _ = matches.play_pairs(matches.play, pairs, tasks, executor)
        except sweeps.TaskError as e:
            cli.fail(str(e), exit_code=1)
    seconds = time.perf_counter() - start
    stop_reason = stop.reason or "games"
    text, fields = match_report.report(
        pairs, dict(returns), round_robin=_PAIRS.value == "round_robin", chunk=chunk
    )
    print(f"{text} in {seconds:.1f} s")
    if stop_reason != "games":
        print(f"stopped ({stop_reason}) after {sum(map(len, returns.values()))} games")
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value,
            {
                "game": str(game),
                "blueprint": _BLUEPRINT.value,
                "settings": settings.record("compiled"),
                "seconds": seconds,
                "interrupted": stop_reason == "interrupted",
                "stop_reason": stop_reason,
                **fields,
            },
        )


if __name__ == "__main__":
    cli.main(main)
