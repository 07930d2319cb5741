r"""CFR variants side by side on one range layout: exploitability after the same iterations.

  python benchmarks/perf/range_cfr_variants.py \
      --output_json=docs/results/range_cfr_variants.json

Is the discounting of DCFR (Brown & Sandholm, "Solving Imperfect-Information Games via
Discounted Regret Minimization", AAAI 2019, Section 3: positive regrets x t^a / (t^a + 1),
negative regrets x t^b / (t^b + 1), the average's contributions x (t / (t + 1))^g) a lever on
no-limit hold'em, whose all-in pots converge far more slowly per iteration than limit games?
Each --variants flag is "cfr_plus", or "dcfr:a,b,g"; each runs --iterations iterations of
`poker.range_cfr.RangeCFRSolver` (suit orbits, float64, alternating updates) on --game and
measures the average profile's exact exploitability at each --checkpoints iteration.

JSON keys: game, big_blind, checkpoints, rows [{variant, exploitability_mbb (one per
checkpoint), seconds}], stop_reason.
"""

import dataclasses
import time

from absl import flags

from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.poker import range_cfr, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts

FCPA_16 = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=100 50,firstPlayer=2 1,"
    "numSuits=4,numRanks=4,numHoleCards=2,numBoardCards=0 3,stack=20000 20000,"
    "bettingAbstraction=fcpa)"
)
VARIANTS = (
    "dcfr:1.5,0,2",
    "cfr_plus",
    "dcfr:2,0,2",
    "dcfr:1.5,0.5,2",
    "dcfr:1.5,0,3",
    "dcfr:1.5,-8,2",
)
_GAME = flags.DEFINE_string("game", FCPA_16, "A poker game of the range layout.")
_VARIANTS = flags.DEFINE_multi_string(
    "variants", list(VARIANTS), "cfr_plus, or dcfr:alpha,beta,gamma (repeat the flag)."
)
_CHECKPOINTS = flags.DEFINE_list("checkpoints", ["25", "50", "100", "200"], "Iterations.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def config(variant: str) -> cfr_rules.CFRConfig:
    """The CFRConfig of "cfr_plus" or "dcfr:alpha,beta,gamma"."""
    if variant == "cfr_plus":
        return cfr_rules.CFR_PLUS
    name, _, params = variant.partition(":")
    values = params.split(",")
    if name != "dcfr" or len(values) != 3:
        raise ValueError(f"variant {variant!r}: cfr_plus, or dcfr:alpha,beta,gamma")
    discount = tuple(float(v) for v in values)
    return dataclasses.replace(cfr_rules.DCFR, discount=discount)


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    checkpoints = sorted(set(cli_flags.int_list(_CHECKPOINTS)))
    cli_flags.require(checkpoints[0] >= 1, "--checkpoints must be positive")
    with cli_flags.refuse(ValueError):
        configs = {v: config(v) for v in _VARIANTS.value}
    game = cli.load_game(_GAME.value)
    big_blind = structure.big_blind(game) or 1.0
    rows = []
    with cli.stoppable() as stop:
        for variant, cfg in configs.items():
            with cli_flags.refuse(ValueError):
                solver = range_cfr.for_game(game, cfg, suits=True)
            start = time.perf_counter()
            result = solver_lib.run(solver, checkpoints[-1], checkpoints=checkpoints)
            curve = result.curve
            if interrupts.requested():
                break
            rows.append(
                {
                    "variant": variant,
                    "exploitability_mbb": [
                        1000 * e / big_blind
                        for i, e in zip(curve.iterations, curve.exploitability)
                        if i in checkpoints
                    ],
                    "seconds": time.perf_counter() - start,
                }
            )
            shown = [round(e, 1) for e in rows[-1]["exploitability_mbb"]]
            print(f"{variant:16s} mbb/g at {checkpoints}: {shown}", flush=True)
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value,
            {
                "game": str(game),
                "big_blind": big_blind,
                "checkpoints": checkpoints,
                "rows": rows,
                "stop_reason": stop.reason,
            },
        )
    if interrupts.requested():
        raise KeyboardInterrupt


if __name__ == "__main__":
    cli.main(main)
