"""The poker structure a public tree needs, read from a game's own description.

A game has it when (Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best Response
Calculation in Large Extensive Games", IJCAI 2011, Section 3, the assumptions behind the
public-tree walk):

* chance deals k private cards to each player first, then public cards at the start of later
  betting rounds (any number per round, none before the second; in `universal_poker` in one
  round only, as its information states forget which round dealt a card), uniformly without
  replacement from a deck of card *types* with `copies` each (cards of one type are told
  apart by nobody: limit Leduc deals ranks; the other games deal cards, one copy each; a game
  that deals several cards at once, to a hand or to a round's board, deals distinct cards);
  a player sees its hand and each round's board as sets (`universal_poker` shows them
  sorted), so a hand is one of the C(N, k) sets of k cards (`hands.HandSpace`);
* every player action is public and the legal actions depend on the betting only (checked by
  `stage_games.betting_tree`: Gilpin & Sandholm, "Finding Equilibria in Large Sequential
  Games of Imperfect Information", ACM EC 2006, Definition 1, games with ordered signals);
* a terminal pays either a fold, a payoff that depends on the betting only, or a showdown,
  pot x sign(strength(own hand, board) - strength(opponent's hand, board)) after the last
  round, with one strength function for both players.

The description is GameShrink's ordered-signals description of the game (Gilpin & Sandholm
2006, Definition 1; `descriptions.describe`: kuhn_poker, leduc_poker, limit_leduc_poker,
rhode_island_holdem, universal_poker); anything else, or a description that breaks a
property above, is refused with a ValueError naming the game and the property. The structure
is read from the description rather than the compiled game so that games far too large to
compile (Rhode Island Hold'em) get a public tree too; the equality tests check it against the
compiled game wherever one compiles.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext import loading
from ospiel_ext.algorithms.gameshrink import descriptions, ordered_games, stage_games
from ospiel_ext.algorithms.gameshrink.ordered_games import OrderedGame, RankOutcome
from ospiel_ext.algorithms.gameshrink.stage_games import BettingNode
from ospiel_ext.algorithms.poker.hands import HandSpace
from ospiel_ext.arrays import IntArray
from ospiel_ext.tree_builder import ActionFilter

# Games whose chance actions name card types with several copies (limit Leduc deals ranks of
# a two-suit deck); every other described game deals card ids.
_COPIES = {"limit_leduc_poker": 2}
# Games whose information states show the whole board as one sorted set of cards, whichever
# round dealt each (OpenSpiel's universal_poker): where two or more rounds deal public cards
# (numBoardCards=0 3 1 1), a player forgets which round dealt which card, so the game it
# defines has imperfect recall and a per-round layout would be another game.
_BOARD_AS_ONE_SET = {"universal_poker"}


def refuse(game: object, prop: str) -> ValueError:
    """The ValueError for a game without the structure: names the game and the property."""
    return ValueError(f"game {game} has no public-tree poker structure: {prop}")


@dataclasses.dataclass(frozen=True, eq=False)
class PokerStructure:
    """What the public tree reads of a poker game.

    Attributes:
      game: the pyspiel game.
      num_types: card types T (cards, or ranks where the game deals ranks).
      copies: cards of each type in the deck.
      joint_private_deal: both private cards are one chance action t0 * T + t1 (limit Leduc),
        not two actions t0 then t1.
      public_cards: public cards dealt at the start of each betting round (0 first).
      strength: (hands' cards (n,) or (n, k), board types (n, cards)) -> comparable int
        strength of each hand.
      betting: the betting tree of all rounds (`stage_games.BettingNode`).
      hole_cards: k, private cards per player.
      actions: the action abstraction the betting tree keeps (None: every legal action).
    """

    game: pyspiel.Game
    num_types: int
    copies: IntArray
    joint_private_deal: bool
    public_cards: tuple[int, ...]
    strength: Callable[[IntArray, IntArray], IntArray]
    betting: BettingNode
    hole_cards: int = 1
    actions: ActionFilter | None = None

    @functools.cached_property
    def hands(self) -> HandSpace:
        """The private hands: sets of `hole_cards` of the T types (the types when k = 1)."""
        return HandSpace.of(self.num_types, self.hole_cards)

    @property
    def card_sets(self) -> bool:
        """Whether a hand or a round's board has several cards.

        Such games take card removal by inclusion-exclusion and sorted showdowns (`hands`)
        instead of the one-card kernels.
        """
        return self.hole_cards > 1 or max(self.public_cards) > 1

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return str(self.game)

    @property
    def num_rounds(self) -> int:
        """Betting rounds."""
        return len(self.public_cards)

    @property
    def num_cards(self) -> int:
        """Cards in the deck."""
        return int(self.copies.sum())

    def private_actions(self, t0: int, t1: int) -> list[int]:
        """The pyspiel chance actions dealing private types t0 (player 0) and t1 (player 1)."""
        return [t0 * self.num_types + t1] if self.joint_private_deal else [t0, t1]


def card_ids(types: IntArray, copies: int) -> IntArray:
    """Distinct card ids (type * copies + copy) of rows of card types dealt together."""
    copy = np.zeros_like(types)
    for j in range(1, types.shape[1]):
        copy[:, j] = (types[:, :j] == types[:, j : j + 1]).sum(axis=1)
    return types * copies + copy


def _strength_function(og: OrderedGame, copies: int) -> Callable[[IntArray, IntArray], IntArray]:
    outcome = og.outcome
    if not isinstance(outcome, RankOutcome):
        raise refuse(og.name, "the showdown is not decided by one hand ranking of both players")
    public = [
        slot
        for g, (start, size) in zip(og.groups, og.slots)
        if g.owner == ordered_games.PUBLIC
        for slot in range(start, start + size)
    ]
    k = og.groups[0].size
    own = (list(range(k)), list(range(k, 2 * k)))
    if outcome.hands != (own[0] + public, own[1] + public):
        raise refuse(og.name, "a hand is not the player's private cards with the public cards")

    def strength(hand: IntArray, board: IntArray) -> IntArray:
        hand = np.asarray(hand, dtype=np.int64)
        types = np.column_stack([hand.reshape(len(hand), -1), board]).astype(np.int64)
        return np.asarray(outcome.strength(card_ids(types, copies)), dtype=np.int64)

    return strength


def _representative_deals(
    strength: Callable[[IntArray, IntArray], IntArray],
    copies: IntArray,
    public: tuple[int, ...],
    hole: int,
) -> tuple[IntArray, NDArray[np.int8]]:
    """One card-level deal per showdown result (-1, 0, 1) that some deal produces."""
    rng = np.random.default_rng(0)
    k = sum(public)
    deck = np.repeat(np.arange(len(copies)), copies)
    deals = np.array([rng.permutation(deck)[: 2 * hole + k] for _ in range(4096)])
    board = deals[:, 2 * hole :]
    labels = np.sign(strength(deals[:, :hole], board) - strength(deals[:, hole : 2 * hole], board))
    first = {int(lab): int(np.flatnonzero(labels == lab)[0]) for lab in np.unique(labels)}
    rows = [first[lab] for lab in sorted(first)]
    return card_ids(deals[rows], int(copies[0])), np.sign(labels[rows]).astype(np.int8)


def _check_terminals(name: str, root: BettingNode, last_round: int) -> None:
    stack = [root]
    while stack:
        node = stack.pop()
        stack.extend(node.children)
        if node.utility is None:
            continue
        values = set(node.utility.values())
        if len(values) == 1:
            continue  # a fold: the payoff depends on the betting only
        win, lose, tie = (node.utility.get(lab) for lab in (1, -1, 0))
        if win is None or lose is None or win != -lose or win <= 0 or tie not in (None, 0.0):
            raise refuse(
                name,
                f"the payoff at betting {node.key!r} is not pot x sign(strength difference) "
                f"(payoffs by showdown result: {node.utility})",
            )
        if node.round != last_round:
            raise refuse(name, f"a showdown at betting {node.key!r} before the last round")


def detect(game: pyspiel.Game | str, actions: ActionFilter | None = None) -> PokerStructure:
    """The poker structure of `game` (see the module docstring).

    Args:
      game: the game or its load_game string.
      actions: an action abstraction (`tree_builder.ActionFilter`, e.g.
        `games.poker_actions.PotFractionAbstraction` of a no-limit `universal_poker` game
        with `bettingAbstraction=fullgame`): the betting tree keeps only its actions, as
        `walk.game_tree(game, actions=...)` compiles them; every decision must keep the same
        actions whatever the cards.

    Raises:
      ValueError: naming the game and the property it lacks.
    """
    game = loading.load(game)
    try:
        og = descriptions.describe(game)
    except ValueError as e:
        raise refuse(game, f"no description of its deal and showdown ({e})") from None
    groups = og.groups
    hole = groups[0].size
    if [(g.round, g.owner, g.size) for g in groups[:2]] != [(0, 0, hole), (0, 1, hole)] or any(
        g.owner != ordered_games.PUBLIC for g in groups[2:]
    ):
        raise refuse(game, "each player must get its private cards first, as many as the other")
    public = _public_cards(game, og)
    c = _COPIES.get(game.get_type().short_name, 1)
    if og.num_cards % c:
        raise refuse(game, f"a deck of {og.num_cards} cards in {c} copies per type")
    if c > 1 and (hole > 1 or max(public) > 1):
        raise refuse(game, "several cards dealt at once from a deck of card types in copies")
    num_types = og.num_cards // c
    copies = np.full(num_types, c, dtype=np.int64)
    strength = _strength_function(og, c)
    deals, labels = _representative_deals(strength, copies, tuple(public), hole)
    # The chance actions must be the types (joint for the private pair, or one per card).
    d = [int(t) for t in deals[0] // c]
    private = og.chance_actions(deals[0], 0)
    joint = hole == 1 and private == [d[0] * num_types + d[1]]
    if not joint and private != d[: 2 * hole]:
        raise refuse(game, "the private deal's chance actions are not the card types")
    for r in range(1, og.num_rounds):
        first = 2 * hole + sum(public[:r])
        if og.chance_actions(deals[0], r) != d[first : first + public[r]]:
            raise refuse(game, f"round {r}'s chance actions are not the public card types")
    betting = stage_games.betting_tree(og, deals, labels, actions)
    _check_terminals(str(game), betting, og.num_rounds - 1)
    return PokerStructure(
        game=game,
        num_types=num_types,
        copies=copies,
        joint_private_deal=bool(joint),
        public_cards=tuple(public),
        strength=strength,
        betting=betting,
        hole_cards=hole,
        actions=actions,
    )


def _public_cards(game: pyspiel.Game, og: OrderedGame) -> list[int]:
    """The number of public cards each round deals, checked.

    None in the first round; in one round only where the information states show the board
    as one set (`_BOARD_AS_ONE_SET`).
    """
    public = [0] * og.num_rounds
    for g in og.groups[2:]:
        public[g.round] += g.size
    if public[0]:
        raise refuse(game, "public cards are dealt before the second betting round")
    if game.get_type().short_name in _BOARD_AS_ONE_SET and sum(n > 0 for n in public) > 1:
        raise refuse(
            game,
            "public cards are dealt in more than one round and its information states show "
            "the board as one sorted set, so a player forgets which round dealt which card "
            "(imperfect recall)",
        )
    return public


def falling(n: int, k: int) -> int:
    """N (n - 1) ... (n - k + 1): ordered draws of k distinct cards from n."""
    return math.perm(n, k)


def big_blind(game: pyspiel.Game) -> float | None:
    """The big blind of a `universal_poker` game (the largest of its blinds), else None.

    Poker results are given in milli-big-blinds per game (mbb/g): 1000 x chips / big blind.
    """
    if game.get_type().short_name != "universal_poker":
        return None
    blinds = [float(b) for b in str(game.get_parameters().get("blind", "")).split()]
    return max(blinds) if blinds and max(blinds) > 0 else None
