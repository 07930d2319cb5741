"""Reproduce Table 1 of Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
Black-Box Extensive-Form Games", AAAI 2021: 0-certificates of benchmark games.

  python benchmarks/papers/certificates.py --output_json=docs/results/certificates.json

For each game: its size (compiled in full where that is feasible), the size of the
0-certificate found by Algorithm 6.7 and of its minimal certificate (Prop. 4.1), each also as
a percentage of the game, next to the paper's numbers; wall time and LP time. Each game runs
under --time_limit seconds; a run stopped by the budget reports its best certificate's epsilon.
For unlimited limit Leduc (an infinite game) the size is that of the paper's trunk with at most
12 consecutive raises, and the largest number of consecutive raises ever expanded is reported.
--steps=paper (the default) runs Algorithm 6.7's own step (`expand_below=0`, warm-started
simplex); --steps=auto the search's defaults, which choose both as they run
(`certificates.steps`).
"""

import time

from absl import flags

from ospiel_ext import walk
from ospiel_ext.algorithms import certificates
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.games.limit_leduc_poker import max_consecutive_raises

# game string -> paper's (game nodes, game infosets, cert nodes, cert infosets, minimal nodes,
# minimal infosets), Table 1.
# fmt: off
PAPER = {
    "search_game": (234705, 11890, 13682, 532, 5526, 379),
    "sequential_goofspiel(num_cards=4,info=perfect)": (2229, 1653, 275, 110, 141, 54),
    "sequential_goofspiel(num_cards=5,info=perfect)": (55731, 41331, 2593, 957, 763, 288),
    "sequential_goofspiel(num_cards=6,info=perfect)": (2006323, 1487923, 21948, 7584, 4438, 1677),
    "sequential_goofspiel(num_cards=4)": (2229, 738, 614, 117, 294, 58),
    "sequential_goofspiel(num_cards=5)": (55731, 9948, 11415, 2160, 8518, 1792),
    "sequential_goofspiel(num_cards=6)": (2006323, 166002, 266756, 15776, 171343, 12135),
    "sequential_goofspiel(num_cards=3,points_order=random)": (1066, 426, 309, 92, 214, 65),
    "sequential_goofspiel(num_cards=4,points_order=random)": (
        68245, 17432, 16416, 3270, 11992, 2335,
    ),
    "limit_leduc_poker(num_ranks=5,max_raises=-1)": (197736, 13920, 26306, 2406, 12923, 1242),
    "limit_leduc_poker(num_ranks=9,max_raises=-1)": (1181512, 44928, 137662, 6811, 51533, 2891),
    "limit_leduc_poker(num_ranks=13,max_raises=-1)": (3578472, 93600, 337312, 12171, 105769, 4449),
}
# fmt: on
DEFAULT = [g for g in PAPER if "num_cards=6" not in g and "num_ranks=13" not in g]


def size_game(name: str) -> str:
    """The game whose size the percentages refer to: for unlimited Leduc, as in the paper's
    Table 1, the trunk restricted to 12 consecutive raises (our max_raises=11, docs/games.md)."""
    return name.replace("max_raises=-1", "max_raises=11")


_GAMES = flags.DEFINE_multi_string(
    "games", DEFAULT, "A game (key of PAPER or any load_game string); repeat the flag for more."
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", 900.0, "Seconds per game.")
_MAX_NODES = flags.DEFINE_integer(
    "max_nodes", 3_000_000, "Compile the full game for its size only below this many nodes."
)
cli_flags.rename("compile_max_nodes", "max_nodes")
_WARM_START = flags.DEFINE_boolean(
    "warm_start", True, "Start every LP from the previous trunk's basis."
)
_STEPS = flags.DEFINE_enum(
    "steps", "paper", ["paper", "auto"], "Algorithm 6.7's step, or the search's auto choice."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the rows here as JSON.")
STEPS = {
    "paper": {"expand_below": 0, "lp_method": "simplex", "expand_pessimistic": False},
    "auto": {"expand_below": certificates.AUTO, "lp_method": certificates.AUTO},
}


def _pct(part, whole):
    return f"{100.0 * part / whole:.1f}%" if whole else "-"


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TIME_LIMIT)
    cli_flags.positive(_MAX_NODES)
    cli_flags.output_path(_OUTPUT_JSON)
    games = {name: cli.load_game(name) for name in _GAMES.value}  # every game, before the work
    rows = []
    print(
        "| game | nodes / infosets | certificate nodes / infosets | minimal certificate | "
        "paper certificate | paper minimal | epsilon | iterations | seconds | LP seconds | "
        "simplex iterations | max consecutive raises |\n|---|---|---|---|---|---|---|---|---|"
        "---|---|---|",
        flush=True,
    )
    for name, game in games.items():
        try:
            size = walk.game_tree(size_game(name), max_nodes=_MAX_NODES.value).stats()
            nodes, infosets = size["histories"], size["infosets_0"] + size["infosets_1"]
        except ValueError:
            nodes, infosets = 0, 0
        start = time.perf_counter()
        result = certificates.search(
            game, time_limit=_TIME_LIMIT.value, warm_start=_WARM_START.value, **STEPS[_STEPS.value]
        )
        cert = result.certificate
        minimal = certificates.minimal_certificate(cert)
        row = {
            "game": name,
            "game_nodes": nodes,
            "game_infosets": infosets,
            "cert_nodes": cert.trunk.num_nodes,
            "cert_infosets": cert.trunk.num_infosets,
            "minimal_nodes": minimal.trunk.num_nodes,
            "minimal_infosets": minimal.trunk.num_infosets,
            "epsilon": cert.epsilon,
            "zero_certificate": cert.is_zero,
            "iterations": result.iterations,
            "seconds": time.perf_counter() - start,
            "lp_seconds": result.lp_seconds,
            "simplex_iterations": result.simplex_iterations,
            "stopped": result.stop_reason,
            # Section 7: the paper never expanded more than 12 consecutive raises in Leduc
            "max_consecutive_raises": (
                max_consecutive_raises(cert.trunk) if "limit_leduc_poker" in name else None
            ),
            "paper": PAPER.get(name),
        }
        rows.append(row)
        paper = row["paper"] or (0,) * 6
        print(
            f"| {name} | {nodes:,} / {infosets:,} | {row['cert_nodes']:,} "
            f"({_pct(row['cert_nodes'], nodes)}) / {row['cert_infosets']:,} "
            f"({_pct(row['cert_infosets'], infosets)}) | {row['minimal_nodes']:,} "
            f"({_pct(row['minimal_nodes'], nodes)}) / {row['minimal_infosets']:,} "
            f"({_pct(row['minimal_infosets'], infosets)}) | {paper[2]:,} / {paper[3]:,} | "
            f"{paper[4]:,} / {paper[5]:,} | {cert.epsilon:.2g} | {result.iterations} | "
            f"{row['seconds']:.1f} | {result.lp_seconds:.1f} | {result.simplex_iterations} | "
            f"{row['max_consecutive_raises']} |",
            flush=True,
        )
    cli_output.write_json(_OUTPUT_JSON.value, {"rows": rows})


if __name__ == "__main__":
    cli.main(main)
