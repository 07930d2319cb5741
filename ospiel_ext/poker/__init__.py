"""Poker at scale: the public tree x hand ranges sequence form (issue 36)."""
