"""GameShrink's transformation as the paper writes it against our coarsest lossless filter
(Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of
Imperfect Information", ACM EC 2006, Definitions 4-5, Algorithms 1-2).

  python benchmarks/papers/gameshrink_filters.py --output_json=docs/results/gameshrink_filters.json

For every --games game (all compile) and both filters (`gameshrink.TRANSFORMATIONS`): classes per
round, the abstracted game's LP size (`AbstractGame.size`: rows, columns, nonzeros of player
0's sequence-form LP), the abstraction seconds, Γ_f's LP value, and the exploitability in the
original game of Γ_f's LP equilibrium lifted back, measured by OpenSpiel's C++ best responses
(`pyspiel.exploitability`, the figure of `open_spiel.python.algorithms.exploitability`). For
--rhode_island (far too large to compile) the sizes only, beside the published ones. Prints a
table; writes --output_json.

  python benchmarks/papers/gameshrink_filters.py --published \
      --output_json=docs/results/gameshrink_published.json

The reproduction of the published abstraction alone (seconds, under 1 GB): the --rhode_island
game's LP after the paper's transformation under each showdown rule of `RULES` - the game's
default (an ace makes Ace-two-three and Queen-King-Ace straights), ace_low=false (ace high
only) and, as counterfactuals the game does not offer, the same two with flushes ranked above
straights - and the coarsest filter's, beside the published 1,237,238 rows and 50,428,638 nonzeros
(our LP stores zero payoff entries too; the table also counts the LP without them).
"""

import dataclasses
import itertools
import time

import numpy as np
import pyspiel
from absl import flags
from open_spiel.python import policy as policy_lib

from ospiel_ext import lp, poker_hands
from ospiel_ext.algorithms import gameshrink
from ospiel_ext.algorithms.gameshrink import (
    abstract_game,
    descriptions,
    filters,
    lifting,
    ordered_games,
    shrink,
)
from ospiel_ext.algorithms.gameshrink.signal_tree import SignalTree
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

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
        *descriptions.UNIVERSAL_POKER_EXAMPLES,
    ],
    "Games that compile; repeat the flag for more.",
)
_RHODE_ISLAND = flags.DEFINE_string(
    "rhode_island", "rhode_island_holdem", "The full game, sizes only ('' skips it)."
)
_PUBLISHED = flags.DEFINE_bool(
    "published",
    False,
    "Only --rhode_island's sizes under each showdown rule (RULES) beside the published "
    "abstraction (seconds, < 1 GB); --games is not run.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")

# Gilpin & Sandholm's published Rhode Island Hold'em LP after GameShrink (rows = columns).
PUBLISHED_RI = {"lp_rows": 1_237_238, "lp_columns": 1_237_238, "lp_nonzeros": 50_428_638}
_SIZE_KEYS = ("nodes", "infosets", "lp_rows", "lp_columns", "lp_nonzeros")
# Showdown rules of --published: (name, game parameter ace_low, flushes above straights).
RULES = (
    ("ace_low=true (the game's default)", True, False),
    ("ace_low=false", False, False),
    ("ace_low=true, flush above straight", True, True),
    ("ace_low=false, flush above straight", False, True),
)


def _with_ace_low(name: str, ace_low: bool) -> str:
    """The load_game string `name` (a rhode_island_holdem) with ace_low set."""
    params = {k: v for k, v in cli.load_game(name).get_parameters().items() if k != "ace_low"}
    params["ace_low"] = str(ace_low).lower()
    return f"rhode_island_holdem({','.join(f'{k}={v}' for k, v in sorted(params.items()))})"


def _flush_above_straight(og: ordered_games.OrderedGame) -> ordered_games.OrderedGame:
    """`og` (a rhode_island_holdem) with its showdown re-ranked: flushes above straights, the
    rest as the game ranks them. A counterfactual: only the signal tree's results change."""
    game = og.game
    n, suits = game.num_ranks * game.num_suits, game.num_suits
    sets = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64)
    swap = {2: 3, 3: 2}  # three_card_value's categories: 3 straight, 2 flush
    values = []
    for hand in sets.tolist():
        v = poker_hands.three_card_value(tuple(hand), suits, game.num_ranks, game.ace_low)
        values.append((swap.get(v[0], v[0]), *v[1:]))
    order = {v: i for i, v in enumerate(sorted(set(values)))}
    table = np.zeros(n**3, dtype=np.int64)
    for a, b, c in itertools.permutations(range(3)):
        table[(sets[:, a] * n + sets[:, b]) * n + sets[:, c]] = [order[v] for v in values]

    def strength(hand):
        return table[(hand[:, 0] * n + hand[:, 1]) * n + hand[:, 2]]

    assert isinstance(og.outcome, ordered_games.RankOutcome)
    return dataclasses.replace(og, outcome=ordered_games.RankOutcome(strength, og.outcome.hands))


