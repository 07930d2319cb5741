"""k-rank Goofspiel with sequentialised bids (Zhang & Sandholm 2021, Section 7 (2)).

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021, Section 7 (2).

Rules. There are k rounds; in each a prize is auctioned. Each player holds the bids 1..k and
must use each exactly once. Player 0 bids, then player 1; the higher bid wins the prize, equal
bids split it. The utility is player 0's points minus player 1's.

* `info=imperfect`: only the round's result (who won, or a tie) is made public; the bids are
  not. Player 1 does not see player 0's bid of the current round.
* `info=perfect`: player 1 sees player 0's bid before bidding and bids are public afterwards
  (the paper's "PI" variant: every decision node is its own information set).
* `points_order=descending`: the prize of round t (t = 1..k) is worth k + 1 - t;
  `ascending`: worth t (the paper's text); `random`: a chance node at the start of each round
  draws the prize uniformly among the remaining ones.

The last round, where each player holds one card, is played out with explicit one-action
decision nodes (and, with random order, a one-outcome chance node), as in the paper, so node
counts compare with its Table 1. Actions: bid b is action b - 1; prize v is chance outcome
v - 1.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

import pyspiel

from ospiel_ext.games import _common

_DEFAULTS = {"num_cards": 4, "info": "imperfect", "points_order": "descending"}
_GAME_TYPE = _common.game_type("sequential_goofspiel", "Sequential Goofspiel", _DEFAULTS)


class SequentialGoofspielGame(_common.Game):
    """k-rank Goofspiel with player 0 bidding first in each round."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        p = _common.params_with_defaults(_GAME_TYPE, params)
        name = "sequential_goofspiel"
        self.num_cards = int(p["num_cards"])
        self.info, self.points_order = p["info"], p["points_order"]
        _common.check(self.num_cards >= 1, name, f"num_cards must be >= 1, got {self.num_cards}")
        _common.check(
            self.info in ("imperfect", "perfect"),
            name,
            f"info must be 'imperfect' or 'perfect', got {self.info!r}",
        )
        _common.check(
            self.points_order in ("descending", "ascending", "random"),
            name,
            "points_order must be 'descending', 'ascending' or 'random', got "
            f"{self.points_order!r}",
        )
        k = self.num_cards
        total = k * (k + 1) / 2
        random = self.points_order == "random"
        gtype = _common.game_type(
            "sequential_goofspiel",
            "Sequential Goofspiel",
            _DEFAULTS,
            chance=random,
            perfect_information=self.info == "perfect",
        )
        info = _common.game_info(k, k if random else 0, total, k * (3 if random else 2))
        super().__init__(gtype, info, p)

    def new_initial_state(self) -> SequentialGoofspielState:
        """The state with no prize drawn and no bid made (pyspiel `Game.new_initial_state`)."""
        return SequentialGoofspielState(self)


class _Play(NamedTuple):
    """What the actions so far decided (`_common.kept`: replaced, never mutated)."""

    prizes: tuple[int, ...] = ()
    bids0: tuple[int, ...] = ()
    bids1: tuple[int, ...] = ()
    results: str = ""  # per round: "0" (player 0 won), "1", or "=" (tie)
    diff: float = 0.0  # player 0's points minus player 1's
    player: int = 0

    def __deepcopy__(self, memo: dict[int, Any]) -> _Play:
        return _common.kept(self, memo)


