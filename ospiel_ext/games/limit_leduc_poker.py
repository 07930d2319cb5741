"""k-rank limit Leduc poker (Zhang & Sandholm 2021, Section 7 (3)).

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021, Section 7 (3); "Leduc 5" of Kroer, Farina & Sandholm, "Smoothing Method for
Approximate Extensive-Form Perfect Equilibrium", IJCAI 2017 is num_ranks=5, max_raises=2.

Rules. The deck holds two cards of each of k ranks. Each player antes 1 and gets one private
card; a betting round follows (raise amount 2), then one public card is dealt and a second
betting round follows (raise amount 4). In a betting round player 0 acts first; a raise matches
the outstanding bet and adds the raise amount; the round ends when a raise is called or when
both players check. Fold is legal at every decision (also when nothing is to be called). A
player whose private card pairs the public card wins the showdown, otherwise the higher rank
wins; equal ranks split the pot. The winner wins the loser's contribution.

`max_raises` bounds the raises per betting round; -1 means unlimited, which makes the game
infinite (its payoffs and length are unbounded): it is playable, but `walk.game_tree`
refuses to compile it, while certificate search can explore it.

Chance. Suits are strategically irrelevant, so both private cards are dealt by one chance node
over (rank0, rank1) pairs, outcome rank0 * k + rank1, with probability 1 / (k (2k - 1)) for
equal ranks and 2 / (k (2k - 1)) otherwise; the public card is one chance node over ranks with
probability (copies left) / (2k - 2). Actions: 0 fold, 1 check/call, 2 raise.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
import pyspiel

from ospiel_ext.games import _betting, _common

if TYPE_CHECKING:
    from ospiel_ext.tree import GameTree

_RAISE_AMOUNTS = (2, 4)
_DEFAULTS = {"num_ranks": 3, "max_raises": 2}
_GAME_TYPE = _common.game_type("limit_leduc_poker", "k-rank limit Leduc poker", _DEFAULTS)


class LimitLeducPokerGame(_common.Game):
    """k-rank limit Leduc poker with a per-round raise cap (or none)."""

    def __init__(self, params: Mapping[str, Any] | None = None) -> None:
        p = _common.params_with_defaults(_GAME_TYPE, params)
        self.num_ranks, self.max_raises = int(p["num_ranks"]), int(p["max_raises"])
        name = "limit_leduc_poker"
        _common.check(self.num_ranks >= 1, name, f"num_ranks must be >= 1, got {self.num_ranks}")
        _common.check(
            self.max_raises >= -1,
            name,
            f"max_raises must be >= -1 (-1: unlimited), got {self.max_raises}",
        )
        if self.max_raises < 0:
            bound, length = float("inf"), _common.UNBOUNDED_LENGTH
        else:
            bound = 1 + sum(a * self.max_raises for a in _RAISE_AMOUNTS)
            length = 2 + 2 * (self.max_raises + 2)
        info = _common.game_info(3, self.num_ranks * self.num_ranks, bound, length)
        super().__init__(_GAME_TYPE, info, p)

    def new_initial_state(self) -> LimitLeducPokerState:
        """The state with antes paid, before the deal (pyspiel `Game.new_initial_state`)."""
        return LimitLeducPokerState(self)


class _Hand(NamedTuple):
    """What the actions so far decided (`_common.kept`: replaced, never mutated)."""

    private: tuple[int, ...] = ()  # (rank of player 0, rank of player 1) once dealt
    public: int = -1
    betting: tuple[str, str] = ("", "")  # actions of each round, as "fcr" characters
    pot: tuple[int, int] = (1, 1)
    folded: int = -1
    player: int = int(pyspiel.PlayerId.CHANCE)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Hand:
        return _common.kept(self, memo)


class LimitLeducPokerState(_betting.HandFields, _common.State):
    """Cards, the betting of each round, contributions to the pot."""

    def __init__(self, game: LimitLeducPokerGame) -> None:
        super().__init__(game)
        self._k, self._max_raises = game.num_ranks, game.max_raises
        # one record, so that pyspiel's clone copies three attributes (`_common.kept`)
        self._hand: _Hand = _Hand()

    @property
    def private(self) -> tuple[int, ...]:
        """(rank of player 0, rank of player 1) once dealt."""
        return self._hand.private

    @property
    def public(self) -> int:
        """The public rank, or -1."""
        return self._hand.public

    @property
    def round(self) -> int:
        """The betting round: 0 before the public card, 1 after."""
        return 0 if self.public < 0 else 1

    def _raises(self) -> int:
        return self.betting[self.round].count("r")

    def current_player(self) -> int:
        """Chance, the player to bet, or terminal (pyspiel `State.current_player`)."""
        return self._hand.player

    def _legal_actions(self, player: int) -> list[int]:
        return _betting.legal_actions(
            self.betting[self.round],
            self.pot,
            player,
            max_raises=self._max_raises,
            fold_always=True,
        )

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """The (rank0, rank1) deal, then the public rank (pyspiel `State.chance_outcomes`)."""
        k = self._k
        if not self.private:
            norm = k * (2 * k - 1)
            return [
                (a * k + b, (1.0 if a == b else 2.0) / norm) for a in range(k) for b in range(k)
            ]
        left = [2 - self.private.count(r) for r in range(k)]
        return [(r, n / (2 * k - 2)) for r, n in enumerate(left) if n > 0]

    def _apply_action(self, action: int) -> None:
        h = self._hand
        if h.player == pyspiel.PlayerId.CHANCE:
            if not h.private:
                self._hand = h._replace(private=divmod(action, self._k), player=0)
            else:
                self._hand = h._replace(public=action, player=0)
            return
        player, rnd = h.player, self.round
        history, pot, over = _betting.apply(
            h.betting[rnd], h.pot, player, action=action, raise_amount=_RAISE_AMOUNTS[rnd]
        )
        betting = (history, h.betting[1]) if rnd == 0 else (h.betting[0], history)
        folded = player if action == _betting.FOLD else h.folded
        if not over:
            nxt = 1 - player
        elif rnd == 0 and action != _betting.FOLD:
            nxt = int(pyspiel.PlayerId.CHANCE)
        else:
            nxt = int(pyspiel.PlayerId.TERMINAL)
        self._hand = _Hand(h.private, h.public, betting, pot, folded, nxt)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            if not self.private:
                return f"deal ranks {divmod(action, self._k)}"
            return f"public rank {action}"
        return _betting.ACTION_NAMES[action]

    def is_terminal(self) -> bool:
        """True after a fold or the second round's betting (pyspiel `State.is_terminal`)."""
        return self._hand.player == int(pyspiel.PlayerId.TERMINAL)

    def _winner(self) -> int:
        """0 or 1 for the showdown winner, -1 for a split."""
        a, b = self.private
        if a == self.public:
            return 0
        if b == self.public:
            return 1
        return 0 if a > b else 1 if b > a else -1

    def returns(self) -> list[float]:
        """The fold or showdown payoffs, zeros before the end (pyspiel `State.returns`)."""
        if not self.is_terminal():
            return [0.0, 0.0]
        if self.folded >= 0:
            return _betting.fold_returns(self.pot, self.folded)
        return _betting.showdown_returns(self.pot, self._winner())

    def utility_bounds(self) -> tuple[float, float]:
        """Bounds on player 0's utility at any terminal descendant (`State.utility_bounds`).

        A fold ends the hand with known money; otherwise each side's stake can only grow by the
        raises still allowed (unbounded with unlimited raises).
        """
        if self.is_terminal():
            r = self.returns()[0]
            return r, r
        if self._max_raises < 0:
            return float("-inf"), float("inf")
        rnd = self.round
        left = [(_RAISE_AMOUNTS[rnd], self._max_raises - self._raises())]
        if rnd == 0:
            left.append((_RAISE_AMOUNTS[1], self._max_raises))
        top = _betting.stake_bound(self.pot, left)
        return -top, top

    def information_state(self, player: int) -> str:
        """The player's card, the public card and both rounds' betting."""
        own = self.private[player] if self.private else "-"
        public = self.public if self.public >= 0 else "-"
        return f"p{player} card:{own} public:{public} bets:{self.betting[0]}|{self.betting[1]}"

    def __str__(self) -> str:
        return f"private {self.private} public {self.public} bets {self.betting} pot {self.pot}"


def consecutive_raises(state: LimitLeducPokerState) -> int:
    """Raises in a row at the end of the current round's betting.

    In the certificates paper none beyond 12 is ever expanded.
    """
    history = state.betting[state.round]
    return len(history) - len(history.rstrip("r"))


def max_consecutive_raises(tree: GameTree) -> int:
    """The most consecutive raises at any expanded decision node of a limit Leduc GameTree.

    The tree is e.g. a certificate's trunk.
    """
    internal = np.flatnonzero((tree.num_children > 0) & (tree.infoset >= 0))
    return max(consecutive_raises(tree.state(int(n))) for n in internal)


pyspiel.register_game(_GAME_TYPE, LimitLeducPokerGame)
