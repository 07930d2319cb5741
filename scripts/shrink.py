"""`python scripts/shrink.py` = `ospiel-ext shrink`:
GameShrink abstraction, solve, lift the strategy back.

The command lives in `ospiel_ext/cli/commands/shrink.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import shrink

__doc__ = shrink.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(shrink.main)
