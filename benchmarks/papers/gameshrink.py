"""GameShrink evidence (Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of
Imperfect Information", ACM EC 2006): lossless abstraction, Rhode Island Hold'em, and the
approximation knob.

  python benchmarks/papers/gameshrink.py --output_json=docs/results/gameshrink.json

1. Lossless (--lossless_games): sizes before / after, abstraction and LP seconds, the lifted
   LP strategy's exploitability in the original game (ospiel_ext.evaluate, equal to OpenSpiel's
   to 1e-9, tested) and the LP value of the original game for comparison.
2. Rhode Island Hold'em (--rhode_island): abstraction seconds and peak memory, classes per
   round, the original and abstracted sizes counted from the signal tree (the game is far too
   large to walk), then CFR+ on Γ_f's product sequence form for --ri_time_limit seconds (wall clock,
   evaluation included) with its exploitability at --ri_checkpoints; Ctrl-C there writes the
   results so far and exits with code 130.
3. The knob (--approximate_game, --thresholds): classes, abstracted size and the lifted LP
   strategy's exploitability in the original game for each threshold.
Prints markdown tables; writes everything to --output_json.
"""

import math
import resource
import sys
import time

from absl import flags

from ospiel_ext import evaluate, lp, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, gameshrink
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.gameshrink import abstract_game, descriptions, lifting
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

_LOSSLESS = flags.DEFINE_multi_string(
    "lossless_games",
    [
        "kuhn_poker",
        "leduc_poker",
        "limit_leduc_poker(num_ranks=3)",
        "limit_leduc_poker(num_ranks=13)",
        "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
        "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
        *descriptions.UNIVERSAL_POKER_EXAMPLES,
    ],
    "Games for the lossless table; repeat the flag for more.",
)
cli_flags.rename("lossless", "lossless_games")
_RHODE_ISLAND = flags.DEFINE_string(
    "rhode_island", "rhode_island_holdem", "The full game ('' skips it)."
)
_RI_CHECKPOINTS = flags.DEFINE_list(
    "ri_checkpoints", ["10", "30", "100", "300", "1000"], "CFR+ iterations measured on Γ_f."
)
_RI_TIME_LIMIT = flags.DEFINE_float("ri_time_limit", 900.0, "CFR+ seconds on Γ_f.")
cli_flags.rename("ri_seconds", "ri_time_limit")
_APPROXIMATE = flags.DEFINE_string(
    "approximate_game", "limit_leduc_poker(num_ranks=13)", "The knob's game."
)
cli_flags.rename("approximate", "approximate_game")
_THRESHOLDS = flags.DEFINE_list(
    "thresholds",
    ["0", "0.1", "0.2", "0.25", "0.3", "0.35", "0.4", "0.45", "0.5", "1", "inf"],
    "Knob.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write all results here.")


def _solve_and_lift(abstraction, original_sf):
    """LP of Γ_f, then the lifted strategy's exploitability in the original game."""
    game = abstract_game.AbstractGame.of(abstraction)
    start = time.perf_counter()
    solution = lp.solve(game.sequence_form)
    lp_seconds = time.perf_counter() - start
    lifted = lifting.LiftedPolicy(game, solution.behavioural)
    layout = policies.layout(original_sf)
    tabular = lifted.to_tabular()
    expl = evaluate.evaluate_profile(original_sf, layout.from_tabular(tabular)).exploitability
    return game.size(), solution.value, lp_seconds, expl


def _lossless_row(game_string):
    a = gameshrink.gameshrink(game_string)
    interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
    original_sf = sf_lib.for_game(game_string)
    original = abstract_game.game_size(original_sf)
    size, value, lp_seconds, expl = _solve_and_lift(a, original_sf)
    return {
        "game": game_string,
        "signal_tree_nodes": a.signal_tree.num_nodes,
        "classes_per_round": a.num_classes,
        "abstraction_seconds": a.seconds,
        "original": original,
        "abstracted": size,
        "abstract_lp_value": value,
        "original_lp_value": lp.solve(original_sf).value,
        "lp_seconds": lp_seconds,
        "lifted_exploitability": expl,
    }


