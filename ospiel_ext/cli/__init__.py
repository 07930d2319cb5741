"""The command line, and nothing else: no library module imports it (`tests/test_layers.py`).

* `command`: the running layer of every command (one entry point, logging, --help, the game a
  command loads, time limits and Ctrl-C, outputs written together);
* `flags`: checks of flag values (one line and exit code 2 on a bad flag);
* `output`: what a command writes (JSON with provenance, tables, figures);
* `commands`: one module per `ospiel-ext` subcommand (`scripts/*.py` are thin wrappers).
"""
