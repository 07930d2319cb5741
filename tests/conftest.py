"""pytest's set-up and fixtures for the whole suite; shared checks and values live in
tests/helpers.py."""

import signal

import pyspiel
import pytest
from helpers import SMALL_GAMES

import ospiel_ext.games  # noqa: F401  (registers the papers' games for every test)

# A shell that starts a command in the background without job control (`make test &`,
# `nohup ... &`) leaves SIGINT ignored, and Python then keeps it ignored; the Ctrl-C tests (and
# the scripts they start, which inherit the disposition) need Python's usual handler.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


@pytest.fixture(params=SMALL_GAMES)
def small_game(request):
    return pyspiel.load_game(request.param)
