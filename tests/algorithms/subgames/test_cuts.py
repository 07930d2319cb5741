"""Cuts and public states against the sizes of Kubíček, Lisý & Sandholm (2025), "Equilibrium
Refinements Improve Subgame Solving in Imperfect-Information Games", Section 8 / App. C games,
and against a brute-force union-find over pyspiel information state strings."""

import numpy as np
import pytest

from ospiel_ext import sequence_form
from ospiel_ext.algorithms.subgames.cuts import (
    Cut,
    cut_nodes,
    find_roots,
    public_states,
    subgames,
)

LEDUC = "leduc_poker"
LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"
GOOFSPIEL_5 = (
    "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=5,"
    "points_order=descending))"
)


def _tree(game):
    return sequence_form.for_game(game).tree


def test_leduc_after_the_flop_has_30_public_states_of_20_roots():
    tree = _tree(LEDUC)
    found = subgames(tree, Cut.after_public_chance())
    assert [s.num_roots for s in found] == [20] * 30
    for s in found:
        # every root of a public state shares the betting and the public card: history
        # = (private card 0, private card 1, bets ..., public card)
        tails = {tuple(tree.state(int(r)).history()[2:]) for r in s.roots}
        assert len(tails) == 1
        assert s.stats()["root_infosets_0"] == s.stats()["root_infosets_1"] == 5
    # the flop is Leduc's third chance event
    again = subgames(tree, Cut.after_chance_events(3))
    assert [s.roots.tolist() for s in again] == [s.roots.tolist() for s in found]


def test_liars_dice_after_one_move_has_8_public_states_of_16_roots():
    found = subgames(_tree(LIARS_DICE), Cut.after_moves(1))
    assert [s.num_roots for s in found] == [16] * 8


def test_goofspiel_public_states_are_the_common_knowledge_closure():
    tree = _tree(GOOFSPIEL_5)
    after_one_round = subgames(tree, Cut.after_moves(2))
    assert sorted(s.num_roots for s in after_one_round) == [1, 1, 1, 1, 1, 10, 10]
    after_two_rounds = subgames(tree, Cut.after_moves(4))
    sizes = [s.num_roots for s in after_two_rounds]
    assert (len(sizes), sum(sizes), min(sizes), max(sizes)) == (44, 400, 1, 80)


def _brute_force_partition(tree, roots):
    """Union-find over pyspiel states: roots are joined when either player has the same
    information state string at them or at any decision state below them."""
    parent = list(range(len(roots)))

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    owner = {}
    for k, r in enumerate(roots):
        stack = [tree.state(int(r))]
        labels = [(p, stack[0].information_state_string(p)) for p in (0, 1)]
        while stack:
            state = stack.pop()
            if state.is_terminal():
                continue
            if state.is_chance_node():
                stack.extend(state.child(a) for a, _ in state.chance_outcomes())
                continue
            p = state.current_player()
            labels.append(("below", p, state.information_state_string(p)))
            stack.extend(state.child(a) for a in state.legal_actions())
        for label in labels:
            if label in owner:
                parent[find(k)] = find(owner[label])
            else:
                owner[label] = k
    groups = {}
    for k, r in enumerate(roots):
        groups.setdefault(find(k), set()).add(int(r))
    return {frozenset(g) for g in groups.values()}


@pytest.mark.parametrize(
    "game, cut",
    [
        ("kuhn_poker", Cut.after_moves(1)),
        ("kuhn_poker", Cut.after_moves(2)),
        (LEDUC, Cut.after_public_chance()),
        (LIARS_DICE, Cut.after_moves(2)),
    ],
)
def test_public_states_agree_with_a_brute_force_union_find(game, cut):
    tree = _tree(game)
    root_set = find_roots(tree, cut)
    ours = {frozenset(s.roots.tolist()) for s in public_states(root_set)}
    assert ours == _brute_force_partition(tree, root_set.roots)


def test_roots_skip_chance_and_leaves():
    tree = _tree("kuhn_poker")
    root_set = find_roots(tree, Cut.after_moves(0))  # the deal is replaced by the 6 deals
    assert root_set.num_roots == 6
    assert all(len(tree.state(int(r)).history()) == 2 for r in root_set.roots)
    # Kuhn after two moves: terminal histories (pass-pass, bet-call, bet-fold) are no roots
    assert find_roots(tree, Cut.after_moves(2)).num_roots == 6
    below = find_roots(tree, Cut.after_moves(2))
    assert np.all(below.root_of[below.roots] == np.arange(6))


def test_public_key_merges_subgames():
    tree = _tree("kuhn_poker")
    merged = subgames(tree, Cut.after_moves(1), public_key=lambda state: "all")
    assert [s.num_roots for s in merged] == [12]


def test_a_cut_through_an_information_set_is_refused():
    tree = _tree("kuhn_poker")
    # deal (J, Q) only: player 0's information set "holding J" keeps (J, K) in the trunk
    cut = Cut.where(lambda state: state.history() == [0, 1])
    with pytest.raises(ValueError, match=r"kuhn_poker.*splits information set"):
        find_roots(tree, cut)


def test_a_cut_that_selects_nothing_is_refused():
    with pytest.raises(ValueError, match=r"kuhn_poker.*selects no"):
        find_roots(_tree("kuhn_poker"), Cut.after_moves(10))
    with pytest.raises(ValueError, match="count"):
        Cut.after_moves(-1)
    with pytest.raises(ValueError, match="callable"):
        Cut.where("not a function")


def _first_chance_states_after_a_move(game):
    """Histories of the first chance states on each path with a player move above them, by a
    walk of pyspiel states."""
    found, stack = set(), [(game.new_initial_state(), False)]
    while stack:
        state, moved = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            if moved:
                found.add(tuple(state.history()))
                continue
            stack.extend((state.child(a), moved) for a, _ in state.chance_outcomes())
        else:
            stack.extend((state.child(a), True) for a in state.legal_actions())
    return found


def test_round_end_cut_stops_at_the_chance_node_before_the_public_card():
    """Cut.before_public_chance: its nodes are Leduc's flop chance nodes (5 first-round
    betting sequences that do not fold x 30 deals), found by a walk of pyspiel states; as
    subgame roots it selects the public-card cut's roots."""
    tree = _tree(LEDUC)
    cut = Cut.before_public_chance()
    nodes = cut_nodes(tree, cut)
    assert {tuple(tree.history(int(h))) for h in nodes} == _first_chance_states_after_a_move(
        tree.game
    )
    assert len(nodes) == 150
    assert cut.leaves_at_chance and not Cut.after_public_chance().leaves_at_chance
    after = find_roots(tree, Cut.after_public_chance())
    np.testing.assert_array_equal(find_roots(tree, cut).roots, after.roots)
    assert cut.describe() == "before_public_chance()"


def test_round_end_cut_selects_nothing_without_a_public_chance_node():
    with pytest.raises(ValueError, match="selects no"):
        find_roots(_tree(LIARS_DICE), Cut.before_public_chance())
