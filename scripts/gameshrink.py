"""GameShrink: abstract a game with ordered signals, optionally solve it, lift the strategy back.

  python scripts/gameshrink.py --game=leduc_poker --threshold=0 --solve=lp \
      --output_json=/tmp/shrink.json --policy_out=/tmp/leduc_policy.json
  python scripts/gameshrink.py --game=rhode_island_holdem --solve=cfr_plus --iterations=500 \
      --abstract_policy_out=/tmp/ri_strategy.npz

JSON keys: game, threshold (a number, or "inf"), signal_tree_nodes, deals,
views_per_round, classes_per_round, refinement_passes, abstraction_seconds; original and
abstracted, each with nodes, infosets, lp_rows, lp_columns, lp_nonzeros (original.source is
"compiled" when the original game was walked, "counted" when it was counted from the signal
tree with the identity filter); solve, solve_seconds, iterations, abstract_value (player 0's
value of the abstracted game), abstract_exploitability, exploitability (OpenSpiel's
exploitability of the lifted strategy in the original game; null when the original does not
compile within --max_nodes; for a lossless filter it equals abstract_exploitability, tested),
stopped_early, stop_reason ('optimal' for lp; 'iterations', 'time_limit' or 'interrupted' for
cfr_plus). Ctrl-C during CFR+ stops it after the current iteration; the strategy so far is
lifted, evaluated and written, and the script exits with code 130.

Γ_f is solved on its sequence form built from the betting tree x class pairs
(`abstract_game.ProductSequenceForm`), so Rhode Island Hold'em (52 cards) runs with
--solve=cfr_plus in about 5 GB; --solve=lp on it is far beyond HiGHS here.
"""

import math
import sys

from absl import app, flags
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import cli, evaluate, lp, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, gameshrink
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.gameshrink import abstract_game
from ospiel_ext.tree import GameTooLargeError

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_THRESHOLD = flags.DEFINE_float(
    "threshold", 0.0, "Matching-cost threshold (0 = lossless, inf = ignore all signals)."
)
_SOLVE = flags.DEFINE_enum("solve", "lp", ["none", "lp", "cfr_plus"], "Solver of Γ_f.")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ iterations.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Seconds for abstraction and for solving.")
_MAX_NODES = flags.DEFINE_integer(
    "max_nodes",
    2_000_000,
    "Compile the original game (for exact sizes and exploitability) only up to this many nodes.",
)
_MAX_ABSTRACT_NONZEROS = flags.DEFINE_integer(
    "max_abstract_nonzeros",
    200_000_000,
    "Refuse to solve an abstracted game whose sequence-form LP has more nonzeros (about 16 "
    "bytes each; Rhode Island Hold'em's has 133 M).",
)
_POLICY_OUT = flags.DEFINE_string(
    "policy_out", None, "Write the lifted policy JSON here (needs the original to compile)."
)
_ABSTRACT_POLICY_OUT = flags.DEFINE_string(
    "abstract_policy_out",
    None,
    "Write the abstract strategy here (.npz, any game size); "
    "abstract_game.load_lifted_policy(path) plays it in the original game.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")

_SIZE_KEYS = ("nodes", "infosets", "lp_rows", "lp_columns", "lp_nonzeros")


def _original_size(abstraction):
    """Sizes of the original game: compiled if it fits in --max_nodes, else counted."""
    try:
        sf = sf_lib.for_game(abstraction.og.game, max_nodes=_MAX_NODES.value)
    except GameTooLargeError:
        identity = gameshrink.identity_filter(abstraction)
        size = abstract_game.AbstractGame.of(identity).size()
        return None, {**{k: size[k] for k in _SIZE_KEYS}, "source": "counted"}
    return sf, {**abstract_game.game_size(sf), "source": "compiled"}


