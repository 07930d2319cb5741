"""Rhode Island Hold'em (Shi & Littman 2001), the benchmark of Gilpin & Sandholm (ACM EC 2006).

Shi & Littman, "Abstraction Methods for Game Theoretic Poker", 2001; the benchmark of Gilpin &
Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information", ACM EC 2006.

Rules. A deck of num_ranks x num_suits cards (52 by default). Each player antes `ante` and is
dealt one private card. Three limit betting rounds follow, with one public card dealt before
the second and before the third round. Raises are `small_bet` in round 1 and `big_bet` in
rounds 2 and 3, at most `max_raises` per round (the first bet counts). In a round player 0
acts first; a round ends when a raise is called or both players check; fold is legal only
when facing a bet. At showdown each player's hand is its private card with the two public
cards, ranked (Rhode Island order, three cards):

  straight flush > three of a kind > straight > flush > pair > high card,

ties broken by the ranks involved (the pair's rank first, then the kicker; straights by their
highest card). Equal hands split the pot; the winner wins the loser's contribution.

The ace in straights (`ace_low`, default true). The top rank is the ace (rank 12 of 13; in a
smaller deck, rank num_ranks - 1). With ace_low=true it makes a straight both as
Queen-King-Ace (high card the ace) and as Ace-two-three (ranks {top, 0, 1}, high card the
three, rank 1: the lowest straight); a hand that reads as a straight both ways (3 ranks) takes
the higher reading. With ace_low=false the ace is high only (no wrap-around). The default is
the game GameShrink solved: the paper (introduction) defers the rules to an extended version
and links its Rhode Island player, http://www.cs.cmu.edu/~gilpin/gsi.html ("Game Shrink
Interactive", Andrew Gilpin), whose rules rank hands as above and say "An Ace may be used in a
straight as either Ace-two-three or Queen-King-Ace. In the case of the former, the highest
ranked card of the straight is the three."; its table of hand probabilities (straight flush
0.00217, straight 0.03258, flush 0.04959) counts 12 straights per suit pattern, which only
ace_low=true gives (tested), and with it the paper's transformation reproduces the published
abstraction's size exactly (docs/results/gameshrink.md section 6). Everywhere else the ace is
high (flushes, pairs, high cards).

Chance. Card c is rank c // num_suits, suit c % num_suits. Player 0's card, player 1's card,
the flop card and the turn card are four chance nodes, each uniform over the cards left.
Actions: 0 fold, 1 check/call, 2 raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import pyspiel

from ospiel_ext import poker_hands
from ospiel_ext.games import _betting, _common

_DEFAULTS = {
    "num_ranks": 13,
    "num_suits": 4,
    "ante": 5,
    "small_bet": 10,
    "big_bet": 20,
    "max_raises": 3,
    "ace_low": True,
}
_GAME_TYPE = _common.game_type("rhode_island_holdem", "Rhode Island Hold'em", _DEFAULTS)
_NUM_ROUNDS = 3


class RhodeIslandHoldemGame(_common.Game):
    """Rhode Island Hold'em with a configurable deck, bets and raise cap."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        p = _common.params_with_defaults(_GAME_TYPE, params)
        name = "rhode_island_holdem"
        self.num_ranks, self.num_suits = int(p["num_ranks"]), int(p["num_suits"])
        self.ante, self.max_raises = int(p["ante"]), int(p["max_raises"])
        self.ace_low = bool(p["ace_low"])
        self.raise_amounts = (int(p["small_bet"]), int(p["big_bet"]), int(p["big_bet"]))
        _common.check(
            self.num_ranks >= 1 and self.num_suits >= 1,
            name,
            "num_ranks and num_suits must be >= 1",
        )
        _common.check(
            self.num_ranks * self.num_suits >= 4,
            name,
            "the deck needs at least 4 cards (two private, two public)",
        )
        _common.check(
            self.ante >= 1 and min(self.raise_amounts) >= 1,
            name,
            "ante, small_bet and big_bet must be >= 1",
        )
        _common.check(self.max_raises >= 0, name, f"max_raises must be >= 0, got {self.max_raises}")
        self.rules = _Rules(
            self.num_ranks * self.num_suits, self.num_suits, self.num_ranks, self.max_raises,
            self.ace_low, self.raise_amounts,
        )  # fmt: skip
        bound = self.ante + self.max_raises * sum(self.raise_amounts)
        info = _common.game_info(
            3, self.num_ranks * self.num_suits, bound, 4 + _NUM_ROUNDS * (self.max_raises + 2)
        )
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> RhodeIslandHoldemState:
        """The state with antes paid, before the deal (pyspiel `Game.new_initial_state`)."""
        return RhodeIslandHoldemState(self)


class _Rules(NamedTuple):
    """The game's constants, shared by every state and clone (`_common.kept`)."""

    deck: int
    suits: int
    ranks: int
    max_raises: int
    ace_low: bool
    raise_amounts: tuple[int, int, int]

    def __deepcopy__(self, memo: dict[int, Any]) -> _Rules:
        return _common.kept(self, memo)


