"""Deprecated name of `python scripts/subgame.py` (= `ospiel-ext subgame`).

`python scripts/subgame_solving.py` is kept for one release: it prints a warning,
then runs the same command (`ospiel_ext/cli/commands/subgame.py`).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import subgame

__doc__ = subgame.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.deprecated("scripts/subgame_solving.py", "scripts/subgame.py (= ospiel-ext subgame)")
    cli.main(subgame.main)
