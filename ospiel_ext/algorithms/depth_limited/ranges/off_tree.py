"""An off-tree action on the hold'em range layout: its counterparts and action translation.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1 and Figure 2, in poker games laid out as public tree x hand ranges
(`poker.range_tree`), where the compiled stack (`compiled.off_tree`) cannot go. Two layouts of
one `universal_poker` game describe the experiment, each under an action abstraction
(`structure.detect(game, actions=...)`):

* `abstract`: the blueprint's game (e.g. fold, call, 0.5x and 1x pot bets, all-in);
* `game`: the same abstraction plus the off-tree action (the paper's 0.75x pot bet at the
  start of the game); the responder's exploitability is measured in it.

`OffTree.find` matches the betting after the off-tree action with the betting after each
in-abstraction replacement (the neighbouring bets), action by action through a `translate`
function on pyspiel states (e.g. `games.poker_actions.PotFractionAbstraction.translate`, which
matches "fold", "call", "0.5p", "1p", "all-in"). `rpat_strategy` is randomized pseudo-harmonic
action translation (Ganzfried & Sandholm (2013), "Action Translation in Extensive-Form Games
with Large Action Spaces: Axioms, Paradoxes, and the Pseudo-Harmonic Mapping", IJCAI): the
responder reads the off-tree bet as replacement k with probability w_k, once, and plays the
blueprint as if that bet had been made; as a behavioural strategy, at a node n with action a,

    b(n, a) = sum_k w_k r_k(n) b_k(n, a) / sum_k w_k r_k(n)

per entry (board, hand orbit), r_k the responder's own reach of n's counterpart under
replacement k in the blueprint, b_k the blueprint there renormalised over the actions with a
counterpart (a pot raise that would be all-in after one bet and not after the other).
Outside the off-tree subtree both players play the blueprint by betting key (`lift`); the
bettor's decisions after its off-tree bet play uniformly, which a best response replaces. The
range walker then gives the responder's exact exploitability in `game`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.depth_limited.translation import Translate, check_weights
from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.algorithms.poker.range_walker import RangeWalker
from ospiel_ext.arrays import FloatArray


def state_at(game: pyspiel.Game, key: str) -> pyspiel.State:
    """A state of `game` with betting `key` ("a,b,|c," per round), one fixed deal.

    Each chance node deals the lowest card left: the actions an abstraction keeps depend on
    the betting only (`structure.detect` checks it), so any deal stands for all.
    """
    state = game.new_initial_state()
    for part in key.split("|"):
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        for action in filter(None, part.split(",")):
            state.apply_action(int(action))
    return state


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class OffTree:
    """An off-tree action of player o in `game` and its in-abstraction counterparts.

    Attributes:
      game: the layout of the abstraction plus the off-tree action.
      abstract: the layout of the abstraction.
      player: the responder i (the opponent o = 1 - i takes the off-tree action).
      roots: betting keys of `game` just after the off-tree action.
      maps: per replacement, each betting key of `game` after the off-tree action (a decision
        or a round's end) -> (its counterpart's key in `abstract`, {action: counterpart
        action}).
      weights: the probability RPAT gives each replacement (`translation.pseudo_harmonic`).
    """

    game: RangeTree
    abstract: RangeTree
    player: int
    roots: tuple[str, ...]
    maps: tuple[dict[str, tuple[str, dict[int, int]]], ...]
    weights: tuple[float, ...]

    @classmethod
    def find(
        cls,
        game: RangeTree,
        abstract: RangeTree,
        *,
        replacements: Callable[[pyspiel.State], Sequence[int]],
        weights: Sequence[float],
        translate: Translate,
    ) -> OffTree:
        """The off-tree roots and their counterpart maps.

        An off-tree action is an action of a decision of `game` that the decision with the
        same betting key in `abstract` lacks; its player is o. `replacements(state)` gives
        the actions of `abstract` that stand for it at its decision's state (in `weights`'
        order); `translate` matches the actions after it.

        Raises:
          ValueError: the layouts are of different games, the weights are not a distribution,
            there is no off-tree action, or the replacements do not match the weights.
        """
        if game.name != abstract.name:
            raise ValueError(f"the layouts are of {game.name} and {abstract.name}")
        check_weights(game.name, weights)
        pg = game.structure.game
        twin = abstract.decisions
        roots: list[str] = []
        maps: list[dict[str, tuple[str, dict[int, int]]]] = [{} for _ in weights]
        players = set()
        for key, entry in game.decisions.items():
            if key not in twin or set(entry.node.actions) <= set(twin[key].node.actions):
                continue
            players.add(entry.node.player)
            extra = set(entry.node.actions) - set(twin[key].node.actions)
            actions = list(replacements(state_at(pg, key)))
            if len(actions) != len(weights):
                raise ValueError(
                    f"game {game.name}: {len(actions)} replacements, {len(weights)} weights"
                )
            for a, child in zip(entry.node.actions, entry.node.children):
                if a not in extra:
                    continue
                roots.append(child.key)
                for m, b in zip(maps, actions):
                    target = twin[key].node.children[twin[key].node.actions.index(b)]
                    _match(pg, child, target, translate=translate, out=m)
        if not roots:
            raise ValueError(f"game {game.name}: no action outside the abstraction")
        if len(players) != 1:
            raise ValueError(f"game {game.name}: both players have off-tree actions")
        return cls(
            game=game,
            abstract=abstract,
            player=1 - players.pop(),
            roots=tuple(roots),
            maps=tuple(maps),
            weights=tuple(float(w) for w in weights),
        )


def _match(
    game: pyspiel.Game,
    source: BettingNode,
    target: BettingNode,
    *,
    translate: Translate,
    out: dict[str, tuple[str, dict[int, int]]],
) -> None:
    """Walks `source` and `target` side by side, recording each decision's counterpart.

    And each round end's (no actions: the leaves of a depth limit at the round's end).
    """
    stack = [(source, target)]
    while stack:
        s, t = stack.pop()
        if s.next_round and t.next_round:
            out[s.key] = (t.key, {})
            stack.append((s.children[0], t.children[0]))
            continue
        if s.utility is not None or t.utility is not None or s.next_round or t.next_round:
            continue  # a terminal, or a round that ends on one side only: nothing to play
        ss, ts = state_at(game, s.key), state_at(game, t.key)
        actions: dict[int, int] = {}
        for a, child in zip(s.actions, s.children):
            b = translate(ss, a, ts)
            if b is not None and b in t.actions:
                actions[a] = b
                stack.append((child, t.children[t.actions.index(b)]))
        out[s.key] = (t.key, actions)


def transferred_leaves(off: OffTree, leaves: LeafValues) -> LeafValues:
    """Leaf values at the end of `off.game`'s first round from `leaves` of `off.abstract`.

    A leaf after the off-tree action takes the mean of its counterparts' values under the
    replacements ("the average of those two corresponding value vectors", Section 6.1), as
    `compiled.off_tree.transferred_leaves` does; any other leaf is in the abstraction and
    takes its own.

    Raises:
      ValueError: a leaf has no counterpart (naming the game).
    """
    game, abstract = off.game, off.abstract
    where = {abstract.keys[0][row]: e for e, row in enumerate(abstract.rounds[0].ends)}
    out: list[list[FloatArray]] = [[], []]
    for row in game.rounds[0].ends:
        key = game.keys[0][row]
        if key in where:
            found = [where[key]]
        else:
            found = [where[m[key][0]] for m in off.maps if key in m]
        if not found:
            raise ValueError(f"game {game.name}: the leaf {key!r} has no counterpart")
        for p in (0, 1):
            out[p].append(np.mean([leaves.values[p][:, e] for e in found], axis=0))
    return LeafValues((np.stack(out[0], axis=1), np.stack(out[1], axis=1)))


def played_beneath(off: OffTree, profile: Arrays, strategy: Arrays, *, first_round: int) -> Arrays:
    """`profile` with the responder's decisions below the off-tree action from `strategy`.

    Only those in the rounds from `first_round` on; both are profiles of `off.game` (a copy is
    returned).
    """
    out = [[np.array(a) for a in per_round] for per_round in profile]
    for key, e in off.game.decisions.items():
        after = key.startswith(off.roots)  # the betting below the off-tree action
        if after and e.round >= first_round and e.node.player == off.player:
            out[e.round][e.group][e.index] = strategy[e.round][e.group][e.index]
    return out


def lift(off: OffTree, blueprint: Arrays) -> Arrays:
    """The abstraction's per-entry blueprint on `off.game`, by betting key.

    The off-tree action gets probability 0; decisions after it play uniformly.
    """
    twin = off.abstract.decisions
    out = off.game.uniform()
    for key, e in off.game.decisions.items():
        if key not in twin:
            continue
        t = twin[key]
        probs = blueprint[t.round][t.group][t.index]
        row = np.zeros((len(e.node.actions), probs.shape[-1]))
        for a_index, a in enumerate(e.node.actions):
            if a in t.node.actions:
                row[a_index] = probs[t.node.actions.index(a)]
        out[e.round][e.group][e.index] = row
    return out


def rpat_strategy(off: OffTree, blueprint: Arrays) -> Arrays:
    """`lift(off, blueprint)` with the responder's decisions after the off-tree action by RPAT.

    The randomized pseudo-harmonic translation of the module docstring: replacement k's
    blueprint weighted by w_k and the responder's own reach of its counterpart decisions.
    """
    return translated(off, lift(off, blueprint), blueprint, off.player)


def translated(off: OffTree, into: Arrays, profile: Arrays, player: int) -> Arrays:
    """`into` with `player`'s decisions after the off-tree action translated from `profile`.

    `into` is a profile of `off.game`, `profile` one of `off.abstract`. The rule of the module
    docstring: each decision mixes its counterparts' strategies by w_k and `player`'s own
    reach of them in `profile`. The responder's is RPAT (`rpat_strategy`); the bettor's
    carries an abstraction's continuation below the off-tree action (e.g. to value it exactly
    there, where `transferred_leaves` takes the mean of its counterparts' values). Decisions
    whose counterparts are all unreached keep `into`'s arrays.
    """
    out = [[np.array(a) for a in per_round] for per_round in into]
    own = RangeWalker(off.abstract).reaches(player, profile)
    twin = off.abstract.decisions
    for key, e in off.game.decisions.items():
        if e.node.player != player or not any(key in m for m in off.maps):
            continue
        num = np.zeros(out[e.round][e.group][e.index].shape)
        den = np.zeros(num.shape[1])
        for m, w in zip(off.maps, off.weights):
            if key not in m:
                continue
            target, actions = m[key]
            if not actions:  # no action here has a counterpart under this replacement
                continue
            t = twin[target]
            probs = np.zeros(num.shape)
            for a_index, a in enumerate(e.node.actions):
                if a in actions:
                    probs[a_index] = profile[t.round][t.group][t.index][
                        t.node.actions.index(actions[a])
                    ]
            probs = _renormalised(probs, [a in actions for a in e.node.actions])
            r = w * own[t.round][t.row].astype(np.float64)
            num += r * probs
            den += r
        here = out[e.round][e.group][e.index]
        np.divide(num, den, out=here, where=den > 0)
    return out


def _renormalised(probs: FloatArray, ok: list[bool]) -> FloatArray:
    """Each column of `probs` over the actions with a counterpart (uniform on them at 0)."""
    total = probs.sum(axis=0)
    mask = np.array(ok, dtype=np.float64)[:, None]
    fallback = np.broadcast_to(mask / max(mask.sum(), 1.0), probs.shape)
    return np.where(total > 0, probs / np.where(total > 0, total, 1.0), fallback)
