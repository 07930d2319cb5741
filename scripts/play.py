"""`python scripts/play.py` = `ospiel-ext play`:
a saved policy against random / policy / MCTS / human opponents.

The command lives in `ospiel_ext/cli/commands/play.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import play

__doc__ = play.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(play.main)
