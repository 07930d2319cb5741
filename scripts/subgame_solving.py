"""`python scripts/subgame_solving.py` = `ospiel-ext subgame`:
safe subgame solving with gadget games and GGSE.

The command lives in `ospiel_ext/cli/commands/subgame_solving.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import subgame_solving

__doc__ = subgame_solving.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(subgame_solving.main)