def _rule_abstraction(name: str, transformation: str, flush_above_straight: bool):
    """GameShrink's filter of `name`; with `flush_above_straight`, of the re-ranked showdown
    (`_flush_above_straight`), with the game's own betting tree (payoffs depend on the result
    only, which `gameshrink` checks on the game itself)."""
    a = gameshrink.gameshrink(name, transformation=transformation)
    interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
    if not flush_above_straight:
        return a
    start = time.perf_counter()
    st = SignalTree.build(_flush_above_straight(a.og))
    if transformation == "paper":
        classes, passes = tuple(filters.paper_filter(st)), 1
    else:
        lossless = filters.lossless_filter(st)
        interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
        classes, passes = lossless.classes, lossless.passes
    return shrink.Abstraction(
        signal_tree=st,
        classes=classes,
        threshold=0.0,
        passes=passes,
        seconds=time.perf_counter() - start,
        betting=a.betting,
        transformation=f"{transformation}, flush above straight",
    )


def _published():
    """--published: the rows of RULES x the paper's transformation, then the coarsest filter
    under the default rule."""
    rows = []
    runs = [(rule, ace_low, flush, "paper") for rule, ace_low, flush in RULES]
    runs.append((*RULES[0], "coarsest"))
    for rule, ace_low, flush, transformation in runs:
        name = _with_ace_low(_RHODE_ISLAND.value, ace_low)
        with cli.stage(f"{transformation} filter of {name}, {rule}"):
            start = time.perf_counter()
            a = _rule_abstraction(name, transformation, flush)
            size = abstract_game.AbstractGame.of(a).size()
        rows.append(
            {
                "game": name,
                "rule": rule,
                "filter": transformation,
                "classes_per_round": a.num_classes,
                "seconds": time.perf_counter() - start,
                **{k: size[k] for k in (*_SIZE_KEYS, "payoff_zero_entries")},
            }
        )
        print(rows[-1], flush=True)
    table = [
        ["published (Gilpin & Sandholm)", "GameShrink", "-", f"{PUBLISHED_RI['lp_rows']:,}",
         "", f"{PUBLISHED_RI['lp_nonzeros']:,}", ""]
    ]  # fmt: skip
    for r in rows:
        diff = r["lp_rows"] - PUBLISHED_RI["lp_rows"]
        nonzero = r["lp_nonzeros"] - r["payoff_zero_entries"]
        table.append(
            [r["rule"], r["filter"], r["classes_per_round"], f"{r['lp_rows']:,}",
             f"{r['lp_nonzeros']:,}", f"{nonzero:,}",
             f"{diff:+,} ({diff / PUBLISHED_RI['lp_rows']:+.1%})"]
        )  # fmt: skip
    print(
        format_table(
            ["showdown rule", "filter", "classes", "LP rows = columns",
             "LP nonzeros (stored)", "without zero payoffs", "rows - published"],
            table,
        )
    )  # fmt: skip
    cli_output.write_json(
        _OUTPUT_JSON.value, {"rows": rows, "published_rhode_island": PUBLISHED_RI}
    )


def _row(name: str, transformation: str, solve: bool) -> dict:
    start = time.perf_counter()
    abstraction = gameshrink.gameshrink(name, transformation=transformation)
    interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
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
        tabular = lifting.LiftedPolicy(shrunk, solution.behavioural).to_tabular()
        row["abstract_lp_value"] = solution.value
        row["lifted_exploitability"] = float(
            pyspiel.exploitability(
                abstraction.og.game, policy_lib.python_policy_to_pyspiel_policy(tabular)
            )
        )
    return row


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    if _PUBLISHED.value:
        cli_flags.require(
            cli.load_game(_RHODE_ISLAND.value).get_type().short_name == "rhode_island_holdem",
            "--published needs --rhode_island to be a rhode_island_holdem",
        )
        _published()
        return
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
        format_table(
            ["game", "filter", "classes", "LP rows", "LP nonzeros", "abstraction s",
             "lifted exploitability (OpenSpiel)"],
            table,
        )
    )  # fmt: skip
    cli_output.write_json(
        _OUTPUT_JSON.value, {"rows": rows, "published_rhode_island": PUBLISHED_RI}
    )


if __name__ == "__main__":
    cli.main(main)
