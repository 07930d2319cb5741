r"""OpenSpiel's sequence_form_lp, best_response and lp_solver against the drop-ins, side by side.

  pip install cvxpy ecos   # OpenSpiel's two modules import cvxpy; its wheel does not
  python benchmarks/perf/openspiel_lp_dropins.py \
      --output_json=docs/results/openspiel_lp_dropins.json

For each --games entry, `sequence_form_lp.solve_zero_sum_game(game)` of OpenSpiel
(`open_spiel.python.algorithms`, cvxpy with its default solver, ECOS) and of ospiel_ext
(`ospiel_ext.algorithms`, HiGHS) and `best_response.BestResponsePolicy(game, 0,
UniformRandomPolicy(game)).value(root)` (OpenSpiel's walks the states in Python; ours is one
pass over the compiled game); for each --matrix_games entry, `lp_solver.
solve_zero_sum_matrix_game`. Each call runs in a fresh process of its own (the game loaded
there, the call timed there), OpenSpiel's under --max_gib of address space and --time_limit
seconds: a case that exceeds either is recorded as such ("memory" or "time") with the limit,
not a figure.

Each process also times a second call on the same game (the other player's best response;
the same LP again): ours keeps the compiled game (`sequence_form.for_game`'s cache), so a
second call skips the walk that dominates a first one.

A first call on a game not yet compiled must visit every state through pyspiel, as
OpenSpiel's best response does: for each best-response case a third process walks the states
once and does nothing else (legal actions, the information-state string at decisions, the
returns at terminals), and `first_call_bound`, OpenSpiel's seconds over that walk's, is the
largest speed-up any first call could have.

JSON keys: cases [{kind, game, openspiel: {seconds, repeat_seconds, value, status}, ours:
{...}, speedup and repeat_speedup (OpenSpiel's seconds / ours where both finished),
value_difference, and for best responses walk_seconds and first_call_bound}], stop_reason
(null, or "interrupted": Ctrl-C or SIGTERM ended the run, and the cases finished before it
are written), time_limit, max_gib.
"""

import json
import resource
import subprocess
import sys
import time

from absl import flags

from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

