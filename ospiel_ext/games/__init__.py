"""pyspiel Python games from the papers, registered with pyspiel on import.

After `import ospiel_ext.games`, `pyspiel.load_game(...)` knows:

  sequential_goofspiel(num_cards, info=imperfect|perfect, points_order=descending|ascending|random)
  limit_leduc_poker(num_ranks, max_raises)          max_raises=-1: unlimited (infinite game)
  search_game(rows, time_limit)
  rhode_island_holdem(num_ranks, num_suits, ante, small_bet, big_bet, max_raises)
  rps_plus, forfeit_matching_pennies, sequential_rps, three_state_matching_pennies,
  repeated_matching_pennies(rounds)

`utility_bounds(state)` bounds player 0's utility at every terminal descendant of a state
(the black-box oracle of Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
Black-Box Extensive-Form Games", AAAI 2021, Section 5).
"""

from __future__ import annotations

import pyspiel

from ospiel_ext.games import (
    examples,  # noqa: F401  (each import registers its games)
    limit_leduc_poker,  # noqa: F401
    rhode_island_holdem,  # noqa: F401
    search_game,  # noqa: F401
    sequential_goofspiel,  # noqa: F401
)
from ospiel_ext.games._common import State


def utility_bounds(state: pyspiel.State) -> tuple[float, float]:
    """(lo, hi) with lo <= u_0(z) <= hi for every terminal z below `state`.

    Our games give a game-specific bound (e.g. Goofspiel: points won so far plus or minus the
    prizes left, exact in the last round; limit Leduc: a fold settles the money, unlimited
    raises make the bound infinite); any other game gives `game.min_utility(),
    game.max_utility()`, and a terminal
    state its return.
    """
    if isinstance(state, State):
        return state.utility_bounds()
    if state.is_terminal():
        r = state.returns()[0]
        return r, r
    game = state.get_game()
    return game.min_utility(), game.max_utility()
