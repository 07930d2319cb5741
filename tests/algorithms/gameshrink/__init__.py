"""A package, so that this folder's conftest is imported as gameshrink.conftest and does not
shadow tests/conftest.py, which test modules import as `conftest`."""
