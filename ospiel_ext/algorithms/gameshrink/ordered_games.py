"""Games with ordered signals (Gilpin & Sandholm 2006, Definition 1): the description.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Definition 1.

An `OrderedGame` describes a two-player poker-like game the way GameShrink needs it:

* signals: a deck of `num_cards` cards drawn uniformly without replacement;
* `groups`: the cards revealed in each round, as (round, owner, size) with owner -1 for public
  signals (κ_j of the paper) and 0 / 1 for a player's private signals (γ_j); both players get
  the same number of private cards per round (`validate`);
* the stage games G^j (betting): not described, read from the pyspiel game itself
  (`stage_games.betting_tree`);
* the utility u^j: a terminal's payoff depends on the signals only through `outcome(deals)`,
  player 0's showdown result (+1 win, 0 tie, -1 loss), which must come from a common ordering
  of the players' hands (antisymmetric under swapping the private cards); `RankOutcome` is one
  by construction.

A deal is a row of card ids, one column per card, groups in order, cards of a group ascending
(a group is a set); `colex_index` numbers a group's card sets (Section 5.2). The descriptions
of the supported games are in `descriptions`.
"""  # noqa: RUF002 (the paper's kappa_j and gamma_j)

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext.arrays import IntArray

PUBLIC = -1
CHANCE = int(pyspiel.PlayerId.CHANCE)


@dataclasses.dataclass(frozen=True)
class Group:
    """`size` cards revealed in `round` to `owner` (PUBLIC, 0 or 1)."""

    round: int
    owner: int
    size: int = 1


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class OrderedGame:
    """A two-player game with ordered signals; see the module docstring.

    Attributes:
      game: the pyspiel game described.
      num_cards: the deck.
      groups: the signals of each round, in the order of the deal columns.
      chance_actions: (deal row, round) -> the pyspiel chance actions revealing that round's
        signals, in the game's order.
      deal_from_chance: the chance actions of a history -> the deal columns known so far
        (-1 where not yet dealt); for games that hide suits, any one deal consistent with them.
      outcome: deals (N, num_slots) -> player 0's showdown result in {-1, 0, 1}, vectorised.
    """

    game: pyspiel.Game
    num_cards: int
    groups: tuple[Group, ...]
    chance_actions: Callable[[Sequence[int], int], list[int]]
    deal_from_chance: Callable[[Sequence[int]], list[int]]
    outcome: Callable[[IntArray], NDArray[np.int8]]

    @property
    def name(self) -> str:
        """The pyspiel game as a string."""
        return str(self.game)

    @property
    def num_rounds(self) -> int:
        """The number of rounds (one more than the last round of a group)."""
        return 1 + max(g.round for g in self.groups)

    @functools.cached_property
    def slots(self) -> tuple[tuple[int, int], ...]:
        """(first column, size) of each group in a deal row."""
        starts = np.cumsum([0] + [g.size for g in self.groups])
        return tuple((int(s), g.size) for s, g in zip(starts, self.groups))

    @property
    def num_slots(self) -> int:
        """The number of deal columns: every card revealed, over all groups."""
        return sum(g.size for g in self.groups)

    def view_columns(self, player: int, round_: int) -> tuple[list[int], list[int]]:
        """Deal columns of `player`'s own private cards and of the public cards, as (own, public).

        Those revealed by the end of round `round_`'s deal.
        """
        own: list[int] = []
        public: list[int] = []
        for i in self.view_groups(player, round_):
            start, size = self.slots[i]
            (public if self.groups[i].owner == PUBLIC else own).extend(range(start, start + size))
        return own, public

    def view_groups(self, player: int, round_: int) -> list[int]:
        """Indices of the groups player `player` has seen by the end of round `round_`'s deal.

        Its own and the public ones, in deal order (own private first within a round).
        """
        mine = [i for i, g in enumerate(self.groups) if g.round <= round_ and g.owner == player]
        public = [i for i, g in enumerate(self.groups) if g.round <= round_ and g.owner == PUBLIC]
        return sorted(mine + public, key=lambda i: (self.groups[i].round, self.groups[i].owner < 0))


def require(condition: bool, game: pyspiel.Game | str, message: str) -> None:
    """Raises ValueError unless `condition`: `game` is not a game with ordered signals.

    The message is "game `game` is not a game with ordered signals: `message`", the one error
    of every check of Definition 1: of a description (`validate`), of the stage games read off
    the pyspiel game (`stage_games`), of a game's parameters (`descriptions`).
    """
    if not condition:
        raise ValueError(f"game {game} is not a game with ordered signals: {message}")


def validate(og: OrderedGame) -> None:
    """Checks the structural assumptions of Definition 1 on the description itself.

    Run by `signal_tree.SignalTree.build` on every description, ours or a user's.
    """
    game = og.name
    require(og.num_slots <= og.num_cards, game, "more signals are revealed than the deck holds")
    for r in range(og.num_rounds):
        sizes = [sum(g.size for g in og.groups if g.round == r and g.owner == p) for p in (0, 1)]
        require(
            sizes[0] == sizes[1],
            game,
            f"round {r} reveals {sizes[0]} private signals to player 0 but {sizes[1]} to "
            "player 1 (the paper requires the same number)",
        )


@dataclasses.dataclass(frozen=True)
class RankOutcome:
    """outcome(deals) = sign(strength(hand 0) - strength(hand 1)), hands given by deal columns.

    Each player's hand is given by its deal columns: both players rank hands by one ordering,
    by construction (Definition 1's common ordering, which `signal_tree.SignalTree.build`
    otherwise checks deal by deal).
    """

    strength: Callable[[IntArray], NDArray[np.integer]]
    hands: tuple[list[int], list[int]]

    def __call__(self, deals: IntArray) -> NDArray[np.int8]:
        """Player 0's showdown result of each deal, in {-1, 0, 1}."""
        s0, s1 = (self.strength(deals[:, cols]) for cols in self.hands)
        result: NDArray[np.int8] = np.sign(s0 - s1).astype(np.int8)
        return result


@functools.cache
def _binomials(n: int, k: int) -> IntArray:
    """table[c, i] = C(c, i + 1) for c < n, i < k (exact in int64 for n <= 64)."""
    return np.array([[math.comb(c, i + 1) for i in range(k)] for c in range(n)], dtype=np.int64)


def colex_index(subsets: IntArray) -> IntArray:
    """Index of each ascending row (c_1 < ... < c_k) in the colexicographic order of k-subsets.

    The index is sum_i C(c_i, i) (Gilpin & Sandholm 2006, Section 5.2), a bijection onto
    [0, C(n, k)).
    """
    subsets = np.asarray(subsets)
    k = subsets.shape[1]
    if not subsets.size:
        return np.zeros(len(subsets), dtype=np.int64)
    if k == 1:  # C(c, 1) = c: the index of one card is the card
        return subsets[:, 0].astype(np.int64)
    table = _binomials(max(64, int(subsets.max()) + 1), k)
    index: IntArray = sum(table[subsets[:, i], i] for i in range(k))
    return index
