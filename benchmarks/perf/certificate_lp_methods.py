r"""HiGHS's dual simplex (warm-started) against its interior point method (with crossover), for
the trunk LPs of certificate search, side by side in one run.

  python benchmarks/perf/certificate_lp_methods.py --time_limit=900 \
      --output_json=docs/results/certificate_lp_methods.json

Runs Algorithm 6.7 of Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
Black-Box Extensive-Form Games" (AAAI 2021) through `certificates.search` on every --runs entry
(GAME@K: the game and `expand_below`) with each --lp_methods entry: "simplex" (each LP passed
whole, warm-started from the previous trunk's basis) and "ipm" (interior point with crossover,
cold), at most --time_limit seconds each, and prints iterations, seconds, HiGHS seconds,
epsilon and the trunk, with the ratio simplex s / ipm s (above 1: the interior point method is
faster). The committed JSON also has a third variant, "live" (one HiGHS model per LP side
changed in place), run before that option was removed (docs/engineering.md).
HiGHS's seconds per iteration against the trunk's size are in each run's `trace`.
"""

from absl import flags

from ospiel_ext.algorithms import certificates
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

_RUNS = flags.DEFINE_multi_string(
    "runs",
    [
        "sequential_goofspiel(num_cards=5,info=perfect)@1",
        "sequential_goofspiel(num_cards=5)@1",
        "search_game@1",
        "sequential_goofspiel(num_cards=4,points_order=random)@2",
        "limit_leduc_poker(num_ranks=9,max_raises=-1)@0",
        "sequential_goofspiel(num_cards=6,info=perfect)@3",
        "sequential_goofspiel(num_cards=6)@1",
    ],
    "GAME@K entries: a load_game string and expand_below; repeat the flag for more.",
)
_VARIANTS = ("simplex", "ipm")
_LP_METHODS = flags.DEFINE_multi_enum(
    "lp_methods", list(_VARIANTS), _VARIANTS, "HiGHS's algorithms to run (repeat the flag)."
)
cli_flags.rename("variants", "lp_methods")
_TIME_LIMIT = flags.DEFINE_float("time_limit", 900.0, "Seconds per search.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TIME_LIMIT)
    cli_flags.output_path(_OUTPUT_JSON)
    runs = [cli_flags.game_at(entry, "runs") for entry in _RUNS.value]
    for game, _ in runs:
        cli.load_game(game)  # every game, before the work
    results, table = [], []
    with interrupts.graceful():  # Ctrl-C ends the search under way and the runs after it
        for game, below in runs:
            seconds = {}
            for variant in [v for v in _VARIANTS if v in _LP_METHODS.value]:
                if interrupts.requested():
                    break
                r = certificates.search(
                    game,
                    time_limit=_TIME_LIMIT.value,
                    expand_below=below,
                    lp_method="ipm" if variant == "ipm" else "simplex",
                    expand_pessimistic=False,  # Algorithm 6.7's nodes, as measured
                )
                seconds[variant] = r.seconds
                nodes, infosets = r.certificate.size()
                row = {
                    "game": game, "expand_below": below, "variant": variant,
                    "iterations": r.iterations, "seconds": r.seconds, "lp_seconds": r.lp_seconds,
                    "stopped": r.stop_reason, "epsilon": r.certificate.epsilon,
                    "trunk_nodes": nodes, "trunk_infosets": infosets,
                    "trace": [vars(t) for t in r.trace],
                }  # fmt: skip
                results.append(row)
                print(f"{game}@{below} {variant}: {r.iterations} iterations, {r.seconds:.1f} s, "
                      f"epsilon {r.certificate.epsilon:.3g}, {r.stop_reason}",
                      flush=True)  # fmt: skip
                ratio = ""
                if variant != "simplex" and "simplex" in seconds:
                    ratio = f"{seconds['simplex'] / r.seconds:.2f}"
                table.append(
                    [game, below, variant, r.iterations, f"{r.seconds:.1f}",
                     f"{r.lp_seconds:.1f}", f"{r.certificate.epsilon:.3g}", f"{nodes:,}",
                     r.stop_reason, ratio]
                )  # fmt: skip
    print(
        format_table(
            ["game", "expand_below", "LP variant", "iterations", "seconds", "HiGHS s",
             "epsilon", "trunk nodes", "stopped", "simplex s / this s"],
            table,
        )
    )  # fmt: skip
    cli_output.write_json(_OUTPUT_JSON.value, {"time_limit": _TIME_LIMIT.value, "runs": results})


if __name__ == "__main__":
    cli.main(main)
