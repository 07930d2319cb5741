"""`python scripts/certify.py` = `ospiel-ext certify`:
an epsilon-certificate of a black-box game.

The command lives in `ospiel_ext/cli/commands/certify.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import certify

__doc__ = certify.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(certify.main)