class SequentialGoofspielState(_common.State):
    """Prizes revealed so far, both players' bids, and the round results."""

    def __init__(self, game: SequentialGoofspielGame) -> None:
        super().__init__(game)
        self._k, self._perfect = game.num_cards, game.info == "perfect"
        self._random = game.points_order == "random"
        self._order = game.points_order
        # one record of what changes, so that pyspiel's clone copies it as one attribute
        # (`_common.kept`)
        self._play = _Play()
        self._play = self._play._replace(player=self._next_player())

    @property
    def prizes(self) -> tuple[int, ...]:
        """The prizes revealed so far."""
        return self._play.prizes

    @property
    def bids0(self) -> tuple[int, ...]:
        """Player 0's bids so far."""
        return self._play.bids0

    @property
    def bids1(self) -> tuple[int, ...]:
        """Player 1's bids so far."""
        return self._play.bids1

    @property
    def results(self) -> str:
        """Per round decided: "0" (player 0 won), "1", or "=" (tie)."""
        return self._play.results

    @property
    def diff(self) -> float:
        """Player 0's points minus player 1's."""
        return self._play.diff

    @property
    def round(self) -> int:
        """The current round, from 0 (the number of rounds decided)."""
        return len(self.results)

    def _prize(self) -> int:
        if self._random:
            return self.prizes[self.round]
        return self._k - self.round if self._order == "descending" else self.round + 1

    def current_player(self) -> int:
        """Chance (random order), a bidder, or terminal (pyspiel `State.current_player`)."""
        return self._play.player

    def _next_player(self) -> int:
        if self.round == self._k:
            return int(pyspiel.PlayerId.TERMINAL)
        if self._random and len(self.prizes) == self.round:
            return int(pyspiel.PlayerId.CHANCE)
        return 0 if len(self.bids0) == self.round else 1

    def _legal_actions(self, player: int) -> list[int]:
        used = set(self.bids1 if player else self.bids0)
        return [b - 1 for b in range(1, self._k + 1) if b not in used]

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """Every prize not yet drawn, uniformly (pyspiel `State.chance_outcomes`)."""
        left = [v for v in range(1, self._k + 1) if v not in self.prizes]
        return [(v - 1, 1.0 / len(left)) for v in left]

    def _apply_action(self, action: int) -> None:
        play = self._play
        if play.player == pyspiel.PlayerId.CHANCE:
            play = play._replace(prizes=(*play.prizes, action + 1))
        elif play.player == 0:
            play = play._replace(bids0=(*play.bids0, action + 1))
        else:
            prize = self._prize()
            b0, b1 = play.bids0[-1], action + 1
            play = play._replace(
                bids1=(*play.bids1, b1),
                diff=play.diff + (0 if b0 == b1 else prize if b0 > b1 else -prize),
                prizes=play.prizes if self._random else (*play.prizes, prize),
                results=play.results + ("0" if b0 > b1 else "1" if b1 > b0 else "="),
            )
        self._play = play
        self._play = play._replace(player=self._next_player())

    def _action_to_string(self, player: int, action: int) -> str:
        return f"prize {action + 1}" if player == pyspiel.PlayerId.CHANCE else f"bid {action + 1}"

    def is_terminal(self) -> bool:
        """True once all k rounds are decided (pyspiel `State.is_terminal`)."""
        return self._play.player == int(pyspiel.PlayerId.TERMINAL)

    def returns(self) -> list[float]:
        """Player 0's points minus player 1's, zeros before the end (pyspiel `State.returns`)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        return [self.diff, -self.diff]

    def utility_bounds(self) -> tuple[float, float]:
        """Points already won, plus or minus the prizes not yet decided (`State.utility_bounds`).

        Exact in the last round, where both bids and the prize are forced.
        """
        if self.is_terminal():
            return self.diff, self.diff
        if self.round == self._k - 1:
            prize = sum(range(1, self._k + 1)) - sum(self.prizes[: self.round])
            b0 = (set(range(1, self._k + 1)) - set(self.bids0[: self.round])).pop()
            b1 = (set(range(1, self._k + 1)) - set(self.bids1)).pop()
            last = 0 if b0 == b1 else (prize if b0 > b1 else -prize)
            return self.diff + last, self.diff + last
        if self._random:
            remaining = sum(v for v in range(1, self._k + 1) if v not in self.prizes[: self.round])
        else:
            remaining = sum(
                self._k - t if self._order == "descending" else t + 1
                for t in range(self.round, self._k)
            )
        return self.diff - remaining, self.diff + remaining

    def information_state(self, player: int) -> str:
        """The prizes, then both players' bids (perfect info) or own bids and round results."""
        prizes = ",".join(map(str, self.prizes))
        if self._perfect:
            return (
                f"p{player} prizes:{prizes} bids0:{','.join(map(str, self.bids0))} "
                f"bids1:{','.join(map(str, self.bids1))}"
            )
        own = self.bids1 if player else self.bids0
        return f"p{player} prizes:{prizes} own:{','.join(map(str, own))} results:{self.results}"

    def __str__(self) -> str:
        return f"prizes {self.prizes} bids {self.bids0} / {self.bids1} results {self.results}"


pyspiel.register_game(_GAME_TYPE, SequentialGoofspielGame)
