"""Head to head of bots: the nested depth-limited solving bot, the naive single-valued bot and
the blueprint (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for Imperfect-Information
Games", Table 1; Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve Subgame
Solving in Imperfect-Information Games", Section 8.1's round robin of gadget x prior).

  ospiel-ext head-to-head --game=leduc_poker --blueprint=cfr:100 \
      --bots=nested,naive,blueprint --games=10000 --num_values=4 --workers=2

Every pair of --bots (or, with --pairs=first_vs_rest, the first against each other one) plays
--games games through `pyspiel.evaluate_bots` in duplicate (games 2k and 2k + 1 deal from
chance seed --seed + 2k with the seats swapped; the bots' own streams are seeded from the two
bots' names, so the order of --bots changes nothing); prints each pair's mean return of the
first bot with 95 % confidence intervals over games and over deals (each deal is played from
both seats) and its win rate (draws count half), and for a round robin each bot's win rate
against its worst matchup (the paper's Figure 4). Bots: blueprint, naive[/GADGET[/PRIOR]]
(K = 1) and nested[/GADGET[/PRIOR]] (K = --num_values from --strategy_set); GADGET in resolving,
max_margin, reach_max_margin, unsafe; PRIOR in none, uniform, blueprint. The games are split
into --chunk-game tasks run on local processes (--workers) or a Dask cluster (--scheduler).
JSON keys: game, blueprint, settings, seconds, interrupted, pairs (a, b, games, mean, ci95,
ci95_deals, win_rate), worst_matchups (round robin: bot, win_rate, opponent, mean_win_rate).
"""

import dataclasses
import itertools
import time

from absl import app, flags

from ospiel_ext import cli, sweeps
from ospiel_ext.algorithms.depth_limited import matches

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "cfr:100", "FILE, cfr:N or dirichlet:SEED.")
_BOTS = flags.DEFINE_list("bots", ["nested", "naive", "blueprint"], "Bot specs (2 or more).")
_PAIRS = flags.DEFINE_enum(
    "pairs", "round_robin", ["round_robin", "first_vs_rest"],
    "Every pair of --bots, or the first bot against each of the others (Table 1).",
)  # fmt: skip
_GAMES = flags.DEFINE_integer("games", 1000, "Games per pair.")
_CHUNK = flags.DEFINE_integer("chunk", 500, "Games per task (even).")
_SEED = flags.DEFINE_integer("seed", 0, "First chance seed.")
_DEPTH = flags.DEFINE_integer("depth", 2, "Nested bots: player moves to the depth limit.")
_NUM_VALUES = flags.DEFINE_integer("num_values", 4, "Nested bots: K values per leaf state.")
_SET = flags.DEFINE_enum(
    "strategy_set", "bias", ["bias", "self_generative"], "Nested bots' strategy set."
)
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["cfr_plus", "lp", "egt"], "Solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 500, "CFR+ / EGT iterations per solve.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Seconds per solve (CFR+ / EGT).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_SCHEDULER = sweeps.define_scheduler_flag()
_WORKERS = sweeps.define_workers_flag()

METHODS = {"cfr_plus": "cfr", "lp": "lp", "egt": "egt"}


def main(argv):
    cli.no_arguments(argv)
    cli.require(len(set(_BOTS.value)) >= 2, "--bots needs at least two distinct bots")
    for holder in (_GAMES, _DEPTH, _NUM_VALUES, _ITERATIONS, _TIME_LIMIT):
        cli.positive(holder)
    cli.require(_CHUNK.value >= 2 and _CHUNK.value % 2 == 0, "--chunk must be even and >= 2")
    cli.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    cli.require(game.num_players() == 2, f"game {_GAME.value} has {game.num_players()} players")
    settings = matches.Settings(
        _DEPTH.value,
        _NUM_VALUES.value,
        _SET.value,
        METHODS[_SOLVER.value],
        _ITERATIONS.value,
        _TIME_LIMIT.value,
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
                _GAME.value, _BLUEPRINT.value, a, b, settings, _GAMES.value, _SEED.value,
                _CHUNK.value,
            )
        ]  # fmt: skip
    except ValueError as e:
        raise app.UsageError(str(e).strip().splitlines()[0]) from None
    print(f"{len(pairs)} pairs, {len(tasks)} tasks of up to {_CHUNK.value} games", flush=True)
    start = time.perf_counter()
    with sweeps.executor(_SCHEDULER.value, _WORKERS.value) as executor:
        returns, result = matches.play_pairs(matches.play, pairs, tasks, executor)
    seconds = time.perf_counter() - start
    text, fields = matches.report(pairs, returns, round_robin=_PAIRS.value == "round_robin")
    print(f"{text} in {seconds:.1f} s")
    cli.write_json(
        _OUTPUT_JSON.value,
        {
            "game": _GAME.value,
            "blueprint": _BLUEPRINT.value,
            "settings": dataclasses.asdict(settings),
            "seconds": seconds,
            "interrupted": result.interrupted,
            **fields,
        },
    )
    if result.interrupted:
        raise SystemExit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    cli.main(main)
