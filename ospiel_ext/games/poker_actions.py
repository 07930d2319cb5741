"""Pot-fraction action abstractions of OpenSpiel's no-limit `universal_poker`.

No-limit poker has one action per bet size; solvers keep a few: fold, call, bets of a few
fractions of the pot, all-in (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for
Imperfect-Information Games", Section 6.1: bets of 0.5x and 1x the pot, the off-tree 0.75x
bet). `PotFractionAbstraction` is an `ospiel_ext.tree_builder.ActionFilter`: pass it to
`walk.game_tree(game, actions=...)` to compile the abstracted game; infosets keep the
game's keys, so its policies are policies of the game wherever the abstraction goes.

In `universal_poker` (betting=nolimit, bettingAbstraction=fullgame) action 0 folds, 1 calls
or checks and a >= 2 raises to a total of a chips; `state.pot_size(f)` is the raise-to amount
of a bet of f times the pot after calling, `state.all_in_size()` the all-in raise-to amount.

Every kept action has a label ("fold", "call", "0.5p", "1p", "all-in"); `translate` maps an
action to the action of the same label in another state, which is how action translation and
leaf-value transfer (`depth_limited.compiled.off_tree`) find the in-abstraction counterpart of a
history that starts with an off-tree bet.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import pyspiel

FOLD, CALL = 0, 1


def fraction_label(fraction: float) -> str:
    """'0.5p' for half the pot, '1p' for the pot."""
    return f"{fraction:g}p"


@dataclasses.dataclass(frozen=True)
class PotFractionAbstraction:
    """Fold, call, bets of `fractions` of the pot, all-in: those of them that are legal.

    Attributes:
      fractions: the pot fractions kept at every decision.
      all_in: whether the all-in bet is kept.
      extra: `extra(state)` returns {label: fraction} of further bets kept at `state` only
        (e.g. an off-tree 0.75x bet of the first player at the start of the game).
    """

    fractions: tuple[float, ...] = (0.5, 1.0)
    all_in: bool = True
    extra: Callable[[pyspiel.State], dict[str, float]] | None = None

    def labels(self, state: pyspiel.State) -> dict[str, int]:
        """{label: action} of the kept actions at a decision `state`.

        A bet that is all-in is labelled "all-in" whatever its pot fraction; a bet size below
        the minimum raise, above the stack or equal to a smaller one is dropped.
        """
        legal = set(state.legal_actions())
        kept: dict[str, int] = {}
        taken: set[int] = set()

        def keep(label: str, action: int) -> None:
            if action in legal and action not in taken:
                kept[label] = action
                taken.add(action)

        keep("fold", FOLD)
        keep("call", CALL)
        if self.all_in:
            keep("all-in", int(state.all_in_size()))
        bets = {fraction_label(f): f for f in self.fractions}
        if self.extra is not None:
            bets.update(self.extra(state))
        for label, f in sorted(bets.items(), key=lambda item: item[1]):
            keep(label, int(state.pot_size(f)))
        return kept

    def __call__(self, state: pyspiel.State) -> Sequence[int]:
        """`ActionFilter` API: the kept actions at `state`, ascending."""
        return sorted(self.labels(state).values())

    def label(self, state: pyspiel.State, action: int) -> str | None:
        """The label of `action` at `state`, or None if the abstraction does not keep it."""
        for label, a in self.labels(state).items():
            if a == action:
                return label
        return None

    def translate(self, state: pyspiel.State, action: int, target: pyspiel.State) -> int | None:
        """The action of `target` with `action`'s label at `state` (None if there is none)."""
        label = self.label(state, action)
        return None if label is None else self.labels(target).get(label)


def first_bet_extra(
    player: int, bets: dict[str, float]
) -> Callable[[pyspiel.State], dict[str, float]]:
    """An `extra` that adds `bets` ({label: pot fraction}) at `player`'s first decision only.

    That is `player`'s first decision of the game, with no player action before it.
    """

    def extra(state: pyspiel.State) -> dict[str, float]:
        first = state.current_player() == player and not any(p >= 0 for p, _ in _moves(state))
        return dict(bets) if first else {}

    return extra


def _moves(state: pyspiel.State) -> list[tuple[int, int]]:
    return [(int(m.player), int(m.action)) for m in state.full_history()]
