r"""GameShrink: abstract a game with ordered signals, optionally solve it, lift the strategy back.

  ospiel-ext shrink --game=leduc_poker --threshold=0 --solve=lp \
      --output_json=/tmp/shrink.json --policy_out=/tmp/leduc_policy.json
  ospiel-ext shrink --game=rhode_island_holdem --solve=cfr_plus --iterations=500 \
      --abstract_policy_out=/tmp/ri_strategy.npz

JSON keys: game, filter, threshold (a number, or "inf"), signal_tree_nodes, deals,
views_per_round, classes_per_round, refinement_passes, abstraction_seconds; original and
abstracted, each with nodes, infosets, lp_rows, lp_columns, lp_nonzeros (original.source is
"compiled" when the original game was walked, "counted" when it was counted from the signal
tree with the identity filter); solve, solve_seconds, iterations, abstract_value (player 0's
value of the abstracted game), abstract_exploitability, exploitability (of the lifted strategy
in the original game, by ospiel_ext.evaluate, which equals OpenSpiel's to 1e-9; null when the
original has more than --max_nodes nodes; for a lossless filter it equals
abstract_exploitability, tested; both >= 0, rounding errors above -1e-9 are written as 0),
stopped_early, stop_reason ('fixed_point' for --solve=none; 'optimal' for lp; 'iterations',
'time_limit' or 'interrupted' for cfr_plus and lp; an LP stopped early has no strategy: the
values are null and no policy is written). Ctrl-C during CFR+ stops it after the current
iteration, during the LP at once; the strategy so far is lifted, evaluated and written, and the
script exits with code 130.

--time_limit or Ctrl-C during the filter stops GameShrink with its filter so far, which is not
the fixed point (a lossless filter stopped early is coarser than the lossless one, so not
lossless): the JSON then has its classes_per_round, refinement_passes and abstracted sizes,
stopped_early true and stop_reason 'time_limit' or 'interrupted', original and the solve's
figures null; nothing is solved or written besides it (exit code 130 after Ctrl-C).

The original game is counted from the signal tree first (the identity filter, seconds even
for Rhode Island Hold'em's 6.7 billion nodes) and compiled only when the count is within
--max_nodes; --policy_out needs that, and --policy_out / --abstract_policy_out need a --solve.

Γ_f is solved on its sequence form built from the betting tree x class pairs
(`abstract_game.ProductSequenceForm`), so Rhode Island Hold'em (52 cards) runs with
--solve=cfr_plus in about 5 GB; --solve=lp on it is far beyond HiGHS here.
"""

import math
from typing import Any

import pyspiel
from absl import flags, logging
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate, policies, policy_files
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, gameshrink
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.gameshrink import abstract_game, lifting
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.cli import solving as cli_solving
from ospiel_ext.loading import GameTooLargeError
from ospiel_ext.runtime import interrupts, stops
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_THRESHOLD = flags.DEFINE_float(
    "threshold", 0.0, "Matching-cost threshold (0 = lossless, inf = ignore all signals)."
)
_FILTER = flags.DEFINE_enum(
    "filter",
    "coarsest",
    list(gameshrink.TRANSFORMATIONS),
    "Lossless filter: coarsest (the largest filter closed under ordered game isomorphism, "
    "opponent's information at the leaves) or paper (Definition 5's leaf test as written: "
    "payoffs only; not always lossless). --threshold > 0 needs coarsest.",
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
    "lifting.load_lifted_policy(path) plays it in the original game.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")

_SIZE_KEYS = ("nodes", "infosets", "lp_rows", "lp_columns", "lp_nonzeros")
_SOLVE_KEYS = (
    "solve_seconds",
    "iterations",
    "abstract_value",
    "abstract_exploitability",
    "exploitability",
)  # null when the filter stopped before it was complete

# (behavioural or None, LP value or None, iterations, seconds, stop reason)
_Run = tuple[policies.Behavioural | None, float | None, int, float, str]


