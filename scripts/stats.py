"""`python scripts/stats.py` = `ospiel-ext stats`:
size of a game: histories, infosets, sequences, depth.

The command lives in `ospiel_ext/cli/commands/stats.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import stats

__doc__ = stats.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(stats.main)
