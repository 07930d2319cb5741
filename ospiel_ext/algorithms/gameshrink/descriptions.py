"""The ordered-signals descriptions of the supported games.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Definition 1: each description is an `ordered_games.OrderedGame`.

`describe(game)` returns the description of kuhn_poker, leduc_poker, universal_poker (ACPC
game definitions, ranked by `poker_hands`) and our limit_leduc_poker and rhode_island_holdem,
and refuses anything else with the reason. `UNIVERSAL_POKER_EXAMPLES` are ACPC games small
enough to compile.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext import loading, poker_hands
from ospiel_ext.algorithms.gameshrink.ordered_games import (
    PUBLIC,
    Group,
    OrderedGame,
    RankOutcome,
    require,
)
from ospiel_ext.arrays import IntArray


def _dealt_as_card_ids(groups: tuple[Group, ...]) -> dict[str, Callable]:
    """`chance_actions` and `deal_from_chance` of a game whose chance actions are the card ids.

    The cards are dealt group by group in the order of `groups` (a group's cards in any order).
    """
    rounds = [g.round for g in groups for _ in range(g.size)]
    num_slots = len(rounds)

    def chance_actions(deal: Sequence[int], round_: int) -> list[int]:
        return [int(c) for c, r in zip(deal, rounds) if r == round_]

    def deal_from_chance(acts: Sequence[int]) -> list[int]:
        return list(acts) + [-1] * (num_slots - len(acts))

    return {"chance_actions": chance_actions, "deal_from_chance": deal_from_chance}


def _kuhn(game: pyspiel.Game) -> OrderedGame:
    n = game.get_parameters().get("players", 2)
    require(n == 2, game, "kuhn_poker must have two players")
    groups = (Group(0, 0), Group(0, 1))
    return OrderedGame(
        game=game,
        num_cards=3,
        groups=groups,
        **_dealt_as_card_ids(groups),
        outcome=RankOutcome(lambda h: h[:, 0], ([0], [1])),
    )


def _paired_rank_strength(num_ranks: int, suits: int) -> Callable[[IntArray], IntArray]:
    """Leduc hands (private, public): a pair beats every non-pair; else the private rank."""

    def strength(hand: IntArray) -> IntArray:
        own, public = hand[:, 0] // suits, hand[:, 1] // suits
        return np.where(own == public, num_ranks + own, own)

    return strength


def _leduc(game: pyspiel.Game) -> OrderedGame:
    params = game.get_parameters()
    require(
        not params.get("suit_isomorphism", False),
        game,
        "suit_isomorphism=true deals ranks, not cards; load leduc_poker() instead (suits dealt, "
        "the default): GameShrink's lossless filter and the public tree's --suits merge the "
        "suits themselves",
    )
    suits, ranks = 2, 3
    groups = (Group(0, 0), Group(0, 1), Group(1, PUBLIC))
    return OrderedGame(
        game=game,
        num_cards=suits * ranks,
        groups=groups,
        **_dealt_as_card_ids(groups),
        outcome=RankOutcome(_paired_rank_strength(ranks, suits), ([0, 2], [1, 2])),
    )


def _limit_leduc(game: pyspiel.Game) -> OrderedGame:
    k = game.num_ranks

    def chance_actions(deal: Sequence[int], r: int) -> list[int]:
        return [int(deal[0]) // 2 * k + int(deal[1]) // 2] if r == 0 else [int(deal[2]) // 2]

    def deal_from_chance(acts: Sequence[int]) -> list[int]:
        # The game deals ranks; cards 2r and 2r + 1 are the two copies of rank r.
        cards: list[int] = []
        ranks = list(divmod(acts[0], k)) if acts else []
        ranks += list(acts[1:2])
        for r in ranks:
            cards.append(2 * r + (2 * r in cards))
        return cards + [-1] * (3 - len(cards))

    return OrderedGame(
        game=game,
        num_cards=2 * k,
        groups=(Group(0, 0), Group(0, 1), Group(1, PUBLIC)),
        chance_actions=chance_actions,
        deal_from_chance=deal_from_chance,
        outcome=RankOutcome(_paired_rank_strength(k, 2), ([0, 2], [1, 2])),
    )


def _rhode_island(game: pyspiel.Game) -> OrderedGame:
    """Hands ranked by the game's own `poker_hands.three_card_value` (its `ace_low` rule)."""
    n, suits = game.num_ranks * game.num_suits, game.num_suits
    # Strength of every 3-card set, stored under each ordering of its cards (a, b, c) at
    # (a * n + b) * n + c, so that a hand needs no sorting.
    sets = np.array(list(itertools.combinations(range(n), 3)), dtype=np.int64)
    values = [
        poker_hands.three_card_value((a, b, c), suits, game.num_ranks, game.ace_low)
        for a, b, c in sets.tolist()
    ]
    order = {v: i for i, v in enumerate(sorted(set(values)))}
    ranks = np.array([order[v] for v in values], dtype=np.int32)
    table = np.zeros(n**3, dtype=np.int32)
    for a, b, c in itertools.permutations(range(3)):
        table[(sets[:, a] * n + sets[:, b]) * n + sets[:, c]] = ranks

    def strength(hand: IntArray) -> NDArray[np.int32]:
        rank: NDArray[np.int32] = table[(hand[:, 0] * n + hand[:, 1]) * n + hand[:, 2]]
        return rank

    groups = (Group(0, 0), Group(0, 1), Group(1, PUBLIC), Group(2, PUBLIC))
    return OrderedGame(
        game=game,
        num_cards=n,
        groups=groups,
        **_dealt_as_card_ids(groups),
        outcome=RankOutcome(strength, ([0, 2, 3], [1, 2, 3])),
    )


def _universal_poker(game: pyspiel.Game) -> OrderedGame:
    """The description of an ACPC game definition (`universal_poker`).

    `numHoleCards` private cards each in the first round, then `numBoardCards[g]` public cards
    at the start of betting round g; the showdown ranks the best five of hole and board cards
    (`poker_hands`). Betting rounds that deal no cards continue the stage game of the round
    before.
    """
    p = game.get_parameters()
    for fixed in ("boardCards", "handReaches"):
        require(not p.get(fixed), game, f"{fixed} fixes part of the deal; the deal must be random")
    ranks, suits, hole = int(p["numRanks"]), int(p["numSuits"]), int(p["numHoleCards"])
    board = [int(b) for b in str(p["numBoardCards"]).split()][: int(p["numRounds"])]
    dealt = [Group(0, 0, hole), Group(0, 1, hole)]
    for g, size in enumerate(board):
        if size:
            dealt.append(Group(dealt[-1].round + (g > 0), PUBLIC, size))
    groups = tuple(dealt)
    public = list(range(2 * hole, sum(g.size for g in groups)))
    cols = (list(range(hole)) + public, list(range(hole, 2 * hole)) + public)
    return OrderedGame(
        game=game,
        num_cards=ranks * suits,
        groups=groups,
        **_dealt_as_card_ids(groups),
        outcome=RankOutcome(lambda h: poker_hands.hand_values(h, ranks, suits), cols),
    )


# Leduc hold'em, a no-limit Leduc and a two-hole-card, two-board-card game as ACPC game
# definitions: `universal_poker` examples small enough to compile (benchmarks, docs).
UNIVERSAL_POKER_EXAMPLES = (
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
    "firstPlayer=1 1,maxRaises=2 2,numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1)",
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=1 1,firstPlayer=1 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=10 10)",
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
    "firstPlayer=1 1,maxRaises=2 2,numSuits=2,numRanks=4,numHoleCards=2,numBoardCards=0 2)",
)

DESCRIPTIONS: dict[str, Callable[[pyspiel.Game], OrderedGame]] = {
    "kuhn_poker": _kuhn,
    "leduc_poker": _leduc,
    "limit_leduc_poker": _limit_leduc,
    "rhode_island_holdem": _rhode_island,
    "universal_poker": _universal_poker,
}


def describe(game: pyspiel.Game | str) -> OrderedGame:
    """The ordered-signals description of a supported game (see DESCRIPTIONS).

    Raises:
      ValueError: the game is not two-player zero-sum, or has no description here.
    """
    game = loading.load(game)
    loading.check_two_player_zero_sum(game)
    name = game.get_type().short_name
    if name not in DESCRIPTIONS:
        raise ValueError(
            f"game {game} has no ordered-signals description (GameShrink needs one: "
            f"observable actions, a deck dealt without replacement, payoffs by a common hand "
            f"ordering); described games: {', '.join(sorted(DESCRIPTIONS))}"
        )
    return DESCRIPTIONS[name](game)
