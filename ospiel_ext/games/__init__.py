"""pyspiel Python games from the papers, registered with pyspiel on import.

After `import ospiel_ext.games`, `pyspiel.load_game(...)` knows:

  sequential_goofspiel(num_cards, info=imperfect|perfect, points_order=descending|ascending|random)
  limit_leduc_poker(num_ranks, max_raises)          max_raises=-1: unlimited (infinite game)
  search_game(rows, time_limit)
  rhode_island_holdem(num_ranks, num_suits, ante, small_bet, big_bet, max_raises)
  rps_plus, forfeit_matching_pennies, sequential_rps, three_state_matching_pennies,
  repeated_matching_pennies(rounds)

Each state bounds player 0's utility at every terminal descendant (`State.utility_bounds`,
read by the certificate search's oracle `ospiel_ext.algorithms.certificates.trunks.
utility_bounds`: Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
Black-Box Extensive-Form Games", AAAI 2021, Section 5).

Registering is this package's one effect, as `open_spiel.python.games` registers OpenSpiel's
Python games: no other module of ospiel_ext imports it (tests/test_layers.py), so importing
the library never registers a game; the `ospiel-ext` commands import it to load our games.
"""

from __future__ import annotations

from ospiel_ext.games import (
    examples,  # noqa: F401  (each import registers its games)
    limit_leduc_poker,  # noqa: F401
    rhode_island_holdem,  # noqa: F401
    search_game,  # noqa: F401
    sequential_goofspiel,  # noqa: F401
)
