"""Hands of several cards (`poker.hands`): inclusion-exclusion and sorted showdowns against
brute force over every pair of hands."""

import itertools

import numpy as np
import pytest

from ospiel_ext.algorithms.poker import hands

CASES = [(6, 1, 1), (8, 2, 2), (9, 2, 3), (9, 3, 1), (7, 2, 0)]  # deck, hand size, board size


def _brute(space, board, rho, strength=None):
    """Per board and hand: sum over disjoint o of rho(o), or of sign(s(h) - s(o)) rho(o)."""
    sets = [set(c) for c in space.cards.tolist()]
    out = np.zeros_like(rho)
    for b, cards in enumerate(board.tolist()):
        for h, own in enumerate(sets):
            if own & set(cards):
                continue
            for o, theirs in enumerate(sets):
                if own & theirs or theirs & set(cards):
                    continue
                sign = 1.0 if strength is None else np.sign(strength[b, h] - strength[b, o])
                out[:, b, h] += sign * rho[:, b, o]
    return out


def _setup(deck, k, m, seed=0):
    rng = np.random.default_rng(seed)
    space = hands.HandSpace.of(deck, k)
    boards = np.array([sorted(c) for c in itertools.combinations(range(deck), m)])[:5]
    excluded = space.excluded_by(boards) if m else np.zeros((1, space.num_hands), dtype=bool)
    if not m:
        boards = np.zeros((1, 0), dtype=np.int64)
    rho = rng.random((3, len(boards), space.num_hands)) * ~excluded[None]
    strength = rng.integers(0, 4, size=(len(boards), space.num_hands))  # many ties
    return space, boards, excluded, rho, strength


def test_hands_are_in_colex_order_and_permute_as_card_sets():
    space = hands.HandSpace.of(6, 2)
    assert space.num_hands == 15
    assert np.array_equal(space.index(space.cards), np.arange(15))
    assert np.array_equal(space.index(space.cards[:, ::-1]), np.arange(15))  # any card order
    perm = np.array([1, 0, 3, 2, 5, 4])
    moved = space.permute(perm)
    for h, (a, b) in enumerate(space.cards.tolist()):
        assert set(space.cards[moved[h]].tolist()) == {perm[a], perm[b]}


@pytest.mark.parametrize("deck, k, m", CASES)
def test_families_list_every_hand_containing_a_subset(deck, k, m):
    space = hands.HandSpace.of(deck, k)
    for j in range(k):
        subsets = {
            c: i
            for i, c in enumerate(
                sorted(itertools.combinations(range(deck), j), key=lambda c: c[::-1])
            )
        }  # colex
        for subset, s in subsets.items():
            expected = [
                h for h, cards in enumerate(space.cards.tolist()) if set(subset) <= set(cards)
            ]
            assert space.members[j][s].tolist() == expected
        for h, cards in enumerate(space.cards.tolist()):
            own = sorted(subsets[c] for c in itertools.combinations(cards, j))
            assert sorted(space.subsets[j][h].tolist()) == own
            for s, slot in zip(space.subsets[j][h], space.slots[j][h]):
                assert space.members[j][s, slot] == h


@pytest.mark.parametrize("deck, k, m", CASES)
def test_disjoint_sums_are_the_card_removal_sums(deck, k, m):
    space, boards, excluded, rho, _ = _setup(deck, k, m)
    sums = np.where(excluded[None], 0.0, hands.disjoint_sums(space, rho))
    np.testing.assert_allclose(sums, _brute(space, boards, rho), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("block_entries", [None, 1], ids=["whole", "board_by_board"])
@pytest.mark.parametrize("deck, k, m", CASES)
def test_sorted_showdowns_are_the_kernel_sums(deck, k, m, block_entries, monkeypatch):
    """Also with the sorts done one board at a time (`Showdowns` builds blocks of boards)."""
    if block_entries is not None:
        monkeypatch.setattr(hands, "_BLOCK_ENTRIES", block_entries)
    space, boards, excluded, rho, strength = _setup(deck, k, m, seed=1)
    net = hands.Showdowns(space, strength, excluded).net(rho)
    expected = _brute(space, boards, rho, strength)
    np.testing.assert_allclose(np.where(excluded[None], 0.0, net), expected, rtol=1e-12, atol=1e-12)


def test_float32_sums_stay_float32():
    space, _, excluded, rho, strength = _setup(8, 2, 2)
    rho32 = rho.astype(np.float32)
    assert hands.disjoint_sums(space, rho32).dtype == np.float32
    assert hands.Showdowns(space, strength, excluded).net(rho32).dtype == np.float32