def _solve(game):
    """(behavioural, LP value or None, iterations, seconds, stop reason) of Γ_f by --solve."""
    sf = game.sequence_form
    if _SOLVE.value == "lp":
        solution = lp.solve(sf, time_limit=_TIME_LIMIT.value)
        return solution.behavioural, solution.value, 0, solution.seconds, "optimal"
    solver = cfr.CFRPlusSolver(sf)
    result = solver_lib.run(solver, _ITERATIONS.value, time_limit=_TIME_LIMIT.value, log_every=100)
    return solver.average_behavioural(), None, solver.iteration, result.seconds, result.stop_reason


def main(argv):
    cli.require(len(argv) == 1, f"unexpected arguments {argv[1:]}")
    cli.require(_THRESHOLD.value >= 0, "--threshold must be >= 0")
    cli.require(_ITERATIONS.value > 0, "--iterations must be positive")
    cli.require(_TIME_LIMIT.value is None or _TIME_LIMIT.value > 0, "--time_limit must be > 0")
    game = cli.load_game(_GAME.value)
    try:
        abstraction = gameshrink.gameshrink(game, _THRESHOLD.value, _TIME_LIMIT.value)
    except (ValueError, TimeoutError) as e:
        raise app.UsageError(str(e)) from None
    st = abstraction.signal_tree
    original_sf, original = _original_size(abstraction)
    shrunk = abstract_game.AbstractGame.of(abstraction)
    size = shrunk.size()
    row = {
        "game": str(game),
        "threshold": "inf" if math.isinf(_THRESHOLD.value) else _THRESHOLD.value,
        "signal_tree_nodes": st.num_nodes,
        "deals": len(st.deals),
        "views_per_round": st.num_views,
        "classes_per_round": abstraction.num_classes,
        "refinement_passes": abstraction.passes,
        "abstraction_seconds": abstraction.seconds,
        "original": original,
        "abstracted": {k: size[k] for k in _SIZE_KEYS},
        "solve": _SOLVE.value,
    }
    if _SOLVE.value != "none":
        cli.require(
            size["lp_nonzeros"] <= _MAX_ABSTRACT_NONZEROS.value,
            f"the abstracted game's LP has {size['lp_nonzeros']} nonzeros > "
            "--max_abstract_nonzeros; use --solve=none for its size only",
        )
        cli.require(
            _POLICY_OUT.value is None or original_sf is not None,
            "--policy_out needs the original game to compile within --max_nodes",
        )
        behavioural, value, iterations, seconds, reason = _solve(shrunk)
        result = evaluate.evaluate_profile(shrunk.sequence_form, behavioural)
        lifted = abstract_game.LiftedPolicy(shrunk, behavioural)
        if _ABSTRACT_POLICY_OUT.value:
            abstract_game.save_lifted_policy(lifted, _ABSTRACT_POLICY_OUT.value)
        exploitability = None
        if original_sf is not None:
            tabular = lifted.to_tabular(_MAX_NODES.value)
            exploitability = os_exploitability.exploitability(game, tabular)
            if _POLICY_OUT.value:
                policies.save_policy(tabular, _POLICY_OUT.value, game)
        row.update(
            solve_seconds=seconds,
            iterations=iterations,
            abstract_value=result.on_policy_values[0] if value is None else value,
            abstract_exploitability=result.exploitability,
            exploitability=exploitability,
            stopped_early=reason in ("time_limit", "interrupted"),
            stop_reason=reason,
        )
    flat = {k: v for k, v in row.items() if not isinstance(v, dict)}
    for part in ("original", "abstracted"):
        flat.update({f"{part}_{k}": v for k, v in row[part].items()})
    print(cli.format_table(["key", "value"], [[k, v] for k, v in flat.items()]))
    cli.write_json(_OUTPUT_JSON.value, row)
    if row.get("stop_reason") == "interrupted":
        sys.exit(cli.INTERRUPTED_EXIT_CODE)


if __name__ == "__main__":
    app.run(main)
