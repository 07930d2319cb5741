"""`python scripts/depth_limited.py` = `ospiel-ext depth-limited`:
depth-limited solving with multi-valued states.

The command lives in `ospiel_ext/cli/commands/depth_limited.py` (its docstring lists the flags).
"""

from ospiel_ext.cli import command as cli
from ospiel_ext.cli.commands import depth_limited

__doc__ = depth_limited.__doc__  # absl's --help prints the __main__ module's docstring

if __name__ == "__main__":
    cli.main(depth_limited.main)
