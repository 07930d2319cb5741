"""`python scripts/verify_certificate.py` = `ospiel-ext verify`:
re-verify a saved certificate against the game alone.

The command lives in `ospiel_ext/cli/commands/verify_certificate.py` (its docstring lists
the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import verify_certificate

__doc__ = verify_certificate.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(verify_certificate.main)