def _rhode_island():
    start = time.perf_counter()
    a = gameshrink.gameshrink(_RHODE_ISLAND.value)
    interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
    seconds = time.perf_counter() - start
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    shrunk = abstract_game.AbstractGame.of(a)
    size = shrunk.size()
    original = abstract_game.AbstractGame.of(gameshrink.identity_filter(a)).size()
    start = time.perf_counter()
    sf = shrunk.sequence_form
    build_seconds = time.perf_counter() - start
    rows, reason = _cfr_plus_curve(sf)
    return {
        "game": _RHODE_ISLAND.value,
        "signal_tree_nodes": a.signal_tree.num_nodes,
        "deals": len(a.signal_tree.deals),
        "views_per_round": a.signal_tree.num_views,
        "classes_per_round": a.num_classes,
        "refinement_passes": a.passes,
        "abstraction_seconds": seconds,
        "peak_rss_mb": peak_mb,
        "original_counted": original,
        "abstracted": size,
        "sequence_form_seconds": build_seconds,
        "cfr_plus": rows,
        "cfr_plus_stop_reason": reason,
        "peak_rss_mb_after_solve": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def _cfr_plus_curve(sf):
    """CFR+ on Γ_f's product sequence form: exploitability in Γ_f (equal to the lifted
    strategy's in the original game for a lossless filter, tested) at each checkpoint, and why
    the run stopped."""
    result = solver_lib.run(
        cfr.CFRPlusSolver(sf),
        max(int(c) for c in _RI_CHECKPOINTS.value),
        time_limit=_RI_TIME_LIMIT.value,
        checkpoints=[int(c) for c in _RI_CHECKPOINTS.value],
        log_every=50,
    )
    curve = result.curve
    rows = [
        {"iterations": i, "seconds": s, "value": v, "exploitability": e}
        for i, s, v, e in zip(curve.iterations, curve.seconds, curve.value, curve.exploitability)
    ]
    return rows, result.stop_reason


def _knob():
    original_sf = sf_lib.for_game(_APPROXIMATE.value)
    rows = []
    for t in _THRESHOLDS.value:
        threshold = float(t)
        a = gameshrink.gameshrink(_APPROXIMATE.value, threshold=threshold)
        interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
        size, value, _, expl = _solve_and_lift(a, original_sf)
        rows.append(
            {
                "threshold": t,
                "classes_per_round": a.num_classes,
                "abstraction_seconds": a.seconds,
                "abstracted_nodes": size["nodes"],
                "abstracted_infosets": size["infosets"],
                "abstract_value": value,
                "lifted_exploitability": expl,
            }
        )
        print(rows[-1], flush=True)
    return rows


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_RI_TIME_LIMIT)
    for t in _THRESHOLDS.value:
        try:
            threshold = float(t)
        except ValueError:
            threshold = math.nan
        cli_flags.require(threshold >= 0, f"--thresholds: {t!r} is not a number >= 0")
    cli_flags.require(bool(_RI_CHECKPOINTS.value), "--ri_checkpoints is empty")
    for c in _RI_CHECKPOINTS.value:
        cli_flags.require(
            c.isdigit() and int(c) > 0, f"--ri_checkpoints: {c!r} is not an integer > 0"
        )
    cli_flags.output_path(_OUTPUT_JSON)
    for name in [*_LOSSLESS.value, _RHODE_ISLAND.value, _APPROXIMATE.value]:
        if name:
            cli.load_game(name)  # every game, before the work
    lossless = []
    for g in _LOSSLESS.value:
        lossless.append(_lossless_row(g))
        print(lossless[-1], flush=True)
    ri = _rhode_island() if _RHODE_ISLAND.value else None
    print(ri, flush=True)
    if ri is not None and ri["cfr_plus_stop_reason"] == "interrupted":
        # Ctrl-C: write what we have and stop
        cli_output.write_json(_OUTPUT_JSON.value, {"lossless": lossless, "rhode_island": ri})
        sys.exit(cli.INTERRUPTED_EXIT_CODE)
    knob = _knob()
    print(
        format_table(
            [
                "game",
                "classes",
                "nodes before",
                "nodes after",
                "LP rows before",
                "LP rows after",
                "abstraction s",
                "lifted exploitability",
            ],
            [
                [
                    r["game"],
                    r["classes_per_round"],
                    r["original"]["nodes"],
                    r["abstracted"]["nodes"],
                    r["original"]["lp_rows"],
                    r["abstracted"]["lp_rows"],
                    round(r["abstraction_seconds"], 3),
                    r["lifted_exploitability"],
                ]
                for r in lossless
            ],
        )
    )
    print(
        format_table(
            [
                "threshold",
                "classes",
                "nodes",
                "infosets",
                "abstract value",
                "lifted exploitability",
            ],
            [
                [
                    r["threshold"],
                    r["classes_per_round"],
                    r["abstracted_nodes"],
                    r["abstracted_infosets"],
                    r["abstract_value"],
                    r["lifted_exploitability"],
                ]
                for r in knob
            ],
        )
    )
    cli_output.write_json(
        _OUTPUT_JSON.value, {"lossless": lossless, "rhode_island": ri, "knob": knob}
    )


if __name__ == "__main__":
    cli.main(main)
