"""Deprecated name of `python scripts/verify.py` (= `ospiel-ext verify`).

`python scripts/verify_certificate.py` is kept for one release: it prints a warning,
then runs the same command (`ospiel_ext/cli/commands/verify.py`).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import verify

__doc__ = verify.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.deprecated("scripts/verify_certificate.py", "scripts/verify.py (= ospiel-ext verify)")
    cli.main(verify.main)