class _Hand(NamedTuple):
    """What the actions so far decided (`_common.kept`: replaced, never mutated)."""

    pot: tuple[int, int]
    cards: tuple[int, ...] = ()  # player 0's, player 1's, flop, turn
    betting: tuple[str, ...] = ("",)  # one string per round started
    folded: int = -1
    player: int = int(pyspiel.PlayerId.CHANCE)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Hand:
        return _common.kept(self, memo)


class RhodeIslandHoldemState(_betting.HandFields, _common.State):
    """Dealt cards (private then public), the betting of each round, contributions."""

    def __init__(self, game: RhodeIslandHoldemGame) -> None:
        super().__init__(game)
        # two records, so that pyspiel's clone copies two attributes (`_common.kept`)
        self._rules: _Rules = game.rules
        self._hand: _Hand = _Hand(pot=(game.ante, game.ante))

    @property
    def cards(self) -> tuple[int, ...]:
        """The cards dealt: player 0's, player 1's, the flop, the turn."""
        return self._hand.cards

    @property
    def round(self) -> int:
        """The betting round, from 0 (the number of rounds started, minus one)."""
        return len(self._hand.betting) - 1

    def current_player(self) -> int:
        """Chance, the player to bet, or terminal (pyspiel `State.current_player`)."""
        return self._hand.player

    def _legal_actions(self, player: int) -> list[int]:
        h = self._hand
        return _betting.legal_actions(
            h.betting[-1], h.pot, player, max_raises=self._rules.max_raises, fold_always=False
        )

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every card left, uniformly (pyspiel `State.chance_outcomes`)."""
        cards = self._hand.cards
        left = [c for c in range(self._rules.deck) if c not in cards]
        return [(c, 1.0 / len(left)) for c in left]

    def _apply_action(self, action: int) -> None:
        h = self._hand
        if h.player == pyspiel.PlayerId.CHANCE:
            cards = (*h.cards, action)
            player = int(pyspiel.PlayerId.CHANCE) if len(cards) == 1 else 0
            self._hand = h._replace(cards=cards, player=player)
            return
        player, rnd = h.player, len(h.betting) - 1
        history, pot, over = _betting.apply(
            h.betting[-1], h.pot, player, action=action,
            raise_amount=self._rules.raise_amounts[rnd],
        )  # fmt: skip
        betting = (*h.betting[:-1], history)
        folded = player if action == _betting.FOLD else h.folded
        if not over:
            nxt = 1 - player
        elif action == _betting.FOLD or rnd == _NUM_ROUNDS - 1:
            nxt = int(pyspiel.PlayerId.TERMINAL)
        else:
            betting += ("",)
            nxt = int(pyspiel.PlayerId.CHANCE)
        self._hand = _Hand(pot, h.cards, betting, folded, nxt)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"card {action // self._rules.suits}/{action % self._rules.suits}"
        return _betting.ACTION_NAMES[action]

    def is_terminal(self) -> bool:
        """True after a fold or the last round's betting (pyspiel `State.is_terminal`)."""
        return self._hand.player == int(pyspiel.PlayerId.TERMINAL)

    def returns(self) -> list[float]:
        """The fold or showdown payoffs, zeros before the end (pyspiel `State.returns`)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        if self.folded >= 0:
            return _betting.fold_returns(self.pot, self.folded)
        flop, turn = self.cards[2], self.cards[3]
        rules = self._rules
        v0, v1 = (
            poker_hands.three_card_value(
                (self.cards[p], flop, turn), rules.suits, rules.ranks, rules.ace_low
            )
            for p in (0, 1)
        )
        return _betting.showdown_returns(self.pot, 0 if v0 > v1 else 1 if v1 > v0 else -1)

    def utility_bounds(self) -> tuple[float, float]:
        """A fold ends the hand with known money; otherwise stakes grow by the raises left."""
        if self.is_terminal():
            r = self.returns()[0]
            return r, r
        rnd = self.round
        amounts, most = self._rules.raise_amounts, self._rules.max_raises
        left = [(amounts[rnd], most - self.betting[-1].count("r"))]
        left += [(amounts[r], most) for r in range(rnd + 1, _NUM_ROUNDS)]
        top = _betting.stake_bound(self.pot, left)
        return -top, top

    def information_state(self, player: int) -> str:
        """The player's card, the public cards and every round's betting."""
        own = self.cards[player] if len(self.cards) > player else "-"
        public = ",".join(map(str, self.cards[2:]))
        return f"p{player} card:{own} public:{public} bets:{'|'.join(self.betting)}"

    def __str__(self) -> str:
        return f"cards {self.cards} bets {self.betting} pot {self.pot}"


pyspiel.register_game(_GAME_TYPE, RhodeIslandHoldemGame)
