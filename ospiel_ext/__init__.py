"""ospiel_ext: an extension pack of game-solving algorithms for OpenSpiel.

Core modules: `loading` (games and their checks), `tree` (GameTree), `tree_builder`, `walk`,
`treeplex`, `sequence_form`, `policies`, `policy_files`, `evaluate`, `lp_model`, `lp`,
`executors`, `sweeps`;
algorithms in `ospiel_ext.algorithms`; games in `ospiel_ext.games` (registered on import).
"""

__version__ = "0.1.0"
