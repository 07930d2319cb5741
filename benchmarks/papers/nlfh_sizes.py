r"""The sizes that decide which no-limit flop hold'em deck `nlfh_figure2.py` can solve.

  python benchmarks/papers/nlfh_sizes.py --output_json=docs/results/nlfh_sizes.json

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games"
(NeurIPS), Section 6.1, measure Figure 2 in NLFH with the 52-card deck and 200 big-blind
stacks. For each --decks deck (RANKSxSUITS) and --stacks_bb stack this lays the game out as
`nlfh_figure2.py` does (`poker.range_tree`, one board per suit orbit; the abstraction and the
game with the 0.75x bet, `nlfh_game`) and counts, without solving:

* per betting round: betting nodes, decision rows (decision nodes x actions), canonical
  boards and entries per row (one per board and hand orbit, `poker.orbits`);
* regret entries of both players (rows x entries per row, summed over the rounds), as
  `range_cfr.RangeCFRSolver.entries` reports them;
* the solver's floor: every CFR+ solve of the game with the bet holds its regrets, current
  strategy and average per entry, 24 bytes in float64; the passes' reaches, values and
  showdown kernels come on top (the 16-card figure's peak is in its own JSON).

JSON keys: rows [{deck_cards, num_ranks, num_suits, stack_bb, game, abstraction: {rounds
[{nodes, rows, boards, width}], entries}, with_bet: {...}, solver_floor_gib}], stop_reason.
"""

import re

from absl import flags
from nlfh_game import abstractions, game_string

from ospiel_ext.algorithms.poker import range_tree, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table

_DECKS = flags.DEFINE_list(
    "decks", ["3x4", "4x4", "5x4", "6x4", "8x4", "13x4"], "Decks as RANKSxSUITS."
)
_STACKS = flags.DEFINE_list(
    "stacks_bb", ["5", "10", "20", "50", "100", "200"], "Stacks in big blinds."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the rows here as JSON.")

FLOOR_BYTES = 24
"""Bytes per regret entry every CFR+ solve holds: regrets, current strategy, average (float64)."""


def _decks() -> list[tuple[int, int]]:
    """The --decks as (ranks, suits)."""
    decks = []
    for deck in _DECKS.value:
        match = re.fullmatch(r"(\d+)x(\d+)", deck)
        cli_flags.require(
            match is not None and int(match[1]) >= 2 and int(match[2]) >= 1,
            f"--decks: {deck!r} is not RANKSxSUITS (ranks >= 2, suits >= 1)",
        )
        decks.append((int(match[1]), int(match[2])))
    return decks


def _layout(tree: range_tree.RangeTree) -> dict:
    """Per round: betting nodes, decision rows, canonical boards, entries per row; entries."""
    rounds = [
        {
            "nodes": lay.num_nodes,
            "rows": sum(len(g.nodes) * g.num_actions for g in lay.groups),
            "boards": lay.deals.num_boards,
            "width": lay.shape[1],
        }
        for lay in tree.rounds
    ]
    return {"rounds": rounds, "entries": sum(r["rows"] * r["width"] for r in rounds)}


def sizes(num_ranks: int, num_suits: int, stack_bb: int) -> dict:
    """The row of one deck and stack (module docstring)."""
    game = cli.load_game(game_string(num_ranks, num_suits, stack_bb))
    row: dict = {
        "deck_cards": num_ranks * num_suits,
        "num_ranks": num_ranks,
        "num_suits": num_suits,
        "stack_bb": stack_bb,
        "game": str(game),
    }
    for name, actions in zip(("abstraction", "with_bet"), abstractions()):
        # no result so far: a signal stops the layout at once
        with cli_flags.refuse(ValueError), interrupts.immediate():
            tree = range_tree.RangeTree(structure.detect(game, actions=actions), suits=True)
        row[name] = _layout(tree)
    cli_flags.require(
        row["with_bet"]["entries"] > row["abstraction"]["entries"],
        f"--stacks_bb={stack_bb}: no 0.75x pot bet fits a stack of {stack_bb} big blinds",
    )
    row["solver_floor_gib"] = FLOOR_BYTES * row["with_bet"]["entries"] / 2**30
    return row


def _table_row(row: dict) -> list:
    flop = row["with_bet"]["rounds"][-1]
    return [
        row["deck_cards"],
        row["stack_bb"],
        f"{row['abstraction']['entries']:,}",
        f"{row['with_bet']['entries']:,}",
        f"{flop['boards']:,}",
        f"{flop['width']:,}",
        f"{flop['rows']:,}",
        f"{row['solver_floor_gib']:,.2f}",
    ]


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    decks = _decks()
    stacks = cli_flags.int_list(_STACKS)
    rows = []
    with cli.stoppable() as stop:
        for num_ranks, num_suits in decks:
            for stack_bb in stacks:
                row = sizes(num_ranks, num_suits, stack_bb)
                rows.append(row)
                entries = row["with_bet"]["entries"]
                print(f"{row['deck_cards']} cards, {stack_bb} BB: {entries:,} entries", flush=True)
    print(format_table(["cards", "stack BB", "entries", "with the bet", "flops", "entries/row",
                        "flop rows", "floor GiB"], [_table_row(r) for r in rows]))  # fmt: skip
    with cli.outputs():
        cli_output.write_json(
            _OUTPUT_JSON.value, {"rows": rows, "stop_reason": stop.reason or "complete"}
        )
    if interrupts.requested():
        raise KeyboardInterrupt


if __name__ == "__main__":
    cli.main(main)
