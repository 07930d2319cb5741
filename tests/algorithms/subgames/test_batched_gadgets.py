"""Gadgets built with one batched subtree copy (`TreeBuilder.copy_subtrees`) equal the gadgets
built with one `copy_subtree` per history (`gadgets.BATCHED_COPIES = False`): the same arrays
where the layout is the same (unsafe and max-margin without depth-limit leaves), else the same
tree node for node up to numbering, the same root copies and the same LP value."""

import numpy as np
import pytest

from ospiel_ext import lp, policies, sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms.subgames import blueprints, gadgets
from ospiel_ext.algorithms.subgames.cuts import Cut, subgames


def _goofspiel(n):
    return (
        f"turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards={n},"
        "points_order=descending))"
    )


CASES = [
    ("kuhn_poker", Cut.after_moves(1), Cut.after_moves(2)),
    ("leduc_poker", Cut.after_public_chance(), None),
    (_goofspiel(4), Cut.after_moves(2), Cut.after_moves(4)),
    (_goofspiel(5), Cut.after_moves(2), None),
    ("liars_dice(numdice=1,dice_sides=3)", Cut.after_moves(3), Cut.after_moves(4)),
]
KINDS = ("resolving", "max_margin", "unsafe")


IDS = ["kuhn", "leduc", "gs4", "gs5", "ld13"]
WITH_LIMIT = [(c, i) for c, i in zip(CASES, IDS) if c[2] is not None]


@pytest.fixture(scope="module", params=CASES, ids=IDS)
def case(request):
    return _case(*request.param)


@pytest.fixture(scope="module", params=[c for c, _ in WITH_LIMIT], ids=[i for _, i in WITH_LIMIT])
def limited_case(request):
    return _case(*request.param)


def _case(game, cut, limit_cut):
    """The sequence form, blueprint quantities, the largest 3 subgames and the limit's leaves."""
    sf = sequence_form.for_game(game)
    blueprint = blueprints.load_blueprint(sf, policies.random_policy(sf.tree.game, 5))
    q = blueprints.BlueprintQuantities.compute(sf, blueprint)
    subs = subgames(sf.tree, cut)
    # the largest subgames (most roots) first: the most copies
    subs = sorted(subs, key=lambda s: -s.num_roots)[:3]
    leaves = None
    if limit_cut is not None:
        limit = dl.depth_limit(sf.tree, limit_cut)
        strategies, _ = dl.bias_strategies(sf, blueprint, 0)
        leaves = dl.exact_values(sf, limit, blueprint, player=1, strategies=strategies)
    return sf, q, subs, leaves


def _build(monkeypatch, kind, q, sub, *, leaves, batched):
    monkeypatch.setattr(gadgets, "BATCHED_COPIES", batched)
    player = 1 if leaves is not None or kind != "unsafe" else None
    return gadgets.gadget_game(kind, q, sub, player=player, leaves=leaves)


def _arrays(tree):
    names = ("parent", "action", "depth", "player", "infoset", "chance_prob")
    names += ("child_start", "num_children", "lo", "hi", "infoset_player")
    out = {name: getattr(tree, name) for name in names}
    out["infoset_key"] = np.array(tree.infoset_key)
    out["infoset_legal_actions"] = np.array(tree.infoset_legal_actions, dtype=object)
    return out


def _preorder(tree):
    """Node ids in depth-first preorder (children in order), and every node's signature."""
    order, stack = [], [0]
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(tree.children(node)))
    signatures = []
    for node in order:
        i = int(tree.infoset[node])
        signatures.append(
            (
                int(tree.depth[node]),
                int(tree.action[node]) if node else None,
                float(tree.chance_prob[node]),
                int(tree.player[node]),
                (tree.infoset_key[i], tree.infoset_legal_actions[i]) if i >= 0 else None,
                int(tree.num_children[node]),
                float(tree.lo[node]),
                float(tree.hi[node]),
            )
        )
    position = np.empty(tree.num_nodes, dtype=np.int64)
    position[order] = np.arange(len(order))
    return position, signatures


@pytest.mark.parametrize("kind", KINDS)
def test_the_batched_gadget_is_the_per_history_gadget(case, kind, monkeypatch):
    _, q, subs, _ = case
    _check_equal(monkeypatch, kind, q, subs, None)


@pytest.mark.parametrize("kind", KINDS)
def test_the_batched_depth_limited_gadget_is_the_per_history_one(limited_case, kind, monkeypatch):
    _, q, subs, leaves = limited_case
    _check_equal(monkeypatch, kind, q, subs, leaves)


def _check_equal(monkeypatch, kind, q, subs, leaves):
    """Both constructions of every subgame's gadget: equal arrays or the same tree."""
    compared = 0
    for sub in subs:
        if leaves is not None and np.any(leaves.row[sub.roots] >= 0):
            continue
        compared += 1
        old = _build(monkeypatch, kind, q, sub, leaves=leaves, batched=False)
        new = _build(monkeypatch, kind, q, sub, leaves=leaves, batched=True)
        assert new.tree.num_nodes == old.tree.num_nodes
        np.testing.assert_array_equal(new.roots, old.roots)
        assert (new.aux_keys, new.leaf_keys, new.scale) == (old.aux_keys, old.leaf_keys, old.scale)
        if leaves is None and kind != "resolving":
            # the same layout: the same arrays
            old_arrays, new_arrays = _arrays(old.tree), _arrays(new.tree)
            for name, values in old_arrays.items():
                np.testing.assert_array_equal(new_arrays[name], values, err_msg=name)
        # the same tree node for node (ids aside), the same root copies
        old_position, old_signature = _preorder(old.tree)
        new_position, new_signature = _preorder(new.tree)
        assert new_signature == old_signature
        np.testing.assert_array_equal(new_position[new.root_copy], old_position[old.root_copy])
        assert sorted(new.tree.infoset_key) == sorted(old.tree.infoset_key)
        if new.tree.num_nodes < 20_000:
            assert lp.solve(new.sf).value == pytest.approx(lp.solve(old.sf).value, abs=1e-12)
    assert compared, "no subgame of the case was compared"
