"""`python scripts/solve.py` = `ospiel-ext solve`:
solve a game by the sequence-form LP or a CFR variant.

The command lives in `ospiel_ext/cli/commands/solve.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import solve

__doc__ = solve.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(solve.main)
