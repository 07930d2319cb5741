"""Where the CFR layouts' iterates part, beside one form run on payoffs moved by one ulp.

  python benchmarks/perf/cfr_rounding.py --output_json=docs/results/cfr_rounding.json

Per --games game and CFR variant (vanilla CFR, CFR+, DCFR, each with the tie rule of
`cfr_rules.with_tie_rule`), four runs of --iterations side by side: the explicit sequence form
(the reference), the public-tree form's sequence-form passes, the range layout
(`poker.range_cfr`), and the explicit form again with every nonzero payoff entry moved up by
one unit in the last place (`numpy.nextafter`). For each of the three against the reference:
the first iteration at which the current or average behavioural strategies differ by more
than --threshold, and the largest difference at the last iteration.

The third run is the control: its game differs from the reference's by rounding only, so the
iteration at which it parts is how fast the iteration itself amplifies rounding. Where the
layouts part no earlier than the control, no summation order can keep them together longer
(docs/library.md, the tie rule; tests/algorithms/test_cfr_ties.py checks the agreement
before that). The iterations depend on the CPU's floating-point kernels (provenance records
the CPU).
"""

import numpy as np
from absl import flags

from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr_rules, cfr_variants
from ospiel_ext.algorithms.poker import range_cfr, range_form, range_tree, structure
from ospiel_ext.algorithms.poker.range_numbering import SequenceIndex
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

_GAMES = flags.DEFINE_multi_string(
    "games",
    [
        "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
        "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)",
        "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
        "firstPlayer=1 1,maxRaises=1 1,numSuits=1,numRanks=4,numHoleCards=1,numBoardCards=0 1)",
    ],
    "Games with a public tree (one private card each); repeat the flag for more.",
)
_VARIANTS = flags.DEFINE_list("variants", ["cfr", "cfr_plus", "dcfr"], "cfr_rules.PRESETS.")
_ITERATIONS = flags.DEFINE_integer("iterations", 200, "Iterations of each run.", lower_bound=1)
_THRESHOLD = flags.DEFINE_float("threshold", 1e-9, "A difference above it parts the runs.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the rows here as JSON.")

RUNS = ("public_tree", "range", "one_ulp")


def one_ulp_up(sf: sf_lib.SequenceForm) -> sf_lib.SequenceForm:
    """`sf` with every nonzero payoff entry the next float above it (same treeplexes, game)."""
    payoff = sf.payoff.copy()
    payoff.data = np.nextafter(payoff.data, np.inf)
    return sf_lib.SequenceForm(
        name=sf.name,
        treeplexes=sf.treeplexes,
        payoff_lo=payoff,
        payoff_hi=payoff,
        infoset_keys=sf.infoset_keys,
        build_reach=sf.reach_matrix,
        utility_sum=sf.utility_sum,
        game=sf.game,
    )


def _difference(a, b) -> float:
    """Largest |a - b| over (current, average) x both players' behavioural arrays."""
    return max(float(np.abs(x - y).max()) for u, v in zip(a, b) for x, y in zip(u, v))


def _row(game: str, variant: str, forms) -> dict:
    explicit, perturbed, public, tree, index = forms
    config = cfr_rules.with_tie_rule(cfr_rules.PRESETS[variant])
    reference = cfr_variants.CFRVariantSolver(explicit, config)
    solvers = {
        "public_tree": cfr_variants.CFRVariantSolver(public, config),
        "range": range_cfr.RangeCFRSolver(tree, config),
        "one_ulp": cfr_variants.CFRVariantSolver(perturbed, config),
    }

    def profile(name, solver):
        if name == "range":
            return (
                index.behavioural(solver.current_strategy()),
                index.behavioural(solver.average_strategy()),
            )
        return (solver.current_behavioural(), solver.average_behavioural())

    parts: dict = dict.fromkeys(RUNS)
    last: dict = {}
    for t in range(1, _ITERATIONS.value + 1):
        interrupts.check()
        reference.evaluate_and_update_policy()
        want = profile("reference", reference)
        for name, solver in solvers.items():
            solver.evaluate_and_update_policy()
            last[name] = _difference(profile(name, solver), want)
            if parts[name] is None and last[name] > _THRESHOLD.value:
                parts[name] = t
    return {
        "game": game,
        "variant": variant,
        "parts_at": parts,
        "difference_at_last": last,
    }


def _table_row(row: dict) -> list:
    return [
        row["game"],
        row["variant"],
        *(row["parts_at"][k] or "-" for k in RUNS),
        *(f"{row['difference_at_last'][k]:.2g}" for k in RUNS),
    ]


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    for v in _VARIANTS.value:
        cli_flags.require(v in cfr_rules.PRESETS, f"--variants: {v!r} is not one of "
                          f"{', '.join(cfr_rules.PRESETS)}")  # fmt: skip
    for g in _GAMES.value:  # every game, before the work
        with cli_flags.refuse(ValueError):
            structure.detect(cli.load_game(g))
    rows = []
    with cli.stoppable() as stop:
        for game in _GAMES.value:
            explicit = sf_lib.for_game(game)
            public = range_form.for_game(game)
            tree = range_tree.RangeTree(public.public_tree.structure)
            forms = (explicit, one_ulp_up(explicit), public, tree,
                     SequenceIndex(public.public_tree, tree))  # fmt: skip
            for variant in _VARIANTS.value:
                rows.append(_row(game, variant, forms))
                print(rows[-1], flush=True)
    print(f"the first iteration more than {_THRESHOLD.value:g} apart from the explicit form "
          f"(-: not within {_ITERATIONS.value}); the difference at the last")  # fmt: skip
    print(format_table(["game", "variant", *RUNS, *(f"{r} at last" for r in RUNS)],
                       [_table_row(r) for r in rows]))  # fmt: skip
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value,
            {
                "iterations": _ITERATIONS.value,
                "threshold": _THRESHOLD.value,
                "rows": rows,
                "stop_reason": stop.reason or "iterations",
            },
        )
    if interrupts.requested():
        raise KeyboardInterrupt


if __name__ == "__main__":
    cli.main(main)
