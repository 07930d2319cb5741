"""Exact exploitability of poker agents that act on a whole range at once (batched policies).

A neural agent (Deep CFR, NFSP, ESCHER in OpenSpiel's examples) maps an information state to
action probabilities, and evaluating one state at a time walks every state of the game: out of
reach for hold'em. The public tree x hand ranges layout (Johanson, Bowling, Waugh & Zinkevich,
"Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011, Section 3)
asks instead, at each public decision node (the betting so far and one board), for the
acting player's probabilities in every hand the board allows: one call per public node, a
batch of hands per call. A *batched policy* is a function of a `PublicNode` to an (H, A)
array of those probabilities; `evaluate_batched` computes both players' exact best responses
against it (`range_walker.RangeWalker`, as for the range solver's own strategies), asking the
last round's nodes chunk by chunk of boards as the walker reaches them, so that only the
rounds above the last are held whole (`arrays_from_batched` lays every answer out at once).

`PublicNode.information_state_tensors()` gives the H information-state tensors of a node as
OpenSpiel computes them (the network input of OpenSpiel's agents): one state's tensor plus,
per hand, the columns that its own cards set, learnt once per player from a few states and
checked at every node against states built for two other hands (a game whose tensor is not
linear in the own cards, a one-hot encoding, gets every hand's tensor from its own state).
`from_policy` turns any OpenSpiel `Policy` into a batched policy (one state per hand), the
reference the tests compare the batched path with.

With suit isomorphism (`suits=True`) the agent is asked only on one board per suit orbit,
and its answers must agree over each hand orbit of that board (checked): a suit-symmetric
agent. Most trained agents are not; lay the tree out without suits (the default) to evaluate
them exactly, every actual board asked (52-card flop hold'em: 22,100 flops per flop node).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Iterable, Iterator

import numpy as np
import pyspiel
from numpy.typing import ArrayLike
from open_spiel.python import policy as policy_lib

from ospiel_ext import evaluate
from ospiel_ext.algorithms.poker import range_walker, structure
from ospiel_ext.algorithms.poker.range_policy import (
    asymmetric,
    check_suit_symmetric,
    suit_symmetric,
)
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.algorithms.poker.structure import PokerStructure
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.runtime import budget, interrupts, progress

BatchedPolicy = Callable[["PublicNode"], ArrayLike]
"""A function of a public decision node to its (H, A) action probabilities (module docstring)."""

MEMORY_SHARE = 0.5
"""The most of the machine's memory that `arrays_from_batched`'s per-hand arrays may take."""


@dataclasses.dataclass(frozen=True, eq=False)
class PublicNode:
    """One call of a batched policy: a public decision node, one board, the hands it allows.

    Attributes:
      player: the acting player.
      betting: per round so far, the player actions (OpenSpiel action ids) of that round.
      board: the public cards dealt so far (the chance actions that deal them, each round's
        ascending).
      hands: (H, k) the acting player's hands the board allows, each one's cards ascending.
      actions: the legal actions, in the order of the answer's columns.
    """

    player: int
    betting: tuple[tuple[int, ...], ...]
    board: tuple[int, ...]
    hands: IntArray
    actions: tuple[int, ...]
    _states: _StateBuilder = dataclasses.field(repr=False)

    def state(self, i: int = 0) -> pyspiel.State:
        """A state of this node in which the acting player holds hands[i]."""
        return self._states.build(self.player, self.hands[i], self.board, self.betting)

    def information_state_tensors(self) -> np.ndarray:
        """(H, D) the acting player's information-state tensor in each hand (as OpenSpiel's)."""
        return self._states.tensors(self)


class _StateBuilder:
    """Builds a node's states and tensors (`PublicNode.state`, `information_state_tensors`)."""

    def __init__(self, ps: PokerStructure):
        self.ps = ps
        self.first: dict[int, PublicNode] = {}  # each player's first node (`own_card_columns`)
        self._columns: dict[int, np.ndarray] = {}
        self.per_state_nodes = 0  # nodes whose tensors were not linear in the own cards

    def build(
        self,
        player: int,
        own: IntArray,
        board: tuple[int, ...],
        betting: tuple[tuple[int, ...], ...],
    ) -> pyspiel.State:
        """The state: `own` to the player, the lowest cards left to the other, then the play."""
        ps = self.ps
        left = ps.copies.copy()
        np.subtract.at(left, np.r_[np.asarray(own, np.int64), np.asarray(board, np.int64)], 1)
        other = np.repeat(np.arange(ps.num_types), left)[: ps.hole_cards]
        hands = (own, other) if player == 0 else (other, own)
        state = ps.game.new_initial_state()
        if ps.joint_private_deal:
            private = ps.private_actions(int(hands[0][0]), int(hands[1][0]))
        else:
            private = [int(c) for hand in hands for c in hand]
        for a in private:
            state.apply_action(a)
        dealt = 0
        for r, actions in enumerate(betting):
            for c in board[dealt : dealt + ps.public_cards[r]]:
                state.apply_action(int(c))
            dealt += ps.public_cards[r]
            for a in actions:
                state.apply_action(a)
        return state

    def tensor(self, node: PublicNode, own: IntArray) -> np.ndarray:
        """The acting player's information-state tensor at the node, holding `own`."""
        state = self.build(node.player, own, node.board, node.betting)
        return np.asarray(state.information_state_tensor(node.player), dtype=np.float32)

    def own_card_columns(self, player: int) -> np.ndarray:
        """(T, D) E[c] = e_c - e_{h0[0]}, measured at the player's first node (hand h0).

        For an encoding linear in the own cards, tensor(h) = tensor(h0) + sum_{c in h} E[c] -
        sum_{c in h0} E[c]; E[c] is the change when c replaces h0's first card, and for h0's
        other cards the change when a free card x replaces them, added to E[x].
        """
        if player not in self._columns:
            node = self.first[player]
            h0 = node.hands[0]
            base = self.tensor(node, h0)
            columns = np.zeros((self.ps.num_types, len(base)), dtype=np.float32)
            free = [c for c in range(self.ps.num_types) if c not in h0 and c not in node.board]
            for c in free:
                columns[c] = self.tensor(node, np.sort(np.r_[c, h0[1:]])) - base
            for j in range(1, len(h0)):
                swapped = np.sort(np.r_[h0[:j], free[0], h0[j + 1 :]])
                columns[h0[j]] = columns[free[0]] + base - self.tensor(node, swapped)
            self._columns[player] = columns
        return self._columns[player]

    def tensors(self, node: PublicNode) -> np.ndarray:
        """(H, D) every hand's tensor: linear in the own cards where two built hands agree."""
        if not self.ps.game.get_type().provides_information_state_tensor:
            raise ValueError(f"game {self.ps.name} has no information_state_tensor")
        hands = node.hands
        columns = self.own_card_columns(node.player)
        base = self.tensor(node, hands[0])
        out: np.ndarray = base + columns[hands].sum(axis=1) - columns[hands[0]].sum(axis=0)
        checks = {len(hands) // 2, len(hands) - 1} - {0}
        if all(np.array_equal(out[i], self.tensor(node, hands[i])) for i in checks):
            return out
        self.per_state_nodes += 1
        return np.stack([self.tensor(node, h) for h in hands])


def _betting(key: str) -> tuple[tuple[int, ...], ...]:
    """A betting key ("a,b,|c,": `stage_games.BettingNode.key`) as per-round action tuples."""
    return tuple(tuple(int(a) for a in part.split(",") if a) for part in key.split("|"))


def public_nodes(
    tree: RangeTree,
    r: int | None = None,
    boards: Iterable[int] | None = None,
    builder: _StateBuilder | None = None,
) -> Iterator[tuple[int, int, int, int, PublicNode]]:
    """Every (round, group, node, board, PublicNode) of the tree's decisions, round by round.

    Boards are the tree's (one per suit orbit with suits); hands those the board allows. With
    r, round r's only, on `boards` (all by default); `builder` shares one state builder (and
    its learnt tensor columns) across calls.
    """
    builder = _StateBuilder(tree.structure) if builder is None else builder
    hands = tree.structure.hands.cards
    for rr in range(len(tree.rounds)) if r is None else (r,):
        lay = tree.rounds[rr]
        allowed = lay.deals.multiplicity > 0
        chosen = range(lay.deals.num_boards) if boards is None else list(boards)
        cards = {b: tuple(lay.deals.types[b].tolist()) for b in chosen}  # once per board
        for k, group in enumerate(lay.groups):
            for i, node in enumerate(group.betting):
                betting, actions = _betting(node.key), tuple(node.actions)
                for b in chosen:
                    pn = PublicNode(
                        node.player, betting, cards[b], hands[allowed[b]], actions, builder
                    )
                    builder.first.setdefault(node.player, pn)
                    yield rr, k, i, b, pn


def num_calls(tree: RangeTree) -> int:
    """The calls a batched policy gets: public decision nodes x the tree's boards."""
    return sum(len(g.nodes) * lay.deals.num_boards for lay in tree.rounds for g in lay.groups)


class _Asker:
    """Asks a batched policy node by node (module docstring), from any of a walker's threads.

    `arrays(rounds)` lays the answers of the first rounds out whole; `chunk(b)` gives the last
    round's on a chunk of its entries (`range_walker.RangeWalker.each_chunk`), so that the last
    round's answers are never held whole. The policy is called under a lock, one call at a
    time, in a deterministic order per chunk.
    """

    def __init__(self, tree: RangeTree, policy: BatchedPolicy, shown: progress.Counter):
        self.tree, self.policy, self.shown = tree, policy, shown
        self.builder = _StateBuilder(tree.structure)
        self.calls = 0
        self._lock = threading.Lock()

    def _ask(self, r: int, boards: Iterable[int], out: list[FloatArray], at: IntArray) -> None:
        """Writes round r's answers on `boards` to per-hand arrays `out` (n, A, boards, H).

        Board b goes to position at[b] of the boards axis.
        """
        allowed = self.tree.rounds[r].deals.multiplicity > 0
        with self._lock:
            for _, k, i, b, node in public_nodes(self.tree, r, boards, self.builder):
                interrupts.check()  # an agent's pass can take hours: Ctrl-C between calls
                probs = _checked(self.tree.name, node, self.policy(node))
                out[k][i][:, at[b], allowed[b]] = probs.T
                self.calls += 1
                self.shown.update_to(self.calls)

    def arrays(self, rounds: int) -> Arrays:
        """Per-hand arrays (n, A, n_B, H) of the first `rounds` rounds.

        Hands a board excludes play uniformly (the walker weighs them by zero).
        """
        shapes = self.tree.per_hand_shapes[:rounds]
        arrays = [[np.full(s, 1.0 / s[1]) for s in per_round] for per_round in shapes]
        for r, per_round in enumerate(arrays):
            boards = range(self.tree.rounds[r].deals.num_boards)
            self._ask(r, boards, per_round, np.arange(len(boards)))
        check_suit_symmetric(self.tree, arrays)
        return arrays

    def chunk(self, b: slice) -> list[FloatArray]:
        """The last round's answers per entry (n, A, |b|) on entries b (whole boards)."""
        r = len(self.tree.rounds) - 1
        lay = self.tree.rounds[r]
        board, hand = lay.orbits.board[b], lay.orbits.hand[b]
        boards = np.unique(board)
        at = np.zeros(lay.deals.num_boards, dtype=np.int64)
        at[boards] = np.arange(len(boards))
        shapes = [(n, a, len(boards), t) for n, a, _, t in self.tree.per_hand_shapes[r]]
        per_hand = [np.full(s, 1.0 / s[1]) for s in shapes]
        self._ask(r, boards.tolist(), per_hand, at)
        orbit = lay.deals.hand_orbit[boards]
        if self.tree.suits and not all(suit_symmetric(a, orbit) for a in per_hand):
            raise asymmetric(self.tree)
        return [np.ascontiguousarray(a[:, :, at[board], hand]) for a in per_hand]


def arrays_from_batched(tree: RangeTree, policy: BatchedPolicy) -> Arrays:
    """The batched policy's answers as per-hand arrays (n, A, n_B, H) of the whole tree.

    One call per public decision node and board (`public_nodes`); hands a board excludes
    play uniformly (the walker weighs them by zero). `evaluate_batched` holds only the last
    round's answers of a chunk at a time instead.

    Raises:
      ValueError: the arrays would take more than `MEMORY_SHARE` of the machine's memory;
        an answer is not an (H, A) array of distributions over the actions (to 1e-6); with
        suit isomorphism, the answers differ over a hand orbit of a board.
    """
    _check_memory(tree, len(tree.rounds))
    with progress.Counter(f"asking the policy of {tree.name}", num_calls(tree), "node") as shown:
        return _Asker(tree, policy, shown).arrays(len(tree.rounds))


def _check_memory(tree: RangeTree, rounds: int) -> None:
    """Refuses per-hand arrays of the first `rounds` rounds above `MEMORY_SHARE`."""
    need = 8 * sum(
        int(np.prod(s)) for per_round in tree.per_hand_shapes[:rounds] for s in per_round
    )
    memory = budget.physical_memory()
    if memory is not None and need > MEMORY_SHARE * memory:
        raise ValueError(
            f"game {tree.name}: the policy's per-hand arrays take {need / 2**30:.1f} GiB, more "
            f"than {MEMORY_SHARE:.0%} of this machine's {memory / 2**30:.1f} GiB (a smaller "
            "deck, or suits=True for a suit-symmetric agent)"
        )


def _checked(name: str, node: PublicNode, answer: ArrayLike) -> FloatArray:
    """The answer as (H, A) float64 rows summing to 1 exactly, or a ValueError naming the node."""
    probs = np.asarray(answer, dtype=np.float64)
    want = (len(node.hands), len(node.actions))
    where = f"game {name}: the policy's answer at betting {node.betting}, board {node.board}"
    if probs.shape != want:
        raise ValueError(f"{where} has shape {probs.shape}, not (hands, actions) = {want}")
    if not np.isfinite(probs).all() or probs.min() < 0:
        raise ValueError(f"{where} has probabilities that are negative or not finite")
    sums = probs.sum(axis=1)
    if np.abs(sums - 1).max() > 1e-6:
        raise ValueError(f"{where} has a row that does not sum to 1 (sums {sums.min():.9g} ..)")
    normalised: FloatArray = probs / sums[:, None]
    return normalised


def evaluate_batched(
    game: pyspiel.Game | str,
    policy: BatchedPolicy,
    *,
    suits: bool = False,
    threads: int = 1,
) -> evaluate.ProfileEvaluation:
    """Exact values and best responses when both players play the batched policy.

    Args:
      game: a poker game with the public-tree structure (`structure.detect`), or its string.
      policy: the batched policy (module docstring).
      suits: one board per suit orbit, for a suit-symmetric policy (checked per board).
      threads: threads of the best-response passes (`range_walker.RangeWalker`).

    Raises:
      ValueError: the game lacks the structure, or `arrays_from_batched` refuses.
    """
    tree = RangeTree(structure.detect(game), suits=suits)
    last = len(tree.rounds) - 1
    _check_memory(tree, last)
    with (
        progress.Counter(f"asking the policy of {tree.name}", num_calls(tree), "node") as shown,
        range_walker.RangeWalker(tree, threads=threads) as walker,
    ):
        asker = _Asker(tree, policy, shown)
        upper = tree.contract(asker.arrays(last))
        return walker.evaluate(upper, last=asker.chunk)


def from_policy(pol: policy_lib.Policy) -> BatchedPolicy:
    """An OpenSpiel policy as a batched policy: each hand's state asked in turn (`PublicNode`).

    The per-state reference for a batched agent, and the way to evaluate an OpenSpiel
    `Policy` that is not tabular; actions the policy leaves out get probability 0.
    """

    def batched(node: PublicNode) -> FloatArray:
        out = np.zeros((len(node.hands), len(node.actions)))
        for h in range(len(node.hands)):
            probs = pol.action_probabilities(node.state(h), node.player)
            out[h] = [probs.get(a, 0.0) for a in node.actions]
        return out

    return batched