def _original_size(
    abstraction: gameshrink.Abstraction,
) -> tuple[sf_lib.TreeSequenceForm | None, dict[str, Any]]:
    """(compiled sequence form or None, sizes) of the original game.

    The sizes are counted from the signal tree first; the game is compiled only when the count
    is within --max_nodes.
    """
    game = abstraction.og.game
    logging.info("counting %s from the signal tree (identity filter)", game)
    with cli.stage(f"counting {game}"):
        size = abstract_game.AbstractGame.of(gameshrink.identity_filter(abstraction)).size()
    counted = {**{k: size[k] for k in _SIZE_KEYS}, "source": "counted"}
    if size["nodes"] > _MAX_NODES.value:
        logging.info(
            "%s has %d nodes (counted) > --max_nodes=%d: not compiled, the lifted strategy is "
            "not evaluated in it",
            game,
            size["nodes"],
            _MAX_NODES.value,
        )
        return None, counted
    logging.info("compiling %s (%d nodes counted)", game, size["nodes"])
    try:
        with cli.stage(f"compiling {game}"):
            sf = sf_lib.for_game(game, max_nodes=_MAX_NODES.value)
    except GameTooLargeError:
        return None, counted
    return sf, {**abstract_game.game_size(sf), "source": "compiled"}


def _solve(sf: sf_lib.SequenceForm) -> _Run:
    """(behavioural or None, LP value or None, iterations, seconds, stop reason) of Γ_f by --solve.

    `sf` is Γ_f's sequence form; the behavioural strategy is None when the LP was stopped
    before its solution.
    """
    if _SOLVE.value == "lp":
        behavioural, value, seconds, reason = cli_solving.run_lp(sf, _TIME_LIMIT.value)
        return behavioural, value, 0, seconds, reason
    solver = cfr.CFRPlusSolver(sf)
    result = solver_lib.run(
        solver, _ITERATIONS.value, time_limit=_TIME_LIMIT.value, log_every=cli.log_every()
    )
    return solver.average_behavioural(), None, solver.iteration, result.seconds, result.stop_reason


def _lift(
    game: pyspiel.Game,
    shrunk: abstract_game.AbstractGame,
    behavioural: policies.Behavioural,
    original_sf: sf_lib.TreeSequenceForm | None,
) -> tuple[lifting.LiftedPolicy, policy_lib.TabularPolicy | None, float | None]:
    """(the lifted policy, its TabularPolicy in the original game, its exploitability there).

    The TabularPolicy and the exploitability are None if the original game was not compiled.
    """
    lifted = lifting.LiftedPolicy(shrunk, behavioural)
    if original_sf is None:
        return lifted, None, None
    logging.info(
        "lifting the strategy to the %d information sets of %s (OpenSpiel's TabularPolicy of "
        "the game is built)",
        original_sf.tree.num_infosets,
        game,
    )
    with cli.stage(f"lifting the strategy to {game}"):
        tabular = lifted.to_tabular(_MAX_NODES.value)
        return lifted, tabular, evaluate.exploitability(game, tabular)


def _solve_and_lift(
    game: pyspiel.Game,
    shrunk: abstract_game.AbstractGame,
    size: dict[str, Any],
    original_sf: sf_lib.TreeSequenceForm | None,
) -> tuple[dict[str, Any], tuple[lifting.LiftedPolicy, policy_lib.TabularPolicy | None] | None]:
    """Solves Γ_f (`shrunk`, of `size`) by --solve and lifts the strategy into `game`.

    Returns:
      (the row's fields of the solve, (the lifted policy, its TabularPolicy in the original
      game or None) or None when the solve gave no strategy).
    """
    cli_flags.require(
        size["lp_nonzeros"] <= _MAX_ABSTRACT_NONZEROS.value,
        f"the abstracted game's LP has {size['lp_nonzeros']} nonzeros > "
        "--max_abstract_nonzeros; use --solve=none for its size only",
    )
    logging.info("building the sequence form of %s", shrunk.name)
    with cli.stage(f"building the sequence form of {shrunk.name}"):
        abstract_sf = shrunk.sequence_form
    lifted = None
    with interrupts.graceful():  # a Ctrl-C once solved lets the strategy be lifted
        behavioural, value, iterations, seconds, reason = _solve(abstract_sf)
        abstract_value = abstract_exploitability = exploitability = None
        if behavioural is not None:
            result = evaluate.evaluate_profile(abstract_sf, behavioural)
            abstract_value = result.on_policy_values[0] if value is None else value
            abstract_exploitability = result.exploitability
            policy, tabular, exploitability = _lift(game, shrunk, behavioural, original_sf)
            lifted = (policy, tabular)
    fields = {
        "solve_seconds": seconds,
        "iterations": iterations,
        "abstract_value": abstract_value,
        "abstract_exploitability": cli_output.clip_rounding(abstract_exploitability),
        "exploitability": cli_output.clip_rounding(exploitability),
        "stopped_early": stops.stopped_early(reason),
        "stop_reason": reason,
    }
    return fields, lifted


