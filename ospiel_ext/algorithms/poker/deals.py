"""The public card deals of a poker game, round by round, optionally up to suit isomorphism.

A round's *boards* are the public card types dealt so far; the public tree keeps one vector
over the T private card types (hands) per board (Johanson, Bowling, Waugh & Zinkevich,
"Accelerating Best Response Calculation in Large Extensive Games", IJCAI 2011, Section 3).
With m_B(t) the copies of type t the board B leaves in the deck, the chance probability of
private types (h0, h1) and board B is coef_B m_B(h0) (m_B(h1) - [h0 = h1]) (`public_tree`).

Suit isomorphism. Permuting the suits of every card maps a deal to one with the same
showdown results, so the game below two boards in one suit orbit is the same game up to
relabelling the hands. `deals(..., suits=True)` keeps one *canonical* board per orbit of the
boards that extend a canonical board of the round before (the orbit under the permutations
that fix that board card by card): the smallest card of each orbit, dealt by the permutation
pi that takes the dealt card to it. Walking down, a canonical child gets its parent's vectors
as they are (the dealt card is its own representative); walking up, the parent sums, over
every card c the deck can deal, its canonical child's values at the hands pi_c(h):

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

import numpy as np

from ospiel_ext.algorithms.poker.structure import PokerStructure, falling
from ospiel_ext.arrays import FloatArray, IntArray


@dataclasses.dataclass(frozen=True, eq=False)
class RoundDeals:
    """The boards of one round and the deal that leads from the round before.

    Attributes:
      types: (n_B, cards so far) each board's card types.
      remaining: (n_B, T) m_B, copies of each type the board leaves in the deck.
      coef: (n_B,) coef_B: the chance weight of one actual board (module docstring).
      parent: (n_B,) the board of the round before that each board extends.
      deal_parent: (E,) per dealt card of the round before's boards, sorted: its parent board.
      deal_card: (E,) the card it deals, in the parent's frame.
      deal_child: (E,) the (canonical) board it deals.
      deal_perm: (E, T) pi_c: the hand relabelling into the child's frame (identity without
        suit isomorphism).
      deal_starts: (n_B of the round before,) offsets of each parent's entries (reduceat).
      hand_orbit: (n_B, T) the smallest hand in each hand's orbit under the permutations that
        fix the board card by card (the hand itself without suit isomorphism).
    """

    types: IntArray
    remaining: IntArray
    coef: FloatArray
    parent: IntArray
    deal_parent: IntArray
    deal_card: IntArray
    deal_child: IntArray
    deal_perm: IntArray
    deal_starts: IntArray
    hand_orbit: IntArray

    @property
    def num_boards(self) -> int:
        """n_B."""
        return len(self.types)


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
    k = sum(ps.public_cards)
    deals_ = np.array([rng.permutation(ps.num_types)[: 1 + k] for _ in range(samples)])
    base = ps.strength(deals_[:, 0], deals_[:, 1:])
    for perm in perms:
        moved = perm[deals_]
        if not np.array_equal(ps.strength(moved[:, 0], moved[:, 1:]), base):
            raise ValueError(
                f"game {ps.name}: the showdown is not symmetric in the suits (no suit isomorphism)"
            )


def deals(ps: PokerStructure, *, suits: bool = False) -> tuple[RoundDeals, ...]:
    """The boards of every round, one per suit orbit if `suits` (module docstring).

    Raises:
      ValueError: `suits` on a game whose showdown is not suit-symmetric.
    """
    t_count = ps.num_types
    perms = _card_perms(t_count, num_suits(ps) if suits else 1)
    if len(perms) > 1:
        check_suit_symmetry(ps, perms)
    identity = np.arange(t_count)
    boards: list[tuple[int, ...]] = [()]
    stabilisers: list[IntArray] = [np.arange(len(perms))]
    out = [
        _round(
            ps,
            boards,
            [0],
            ([], [], [], [], np.zeros(1, dtype=np.int64)),
            perms=perms,
            stabilisers=stabilisers,
        )
    ]
    for k in ps.public_cards[1:]:
        if not k:
            n = len(boards)
            entries = (list(range(n)), [-1] * n, list(range(n)), [identity] * n, np.arange(n))
            out.append(
                _round(ps, boards, list(range(n)), entries, perms=perms, stabilisers=stabilisers)
            )
            continue
        new_boards: list[tuple[int, ...]] = []
        new_stab: list[IntArray] = []
        index: dict[tuple[int, ...], int] = {}
        parents, e_parent, e_card, e_child, e_perm = [], [], [], [], []
        for b, board in enumerate(boards):
            left = ps.copies - np.bincount(np.asarray(board, dtype=np.int64), minlength=t_count)
            for c in np.flatnonzero(left > 0).tolist():
                images = perms[stabilisers[b], c]
                j = int(np.argmin(images))
                child = (*board, int(images[j]))
                if child not in index:
                    index[child] = len(new_boards)
                    new_boards.append(child)
                    parents.append(b)
                    stab = stabilisers[b]
                    new_stab.append(stab[perms[stab, images[j]] == images[j]])
                e_parent.append(b)
                e_card.append(c)
                e_child.append(index[child])
                e_perm.append(perms[stabilisers[b][j]])
        starts = np.searchsorted(np.asarray(e_parent), np.arange(len(boards)))
        entries = (e_parent, e_card, e_child, e_perm, starts)
        out.append(_round(ps, new_boards, parents, entries, perms=perms, stabilisers=new_stab))
        boards, stabilisers = new_boards, new_stab
    return tuple(out)


def _round(
    ps: PokerStructure,
    boards: list[tuple[int, ...]],
    parents: list[int],
    entries: tuple[list[int], list[int], list[int], list[IntArray], IntArray],
    *,
    perms: IntArray,
    stabilisers: list[IntArray],
) -> RoundDeals:
    t_count = ps.num_types
    types = np.array(boards, dtype=np.int64).reshape(len(boards), -1)
    counts = np.zeros((len(boards), t_count), dtype=np.int64)
    for j in range(types.shape[1]):
        np.add.at(counts, (np.arange(len(boards)), types[:, j]), 1)
    remaining = ps.copies[None, :] - counts
    # card-level ways to deal each board in order: the copies left of each type when dealt
    ways = np.ones(len(boards))
    for j in range(types.shape[1]):
        before = (types[:, :j] == types[:, j : j + 1]).sum(axis=1)
        ways *= ps.copies[types[:, j]] - before
    coef = ways / float(falling(ps.num_cards, 2 + types.shape[1]))
    e_parent, e_card, e_child, e_perm, starts = entries
    return RoundDeals(
        types=types,
        remaining=remaining,
        coef=coef,
        parent=np.asarray(parents, dtype=np.int64),
        deal_parent=np.asarray(e_parent, dtype=np.int64),
        deal_card=np.asarray(e_card, dtype=np.int64),
        deal_child=np.asarray(e_child, dtype=np.int64),
        deal_perm=np.asarray(e_perm, dtype=np.int64).reshape(len(e_child), t_count),
        deal_starts=np.asarray(starts, dtype=np.int64),
        hand_orbit=np.array([perms[stab].min(axis=0) for stab in stabilisers], dtype=np.int64),
    )


def canonical_of(
    canonical: tuple[RoundDeals, ...], actual: tuple[RoundDeals, ...]
) -> list[tuple[IntArray, IntArray]]:
    """Per round, each actual board's canonical board and card relabelling g (n_B, T).

    `actual` is `deals(ps)`, `canonical` is `deals(ps, suits=True)`: an actual information set
    (board B, hand h) is the canonical one (canonical board of B, g_B(h)); g composes the
    relabellings pi_c of the cards dealt (module docstring).
    """
    t_count = actual[0].remaining.shape[1]
    board, relabel = np.zeros(1, dtype=np.int64), np.arange(t_count)[None, :]
    out = [(board, relabel)]
    for r in range(1, len(actual)):
        canon, act = canonical[r], actual[r]
        board, relabel = board[act.parent], relabel[act.parent]
        if act.types.shape[1] > actual[r - 1].types.shape[1]:  # the round deals a card
            entry = np.full((len(canon.deal_starts), t_count), -1, dtype=np.int64)
            entry[canon.deal_parent, canon.deal_card] = np.arange(len(canon.deal_parent))
            e = entry[board, relabel[np.arange(len(board)), act.types[:, -1]]]
            board = canon.deal_child[e]
            relabel = np.take_along_axis(canon.deal_perm[e], relabel, axis=1)
        out.append((board, relabel))
    return out
