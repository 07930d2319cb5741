"""Deprecated name of `python scripts/stats.py` (= `ospiel-ext stats`).

`python scripts/game_stats.py` is kept for one release: it prints a warning,
then runs the same command (`ospiel_ext/cli/commands/stats.py`).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import stats

__doc__ = stats.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.deprecated("scripts/game_stats.py", "scripts/stats.py (= ospiel-ext stats)")
    cli.main(stats.main)
