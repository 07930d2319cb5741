"""Games with ordered signals (Gilpin & Sandholm 2006, Definition 1), read off pyspiel.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Definition 1.

An `OrderedGame` describes a two-player poker-like game the way GameShrink needs it:

* signals: a deck of `num_cards` cards drawn uniformly without replacement;
* `groups`: the cards revealed in each round, as (round, owner, size) with owner -1 for public
  signals (κ_j of the paper) and 0 / 1 for a player's private signals (γ_j); both players get
  the same number of private cards per round;
* the stage games G^j (betting): read from the pyspiel game itself by `betting_tree`, which
  replays one representative deal per showdown result ("legal actions are independent of the
  signals" and "actions are observed by all players" are checked on the way);
* the utility u^j: a terminal's payoff depends on the signals only through `outcome(deals)`,
  player 0's showdown result (+1 win, 0 tie, -1 loss), which must come from a common ordering
  of the players' hands (antisymmetric under swapping the private cards).

`describe(game)` returns the description of kuhn_poker, leduc_poker, universal_poker (ACPC
game definitions, ranked by `poker_hands`) and our limit_leduc_poker and rhode_island_holdem,
and refuses anything else with the reason. A deal is a row of card ids, one column per card,
groups in order, cards of a group ascending (a group is a set).
"""  # noqa: RUF002 (the paper's kappa_j and gamma_j)

from __future__ import annotations

import dataclasses
import functools
import itertools
import math
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray

from ospiel_ext import loading, poker_hands
from ospiel_ext.arrays import IntArray

PUBLIC = -1
CHANCE = int(pyspiel.PlayerId.CHANCE)


@dataclasses.dataclass(frozen=True)
class Group:
    """`size` cards revealed in `round` to `owner` (PUBLIC, 0 or 1)."""

    round: int
    owner: int
    size: int = 1


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class OrderedGame:
    """A two-player game with ordered signals; see the module docstring.

    Attributes:
      game: the pyspiel game described.
      num_cards: the deck.
      groups: the signals of each round, in the order of the deal columns.
      chance_actions: (deal row, round) -> the pyspiel chance actions revealing that round's
        signals, in the game's order.
      deal_from_chance: the chance actions of a history -> the deal columns known so far
        (-1 where not yet dealt); for games that hide suits, any one deal consistent with them.
      outcome: deals (N, num_slots) -> player 0's showdown result in {-1, 0, 1}, vectorised.
    """

    game: pyspiel.Game
    num_cards: int
    groups: tuple[Group, ...]
    chance_actions: Callable[[Sequence[int], int], list[int]]
    deal_from_chance: Callable[[Sequence[int]], list[int]]
    outcome: Callable[[IntArray], NDArray[np.int8]]

    @property
    def name(self) -> str:
        """The pyspiel game as a string."""
        return str(self.game)

    @property
    def num_rounds(self) -> int:
        """The number of rounds (one more than the last round of a group)."""
        return 1 + max(g.round for g in self.groups)

    @functools.cached_property
    def slots(self) -> tuple[tuple[int, int], ...]:
        """(first column, size) of each group in a deal row."""
        starts = np.cumsum([0] + [g.size for g in self.groups])
        return tuple((int(s), g.size) for s, g in zip(starts, self.groups))

    @property
    def num_slots(self) -> int:
        """The number of deal columns: every card revealed, over all groups."""
        return sum(g.size for g in self.groups)

    def view_columns(self, player: int, round_: int) -> tuple[list[int], list[int]]:
        """Deal columns of `player`'s own private cards and of the public cards, as (own, public).

        Those revealed by the end of round `round_`'s deal.
        """
        own: list[int] = []
        public: list[int] = []
        for i in self.view_groups(player, round_):
            start, size = self.slots[i]
            (public if self.groups[i].owner == PUBLIC else own).extend(range(start, start + size))
        return own, public

    def view_groups(self, player: int, round_: int) -> list[int]:
        """Indices of the groups player `player` has seen by the end of round `round_`'s deal.

        Its own and the public ones, in deal order (own private first within a round).
        """
        mine = [i for i, g in enumerate(self.groups) if g.round <= round_ and g.owner == player]
        public = [i for i, g in enumerate(self.groups) if g.round <= round_ and g.owner == PUBLIC]
        return sorted(mine + public, key=lambda i: (self.groups[i].round, self.groups[i].owner < 0))


def _check(condition: bool, game: pyspiel.Game | str, message: str) -> None:
    if not condition:
        raise ValueError(f"game {game} is not a game with ordered signals: {message}")


def validate(og: OrderedGame) -> None:
    """Checks the structural assumptions of Definition 1 on the description itself.

    Run by `signal_tree.SignalTree.build` on every description, ours or a user's.
    """
    game = og.name
    _check(og.num_slots <= og.num_cards, game, "more signals are revealed than the deck holds")
    for r in range(og.num_rounds):
        sizes = [sum(g.size for g in og.groups if g.round == r and g.owner == p) for p in (0, 1)]
        _check(
            sizes[0] == sizes[1],
            game,
            f"round {r} reveals {sizes[0]} private signals to player 0 but {sizes[1]} to "
            "player 1 (the paper requires the same number)",
        )


