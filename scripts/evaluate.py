"""`python scripts/evaluate.py` = `ospiel-ext evaluate`:
exploitability, NashConv and values of a saved policy.

The command lives in `ospiel_ext/cli/commands/evaluate.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import evaluate

__doc__ = evaluate.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(evaluate.main)
