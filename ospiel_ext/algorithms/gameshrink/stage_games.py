"""The stage games of a game with ordered signals, read off the pyspiel game.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Definition 1: the stage games G^1..G^r (betting) of an `ordered_games.OrderedGame`.

* `betting_tree`: the stage games joined into one tree of `BettingNode`s, read from the pyspiel
  game by replaying one representative deal per showdown result ("legal actions are
  independent of the signals" and "actions are observed by all players" are checked on the
  way);
* `check_against_game`: random plays of the pyspiel game against the description (legal
  actions, payoffs through the showdown result only);
* `betting_key`, `chance_actions_of`: where a state of the original game is in the betting tree
  and which deal it has seen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext import loading
from ospiel_ext.algorithms.gameshrink.ordered_games import CHANCE, OrderedGame, require
from ospiel_ext.tree_builder import ActionFilter


@dataclasses.dataclass(kw_only=True)
class BettingNode:
    """A node of the betting tree of all rounds: a decision, a terminal or a round's end.

    `key` is the betting so far (each action followed by ",", "|" between rounds); `round` the
    round it belongs to. A decision has `player`, `actions`, `children`; a terminal has
    `utility[label]` (player 0's payoff for each showdown result label -1 / 0 / 1 that occurs);
    a round end (`next_round`) has one child, the first node of the next round.
    """

    key: str
    round: int
    player: int = -1
    actions: tuple[int, ...] = ()
    children: list[BettingNode] = dataclasses.field(default_factory=list)
    utility: dict[int, float] | None = None
    next_round: bool = False


def betting_tree(
    og: OrderedGame,
    deals: NDArray[np.integer],
    labels: NDArray[np.int8],
    actions: ActionFilter | None = None,
) -> BettingNode:
    """The stage games G^1..G^r joined into one tree, walked once per showdown label.

    The walk follows one representative deal per showdown label (Definition 1: legal actions
    and the round structure must not depend on the signals; every action must be observed by
    the other player). `actions`: an action abstraction (`tree_builder.ActionFilter`, e.g.
    `games.poker_actions.PotFractionAbstraction`): only the actions it keeps are walked, and
    they too must not depend on the signals.
    """
    reps = {int(lab): deals[int(np.flatnonzero(labels == lab)[0])] for lab in np.unique(labels)}
    states = _deal_round(og, reps, {lab: og.game.new_initial_state() for lab in reps}, 0)
    root = BettingNode(key="", round=0)
    stack = [(root, states)]
    while stack:
        node, sts = stack.pop()
        first = next(iter(sts.values()))
        if first.is_terminal():
            require(all(s.is_terminal() for s in sts.values()), og.name, "deals end differently")
            node.utility = {lab: float(s.returns()[0]) for lab, s in sts.items()}
        elif first.current_player() == CHANCE:
            stack.append(_next_round(og, node, sts, reps))
        else:
            stack.extend(_decision_children(og, node, sts, actions))
    return root


_States = dict[int, pyspiel.State]
"""The state of each showdown label's representative deal at one betting node."""


def _deal_round(
    og: OrderedGame, reps: Mapping[int, Sequence[int]], states: _States, round_: int
) -> _States:
    """`states`, each after round `round_`'s chance actions of its label's representative deal."""
    for lab, s in states.items():
        for a in og.chance_actions(reps[lab], round_):
            s.apply_action(a)
    return states


def _next_round(
    og: OrderedGame, node: BettingNode, states: _States, reps: Mapping[int, Sequence[int]]
) -> tuple[BettingNode, _States]:
    """The only child of the round end `node` (the next round's first node), and its states."""
    require(
        all(s.current_player() == CHANCE for s in states.values()),
        og.name,
        f"chance moves at betting {node.key!r} depend on the deal",
    )
    require(node.round + 1 < og.num_rounds, og.name, "more chance rounds than described")
    nxt = _deal_round(og, reps, {lab: s.clone() for lab, s in states.items()}, node.round + 1)
    node.next_round = True
    child = BettingNode(key=node.key + "|", round=node.round + 1)
    node.children.append(child)
    return child, nxt


def _decision_children(
    og: OrderedGame, node: BettingNode, states: _States, kept: ActionFilter | None
) -> list[tuple[BettingNode, _States]]:
    """The children of the decision `node` with their states, in action order.

    Sets the node's player and actions (those `kept` keeps, if given), and checks that they do
    not depend on the signals and that the opponent observes every action.
    """

    def actions_at(state: pyspiel.State) -> tuple[int, ...]:
        return tuple(state.legal_actions() if kept is None else sorted(map(int, kept(state))))

    first = next(iter(states.values()))
    player = first.current_player()
    actions = actions_at(first)
    for s in states.values():
        require(
            s.current_player() == player and actions_at(s) == actions,
            og.name,
            f"{'legal' if kept is None else 'kept'} actions at betting {node.key!r} depend on "
            "the signals",
        )
    require(
        kept is None or (bool(actions) and set(actions) <= set(first.legal_actions())),
        og.name,
        f"the action abstraction keeps {list(actions)} at betting {node.key!r}, not a "
        "non-empty subset of the legal actions",
    )
    node.player, node.actions = player, actions
    opponent_views, non_terminal = set(), 0
    children = []
    for a in actions:
        nxt = {lab: s.child(a) for lab, s in states.items()}
        after = nxt[next(iter(nxt))]
        if not after.is_terminal():
            opponent_views.add(loading.infoset_key(after, 1 - player))
            non_terminal += 1
        child = BettingNode(key=f"{node.key}{a},", round=node.round)
        node.children.append(child)
        children.append((child, nxt))
    require(
        len(opponent_views) == non_terminal,
        og.name,
        f"player {1 - player} does not observe player {player}'s action at betting "
        f"{node.key!r} (the paper's Section 3.4 shows abstraction then fails)",
    )
    return children


def betting_key(state: pyspiel.State) -> tuple[int, str]:
    """(round, betting key) of a state of the original game.

    The key is the player actions with "|" between chance blocks, the same keys as
    `BettingNode.key`.
    """
    key, blocks, in_chance = "", 0, False
    for player, action in ((h.player, h.action) for h in state.full_history()):
        if player == CHANCE:
            if not in_chance:
                blocks += 1
                if blocks > 1:
                    key += "|"
            in_chance = True
        else:
            key += f"{action},"
            in_chance = False
    return blocks - 1, key


def chance_actions_of(state: pyspiel.State) -> list[int]:
    """The chance actions of the state's history, in order."""
    return [h.action for h in state.full_history() if h.player == CHANCE]


def check_against_game(
    og: OrderedGame,
    root: BettingNode,
    deals: NDArray[np.integer],
    *,
    labels: NDArray[np.int8],
    samples: int,
    seed: int = 0,
) -> None:
    """Checks the description against `samples` random plays of the pyspiel game.

    Plays `samples` random deals down random betting lines in the pyspiel game and checks that
    the description predicts every legal action set and every payoff (utility through the
    showdown label only, Definition 1 (u)).
    """
    rng = np.random.default_rng(seed)
    for i in rng.integers(len(deals), size=samples):
        deal, label = deals[i], int(labels[i])
        s = og.game.new_initial_state()
        for a in og.chance_actions(deal, 0):
            s.apply_action(a)
        node = root
        while not s.is_terminal():
            if node.next_round:
                node = node.children[0]
                for a in og.chance_actions(deal, node.round):
                    s.apply_action(a)
                continue
            require(tuple(s.legal_actions()) == node.actions, og.name, "legal actions differ")
            k = int(rng.integers(len(node.actions)))
            s.apply_action(node.actions[k])
            node = node.children[k]
        require(
            node.utility is not None and abs(node.utility[label] - s.returns()[0]) < 1e-9,
            og.name,
            f"the payoff at betting {node.key!r} of deal {deal.tolist()} is {s.returns()[0]}, "
            "not a function of the showdown result",
        )
