"""`python scripts/verify.py` = `ospiel-ext verify`:
re-verify a saved certificate against the game alone.

The command lives in `ospiel_ext/cli/commands/verify.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import verify

__doc__ = verify.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(verify.main)
