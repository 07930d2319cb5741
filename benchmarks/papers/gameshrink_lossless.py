"""Which GameShrink abstractions are lossless (Gilpin & Sandholm, "Finding
Equilibria in Large Sequential Games of Imperfect Information", ACM EC 2006, Definition 5,
Theorem 2, Algorithm 2).

  python benchmarks/papers/gameshrink_lossless.py \
      --output_json=docs/results/gameshrink_lossless.json

1. Lifted into the original game (--games): for the coarsest filter and the paper's
   transformation (`gameshrink.TRANSFORMATIONS`): classes per round beside the views and the
   classes of the suit symmetry alone (views equal up to a permutation of suits, counted by
   brute force over the permutations), Γ_f's LP value, and the exploitability of Γ_f's LP
   equilibrium lifted into the identity filter's Γ - the original game, its sequence form
   counted from the signal tree, so no game is compiled (`lifting.lift_to_finer`; it
   equals OpenSpiel's exploitability of the lifted policy in the compiled game, tested).
2. Single merges (--merges_games): every join of two sibling classes of the coarsest filter
   that the paper's transformation makes (`gameshrink.sibling_joins`), applied alone to the
   coarsest filter (`gameshrink.join_classes`): a view of each class, Γ_f's LP value and its
   change from the game's value, the lifted exploitability.
Prints tables; writes --output_json.
"""

import itertools
import time

import numpy as np
from absl import flags

from ospiel_ext import evaluate, lp
from ospiel_ext.algorithms import gameshrink
from ospiel_ext.algorithms.gameshrink import abstract_game, lifting
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

_GAMES = flags.DEFINE_multi_string(
    "games",
    [
        "leduc_poker",
        "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
        "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
        "rhode_island_holdem(num_ranks=3,num_suits=3,max_raises=1)",
        "rhode_island_holdem(num_ranks=4,num_suits=3,max_raises=1)",
        "rhode_island_holdem(num_ranks=5,num_suits=3,max_raises=1)",
        "rhode_island_holdem(num_ranks=5,num_suits=3,max_raises=1,ace_low=false)",
    ],
    "Games whose identity filter's Γ is solved against (leduc_poker or rhode_island_holdem).",
)
_MERGES_GAMES = flags.DEFINE_multi_string(
    "merges_games",
    ["leduc_poker", "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"],
    "Games whose single merges are measured.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")

_SUITS = "cdhs"


def _deck(game) -> tuple[int, str]:
    """(suits, rank names) of a leduc_poker or rhode_island_holdem game (card = rank * suits +
    suit); the top rank of a Rhode Island deck is its ace."""
    name = game.get_type().short_name
    if name == "leduc_poker":
        return 2, "JQK"
    cli_flags.require(
        name == "rhode_island_holdem", f"{game}: only leduc_poker or rhode_island_holdem"
    )
    return game.num_suits, "23456789TJQKA"[-game.num_ranks :]


def _view_cards(st, round_: int) -> np.ndarray:
    """(views, cards) player 0's cards of each view of `round_`: own then public, deal order
    (groups of one card)."""
    own, public = st.og.view_columns(0, round_)
    first = np.zeros(st.num_views[round_], dtype=np.int64)
    views = st.views[round_][0]
    first[views[::-1]] = np.arange(len(views))[::-1]
    return st.deals[first][:, own + public].astype(np.int64)


def _suit_classes(st, suits: int) -> list[int]:
    """Classes per round of the suit symmetry: views equal after some permutation of the
    suits (the smallest relabelled card tuple over all permutations is the class)."""
    out = []
    for r in range(st.num_rounds):
        cards = _view_cards(st, r)
        rank, suit = cards // suits, cards % suits
        base = st.og.num_cards ** np.arange(cards.shape[1])
        codes = [
            ((rank * suits + np.array(perm)[suit]) * base).sum(axis=1)
            for perm in itertools.permutations(range(suits))
        ]
        out.append(len(np.unique(np.min(codes, axis=0))))
    return out


