"""Deprecated name of `python scripts/shrink.py` (= `ospiel-ext shrink`).

`python scripts/gameshrink.py` is kept for one release: it prints a warning,
then runs the same command (`ospiel_ext/cli/commands/shrink.py`).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import shrink

__doc__ = shrink.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.deprecated("scripts/gameshrink.py", "scripts/shrink.py (= ospiel-ext shrink)")
    cli.main(shrink.main)
