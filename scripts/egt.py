"""`python scripts/egt.py` = `ospiel-ext egt`:
EGT with the perturbed dilated entropy (approximate EFPE).

The command lives in `ospiel_ext/cli/commands/egt.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import egt

__doc__ = egt.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(egt.main)
