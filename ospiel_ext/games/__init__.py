"""pyspiel Python games from the papers, registered with pyspiel on import."""

from ospiel_ext.games import sequential_goofspiel  # noqa: F401
