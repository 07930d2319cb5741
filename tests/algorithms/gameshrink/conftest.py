"""GameShrink objects built once per test session and shared by the tests of this folder: each
game's lossless abstraction, its abstract game Γ_f (whose tree and product sequence form are
cached properties), the sequence form of Γ_f's built tree, and the original game's compiled
sequence form. Tests must treat them as read-only."""

from collections.abc import Callable

import pytest

from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms.gameshrink import abstract_game as ag
from ospiel_ext.algorithms.gameshrink import shrink as gs


def _once(cache: dict, key: str, build: Callable):
    if key not in cache:
        cache[key] = build()
    return cache[key]


class Shrunk:
    """Per game string, each object built on first use and kept for the session."""

    def __init__(self):
        self._abstractions: dict[str, gs.Abstraction] = {}
        self._games: dict[str, ag.AbstractGame] = {}
        self._built: dict[str, sf_lib.TreeSequenceForm] = {}
        self._originals: dict[str, sf_lib.TreeSequenceForm] = {}

    def abstraction(self, game: str) -> gs.Abstraction:
        """`gs.gameshrink(game)`: the lossless filter."""
        return _once(self._abstractions, game, lambda: gs.gameshrink(game))

    def abstract_game(self, game: str) -> ag.AbstractGame:
        """Γ_f of the lossless filter."""
        return _once(self._games, game, lambda: ag.AbstractGame.of(self.abstraction(game)))

    def built_form(self, game: str) -> sf_lib.TreeSequenceForm:
        """The sequence form of Γ_f's built GameTree (the product form's reference)."""
        return _once(
            self._built, game, lambda: sf_lib.TreeSequenceForm(self.abstract_game(game).tree)
        )

    def original(self, game: str) -> sf_lib.TreeSequenceForm:
        """The original game's compiled sequence form (held here, whatever `for_game` evicts)."""
        return _once(self._originals, game, lambda: sf_lib.for_game(game))


@pytest.fixture(scope="session")
def shrunk():
    return Shrunk()


@pytest.fixture(scope="session")
def leduc(shrunk):
    """Leduc poker's lossless abstraction."""
    return shrunk.abstraction("leduc_poker")
