"""Deprecated name of `python scripts/egt.py` (= `ospiel-ext egt`).

`python scripts/perturbed_egt.py` is kept for one release: it prints a warning,
then runs the same command (`ospiel_ext/cli/commands/egt.py`).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import egt

__doc__ = egt.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.deprecated("scripts/perturbed_egt.py", "scripts/egt.py (= ospiel-ext egt)")
    cli.main(egt.main)
