"""`python scripts/head_to_head.py` = `ospiel-ext head-to-head`:
bots against each other with confidence intervals.

The command lives in `ospiel_ext/cli/commands/head_to_head.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import head_to_head

__doc__ = head_to_head.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(head_to_head.main)