def _check_flags() -> None:
    """Refuses bad flag values (one-line usage errors) before any work."""
    cli_flags.non_negative(_THRESHOLD)
    cli_flags.require(
        _FILTER.value == "coarsest" or _THRESHOLD.value == 0,
        "--threshold > 0 joins classes of the coarsest filter; it needs --filter=coarsest",
    )
    for holder in (_ITERATIONS, _TIME_LIMIT, _MAX_NODES, _MAX_ABSTRACT_NONZEROS):
        cli_flags.positive(holder)
    for output in (_POLICY_OUT, _ABSTRACT_POLICY_OUT):
        cli_flags.require(
            not (_SOLVE.value == "none" and output.value),
            f"--{output.name} needs a strategy; --solve=none computes none (use --solve=lp or "
            "--solve=cfr_plus)",
        )
    for output in (_OUTPUT_JSON, _POLICY_OUT, _ABSTRACT_POLICY_OUT):
        cli_flags.output_path(output)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT, _ABSTRACT_POLICY_OUT])


def main(argv: list[str]) -> None:
    """Abstracts --game by GameShrink, solves Γ_f by --solve and lifts the strategy back."""
    cli_flags.no_arguments(argv)
    _check_flags()
    game = cli.load_game(_GAME.value)
    with cli.stage(f"abstracting {game}"), cli_flags.refuse(ValueError):
        abstraction = gameshrink.gameshrink(
            game, _THRESHOLD.value, _TIME_LIMIT.value, transformation=_FILTER.value
        )
    if abstraction.stopped_early:
        logging.warning(
            "GameShrink stopped (%s) before its filter was complete: its classes so far are "
            "written, nothing is solved",
            abstraction.stop_reason,
        )
        original_sf, original = None, None
    else:
        original_sf, original = _original_size(abstraction)
        cli_flags.require(
            _POLICY_OUT.value is None or original_sf is not None,
            f"--policy_out needs the original game to compile within --max_nodes="
            f"{_MAX_NODES.value}; {game} has {original['nodes']} nodes (counted)",
        )
    st = abstraction.signal_tree
    shrunk = abstract_game.AbstractGame.of(abstraction)
    size = shrunk.size()
    row = {
        "game": str(game),
        "filter": _FILTER.value,
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
    lifted = None
    if _SOLVE.value == "none" or abstraction.stopped_early:
        if _SOLVE.value != "none":
            row.update(dict.fromkeys(_SOLVE_KEYS))
        row.update(stopped_early=abstraction.stopped_early, stop_reason=abstraction.stop_reason)
    else:
        fields, lifted = _solve_and_lift(game, shrunk, size, original_sf)
        row.update(fields)
    flat = {k: v for k, v in row.items() if not isinstance(v, dict)}
    for part in ("original", "abstracted"):
        sizes = row[part]  # None: the original when the filter stopped early
        if isinstance(sizes, dict):
            flat.update({f"{part}_{k}": v for k, v in sizes.items()})
    print(format_table(["key", "value"], [[k, v] for k, v in flat.items()]))
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)
        if lifted is not None:
            policy, tabular = lifted
            if _ABSTRACT_POLICY_OUT.value:
                lifting.save_lifted_policy(policy, _ABSTRACT_POLICY_OUT.value)
            if _POLICY_OUT.value:
                policy_files.save_policy(tabular, _POLICY_OUT.value, game)


if __name__ == "__main__":
    cli.main(main)
