"""How closely our CFR family follows OpenSpiel's Python solvers, iteration by iteration.

  python benchmarks/perf/openspiel_iterates.py --game=leduc_poker --checkpoints=8,30,100,200,500

Ours and OpenSpiel's `cfr.CFRSolver`, `cfr.CFRPlusSolver` and `discounted_cfr.DCFRSolver` run
side by side on one game; at each of --checkpoints the largest difference between the two average
strategies (`action_probability_array`) is printed. Both apply the same update rules, summing
in another order: the differences are floating-point rounding, which CFR+'s clipping of
regrets at zero and DCFR's discounting amplify once a regret sits near zero (docs/library.md,
"Drop-in for OpenSpiel's cfr"). The tests compare early iterates to 1e-9
(tests/algorithms/test_cfr.py).
"""

import numpy as np
from absl import flags
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import discounted_cfr as os_dcfr

from ospiel_ext.algorithms import cfr
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_CHECKPOINTS = flags.DEFINE_list(
    "checkpoints", ["8", "30", "100", "200", "500"], "Iteration counts to compare at."
)
cli_flags.rename("points", "checkpoints")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the differences here as JSON.")

PAIRS = {
    "CFR": (cfr.CFRSolver, os_cfr.CFRSolver),
    "CFR+": (cfr.CFRPlusSolver, os_cfr.CFRPlusSolver),
    "DCFR": (cfr.DCFRSolver, os_dcfr.DCFRSolver),
}


def main(argv):
    cli_flags.no_arguments(argv)
    points = sorted(cli_flags.int_list(_CHECKPOINTS))
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    differences = {}
    for name, (ours, theirs) in PAIRS.items():
        a, b = ours(game), theirs(game)
        row = []
        for t in range(1, points[-1] + 1):
            a.evaluate_and_update_policy()
            b.evaluate_and_update_policy()
            if t in points:
                ours_avg = a.average_policy().action_probability_array
                theirs_avg = b.average_policy().action_probability_array
                row.append(float(np.abs(ours_avg - theirs_avg).max()))
        differences[name] = row
    print(f"largest |difference| of the average strategies, ours vs OpenSpiel's, {game}")
    print(format_table(["solver", *map(str, points)], [[n, *r] for n, r in differences.items()]))
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value, {"game": str(game), "iterations": points, **differences}
        )


if __name__ == "__main__":
    cli.main(main)
