"""Size of a game: histories, terminals, chance / decision nodes, infosets, sequences, depth.

  ospiel-ext stats --game=leduc_poker --output_json=/tmp/stats.json

JSON keys: game, histories, terminals, chance_nodes, decision_nodes, infosets_0, infosets_1,
sequences_0, sequences_1 (including the empty sequence), max_depth, payoff_nonzeros,
compile_seconds.
"""

import time

from absl import flags

from ospiel_ext import cli

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def main(argv):
    cli.no_arguments(argv)
    cli.positive(_MAX_NODES)
    cli.output_path(_OUTPUT_JSON)
    game = cli.load_game(_GAME.value)
    start = time.perf_counter()
    sf = cli.compile_game(game, _MAX_NODES.value)
    stats = {
        "game": str(game),
        **sf.tree.stats(),
        "sequences_0": sf.treeplexes[0].num_sequences,
        "sequences_1": sf.treeplexes[1].num_sequences,
        "payoff_nonzeros": int(sf.payoff_lo.nnz),
        "compile_seconds": time.perf_counter() - start,
    }
    print(cli.format_table(["quantity", "value"], stats.items()))
    cli.write_json(_OUTPUT_JSON.value, stats)


if __name__ == "__main__":
    cli.main(main)
