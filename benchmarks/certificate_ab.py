r"""The certificate search of an earlier commit against this checkout, side by side (issue 16).

  python benchmarks/certificate_ab.py --base=6d09e95 --rounds=3 \
      --output_json=docs/results/certificate_ab.json

Checks --base out into a temporary git worktree and runs Algorithm 6.7 of Zhang & Sandholm,
"Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form Games" (AAAI
2021) through `certificates.search` on every --runs entry (GAME@K: the game and
`expand_below`), once per round with each code base, each run in a fresh process and the two
code bases alternating, so that load on this shared machine hits both alike. Prints each
side's median seconds and the median of the per-round ratios base / this checkout (above 1:
this checkout is faster), with iterations, epsilon and the trunk's size, which match when the
change under test keeps the search's path.
"""

import json
import os
import statistics
import subprocess
import sys
import tempfile

from absl import flags

from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

_BASE = flags.DEFINE_string("base", None, "The commit to compare against.", required=True)
_RUNS = flags.DEFINE_multi_string(
    "runs",
    [
        "sequential_goofspiel(num_cards=5,info=perfect)@0",
        "sequential_goofspiel(num_cards=5,info=perfect)@2",
        "sequential_goofspiel(num_cards=5)@0",
        "search_game@0",
        "sequential_goofspiel(num_cards=4,points_order=random)@2",
    ],
    "GAME@K entries: a load_game string and expand_below; repeat the flag for more.",
)
_ROUNDS = flags.DEFINE_integer("rounds", 3, "Runs of each code base per entry.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")

_SEARCH = """
import json, sys, time
from ospiel_ext.algorithms import certificates
start = time.perf_counter()
r = certificates.search(sys.argv[1], expand_below=int(sys.argv[2]))
print(json.dumps({"seconds": time.perf_counter() - start, "iterations": r.iterations,
                  "epsilon": r.certificate.epsilon, "trunk_nodes": r.certificate.trunk.num_nodes}))
"""


def _search(root: str, game: str, below: int) -> dict:
    """One search in a fresh process importing ospiel_ext from `root`."""
    env = dict(os.environ, PYTHONPATH=root)
    out = subprocess.run(
        [sys.executable, "-c", _SEARCH, game, str(below)],
        cwd=root,
        env=env,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_ROUNDS)
    cli_flags.output_path(_OUTPUT_JSON)
    runs = [cli_flags.game_at(entry, "runs") for entry in _RUNS.value]
    for game, _ in runs:
        cli.load_game(game)  # every game, before the work
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    found = subprocess.run(
        ["git", "-C", here, "rev-parse", "--verify", "--quiet", f"{_BASE.value}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    cli_flags.require(found.returncode == 0, f"--base: {_BASE.value!r} is not a commit of {here}")
    results, table = [], []
    with tempfile.TemporaryDirectory() as tmp:
        base_root = os.path.join(tmp, "base")
        subprocess.run(
            ["git", "-C", here, "worktree", "add", "--detach", "-q", base_root, _BASE.value],
            check=True,
        )
        try:
            for game, below in runs:
                sides: dict[str, list[dict]] = {"base": [], "here": []}
                for _ in range(_ROUNDS.value):
                    sides["base"].append(_search(base_root, game, below))
                    sides["here"].append(_search(here, game, below))
                ratios = [b["seconds"] / h["seconds"] for b, h in zip(sides["base"], sides["here"])]
                row = {
                    "game": game,
                    "expand_below": below,
                    "runs": sides,
                    "ratio_base_over_here": statistics.median(ratios),
                }
                results.append(row)
                for name, side in sides.items():
                    last = side[-1]
                    table.append(
                        (
                            f"{game}@{below}",
                            _BASE.value if name == "base" else "this checkout",
                            f"{statistics.median(r['seconds'] for r in side):.2f}",
                            last["iterations"],
                            f"{last['epsilon']:.3g}",
                            last["trunk_nodes"],
                            f"{row['ratio_base_over_here']:.2f}" if name == "here" else "",
                        )
                    )
        finally:
            subprocess.run(
                ["git", "-C", here, "worktree", "remove", "--force", base_root], check=False
            )
    print(
        format_table(
            ["run", "code", "median s", "iterations", "epsilon", "trunk nodes", "base / here"],
            table,
        )
    )
    cli_output.write_json(_OUTPUT_JSON.value, {"base": _BASE.value, "results": results})


if __name__ == "__main__":
    cli.main(main)
