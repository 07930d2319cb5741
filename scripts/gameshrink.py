"""`python scripts/gameshrink.py` = `ospiel-ext shrink`:
GameShrink abstraction, solve, lift the strategy back.

The command lives in `ospiel_ext/cli/commands/gameshrink.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import gameshrink

__doc__ = gameshrink.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(gameshrink.main)
