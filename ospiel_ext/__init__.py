"""ospiel_ext: an extension pack of game-solving algorithms for OpenSpiel.

Core modules: `loading` (games and their checks), `tree` (GameTree), `tree_builder`, `walk`,
`sequence_form`, `policies`, `evaluate`, `lp`;
algorithms in `ospiel_ext.algorithms`; games in `ospiel_ext.games` (registered on import).
"""

__version__ = "0.1.0"