GAMES = (
    "kuhn_poker",
    "leduc_poker",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=3)",
    "turn_based_simultaneous_game(game=goofspiel(imp_info=true,num_cards=5,"
    "points_order=descending))",
)
MATRIX_GAMES = ("blotto", "matrix_rps")
_GAMES = flags.DEFINE_multi_string("games", list(GAMES), "Sequential games (load_game strings).")
_MATRIX_GAMES = flags.DEFINE_multi_string(
    "matrix_games", list(MATRIX_GAMES), "Matrix games (load_matrix_game names)."
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", 300.0, "Seconds for each of OpenSpiel's calls.")
_MAX_GIB = flags.DEFINE_float("max_gib", 8.0, "Address space for each of OpenSpiel's calls.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")

# One call, in the child process: argv = [kind, implementation, game]; prints seconds and value.
_CHILD = """
import importlib, json, sys, time
import pyspiel
import ospiel_ext.games
from open_spiel.python import policy
kind, impl, name = sys.argv[1:4]
def walk(game):
    # every state once, as any first call on an uncompiled game must visit them
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            state.returns()
            continue
        if state.is_chance_node():
            actions = [a for a, _ in state.chance_outcomes()]
        else:
            state.information_state_string()
            actions = state.legal_actions()
        stack.extend(state.child(a) for a in actions)
    return 0.0
package = "open_spiel.python.algorithms" if impl == "openspiel" else "ospiel_ext.algorithms"
module = importlib.import_module(package + "." + kind)
if impl == "walk":
    game = pyspiel.load_game(name)
    call = lambda player: walk(game)
elif kind == "sequence_form_lp":
    game = pyspiel.load_game(name)
    call = lambda player: module.solve_zero_sum_game(game)[0]
elif kind == "best_response":
    game = pyspiel.load_game(name)
    call = lambda player: module.BestResponsePolicy(
        game, player, policy.UniformRandomPolicy(game)
    ).value(game.new_initial_state())
else:
    game = pyspiel.load_matrix_game(name)
    call = lambda player: module.solve_zero_sum_matrix_game(game)[2]
start = time.perf_counter()
value = call(0)
first = time.perf_counter() - start
call(1)  # a second call on the same game (a best response: the other player's)
total = time.perf_counter() - start
print(json.dumps({"seconds": first, "repeat_seconds": total - first, "value": float(value)}))
"""


def _limits(max_bytes: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (max_bytes, max_bytes))

    return apply


def _call(kind: str, impl: str, game: str) -> dict:
    """One call in a fresh process: {seconds, value, status} or {status: memory / time / ...}."""
    limit = _TIME_LIMIT.value if impl == "openspiel" else None
    max_bytes = int(_MAX_GIB.value * 2**30) if impl == "openspiel" else resource.RLIM_INFINITY
    start = time.perf_counter()
    try:
        proc = subprocess.run(
            [sys.executable, "-c", _CHILD, kind, impl, game],
            capture_output=True,
            text=True,
            timeout=limit,
            preexec_fn=_limits(max_bytes),
        )
    except subprocess.TimeoutExpired:
        return {"status": "time", "seconds": time.perf_counter() - start}
    if proc.returncode != 0:
        memory = "MemoryError" in proc.stderr or "std::bad_alloc" in proc.stderr
        last = (proc.stderr.strip().splitlines() or [""])[-1][:200]
        return {"status": "memory" if memory else "error", "error": last}
    return {"status": "ok", **json.loads(proc.stdout.strip().splitlines()[-1])}


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TIME_LIMIT)
    cli_flags.positive(_MAX_GIB)
    cli_flags.output_path(_OUTPUT_JSON)
    cases = []
    todo = [(kind, g) for g in _GAMES.value for kind in ("sequence_form_lp", "best_response")]
    todo += [("lp_solver", g) for g in _MATRIX_GAMES.value]
    with cli.stoppable() as stop:  # Ctrl-C: the cases so far are written, with the reason
        for kind, game in todo:
            with cli.stage(f"{kind}: {game}"):
                ours, theirs = _call(kind, "ours", game), _call(kind, "openspiel", game)
                walk = _call(kind, "walk", game) if kind == "best_response" else None
            if interrupts.requested():  # the signal reached the case's process too
                break
            cases.append(_row(kind, game, ours, theirs, walk=walk))
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value,
            {
                "cases": cases,
                "stop_reason": stop.reason,
                "time_limit": _TIME_LIMIT.value,
                "max_gib": _MAX_GIB.value,
            },
        )


def _row(kind: str, game: str, ours: dict, theirs: dict, *, walk: dict | None) -> dict:
    """One case's JSON record, printed as a line."""
    row = {"kind": kind, "game": game, "openspiel": theirs, "ours": ours}
    if walk is not None:
        row["walk_seconds"] = walk.get("seconds")
    if ours["status"] == theirs["status"] == "ok":
        row["speedup"] = theirs["seconds"] / ours["seconds"]
        row["repeat_speedup"] = theirs["repeat_seconds"] / ours["repeat_seconds"]
        row["value_difference"] = abs(theirs["value"] - ours["value"])
        if walk is not None and walk["status"] == "ok":
            row["first_call_bound"] = theirs["seconds"] / walk["seconds"]
    speed = (
        f"{row['speedup']:.1f}x, a second call {row['repeat_speedup']:.1f}x"
        if "speedup" in row
        else theirs["status"]
    )
    if "first_call_bound" in row:
        speed += f" (a first call at most {row['first_call_bound']:.1f}x: the walk alone)"
    print(
        f"{kind} {game}: ours {ours.get('seconds', float('nan')):.3f} s, OpenSpiel "
        f"{theirs.get('seconds', float('nan')):.3f} s ({theirs['status']}): {speed}"
    )
    return row


if __name__ == "__main__":
    cli.main(main)
