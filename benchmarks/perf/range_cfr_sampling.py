r"""Public chance sampling against full walks on one range layout, at equal solving time.

  python benchmarks/perf/range_cfr_sampling.py \
      --output_json=docs/results/range_cfr_sampling.json

Is public chance sampling (Johanson et al., "Efficient Nash Equilibrium Approximation through
Monte Carlo Counterfactual Regret Minimization", AAMAS 2012, Section 3: sample the public
chance outcomes, walk every private hand exactly) a lever on no-limit hold'em? For each
--solvers variant and --fractions f, `poker.range_cfr.RangeCFRSolver(sample_boards=f)` (suit
orbits, float64, one thread; f = 1: every board, in the default chunks; f < 1: one board per
chunk, round(f x boards) drawn a pass) runs for each --time_limits wall-clock seconds, side by
side in one process, and its average profile's exact exploitability is measured where it
stops (the measurement not counted).

JSON keys: game, big_blind, boards (canonical boards of the last round), rows [{solver,
fraction, time_limit, iterations, board_passes (iterations x the fraction of boards drawn),
seconds (solving), exploitability_mbb}], stop_reason.
"""

import itertools

from absl import flags

from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.poker import range_cfr, range_tree, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

FCPA_16 = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=100 50,firstPlayer=2 1,"
    "numSuits=4,numRanks=4,numHoleCards=2,numBoardCards=0 3,stack=20000 20000,"
    "bettingAbstraction=fcpa)"
)
_GAME = flags.DEFINE_string("game", FCPA_16, "A poker game of the range layout.")
_SOLVERS = flags.DEFINE_multi_enum(
    "solvers", ["cfr_plus", "dcfr"], ["cfr_plus", "dcfr"], "CFR variants (repeat the flag)."
)
_FRACTIONS = flags.DEFINE_list("fractions", ["1", "0.25", "0.0625"], "Fractions of boards.")
_TIME_LIMITS = flags.DEFINE_list("time_limits", ["20", "60"], "Wall-clock seconds per run.")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the boards drawn.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    fractions = cli_flags.float_list(_FRACTIONS)
    time_limits = cli_flags.float_list(_TIME_LIMITS)
    cli_flags.require(all(0 < f <= 1 for f in fractions), "--fractions must lie in (0, 1]")
    cli_flags.require(all(s > 0 for s in time_limits), "--time_limits must be positive")
    game = cli.load_game(_GAME.value)
    big_blind = structure.big_blind(game) or 1.0
    with cli_flags.refuse(ValueError):
        tree = range_tree.RangeTree(structure.detect(game), suits=True)
    rows = []
    with cli.stoppable() as stop:
        for solver_name, fraction, time_limit in itertools.product(
            _SOLVERS.value, fractions, time_limits
        ):
            with range_cfr.RangeCFRSolver(
                tree,
                cfr_rules.PRESETS[solver_name],
                chunk_values=None if fraction == 1 else 1,
                sample_boards=fraction,
                seed=_SEED.value,
            ) as solver:
                result = solver_lib.run(solver, None, time_limit=time_limit, checkpoints=(0,))
            if interrupts.requested():
                break
            rows.append(
                {
                    "solver": solver_name,
                    "fraction": fraction,
                    "time_limit": time_limit,
                    "iterations": result.iterations,
                    "board_passes": result.iterations * solver.drawn,
                    "seconds": result.seconds,
                    "exploitability_mbb": 1000 * result.curve.exploitability[-1] / big_blind,
                }
            )
            print(
                f"{solver_name:9s} boards x {fraction:<7g} {time_limit:5g} s: "
                f"{result.iterations:6d} iterations, "
                f"{rows[-1]['exploitability_mbb']:9.2f} mbb/g",
                flush=True,
            )
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value,
            {
                "game": str(game),
                "big_blind": big_blind,
                "boards": tree.rounds[-1].deals.num_boards,
                "rows": rows,
                "stop_reason": stop.reason,
            },
        )
    if interrupts.requested():
        raise KeyboardInterrupt


if __name__ == "__main__":
    cli.main(main)
