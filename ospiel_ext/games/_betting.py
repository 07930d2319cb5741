"""Limit betting rounds shared by the poker games (limit Leduc, Rhode Island Hold'em).

A round's betting is a string over "fcr" (fold, check/call, raise). The first player to act
in a round is player 0; a raise matches the outstanding bet and adds the round's raise
amount; the round ends when a raise is called or when both players have checked.
"""

from __future__ import annotations

from typing import Any

FOLD, CALL, RAISE = 0, 1, 2
ACTION_CHARS = "fcr"
ACTION_NAMES = ("fold", "call", "raise")


def legal_actions(
    history: str, pot: tuple[int, int], player: int, *, max_raises: int, fold_always: bool
) -> list[int]:
    """Fold (always, or only facing a bet), call, and raise while under the cap (-1: none)."""
    actions = [FOLD] if fold_always or pot[player] < pot[1 - player] else []
    actions.append(CALL)
    if max_raises < 0 or history.count("r") < max_raises:
        actions.append(RAISE)
    return actions


def apply(
    history: str, pot: tuple[int, int], player: int, *, action: int, raise_amount: int
) -> tuple[str, tuple[int, int], bool]:
    """The round's new betting string, the new contributions, and whether the round is over.

    A fold also ends the round.
    """
    history += ACTION_CHARS[action]
    if action == FOLD:
        return history, pot, True
    if action == RAISE:
        return history, _with_contribution(pot, player, pot[1 - player] + raise_amount), False
    over = pot[player] < pot[1 - player] or len(history) >= 2  # a call, or a second check
    return history, _with_contribution(pot, player, pot[1 - player]), over


def _with_contribution(pot: tuple[int, int], player: int, amount: int) -> tuple[int, int]:
    """`pot` with `player`'s contribution set to `amount`."""
    return (amount, pot[1]) if player == 0 else (pot[0], amount)


def fold_returns(pot: tuple[int, int], folder: int) -> list[float]:
    """The folder loses its contribution to the other player."""
    loss = float(pot[folder])
    return [-loss, loss] if folder == 0 else [loss, -loss]


def showdown_returns(pot: tuple[int, int], winner: int) -> list[float]:
    """The winner (0 or 1) wins the loser's contribution; -1 splits the pot."""
    if winner < 0:
        return [0.0, 0.0]
    won = float(pot[1 - winner])
    return [won, -won] if winner == 0 else [-won, won]


def stake_bound(pot: tuple[int, int], raises_left: list[tuple[int, int]]) -> float:
    """The largest contribution either player can reach: the current top plus the raises left.

    Every raise still allowed counts, given as (raise amount, number of raises left) per
    remaining round.
    """
    return float(max(pot) + sum(amount * count for amount, count in raises_left))


class HandFields:
    """The betting fields of a poker state that keeps them in its record `_hand`.

    The record is replaced at every action, never mutated (`_common.kept`); these read it.
    """

    _hand: Any

    @property
    def betting(self) -> tuple[str, ...]:
        """Each round's actions, as "fcr" characters (the rounds started, or every round)."""
        betting: tuple[str, ...] = self._hand.betting
        return betting

    @property
    def pot(self) -> tuple[int, int]:
        """Each player's contribution."""
        pot: tuple[int, int] = self._hand.pot
        return pot

    @property
    def folded(self) -> int:
        """The player who folded, or -1."""
        folded: int = self._hand.folded
        return folded
