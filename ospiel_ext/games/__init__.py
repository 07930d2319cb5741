"""pyspiel Python games from the papers, registered with pyspiel on import."""
