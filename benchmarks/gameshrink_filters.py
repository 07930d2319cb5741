"""GameShrink's transformation as the paper writes it against our coarsest lossless filter
(issue 18, item 1; Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of
Imperfect Information", ACM EC 2006, Definitions 4-5, Algorithms 1-2).

  python benchmarks/gameshrink_filters.py --output_json=docs/results/gameshrink_filters.json

For every --games game (all compile) and both filters (`gameshrink.TRANSFORMATIONS`): classes per
round, the abstracted game's LP size (`AbstractGame.size`: rows, columns, nonzeros of player
0's sequence-form LP), the abstraction seconds, Γ_f's LP value, and the exploitability in the
original game of Γ_f's LP equilibrium lifted back, measured by OpenSpiel
(`open_spiel.python.algorithms.exploitability`). For --rhode_island (far too large to compile)
the sizes only, beside the published ones. Prints a table; writes --output_json.
"""

import time

from absl import flags
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import cli, lp
from ospiel_ext.algorithms import gameshrink
from ospiel_ext.algorithms.gameshrink import abstract_game, ordered_games

_GAMES = flags.DEFINE_multi_string(
    "games",
    [
        "kuhn_poker",
        "leduc_poker",
        "limit_leduc_poker(num_ranks=3)",
        "limit_leduc_poker(num_ranks=5)",
        "limit_leduc_poker(num_ranks=9)",
        "limit_leduc_poker(num_ranks=13)",
        "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
        "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
        *ordered_games.UNIVERSAL_POKER_EXAMPLES,
    ],
    "Games that compile; repeat the flag for more.",
)
_RHODE_ISLAND = flags.DEFINE_string(
    "rhode_island", "rhode_island_holdem", "The full game, sizes only ('' skips it)."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")

# Gilpin & Sandholm's published Rhode Island Hold'em LP after GameShrink (rows = columns).
PUBLISHED_RI = {"lp_rows": 1_237_238, "lp_columns": 1_237_238, "lp_nonzeros": 50_428_638}
_SIZE_KEYS = ("nodes", "infosets", "lp_rows", "lp_columns", "lp_nonzeros")


def _row(name: str, transformation: str, solve: bool) -> dict:
    start = time.perf_counter()
    abstraction = gameshrink.gameshrink(name, transformation=transformation)
    seconds = time.perf_counter() - start
    shrunk = abstract_game.AbstractGame.of(abstraction)
    size = shrunk.size()
    row = {
        "game": name,
        "filter": transformation,
        "classes_per_round": abstraction.num_classes,
        "abstraction_seconds": seconds,
        **{k: size[k] for k in _SIZE_KEYS},
    }
    if solve:
        solution = lp.solve(shrunk.sequence_form)
        tabular = abstract_game.LiftedPolicy(shrunk, solution.behavioural).to_tabular()
        row["abstract_lp_value"] = solution.value
        row["lifted_exploitability"] = float(
            os_exploitability.exploitability(abstraction.og.game, tabular)
        )
    return row


def main(argv):
    cli.no_arguments(argv)
    cli.output_path(_OUTPUT_JSON)
    for name in _GAMES.value + [_RHODE_ISLAND.value] * bool(_RHODE_ISLAND.value):
        cli.load_game(name)  # every game, before the work
    rows = []
    for name in _GAMES.value:
        for transformation in gameshrink.TRANSFORMATIONS:
            with cli.stage(f"{transformation} filter of {name}"):
                rows.append(_row(name, transformation, solve=True))
            print(rows[-1], flush=True)
    if _RHODE_ISLAND.value:
        for transformation in gameshrink.TRANSFORMATIONS:
            with cli.stage(f"{transformation} filter of {_RHODE_ISLAND.value}"):
                rows.append(_row(_RHODE_ISLAND.value, transformation, solve=False))
            print(rows[-1], flush=True)
    table = [
        [r["game"], r["filter"], r["classes_per_round"], f"{r['lp_rows']:,}",
         f"{r['lp_nonzeros']:,}", f"{r['abstraction_seconds']:.2f}",
         f"{r['lifted_exploitability']:.3g}" if "lifted_exploitability" in r else "-"]
        for r in rows
    ]  # fmt: skip
    if _RHODE_ISLAND.value:
        table.append(
            [_RHODE_ISLAND.value, "published", "-", f"{PUBLISHED_RI['lp_rows']:,}",
             f"{PUBLISHED_RI['lp_nonzeros']:,}", "< 1", "-"]
        )  # fmt: skip
    print(
        cli.format_table(
            ["game", "filter", "classes", "LP rows", "LP nonzeros", "abstraction s",
             "lifted exploitability (OpenSpiel)"],
            table,
        )
    )  # fmt: skip
    cli.write_json(_OUTPUT_JSON.value, {"rows": rows, "published_rhode_island": PUBLISHED_RI})


if __name__ == "__main__":
    cli.main(main)
