"""Iterated elimination of weakly dominated terminal sequences after GameShrink (Gilpin &
Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information", ACM EC
2006, introduction: Rhode Island Hold'em's LP after GameShrink and dominance elimination).

  python benchmarks/papers/gameshrink_dominance.py \
      --output_json=docs/results/gameshrink_dominance.json

For each --games game that compiles: the LP size (rows, columns, nonzeros of player 0's
sequence-form LP, `lp.lp_size`) of the original game, after dominance elimination alone, of
GameShrink's lossless Γ_f, and of Γ_f after dominance elimination, with the rounds and
seconds of the elimination. For --rhode_island (far too large to compile) only Γ_f's product
sequence form is built. `gameshrink.dominance` says which dominance is tested; --filter=paper
uses GameShrink's transformation as the paper writes it (not lossless) for Γ_f.
"""

import time

from absl import flags

from ospiel_ext import lp
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import gameshrink
from ospiel_ext.algorithms.gameshrink import abstract_game, dominance
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

_GAMES = flags.DEFINE_multi_string(
    "games",
    [
        "leduc_poker",
        "limit_leduc_poker(num_ranks=13)",
        "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
        "rhode_island_holdem(num_ranks=4,num_suits=2,max_raises=1)",
    ],
    "Games that compile; repeat the flag for more.",
)
_RHODE_ISLAND = flags.DEFINE_string(
    "rhode_island", "rhode_island_holdem", "The full game, abstracted only ('' skips it)."
)
_FILTER = flags.DEFINE_enum(
    "filter", "coarsest", list(gameshrink.TRANSFORMATIONS), "GameShrink's filter for Γ_f."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")

_KEYS = ("lp_rows", "lp_columns", "lp_nonzeros")


def _full_size(sf):
    return lp.lp_size(
        [tp.num_infosets for tp in sf.treeplexes],
        [tp.num_sequences for tp in sf.treeplexes],
        sf.payoff.nnz,
    )


def _eliminate(sf):
    start = time.perf_counter()
    result = dominance.iterated_dominance(sf)
    seconds = time.perf_counter() - start
    return {
        **result.lp_size(sf),
        "eliminated": list(result.eliminated),
        "rounds": result.rounds,
        "seconds": seconds,
    }


def _row(name, stage, size):
    return [name, stage, *(f"{size[k]:,}" for k in _KEYS), size.get("rounds", ""),
            f"{size['seconds']:.2f}" if "seconds" in size else ""]  # fmt: skip


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    names = _GAMES.value + ([_RHODE_ISLAND.value] if _RHODE_ISLAND.value else [])
    for name in names:
        cli.load_game(name)  # every game, before the work
    results, rows = {}, []
    for name in names:
        entry = {}
        if name != _RHODE_ISLAND.value:
            original = sf_lib.for_game(name)
            entry["original"] = _full_size(original)
            entry["original_dominance"] = _eliminate(original)
        with cli.stage(f"GameShrink on {name}"):
            abstraction = gameshrink.gameshrink(name, transformation=_FILTER.value)
            interrupts.check()  # Ctrl-C stopped it: no figures from a filter so far
            shrunk = abstract_game.AbstractGame.of(abstraction).sequence_form
        entry["abstracted"] = _full_size(shrunk)
        with cli.stage(f"dominance on Γ_f of {name}"):
            entry["abstracted_dominance"] = _eliminate(shrunk)
        results[name] = entry
        for stage, size in entry.items():
            rows.append(_row(name, stage, size))
        print(f"{name}: done", flush=True)
    print(format_table(["game", "LP", "rows", "columns", "nonzeros", "rounds", "seconds"], rows))
    cli_output.write_json(_OUTPUT_JSON.value, results)


if __name__ == "__main__":
    cli.main(main)
