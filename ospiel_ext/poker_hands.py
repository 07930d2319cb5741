"""Poker hand values, shared by our poker games and GameShrink's ordered-signals descriptions.

`hand_values`: vectorised values of the best five cards of each hand, in the standard order
(high card < pair < two pair < trips < straight < flush < full house < quads < straight flush),
which is the order of the ACPC server's `rankHand` that OpenSpiel's universal_poker uses at a
showdown, for decks of `num_ranks` <= 13 ranks (2, 3, ... upwards) and `num_suits` <= 4 suits.

Cards are ids rank * num_suits + suit (universal_poker's chance actions). Hands of fewer than
five cards are ranked by what they hold (no straights or flushes); ties between hands of one
category break on the ranks of the category and then the kickers, as in poker. The wheel
(A-2-3-4-5) is a straight only with all 13 ranks (it needs the ace).

`three_card_value`: the value of a three-card Rhode Island Hold'em hand.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ospiel_ext.arrays import IntArray

HIGH_CARD, PAIR, TWO_PAIR, TRIPS, STRAIGHT, FLUSH, FULL_HOUSE, QUADS, STRAIGHT_FLUSH = range(9)
_DIGITS = 5  # rank digits after the category, 4 bits each (rank + 1, 0 = none)


def _top(mask: NDArray[np.bool_], count: int) -> IntArray:
    """The `count` highest ranks where `mask` (rows: hands, columns: ranks), -1 padded."""
    ranks = np.where(mask, np.arange(mask.shape[1]), -1)
    top = -np.sort(-ranks, axis=1)[:, :count]
    if top.shape[1] < count:
        top = np.pad(top, ((0, 0), (0, count - top.shape[1])), constant_values=-1)
    return top


def _straight_top(mask: NDArray[np.bool_]) -> IntArray:
    """The top rank of the highest five consecutive ranks in `mask`, -1 if none."""
    num_ranks = mask.shape[1]
    best = np.full(len(mask), -1, dtype=np.int64)
    for hi in range(4, num_ranks):
        best = np.where(mask[:, hi - 4 : hi + 1].all(axis=1), hi, best)
    if num_ranks == 13:  # the wheel A-2-3-4-5 tops at the five
        wheel = mask[:, 12] & mask[:, :4].all(axis=1)
        best = np.where(wheel & (best < 0), 3, best)
    return best


def _key(category: int, digits: list[IntArray] | IntArray) -> IntArray:
    digits = np.column_stack(digits) if isinstance(digits, list) else digits
    key = np.full(len(digits), category, dtype=np.int64)
    for d in range(_DIGITS):
        col = digits[:, d] + 1 if d < digits.shape[1] else 0
        key = key * 16 + col
    return key


def _without(mask: NDArray[np.bool_], ranks: IntArray) -> NDArray[np.bool_]:
    """`mask` with each row's rank `ranks[row]` cleared (no-op where -1)."""
    cleared: NDArray[np.bool_] = mask & (np.arange(mask.shape[1])[None, :] != ranks[:, None])
    return cleared


def hand_values(cards: IntArray, num_ranks: int, num_suits: int) -> IntArray:
    """A comparable int64 value (larger is better) of each row of card ids (hands, cards)."""
    cards = np.asarray(cards, dtype=np.int64)
    rows = np.repeat(np.arange(len(cards)), cards.shape[1])
    rank, suit = (cards // num_suits).ravel(), (cards % num_suits).ravel()
    counts = np.zeros((len(cards), num_ranks), dtype=np.int64)
    np.add.at(counts, (rows, rank), 1)
    has = counts > 0
    none = np.full(len(cards), -1, dtype=np.int64)
    candidates = [_key(HIGH_CARD, _top(has, 5))]

    pairs = _top(counts >= 2, 2)
    p1, p2 = pairs[:, 0], pairs[:, 1]
    candidates.append(np.where(p1 >= 0, _key(PAIR, [p1, *_top(_without(has, p1), 3).T]), -1))
    kicker = _top(_without(_without(has, p1), p2), 1)[:, 0]
    candidates.append(np.where(p2 >= 0, _key(TWO_PAIR, [p1, p2, kicker]), -1))
    t1 = _top(counts >= 3, 1)[:, 0]
    candidates.append(np.where(t1 >= 0, _key(TRIPS, [t1, *_top(_without(has, t1), 2).T]), -1))
    straight = _straight_top(has)
    candidates.append(np.where(straight >= 0, _key(STRAIGHT, [straight]), -1))
    full = _top(_without(counts >= 2, t1), 1)[:, 0]
    candidates.append(np.where((t1 >= 0) & (full >= 0), _key(FULL_HOUSE, [t1, full]), -1))
    q = _top(counts >= 4, 1)[:, 0]
    candidates.append(np.where(q >= 0, _key(QUADS, [q, _top(_without(has, q), 1)[:, 0]]), -1))
    for s in range(num_suits):
        suited = np.zeros_like(has)
        hit = suit == s
        suited[rows[hit], rank[hit]] = True
        flush = suited.sum(axis=1) >= 5
        candidates.append(np.where(flush, _key(FLUSH, _top(suited, 5)), -1))
        top = np.where(flush, _straight_top(suited), none)
        candidates.append(np.where(top >= 0, _key(STRAIGHT_FLUSH, [top]), -1))
    best: IntArray = np.max(np.column_stack(candidates), axis=1)
    return best


def three_card_value(
    cards: tuple[int, int, int], num_suits: int, num_ranks: int, ace_low: bool
) -> tuple[int, ...]:
    """A comparable value of a three-card Rhode Island Hold'em hand (larger is better).

    (category, ranks...) with categories 5 straight flush, 4 three of a kind, 3 straight,
    2 flush, 1 pair, 0 high card (the rules: `ospiel_ext.games.rhode_island_holdem`; `ace_low`:
    Ace-two-three is a straight whose high card is the three).
    """
    ranks = sorted((c // num_suits for c in cards), reverse=True)
    flush = len({c % num_suits for c in cards}) == 1
    high = -1  # the straight's high card, -1 if none
    if ranks[0] - ranks[1] == 1 and ranks[1] - ranks[2] == 1:
        high = ranks[0]  # the higher reading when Ace-two-three also applies (3 ranks)
    elif ace_low and num_ranks >= 3 and ranks == [num_ranks - 1, 1, 0]:
        high = 1
    if high >= 0 and flush:
        return (5, high)
    if ranks[0] == ranks[2]:
        return (4, ranks[0])
    if high >= 0:
        return (3, high)
    if flush:
        return (2, *ranks)
    if ranks[0] == ranks[1] or ranks[1] == ranks[2]:
        pair, kicker = (ranks[1], ranks[2]) if ranks[0] == ranks[1] else (ranks[1], ranks[0])
        return (1, pair, kicker)
    return (0, *ranks)
