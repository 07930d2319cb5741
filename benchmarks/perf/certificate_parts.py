r"""The trunk LPs solved whole against split into their independent parts (public chance).

  python benchmarks/perf/certificate_parts.py \
      --output_json=docs/results/certificate_parts.json

Grows trunks of --game (default 5-rank Goofspiel with random prize order, whose first prize card
is public chance at the root) by Algorithm 6.7 of Zhang & Sandholm, "Finding and Certifying
(Near-)Optimal Strategies in Black-Box Extensive-Form Games" (AAAI 2021), with fixed steps
(--expand_below levels deeper, interior point: the same trunks on every machine, unlike the
search's default steps, which follow measured seconds), up to each --trunk_nodes (the trunk of
the best certificate before an expansion would pass it); then solves both LPs of Section 6.1 on
each trunk (`certificates.trunk_lps.solve_trunk`, cold: no warm start) three ways, in
alternating order over --rounds rounds:

- `whole`: one pair of LPs (`split=False`);
- `split`: one pair per independent part below the public chance (`tree_parts`), one thread,
  whatever the trunk's size (the search splits only trunks of `trunk_lps.SPLIT_MIN_NODES`
  nodes or more; the small trunks show why);
- `split, threads`: the same parts on --threads threads.

Each way is run with HiGHS's dual simplex (up to --simplex_max_nodes trunk nodes; it is slow
cold on large trunks) and its interior point method with crossover. Prints and writes, per
trunk, method and way, the median wall seconds and HiGHS's summed seconds, and the ratio of
the whole solve's wall seconds to each split one's. The certificate's value interval is
checked equal every way (the split is exact; the plans may be other optimal ones).
"""

import statistics
import time

import certificate_trunks
from absl import flags

from ospiel_ext.algorithms.certificates import trunk_lps
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import TreeSequenceForm

_GAME = flags.DEFINE_string(
    "game", "sequential_goofspiel(num_cards=5,points_order=random)", "A load_game string."
)
_TRUNK_NODES = flags.DEFINE_list(
    "trunk_nodes",
    ["3000", "10000", "30000", "100000", "300000", "1000000"],
    "Trunk sizes (nodes) to grow to, comma-separated.",
)
_SIMPLEX_MAX_NODES = flags.DEFINE_integer(
    "simplex_max_nodes", 100_000, "Largest trunk solved by the dual simplex too.", lower_bound=0
)
_EXPAND_BELOW = flags.DEFINE_integer(
    "expand_below", 2, "Levels below the expanded nodes also expanded.", lower_bound=0
)
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Alternating rounds per trunk.", lower_bound=1)
_THREADS = flags.DEFINE_integer("threads", 2, "Threads of the third way.", lower_bound=2)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")

WAYS = ("whole", "split", "split, threads")


def _solve(sf: TreeSequenceForm, way: str, method: str) -> tuple[float, trunk_lps.TrunkSolves]:
    """Wall seconds and the solves of one way (module docstring)."""
    begin = time.perf_counter()
    solved = trunk_lps.solve_trunk(
        sf,
        method=method,
        split=way != "whole",
        threads=_THREADS.value if way == "split, threads" else 1,
    )
    return time.perf_counter() - begin, solved


def _measure(sf: TreeSequenceForm, method: str) -> list[dict]:
    """Every way on one trunk and method, alternating, with the medians (module docstring)."""
    walls: dict[str, list[float]] = {way: [] for way in WAYS}
    highs: dict[str, list[float]] = {way: [] for way in WAYS}
    intervals, parts = set(), 1
    for r in range(_ROUNDS.value):
        for way in WAYS if r % 2 == 0 else reversed(WAYS):
            seconds, solved = _solve(sf, way, method)
            walls[way].append(seconds)
            highs[way].append(solved.lp_seconds)
            cert = solved.certificate
            intervals.add((round(cert.value_lower, 9), round(cert.value_upper, 9)))
            parts = max(parts, solved.num_parts)
    if len(intervals) != 1:
        cli.fail(f"{sf.name}: the ways certify different value intervals {sorted(intervals)}", 1)
    whole = statistics.median(walls["whole"])
    return [
        {
            "method": method,
            "way": way,
            "parts": 1 if way == "whole" else parts,
            "seconds": statistics.median(walls[way]),
            "highs_seconds": statistics.median(highs[way]),
            "whole_over_this": whole / statistics.median(walls[way]),
            "value_interval": list(next(iter(intervals))),
        }
        for way in WAYS
    ]


def main(argv):
    cli_flags.no_arguments(argv)
    sizes = cli_flags.int_list(_TRUNK_NODES)
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    results, table = [], []
    default_min = trunk_lps.SPLIT_MIN_NODES
    for size in sizes:
        trunk_lps.SPLIT_MIN_NODES = default_min
        sf = certificate_trunks.grown_trunk(game, size, _EXPAND_BELOW.value)
        trunk_lps.SPLIT_MIN_NODES = 0  # split every trunk (module docstring)
        nodes = sf.tree.num_nodes
        methods = ["simplex", "ipm"] if nodes <= _SIMPLEX_MAX_NODES.value else ["ipm"]
        runs = [run for method in methods for run in _measure(sf, method)]
        for run in runs:
            table.append(
                [f"{nodes:,}", run["method"], run["way"], run["parts"], f"{run['seconds']:.3f}",
                 f"{run['highs_seconds']:.3f}", f"{run['whole_over_this']:.2f}"]
            )  # fmt: skip
        results.append({"trunk_nodes": nodes, "runs": runs})
    print(f"{game}: both trunk LPs, whole or split (medians of {_ROUNDS.value} rounds)")
    print(
        format_table(
            ["trunk nodes", "method", "way", "parts", "wall s", "HiGHS s", "whole / this"],
            table,
        )
    )
    cli_output.write_json(
        _OUTPUT_JSON.value,
        {
            "game": str(game),
            "expand_below": _EXPAND_BELOW.value,
            "rounds": _ROUNDS.value,
            "threads": _THREADS.value,
            "trunks": results,
        },
    )


if __name__ == "__main__":
    cli.main(main)
