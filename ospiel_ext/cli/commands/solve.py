r"""Solve a two-player zero-sum game with the sequence-form LP or a CFR variant.

  ospiel-ext solve --game=leduc_poker --solver=cfr_plus --iterations=1000 \
      --policy_out=/tmp/leduc.json --output_json=/tmp/result.json

--form chooses the sequence form the solver runs on: `explicit` (the default: the compiled
game tree's sparse payoff matrix, any game) or `public_tree` (poker games: leduc_poker,
limit_leduc_poker, rhode_island_holdem, kuhn_poker and universal_poker games with one private
card; the public tree x hand ranges of Johanson, Bowling, Waugh & Zinkevich 2011, no game
tree compiled). Both number the same sequences, so the iterates, the JSON and the policy file
are the same up to rounding, which CFR+'s clipping of regrets at zero can amplify over
hundreds of iterations (limit_leduc_poker(num_ranks=4): exploitability equal to 5e-13 after 80
iterations, 1 % apart after 200; the same holds for --suits below); a game without the poker
structure is refused on one line. The
policy file walks every state of the game either way (OpenSpiel's TabularPolicy), and
--solver=lp builds the explicit payoff matrix from the public tree.

--form=public_tree --suits solves on the range layout with one board per suit orbit
(`poker.range_cfr.for_game`), numbering no sequence: the way to games whose public tree has
more than 10 M information sets, which the numbering refuses (Rhode Island Hold'em whole,
52 M; a CFR variant, not lp):

  ospiel-ext solve --game=rhode_island_holdem --form=public_tree --suits --solver=dcfr \
      --dtype=float32 --threads=2 --time_limit=600 --policy_out=/tmp/ri.npz \
      --output_json=/tmp/ri.json

--dtype (float32 halves the bytes each pass moves; the average and its evaluation stay
float64) and --threads (one block of boards each; the iterates do not depend on it) are its
options. Its policy file is a range policy (.npz, `poker.range_policy.load_range_policy`: an
OpenSpiel policy of the whole game once loaded; Rhode Island's is 133 MB), and the
value and exploitability are exact, from best responses on the same tree.

JSON keys: game, solver, iterations (0 for lp), value (player 0's expected utility of the
returned profile; the LP value for lp), exploitability, nash_conv (both >= 0; rounding errors
above -1e-9 are written as 0), seconds (solver time, evaluation excluded), stopped_early
(Ctrl-C or --time_limit), stop_reason ('iterations', 'time_limit' or 'interrupted'; 'optimal'
for lp); with --suits also dtype, threads, boards (the canonical boards of each round) and
paused (an iteration of a large game paused part way by Ctrl-C; its policy holds that
iteration on the boards already walked).
An LP stopped by --time_limit or Ctrl-C has no strategy: value, exploitability and nash_conv
are null and no policy file is written.

--time_limit alone sets the run's length (as many iterations as fit); with --iterations too,
the run ends at whichever comes first. A progress bar shows the iterations, the ETA against
that budget and the average profile's NashConv when stderr is a terminal, and a log line a
minute when it is not (--log_every=N: a line every N iterations). Ctrl-C or SIGTERM stops CFR
after the current iteration and HiGHS within milliseconds; with --suits an iteration or the
exact evaluation still under way a second later is paused or given up (52-card hold'em: 13-35
s each), the evaluation's figures then null. The command then prints and writes the result so
far (JSON, policy) and exits with code 130. The outputs are written together:
all of them, or none and one line saying why (exit code 1).
"""

import contextlib
from collections.abc import Callable
from typing import Any

import pyspiel
from absl import flags, logging

