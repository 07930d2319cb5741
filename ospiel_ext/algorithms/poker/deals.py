"""The public card deals of a poker game, round by round, optionally up to suit isomorphism.

A round's *boards* are the public card types dealt so far, each round's as a set; the public
tree keeps one vector over the private hands per board (Johanson, Bowling, Waugh & Zinkevich,
"Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011, Section 3): the
T card types for one-card hands, the C(T, k) sets of k cards otherwise (`hands.HandSpace`).
With m_B(t) the copies of type t the board B leaves in the deck, the chance probability of
one-card hands (h0, h1) and board B is coef_B m_B(h0) (m_B(h1) - [h0 = h1]) (`public_tree`);
for hands of several cards it is coef_B for disjoint hands and board, coef_B counting the
orders in which each hand and each round's set can be dealt.

Suit isomorphism. Permuting the suits of every card maps a deal to one with the same
showdown results, so the game below two boards in one suit orbit is the same game up to
relabelling the hands. `deals(..., suits=True)` keeps one *canonical* board per orbit of the
boards that extend a canonical board of the round before (the orbit under the permutations
that fix each of that board's rounds setwise): the lexicographically smallest image of the
dealt set, dealt by the permutation pi that takes the dealt set to it. Walking down, a
canonical child gets its parent's vectors as they are (the dealt set is its own
representative); walking up, the parent sums, over every set c of cards the deck can deal,
its canonical child's values at the hands pi_c(h):

    v_B(h) = sum_c v_canon(B + c)(pi_c(h)).

This is exact for suit-symmetric profiles (every player's strategy equal on suit-isomorphic
information sets). CFR keeps the uniform start symmetric, and the best responses to a
symmetric strategy are symmetric, so values and exploitability are the full game's. It
is the isomorphism that GameShrink's lossless abstraction finds among the game's other
merges (Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect
Information", ACM EC 2006, Section 5, Rhode Island Hold'em), found here directly from suits.
"""

from __future__ import annotations

import dataclasses
import itertools
import math

import numpy as np

from ospiel_ext.algorithms.poker.hands import HandSpace
from ospiel_ext.algorithms.poker.structure import PokerStructure, falling
from ospiel_ext.arrays import FloatArray, IntArray


@dataclasses.dataclass(frozen=True, eq=False)
class RoundDeals:
    """The boards of one round and the deal that leads from the round before.

    Attributes:
      types: (n_B, cards so far) each board's card types, each round's cards ascending (a
        round's board is a set).
      remaining: (n_B, T) copies of each type the board leaves in the deck.
      multiplicity: (n_B, H) m_B(h), the ways to hold each hand (`PokerStructure.hands`) with
        the board: the copies left of its type for one-card hands, 1 or 0 (a card on the
        board) for hands of several cards.
      coef: (n_B,) coef_B: the chance weight of one actual board (module docstring).
      parent: (n_B,) the board of the round before that each board extends.
      deal_parent: (E,) per set of cards the round deals to a board of the round before,
        sorted: its parent board.
      deal_cards: (E, d) the cards it deals (ascending, in the parent's frame; d = 0 for a
        round that deals none).
      deal_child: (E,) the (canonical) board it deals.
      deal_perm: (E, T) pi: the card relabelling into the child's frame (identity without suit
        isomorphism); `hand_perm` relabels hands.
      deal_starts: (n_B of the round before,) offsets of each parent's entries (reduceat).
      hand_orbit: (n_B, H) the smallest hand in each hand's orbit under the permutations that
        fix each round's cards of the board (the hand itself without suit isomorphism).
      hands: the hands (`PokerStructure.hands`).
    """

    types: IntArray
    remaining: IntArray
    multiplicity: IntArray
    coef: FloatArray
    parent: IntArray
    deal_parent: IntArray
    deal_cards: IntArray
    deal_child: IntArray
    deal_perm: IntArray
    deal_starts: IntArray
    hand_orbit: IntArray
    hands: HandSpace

    @property
    def num_boards(self) -> int:
        """n_B."""
        return len(self.types)

    def hand_perm(self, e: int) -> IntArray:
        """(H,) deal entry e's relabelling of hands (`deal_perm` acting on their cards)."""
        return self.hands.permute(self.deal_perm[e])


def num_suits(ps: PokerStructure) -> int:
    """The suits of a game that deals cards rank * suits + suit; 1 without suit symmetry.

    Leduc poker has two suits, Rhode Island Hold'em and universal_poker say how many; a
    game that deals types in several copies (limit Leduc) has no suits left to permute.
    """
    if int(ps.copies.max()) > 1:
        return 1
    params = ps.game.get_parameters()
    short = ps.game.get_type().short_name
    if short == "leduc_poker":
        return 2
    return int(params.get("num_suits", params.get("numSuits", 1)))