def _describe(st, round_: int, view: int, *, suits: int, ranks: str) -> str:
    cards = _view_cards(st, round_)[view]
    names = [f"{ranks[c // suits]}{_SUITS[c % suits]}" for c in cards]
    return f"{names[0]} | {' '.join(names[1:])}"


def _lifted(abstraction, identity):
    """(Γ_f's LP value, exploitability of its LP equilibrium lifted into `identity`)."""
    game = abstract_game.AbstractGame.of(abstraction)
    solution = lp.solve(game.sequence_form)
    lifted = lifting.lift_to_finer(game, solution.behavioural, identity)
    return solution.value, evaluate.evaluate_profile(identity.sequence_form, lifted).exploitability


def _lift_rows(name: str) -> list[dict]:
    rows = []
    for transformation in gameshrink.TRANSFORMATIONS:
        with cli.stage(f"{transformation} filter of {name} lifted into the original"):
            start = time.perf_counter()
            a = gameshrink.gameshrink(name, transformation=transformation)
            interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
            identity = abstract_game.AbstractGame.of(gameshrink.identity_filter(a))
            value, expl = _lifted(a, identity)
            suits, _ = _deck(a.og.game)
            rows.append(
                {
                    "game": name,
                    "filter": transformation,
                    "views_per_round": a.signal_tree.num_views,
                    "suit_symmetry_classes": _suit_classes(a.signal_tree, suits),
                    "classes_per_round": a.num_classes,
                    "abstract_lp_value": value,
                    "lifted_exploitability": expl,
                    "seconds": time.perf_counter() - start,
                }
            )
        print(rows[-1], flush=True)
    return rows


def _merge_rows(name: str) -> list[dict]:
    coarsest = gameshrink.gameshrink(name)
    paper = gameshrink.gameshrink(name, transformation="paper")
    interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
    identity = abstract_game.AbstractGame.of(gameshrink.identity_filter(coarsest))
    value, expl = _lifted(coarsest, identity)
    st = coarsest.signal_tree
    suits, ranks = _deck(st.og.game)
    rows = [{"game": name, "join": None, "abstract_lp_value": value, "lifted_exploitability": expl}]
    for r, a, b in gameshrink.sibling_joins(coarsest, paper):
        with cli.stage(f"{name}: round {r} classes {a} and {b} joined"):
            view_a, view_b = (int(np.flatnonzero(coarsest.classes[r] == c)[0]) for c in (a, b))
            joined_value, joined_expl = _lifted(
                gameshrink.join_classes(coarsest, r, a, b), identity
            )
        rows.append(
            {
                "game": name,
                "join": [r, a, b],
                "views": [_describe(st, r, v, suits=suits, ranks=ranks) for v in (view_a, view_b)],
                "abstract_lp_value": joined_value,
                "value_change": joined_value - value,
                "lifted_exploitability": joined_expl,
            }
        )
        print(rows[-1], flush=True)
    return rows


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    for name in _GAMES.value + _MERGES_GAMES.value:
        _deck(cli.load_game(name))  # every game, before the work
    lifted = [row for name in _GAMES.value for row in _lift_rows(name)]
    merges = [row for name in _MERGES_GAMES.value for row in _merge_rows(name)]
    print(
        format_table(
            ["game", "filter", "views", "suit symmetry", "classes", "Γ_f value",
             "lifted exploitability"],
            [[r["game"], r["filter"], r["views_per_round"], r["suit_symmetry_classes"],
              r["classes_per_round"], f"{r['abstract_lp_value']:.6g}",
              f"{r['lifted_exploitability']:.3g}"] for r in lifted],
        )
    )  # fmt: skip
    print(
        format_table(
            ["game", "round, classes joined", "views", "Γ_f value", "change",
             "lifted exploitability"],
            [[r["game"], r["join"] or "none (coarsest)", " / ".join(r.get("views", [])),
              f"{r['abstract_lp_value']:.6g}", f"{r.get('value_change', 0.0):+.4g}",
              f"{r['lifted_exploitability']:.3g}"] for r in merges],
        )
    )  # fmt: skip
    cli_output.write_json(_OUTPUT_JSON.value, {"lifted": lifted, "single_merges": merges})


if __name__ == "__main__":
    cli.main(main)