# ---------------------------------------------------------------------------------------------
# Stage games (betting), read from the pyspiel game with representative deals.


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
    og: OrderedGame, deals: NDArray[np.integer], labels: NDArray[np.int8]
) -> BettingNode:
    """The stage games G^1..G^r joined into one tree, walked once per showdown label.

    The walk follows one representative deal per showdown label (Definition 1: legal actions
    and the round structure must not depend on the signals; every action must be observed by
    the other player).
    """
    reps = {int(lab): deals[int(np.flatnonzero(labels == lab)[0])] for lab in np.unique(labels)}
    states = _deal_round(og, reps, {lab: og.game.new_initial_state() for lab in reps}, 0)
    root = BettingNode(key="", round=0)
    stack = [(root, states)]
    while stack:
        node, sts = stack.pop()
        first = next(iter(sts.values()))
        if first.is_terminal():
            _check(all(s.is_terminal() for s in sts.values()), og.name, "deals end differently")
            node.utility = {lab: float(s.returns()[0]) for lab, s in sts.items()}
        elif first.current_player() == CHANCE:
            stack.append(_next_round(og, node, sts, reps))
        else:
            stack.extend(_decision_children(og, node, sts))
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
    _check(
        all(s.current_player() == CHANCE for s in states.values()),
        og.name,
        f"chance moves at betting {node.key!r} depend on the deal",
    )
    _check(node.round + 1 < og.num_rounds, og.name, "more chance rounds than described")
    nxt = _deal_round(og, reps, {lab: s.clone() for lab, s in states.items()}, node.round + 1)
    node.next_round = True
    child = BettingNode(key=node.key + "|", round=node.round + 1)
    node.children.append(child)
    return child, nxt


def _decision_children(
    og: OrderedGame, node: BettingNode, states: _States
) -> list[tuple[BettingNode, _States]]:
    """The children of the decision `node` with their states, in action order.

    Sets the node's player and actions, and checks that they do not depend on the signals and
    that the opponent observes every action.
    """
    first = next(iter(states.values()))
    player = first.current_player()
    actions = tuple(first.legal_actions())
    for s in states.values():
        _check(
            s.current_player() == player and tuple(s.legal_actions()) == actions,
            og.name,
            f"legal actions at betting {node.key!r} depend on the signals",
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
    _check(
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
            _check(tuple(s.legal_actions()) == node.actions, og.name, "legal actions differ")
            k = int(rng.integers(len(node.actions)))
            s.apply_action(node.actions[k])
            node = node.children[k]
        _check(
            node.utility is not None and abs(node.utility[label] - s.returns()[0]) < 1e-9,
            og.name,
            f"the payoff at betting {node.key!r} of deal {deal.tolist()} is {s.returns()[0]}, "
            "not a function of the showdown result",
        )


# ---------------------------------------------------------------------------------------------
# Descriptions of the supported games.


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


@dataclasses.dataclass(frozen=True)
class RankOutcome:
    """outcome(deals) = sign(strength(hand 0) - strength(hand 1)), hands given by deal columns.

    Each player's hand is given by its deal columns: both players rank hands by one ordering,
    by construction (Definition 1's common ordering, which `signal_tree.SignalTree.build`
    otherwise checks deal by deal).
    """

    strength: Callable[[IntArray], NDArray[np.integer]]
    hands: tuple[list[int], list[int]]

    def __call__(self, deals: IntArray) -> NDArray[np.int8]:
        """Player 0's showdown result of each deal, in {-1, 0, 1}."""
        s0, s1 = (self.strength(deals[:, cols]) for cols in self.hands)
        result: NDArray[np.int8] = np.sign(s0 - s1).astype(np.int8)
        return result


def _kuhn(game: pyspiel.Game) -> OrderedGame:
    n = game.get_parameters().get("players", 2)
    _check(n == 2, game, "kuhn_poker must have two players")
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
    _check(not params.get("suit_isomorphism", False), game, "suit_isomorphism must be false")
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


@functools.cache
def _binomials(n: int, k: int) -> IntArray:
    """table[c, i] = C(c, i + 1) for c < n, i < k (exact in int64 for n <= 64)."""
    return np.array([[math.comb(c, i + 1) for i in range(k)] for c in range(n)], dtype=np.int64)


def colex_index(subsets: IntArray) -> IntArray:
    """Index of each ascending row (c_1 < ... < c_k) in the colexicographic order of k-subsets.

    The index is sum_i C(c_i, i) (Gilpin & Sandholm 2006, Section 5.2), a bijection onto
    [0, C(n, k)).
    """
    subsets = np.asarray(subsets)
    k = subsets.shape[1]
    if not subsets.size:
        return np.zeros(len(subsets), dtype=np.int64)
    if k == 1:  # C(c, 1) = c: the index of one card is the card
        return subsets[:, 0].astype(np.int64)
    table = _binomials(max(64, int(subsets.max()) + 1), k)
    index: IntArray = sum(table[subsets[:, i], i] for i in range(k))
    return index


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
        _check(not p.get(fixed), game, f"{fixed} fixes part of the deal; the deal must be random")
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
