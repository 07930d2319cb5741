"""`python scripts/game_stats.py` = `ospiel-ext stats`:
size of a game: histories, infosets, sequences, depth.

The command lives in `ospiel_ext/commands/game_stats.py` (its docstring lists the flags).
"""

from ospiel_ext import cli
from ospiel_ext.commands import game_stats

__doc__ = game_stats.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(game_stats.main)