def _card_perms(num_types: int, suits: int) -> IntArray:
    """(S!, T) every suit permutation acting on card ids rank * suits + suit."""
    cards = np.arange(num_types)
    return np.array(
        [
            (cards // suits) * suits + np.asarray(pi)[cards % suits]
            for pi in itertools.permutations(range(suits))
        ],
        dtype=np.int64,
    ).reshape(-1, num_types)


def check_suit_symmetry(ps: PokerStructure, perms: IntArray, samples: int = 4096) -> None:
    """ValueError unless every permutation keeps the showdown strength of random deals."""
    rng = np.random.default_rng(0)
    k, hole = sum(ps.public_cards), ps.hole_cards
    deals_ = np.array([rng.permutation(ps.num_types)[: hole + k] for _ in range(samples)])
    base = ps.strength(deals_[:, :hole], deals_[:, hole:])
    for perm in perms:
        moved = perm[deals_]
        if not np.array_equal(ps.strength(moved[:, :hole], moved[:, hole:]), base):
            raise ValueError(
                f"game {ps.name}: the showdown is not symmetric in the suits (no suit isomorphism)"
            )


@dataclasses.dataclass
class _Deal:
    """The deal entries of one round as they are found (`deals`)."""

    parent: list[int] = dataclasses.field(default_factory=list)
    cards: list[tuple[int, ...]] = dataclasses.field(default_factory=list)
    child: list[int] = dataclasses.field(default_factory=list)
    perm: list[IntArray] = dataclasses.field(default_factory=list)


def deals(ps: PokerStructure, *, suits: bool = False) -> tuple[RoundDeals, ...]:
    """The boards of every round, one per suit orbit if `suits` (module docstring).

    A round that deals d cards extends each board of the round before by every set of d cards
    the deck still holds; with `suits`, by the canonical image of each set (the smallest,
    lexicographically, of its images under the permutations that fix the parent's rounds
    setwise), and the child keeps the permutations that also fix its new cards setwise.

    Raises:
      ValueError: `suits` on a game whose showdown is not suit-symmetric.
    """
    t_count = ps.num_types
    perms = _card_perms(t_count, num_suits(ps) if suits else 1)
    if len(perms) > 1:
        check_suit_symmetry(ps, perms)
    boards: list[tuple[int, ...]] = [()]
    stabilisers: list[IntArray] = [np.arange(len(perms))]
    first = np.zeros(1, dtype=np.int64)
    out = [
        _round(ps, boards, [0], found=_Deal(), starts=first, perms=perms, stabilisers=stabilisers)
    ]
    for d in ps.public_cards[1:]:
        new_boards: list[tuple[int, ...]] = []
        new_stab: list[IntArray] = []
        index: dict[tuple[int, ...], int] = {}
        parents: list[int] = []
        found = _Deal()
        for b, board in enumerate(boards):
            left = ps.copies - np.bincount(np.asarray(board, dtype=np.int64), minlength=t_count)
            sets = _dealable(left, d)
            stab = stabilisers[b]
            images = np.sort(perms[stab][:, sets], axis=2)  # (|stab|, sets, d)
            best = _lexicographic_argmin(images)  # per set, the first perm with the smallest
            for i, cards in enumerate(sets.tolist()):
                image = tuple(images[best[i], i].tolist())
                child = (*board, *image)
                if child not in index:
                    index[child] = len(new_boards)
                    new_boards.append(child)
                    parents.append(b)
                    fixed = np.sort(perms[stab][:, list(image)], axis=1) == np.array(image)
                    new_stab.append(stab[fixed.all(axis=1)])
                found.parent.append(b)
                found.cards.append(tuple(cards))
                found.child.append(index[child])
                found.perm.append(perms[stab[best[i]]])
        starts = np.searchsorted(np.asarray(found.parent), np.arange(len(boards)))
        out.append(
            _round(
                ps, new_boards, parents, found=found, starts=starts, perms=perms,
                stabilisers=new_stab,
            )
        )  # fmt: skip
        boards, stabilisers = new_boards, new_stab
    return tuple(out)


def _dealable(left: IntArray, d: int) -> IntArray:
    """(sets, d) the sets of d cards that `left` copies per type can deal, lexicographic.

    One-card deals take every type with a copy left; deals of several cards take distinct
    cards (`structure.detect` refuses copies there).
    """
    available = np.flatnonzero(left > 0)
    return np.array(list(itertools.combinations(available.tolist(), d)), dtype=np.int64).reshape(
        -1, d
    )


def _lexicographic_argmin(images: IntArray) -> IntArray:
    """Per column i of images (P, n, d), the first row p whose images[p, i] is smallest."""
    best = np.zeros(images.shape[1], dtype=np.int64)
    if not images.shape[2]:  # a round that deals no card: every image is the empty set
        return best
    rows = np.arange(images.shape[1])
    for p in range(1, images.shape[0]):
        diff = images[p] != images[best, rows]
        first = np.argmax(diff, axis=1)
        smaller = diff.any(axis=1) & (images[p, rows, first] < images[best, rows, first])
        best[smaller] = p
    return best


def _round(
    ps: PokerStructure,
    boards: list[tuple[int, ...]],
    parents: list[int],
    *,
    found: _Deal,
    starts: IntArray,
    perms: IntArray,
    stabilisers: list[IntArray],
) -> RoundDeals:
    t_count = ps.num_types
    types = np.array(boards, dtype=np.int64).reshape(len(boards), -1)
    counts = np.zeros((len(boards), t_count), dtype=np.int64)
    for j in range(types.shape[1]):
        np.add.at(counts, (np.arange(len(boards)), types[:, j]), 1)
    remaining = ps.copies[None, :] - counts
    hands = ps.hands
    if ps.hole_cards == 1:
        multiplicity = remaining
    else:
        multiplicity = (~hands.excluded_by(types)).astype(np.int64)
    # card-level ways to deal the hands and each board, each set in any order: the copies left
    # of each type as dealt, times k! per hand and d! per round's set of d cards
    ways = np.ones(len(boards))
    for j in range(types.shape[1]):
        before = (types[:, :j] == types[:, j : j + 1]).sum(axis=1)
        ways *= ps.copies[types[:, j]] - before
    orders = math.factorial(ps.hole_cards) ** 2
    for d in ps.public_cards[: _rounds_dealt(ps, types.shape[1])]:
        orders *= math.factorial(d)
    coef = orders * ways / float(falling(ps.num_cards, 2 * ps.hole_cards + types.shape[1]))
    hand_perms = np.stack([hands.permute(p) for p in perms])  # (P, H)
    d = len(found.cards[0]) if found.cards else 0
    return RoundDeals(
        types=types,
        remaining=remaining,
        multiplicity=multiplicity,
        coef=coef,
        parent=np.asarray(parents, dtype=np.int64),
        deal_parent=np.asarray(found.parent, dtype=np.int64),
        deal_cards=np.asarray(found.cards, dtype=np.int64).reshape(len(found.child), d),
        deal_child=np.asarray(found.child, dtype=np.int64),
        deal_perm=np.asarray(found.perm, dtype=np.int64).reshape(len(found.child), t_count),
        deal_starts=np.asarray(starts, dtype=np.int64),
        hand_orbit=np.array([hand_perms[stab].min(axis=0) for stab in stabilisers]),
        hands=hands,
    )


def _rounds_dealt(ps: PokerStructure, cards: int) -> int:
    """How many rounds' public cards make a board of `cards` cards."""
    total, rounds = 0, 0
    while total < cards:
        total += ps.public_cards[rounds]
        rounds += 1
    return rounds


def canonical_of(
    canonical: tuple[RoundDeals, ...], actual: tuple[RoundDeals, ...]
) -> list[tuple[IntArray, IntArray]]:
    """Per round, each actual board's canonical board and card relabelling g (n_B, T).

    `actual` is `deals(ps)`, `canonical` is `deals(ps, suits=True)`: an actual information set
    (board B, hand h) is the canonical one (canonical board of B, g_B(h)), g_B acting on the
    hand's cards (for one-card hands the relabelled card is the hand); g composes the
    relabellings pi of the cards dealt (module docstring).
    """
    t_count = actual[0].remaining.shape[1]
    board, relabel = np.zeros(1, dtype=np.int64), np.arange(t_count)[None, :]
    out = [(board, relabel)]
    for r in range(1, len(actual)):
        canon, act = canonical[r], actual[r]
        board, relabel = board[act.parent], relabel[act.parent]
        d = canon.deal_cards.shape[1]
        if d:  # the round deals cards: find each actual deal's canonical entry
            key = {
                (p, *cards): e
                for e, (p, cards) in enumerate(
                    zip(canon.deal_parent.tolist(), canon.deal_cards.tolist())
                )
            }
            dealt = np.sort(np.take_along_axis(relabel, act.types[:, -d:], axis=1), axis=1)
            e = np.array([key[(p, *c)] for p, c in zip(board.tolist(), dealt.tolist())])
            board = canon.deal_child[e]
            relabel = np.take_along_axis(canon.deal_perm[e], relabel, axis=1)
        else:
            board = canon.deal_child[canon.deal_starts[board]]
        out.append((board, relabel))
    return out
