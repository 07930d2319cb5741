"""The sequence forms a solver runs on, by name: `form="explicit"` or `form="public_tree"`.

* `"explicit"` (the default): the compiled game tree's sequence form, with its sparse payoff
  matrix (`sequence_form.for_game`); any two-player zero-sum game that compiles.
* `"public_tree"`: the poker form on the public tree x hand ranges
  (`algorithms.poker.range_form`; Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best
  Response Calculation in Large Extensive Games", IJCAI 2011, Section 4), for the games with
  the poker structure (`algorithms.poker.structure`). It numbers the same sequences and
  infosets as the explicit form, so iterates, values, best responses and policies are the
  same; it never builds the game tree.
"""

from __future__ import annotations

import importlib

import pyspiel

from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.sequence_form import SequenceForm

FORMS = ("explicit", "public_tree")
PUBLIC_TREE_MODULE = "ospiel_ext.algorithms.poker.range_form"
"""The module whose `for_game(game)` builds the public-tree form."""


def check_form(form: str) -> None:
    """ValueError unless `form` is one of `FORMS`."""
    if form not in FORMS:
        raise ValueError(f"form must be one of {', '.join(FORMS)}, got {form!r}")


def sequence_form(
    game: pyspiel.Game | str, *, form: str = "explicit", max_nodes: int | None = None
) -> SequenceForm:
    """The `form` sequence form of `game`, built once per game and cached.

    Args:
      game: a pyspiel game or load_game string.
      form: "explicit" or "public_tree" (module docstring).
      max_nodes: refuse games with more nodes (the explicit form only: the public tree walks
        no nodes).

    Raises:
      ValueError: an unknown form; a game the explicit form refuses (`walk.game_tree`); for
        "public_tree", a game without the poker structure, naming the property it lacks.
    """
    check_form(form)
    if form == "public_tree":
        built: SequenceForm = importlib.import_module(PUBLIC_TREE_MODULE).for_game(game)
        return built
    return sf_lib.for_game(game, max_nodes)
