"""Deprecated name of `python scripts/certify.py` (= `ospiel-ext certify`).

`python scripts/certificate_search.py` is kept for one release: it prints a warning,
then runs the same command (`ospiel_ext/cli/commands/certify.py`).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import certify

__doc__ = certify.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.deprecated("scripts/certificate_search.py", "scripts/certify.py (= ospiel-ext certify)")
    cli.main(certify.main)
