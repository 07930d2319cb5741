"""ospiel_ext: an extension pack of game-solving algorithms for OpenSpiel.

The layers, each building only on those above it:

1. `ospiel_ext.runtime`: run infrastructure, no game maths (interrupts, budgets, stop reasons,
   progress, executors and sweeps, provenance, tables, output files);
2. the game maths at the top level - `loading` (games and their checks), `tree` (GameTree),
   `tree_builder`, `tree_parts`, `walk`, `treeplex`, `sequence_form`, `constraints`, `policies`,
   `policy_files`, `evaluate`, `tree_values`, `lp_model`, `lp` - then the papers' algorithms in
   `ospiel_ext.algorithms` and their games in `ospiel_ext.games` (registered on import);
3. `ospiel_ext.cli`: the command line, which nothing else imports.
"""

__version__ = "0.1.0"
