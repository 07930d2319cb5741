"""Size of a game: histories, terminals, chance / decision nodes, infosets, sequences, depth.

  ospiel-ext stats --game=leduc_poker --output_json=/tmp/stats.json
  ospiel-ext stats --game="kuhn_poker(players=3)"

Any finite sequential game (simultaneous games turn-based) is counted, also one the solvers
refuse (more than two players, general-sum, imperfect recall): stats only counts. A
two-player zero-sum game with perfect recall is compiled as the solvers compile it, which
adds its sequence form's payoff nonzeros.

JSON keys: game, players, compiled (true: the two-player zero-sum perfect-recall game was
compiled; false: counted only), histories, terminals, chance_nodes, decision_nodes,
infosets_P, sequences_P (including the empty sequence) and perfect_recall_P for each player P
(null where the game has no information-state string to count them by), max_depth,
payoff_nonzeros (null unless compiled), note (why the game was counted only, or null),
seconds.
"""

import time
from typing import Any

import pyspiel
from absl import app, flags

from ospiel_ext import counting, loading
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def _compiled(sf: sf_lib.TreeSequenceForm) -> dict[str, Any]:
    stats = sf.tree.stats()
    return {
        "players": 2,
        "compiled": True,
        **{k: stats[k] for k in ("histories", "terminals", "chance_nodes", "decision_nodes")},
        **{f"infosets_{p}": stats[f"infosets_{p}"] for p in (0, 1)},
        **{f"sequences_{p}": sf.treeplexes[p].num_sequences for p in (0, 1)},
        **{f"perfect_recall_{p}": True for p in (0, 1)},
        "max_depth": stats["max_depth"],
        "payoff_nonzeros": int(sf.payoff_lo.nnz),
        "note": None,
    }


def _counted(game: pyspiel.Game, note: str) -> dict[str, Any]:
    with cli.stage(f"counting {game}"), cli_flags.refuse(ValueError):
        size = counting.count_game(game, _MAX_NODES.value)
    row = {
        "players": size["players"],
        "compiled": False,
        **{k: size[k] for k in ("histories", "terminals", "chance_nodes", "decision_nodes")},
    }
    for field in ("infosets", "sequences", "perfect_recall"):
        for p in range(size["players"]):
            row[f"{field}_{p}"] = None if size[field] is None else size[field][p]
    return {**row, "max_depth": size["max_depth"], "payoff_nonzeros": None, "note": note}


def main(argv: list[str]) -> None:
    """Prints the size of --game (compiled, or else counted) and writes it as JSON."""
    cli_flags.no_arguments(argv)
    cli_flags.positive(_MAX_NODES)
    cli_flags.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value, two_player_zero_sum=False)
    start = time.perf_counter()
    try:
        loading.check_two_player_zero_sum(game)
        with cli.stage(f"compiling {game}"):
            sf = sf_lib.for_game(game, max_nodes=_MAX_NODES.value)
    except loading.GameTooLargeError as e:
        raise app.UsageError(cli_flags.one_line(str(e))) from None
    except ValueError as e:  # not what the solvers take, but countable
        stats = _counted(game, f"counted only: {cli_flags.one_line(str(e))}")
    else:
        stats = _compiled(sf)
    row = {"game": str(game), **stats, "seconds": time.perf_counter() - start}
    print(format_table(["quantity", "value"], [(k, v) for k, v in row.items() if k != "note"]))
    if row["note"]:
        print(f"note: {row['note']}")
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)


if __name__ == "__main__":
    cli.main(main)
