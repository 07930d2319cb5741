r"""Solve a two-player zero-sum game with the sequence-form LP or a CFR variant.

  ospiel-ext solve --game=leduc_poker --solver=cfr_plus --iterations=1000 \
      --policy_out=/tmp/leduc.json --output_json=/tmp/result.json

--form chooses the sequence form the solver runs on: `explicit` (the default: the compiled
game tree's sparse payoff matrix, any game) or `public_tree` (poker games: leduc_poker,
limit_leduc_poker, rhode_island_holdem, kuhn_poker and universal_poker games with one private
card; the public tree x hand ranges of Johanson, Bowling, Waugh & Zinkevich 2011, no game
tree compiled). Both number the same sequences, so the iterates, the JSON and the policy file
are the same (to rounding); a game without the poker structure is refused on one line. The
policy file walks every state of the game either way (OpenSpiel's TabularPolicy), and
--solver=lp builds the explicit payoff matrix from the public tree.

JSON keys: game, solver, iterations (0 for lp), value (player 0's expected utility of the
returned profile; the LP value for lp), exploitability, nash_conv (both >= 0; rounding errors
above -1e-9 are written as 0), seconds (solver time, evaluation excluded), stopped_early
(Ctrl-C or --time_limit), stop_reason ('iterations', 'time_limit' or 'interrupted'; 'optimal'
for lp). An LP stopped by --time_limit or Ctrl-C has no strategy: value, exploitability and
nash_conv are null and no policy file is written.

A progress bar shows the iterations when stderr is a terminal (--log_every=N: a log line
every N iterations). Ctrl-C or SIGTERM stops CFR after the current iteration and HiGHS within
milliseconds; the command then prints and writes the result so far (JSON, policy) and exits
with code 130. The outputs are written together: all of them, or none and one line saying
why (exit code 1).
"""

from absl import flags, logging

from ospiel_ext import (
    cli,
    cli_flags,
    cli_output,
    evaluate,
    interrupts,
    policies,
    policy_files,
    stops,
)
from ospiel_ext.algorithms import cfr
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.tables import format_table

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["lp", *cfr.SOLVERS], "Which solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR iterations.")
_TIME_LIMIT = flags.DEFINE_float(
    "time_limit", None, "Stop after this many seconds (CFR: wall clock; lp: HiGHS's time limit)."
)
_LOG_EVERY = flags.DEFINE_integer(
    "log_every", None, "Log the exploitability every N iterations (default: 100 with --verbose)."
)
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_FORM = cli.define_form_flag()
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the policy JSON here.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


# (behavioural or None, LP value or None, iterations, seconds, stop reason)
_Run = tuple[policies.Behavioural | None, float | None, int, float, str]


def _run_cfr(sf: SequenceForm) -> _Run:
    solver = cfr.SOLVERS[_SOLVER.value](sf)
    result = solver_lib.run(
        solver,
        _ITERATIONS.value,
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
    behavioural, value, seconds, reason = cli.run_lp(sf, _TIME_LIMIT.value)
    return behavioural, value, 0, seconds, reason


def main(argv: list[str]) -> None:
    """Solves --game by --solver; prints the value and exploitability, writes JSON and policy."""
    cli_flags.no_arguments(argv)
    for holder in (_ITERATIONS, _LOG_EVERY, _TIME_LIMIT, _MAX_NODES):
        cli_flags.positive(holder)
    for output in (_OUTPUT_JSON, _POLICY_OUT):
        cli_flags.output_path(output)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT])
    game = cli.load_game(_GAME.value)
    sf = cli.sequence_form(game, _MAX_NODES.value, form=_FORM.value)
    run = _run_lp if _SOLVER.value == "lp" else _run_cfr
    with interrupts.graceful():  # a Ctrl-C once the solve is done lets the evaluation finish
        behavioural, lp_value, iterations, seconds, reason = run(sf)
        value = exploitability = nash_conv = None
        if behavioural is not None:
            result = evaluate.evaluate_profile(sf, behavioural)
            value = result.on_policy_values[0] if lp_value is None else lp_value
            exploitability, nash_conv = result.exploitability, result.nash_conv
    row = {
        "game": str(game),
        "solver": _SOLVER.value,
        "iterations": iterations,
        "value": value,
        "exploitability": cli_output.clip_rounding(exploitability),
        "nash_conv": cli_output.clip_rounding(nash_conv),
        "seconds": seconds,
        "stopped_early": stops.stopped_early(reason),
        "stop_reason": reason,
    }
    print(format_table(list(row), [list(row.values())]))
    if behavioural is None:
        print(f"no strategy: HiGHS was stopped ({reason}) before it solved the LP")
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)
        if _POLICY_OUT.value and behavioural is not None:
            policy = policies.layout(sf).to_tabular(behavioural)
            policy_files.save_policy(policy, _POLICY_OUT.value, game)


if __name__ == "__main__":
    cli.main(main)
