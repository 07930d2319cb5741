"""The `ospiel-ext` command: one subcommand per tool, each with its script's flags and JSON.

The subcommands take the same absl flags and write the same JSON as the `scripts/*.py` wrappers
(`python scripts/solve.py ...` = `ospiel-ext solve ...`; a module and its script are named
after the subcommand, `depth-limited` as `depth_limited`).

  ospiel-ext --help                  # the subcommands
  ospiel-ext solve --help            # one subcommand's flags
  ospiel-ext solve --game=kuhn_poker --solver=lp --policy_out=kuhn.json
  python -m ospiel_ext evaluate --game=kuhn_poker --policy=kuhn.json

Only the chosen subcommand's module is imported, so each defines its flags as a script does.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Sequence

from ospiel_ext.cli import command as cli

# subcommand -> one-line summary; its module in ospiel_ext.cli.commands and its script
# scripts/<module>.py are named after it ('-' as '_', `module_name`)
COMMANDS: dict[str, str] = {
    "stats": "size of a game: histories, infosets, sequences, depth",
    "solve": "solve a game by the sequence-form LP or a CFR variant",
    "compare": "our CFR family against OpenSpiel's solvers, side by side",
    "evaluate": "exploitability, NashConv and values of a saved policy",
    "play": "a saved policy against random / policy / MCTS / human opponents",
    "egt": "EGT with the perturbed dilated entropy (approximate EFPE)",
    "certify": "an epsilon-certificate of a black-box game",
    "verify": "re-verify a saved certificate against the game alone",
    "shrink": "GameShrink abstraction, solve, lift the strategy back",
    "subgame": "safe subgame solving with gadget games and GGSE",
    "depth-limited": "depth-limited solving with multi-valued states",
    "head-to-head": "bots against each other with confidence intervals",
}
DEPRECATED_SCRIPTS: dict[str, str] = {
    "game_stats": "stats",
    "perturbed_egt": "egt",
    "certificate_search": "certify",
    "verify_certificate": "verify",
    "gameshrink": "shrink",
    "subgame_solving": "subgame",
}
"""scripts/<old>.py -> the subcommand it runs: the scripts' names before they were named after
their subcommands, kept for one release (they warn, then run the command)."""
PROGRAM = "ospiel-ext"


def module_name(command: str) -> str:
    """The module of a subcommand in ospiel_ext.cli.commands (also its scripts/ wrapper's name)."""
    return command.replace("-", "_")


def usage() -> str:
    """The subcommand list of `ospiel-ext --help`."""
    width = max(map(len, COMMANDS))
    lines = [
        f"usage: {PROGRAM} <command> [--flag=value ...]   ({PROGRAM} <command> --help: its flags)",
        "",
        "commands:",
        *(f"  {name:<{width}}  {summary}" for name, summary in COMMANDS.items()),
    ]
    return "\n".join(lines)


def run(argv: Sequence[str] | None = None) -> None:
    """Entry point of `ospiel-ext` and `python -m ospiel_ext`: runs the subcommand it names.

    The subcommand is named by the first argument and runs under `cli.main` (one-line errors,
    exit codes 2 / 130).
    """
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] in ("-h", "--help", "help"):
        print(usage())
        raise SystemExit(0 if args else 2)
    name = args[0]
    if name not in COMMANDS:
        cli.fail(f"unknown command {name!r}; commands: {', '.join(COMMANDS)}")
    module = importlib.import_module(f"ospiel_ext.cli.commands.{module_name(name)}")
    sys.argv = [f"{PROGRAM} {name}", *args[1:]]
    main_module = sys.modules.get("__main__")
    if main_module is not None:  # absl's --help prints the __main__ module's docstring
        main_module.__doc__ = module.__doc__
    cli.main(module.main)