from ospiel_ext import evaluate, policies, policy_files
from ospiel_ext.algorithms import cfr, cfr_rules
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.poker import range_cfr, range_policy
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.cli import solving as cli_solving
from ospiel_ext.runtime import files, interrupts, stops
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import SequenceForm

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["lp", *cfr.SOLVERS], "Which solver.")
_ITERATIONS = flags.DEFINE_integer(
    "iterations", 1000, "CFR iterations (with --time_limit alone: as many as it allows)."
)
_TIME_LIMIT = flags.DEFINE_float(
    "time_limit", None, "Stop after this many seconds (CFR: wall clock; lp: HiGHS's time limit)."
)
_LOG_EVERY = flags.DEFINE_integer(
    "log_every", None, "Log the exploitability every N iterations (default: 100 with --verbose)."
)
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_FORM = cli_solving.define_form_flag()
_SUITS = flags.DEFINE_bool(
    "suits",
    False,
    "With --form=public_tree: iterate on the range layout, one board per suit orbit (games "
    "over 10 M information sets, e.g. Rhode Island Hold'em); the policy file is then .npz.",
)
_DTYPE = flags.DEFINE_enum(
    "dtype", "float64", ["float64", "float32"], "With --suits: the iteration's floating point."
)
_THREADS = flags.DEFINE_integer(
    "threads", 1, "With --suits: threads each pass runs on (same iterates).", lower_bound=1
)
_POLICY_OUT = flags.DEFINE_string(
    "policy_out", None, "Write the policy here (JSON; with --suits a range policy, .npz)."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


# (behavioural or None, LP value or None, iterations, seconds, stop reason)
_Run = tuple[policies.Behavioural | None, float | None, int, float, str]


def _run_cfr(sf: SequenceForm) -> _Run:
    solver = cfr.SOLVERS[_SOLVER.value](sf)
    result = solver_lib.run(
        solver,
        cli_flags.iteration_budget(_ITERATIONS, _TIME_LIMIT),
        time_limit=_TIME_LIMIT.value,
        log_every=_LOG_EVERY.value or cli.log_every(),
    )
    return solver.average_behavioural(), None, solver.iteration, result.seconds, result.stop_reason


def _run_lp(sf: SequenceForm) -> _Run:
    """(behavioural or None, LP value or None, 0, seconds, stop reason)."""
    logging.info(
        "solving the sequence-form LP of %s (%d x %d sequences) with HiGHS",
        sf.name,
        *(tp.num_sequences for tp in sf.treeplexes),
    )
    behavioural, value, seconds, reason = cli_solving.run_lp(sf, _TIME_LIMIT.value)
    return behavioural, value, 0, seconds, reason


def _solve(game: pyspiel.Game) -> tuple[dict[str, Any], Callable[[str], None] | None]:
    """--solver on --form's sequence form: the JSON row and the policy file's writer (or None)."""
    sf = cli_solving.sequence_form(game, _MAX_NODES.value, form=_FORM.value)
    run = _run_lp if _SOLVER.value == "lp" else _run_cfr
    with interrupts.graceful():  # a Ctrl-C once the solve is done lets the evaluation finish
        behavioural, lp_value, iterations, seconds, reason = run(sf)
        if behavioural is None:
            return _row(game, iterations, result=None, seconds=seconds, reason=reason), None
        result = evaluate.evaluate_profile(sf, behavioural)
        row = _row(game, iterations, result=result, seconds=seconds, reason=reason)
    if lp_value is not None:
        row["value"] = lp_value
    strategy: policies.Behavioural = behavioural  # not None here, also inside the closure

    def write_policy(path: str) -> None:
        policy_files.save_policy(policies.layout(sf).to_tabular(strategy), path, game)

    return row, write_policy


def _solve_on_ranges(game: pyspiel.Game) -> tuple[dict[str, Any], Callable[[str], None]]:
    """--suits: --solver on the range layout with suit isomorphism (`range_cfr.for_game`)."""
    with cli.stage(f"laying out the public tree of {game}"), cli_flags.refuse(ValueError):
        solver = range_cfr.for_game(
            game, cfr_rules.PRESETS[_SOLVER.value], dtype=_DTYPE.value, threads=_THREADS.value
        )
    # one region: after Ctrl-C, an exact evaluation that would outlast `interrupts.overdue`
    # (tens of seconds at 52 cards) is given up, and the policy is written without its figures
    with solver, interrupts.graceful():  # its threads, shut down after the run and evaluation
        result = solver_lib.run(
            solver,
            cli_flags.iteration_budget(_ITERATIONS, _TIME_LIMIT),
            time_limit=_TIME_LIMIT.value,
            log_every=_LOG_EVERY.value or cli.log_every(),
        )
        evaluation = None
        with contextlib.suppress(interrupts.Interrupted):
            evaluation = solver.evaluate_average()
    row = _row(
        game,
        solver.iteration,
        result=evaluation,
        seconds=result.seconds,
        reason=result.stop_reason,
    )
    row.update(
        dtype=_DTYPE.value,
        threads=_THREADS.value,
        boards=[lay.deals.num_boards for lay in solver.tree.rounds],
        paused=result.paused,
    )
    return row, lambda path: range_policy.save_range_policy(solver.average_policy(), path)


def _row(
    game: pyspiel.Game,
    iterations: int,
    *,
    result: evaluate.ProfileEvaluation | None,
    seconds: float,
    reason: str,
) -> dict[str, Any]:
    """The JSON row (module docstring); value and exploitability None without a strategy."""
    value = exploitability = nash_conv = None
    if result is not None:
        value = result.on_policy_values[0]
        exploitability = cli_output.clip_rounding(result.exploitability)
        nash_conv = cli_output.clip_rounding(result.nash_conv)
    return {
        "game": str(game),
        "solver": _SOLVER.value,
        "iterations": iterations,
        "value": value,
        "exploitability": exploitability,
        "nash_conv": nash_conv,
        "seconds": seconds,
        "stopped_early": stops.stopped_early(reason),
        "stop_reason": reason,
    }


def _check_suits_flags() -> None:
    """Refuses --suits where it cannot run, and its options without it (before any work)."""
    if not _SUITS.value:
        cli_flags.require(
            _DTYPE.value == "float64" and _THREADS.value == 1,
            "--dtype and --threads are options of --suits (the range layout)",
        )
        return
    cli_flags.require(_FORM.value == "public_tree", "--suits needs --form=public_tree")
    cli_flags.require(_SOLVER.value != "lp", "--suits runs a CFR variant, not --solver=lp")
    path = _POLICY_OUT.value
    cli_flags.require(
        not path or cli_solving.is_range_policy_file(path) or files.output_kind(path) != "file",
        f"--policy_out={path}: with --suits the policy is a range policy (.npz); "
        "give a path ending in .npz",
    )


def main(argv: list[str]) -> None:
    """Solves --game by --solver; prints the value and exploitability, writes JSON and policy."""
    cli_flags.no_arguments(argv)
    for holder in (_ITERATIONS, _LOG_EVERY, _TIME_LIMIT, _MAX_NODES):
        cli_flags.positive(holder)
    for output in (_OUTPUT_JSON, _POLICY_OUT):
        cli_flags.output_path(output)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT])
    _check_suits_flags()
    game = cli.load_game(_GAME.value)
    row, write_policy = (_solve_on_ranges if _SUITS.value else _solve)(game)
    print(format_table(list(row), [list(row.values())]))
    if write_policy is None:
        print(f"no strategy: HiGHS was stopped ({row['stop_reason']}) before it solved the LP")
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)
        if _POLICY_OUT.value and write_policy is not None:
            write_policy(_POLICY_OUT.value)


if __name__ == "__main__":
    cli.main(main)
