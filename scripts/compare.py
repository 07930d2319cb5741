"""`python scripts/compare.py` = `ospiel-ext compare`:
our CFR family against OpenSpiel's solvers, side by side.

The command lives in `ospiel_ext/cli/commands/compare.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import compare

__doc__ = compare.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(compare.main)
