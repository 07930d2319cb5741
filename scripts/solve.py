"""Solve a two-player zero-sum game with the sequence-form LP or a CFR variant.

  python scripts/solve.py --game=leduc_poker --solver=cfr_plus --iterations=1000 \
      --policy_out=/tmp/leduc.json --output_json=/tmp/result.json

JSON keys: game, solver, iterations (0 for lp), value (player 0's expected utility of the
returned profile; the LP value for lp), exploitability, nash_conv, seconds (solver time,
evaluation excluded), stopped_early (Ctrl-C or --time_limit), stop_reason ('iterations',
'time_limit' or 'interrupted'; 'optimal' for lp).

Ctrl-C stops the iterations after the current one; the script then prints and writes the
result so far (JSON, policy) and exits with code 130.
"""

import sys

from absl import app, flags

from ospiel_ext import cli, evaluate, lp, policies, sequence_form
from ospiel_ext.algorithms import cfr
from ospiel_ext.algorithms import solver as solver_lib

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["lp", *cfr.SOLVERS], "Which solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR iterations.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Stop CFR after this many seconds.")
_LOG_EVERY = flags.DEFINE_integer("log_every", 100, "Log exploitability every N iterations.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the policy JSON here.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def _run_cfr(sf):
    solver = cfr.SOLVERS[_SOLVER.value](sf)
    result = solver_lib.run(
        solver, _ITERATIONS.value, time_limit=_TIME_LIMIT.value, log_every=_LOG_EVERY.value
    )
    return solver.average_behavioural(), solver.iteration, result.seconds, result.stop_reason


def main(argv):
    cli.require(len(argv) == 1, f"unexpected arguments {argv[1:]}")
    cli.require(_ITERATIONS.value >= 0, "--iterations must be non-negative")
    cli.require(_LOG_EVERY.value > 0, "--log_every must be positive")
    cli.require(_TIME_LIMIT.value is None or _TIME_LIMIT.value > 0, "--time_limit must be > 0")
    game = cli.load_game(_GAME.value)
    try:
        sf = sequence_form.for_game(game, max_nodes=_MAX_NODES.value)
    except ValueError as e:
        raise app.UsageError(str(e)) from None
    if _SOLVER.value == "lp":
        solution = lp.solve(sf)
        behavioural, iterations, seconds, reason = (
            solution.behavioural,
            0,
            solution.seconds,
            "optimal",
        )
    else:
        behavioural, iterations, seconds, reason = _run_cfr(sf)
    result = evaluate.evaluate_profile(sf, behavioural)
    value = solution.value if _SOLVER.value == "lp" else result.on_policy_values[0]
    row = {
        "game": str(game),
        "solver": _SOLVER.value,
        "iterations": iterations,
        "value": value,
        "exploitability": result.exploitability,
        "nash_conv": result.nash_conv,
        "seconds": seconds,
        "stopped_early": reason in ("time_limit", "interrupted"),
        "stop_reason": reason,
    }
    print(cli.format_table(list(row), [list(row.values())]))
    cli.write_json(_OUTPUT_JSON.value, row)
    if _POLICY_OUT.value:
        policies.save_policy(policies.layout(sf).to_tabular(behavioural), _POLICY_OUT.value, game)
    if reason == "interrupted":
        sys.exit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    app.run(main)
