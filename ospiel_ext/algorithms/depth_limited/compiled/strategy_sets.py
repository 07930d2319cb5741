"""The opponent's continuation strategies at the depth limit.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4 (and Section 6.2 for the poker classes):

* `bias_strategies` - the bias approach: the opponent's blueprint, then the blueprint with the
  probability of one action class multiplied by 10 and renormalised, per class: fold /
  check-call / bet-raise for poker (recognised from OpenSpiel's action strings), one class per
  action id otherwise, or classes the caller gives.
* `self_generative` - the self-generative approach: start with the blueprint; solve the
  depth-limited subgame; add the opponent's best response to (the solution above the limit,
  the blueprint beyond); repeat until there are K strategies. Every round's values are
  weakened (`leaves.weaken`) so that no generated strategy does better than the blueprint
  against the blueprint at a leaf information set.
* `pure_continuations` - every pure continuation of every leaf information set: the set of
  Proposition 1, with which a solution of the depth-limited subgame is part of an equilibrium
  (small games; tests).

Strategies are behavioural arrays of the opponent on the full game's sequence form.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import pyspiel
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import arrays, policies
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited.compiled import solving
from ospiel_ext.algorithms.depth_limited.settings import DEFAULT_NUM_VALUES, SET_KINDS, SetKind
from ospiel_ext.algorithms.subgames import BlueprintQuantities, Subgame, ggse
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.runtime import interrupts
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.treeplex import Treeplex

BIAS_FACTOR = 10.0  # Section 4: "the probability of folding is multiplied by 10"
MAX_PURE_CONTINUATIONS = 4096

# Section 6.2's classes, matched against lower-cased OpenSpiel action strings.
POKER_CLASSES: dict[str, tuple[str, ...]] = {
    "fold": ("fold",),
    "check_call": ("check", "call", "pass"),
    "bet_raise": ("bet", "raise", "all"),
}
ActionClasses = Mapping[str, Callable[[str, int], bool]]


def _representative_states(
    sf: TreeSequenceForm, player: int
) -> Iterator[tuple[int, pyspiel.State]]:
    """(local infoset, one pyspiel state in it) for each of `player`'s information sets."""
    tree, tp = sf.tree, sf.treeplexes[player]
    nodes, offsets = tree.infoset_nodes
    for local, g in enumerate(tp.infoset_ids.tolist()):
        yield local, tree.state(int(nodes[offsets[g]]))


def sequence_labels(sf: TreeSequenceForm, player: int) -> tuple[list[str], IntArray]:
    """The action string and action id of each of `player`'s sequences (index 0: empty)."""
    tp = sf.treeplexes[player]
    strings = [""] * tp.num_sequences
    for local, state in _representative_states(sf, player):
        start = int(tp.seq_start[local])
        for k, a in enumerate(sf.tree.infoset_legal_actions[int(tp.infoset_ids[local])]):
            strings[start + k] = state.action_to_string(player, a)
    return strings, tp.seq_action


def _poker_class(action_string: str) -> str | None:
    low = action_string.lower()
    return next((c for c, words in POKER_CLASSES.items() if any(w in low for w in words)), None)


def _is_poker_class(name: str) -> Callable[[str, int], bool]:
    return lambda s, a: _poker_class(s) == name


def _is_action(action: int) -> Callable[[str, int], bool]:
    return lambda s, a: a == action


def default_classes(sf: TreeSequenceForm, player: int) -> ActionClasses:
    """The action classes of `player`'s bias set: poker's, else one per action id.

    Poker's fold / check-call / bet-raise when every action string of the player matches one
    of them, else one class per action id ('action <id>').
    """
    strings, ids = sequence_labels(sf, player)
    found = [_poker_class(s) for s in strings[1:]]
    if None not in found:
        return {c: _is_poker_class(c) for c in POKER_CLASSES if c in found}
    return {f"action {a}": _is_action(a) for a in sorted(set(ids[1:].tolist()))}


def bias(
    sf: TreeSequenceForm,
    strategy: ArrayLike,
    player: int,
    *,
    mask: ArrayLike,
    factor: float = BIAS_FACTOR,
) -> FloatArray:
    """`strategy` with the probabilities of the masked sequences multiplied by `factor`.

    The result is renormalised at every information set.
    """
    tp = sf.treeplexes[player]
    b = np.asarray(strategy, dtype=np.float64).copy()
    b[1:] *= np.where(np.asarray(mask)[1:], factor, 1.0)
    total = tp.spread(tp.segment_sum(b))[1:]
    b[1:] = np.divide(b[1:], total, out=tp.uniform[1:].copy(), where=total > 0)
    return b


@functools.lru_cache(maxsize=8)
def _default_masks(sf: TreeSequenceForm, player: int) -> tuple[tuple[str, NDArray[np.bool_]], ...]:
    """`default_classes` as sequence masks, computed once per compiled game and player.

    The action strings come from replayed pyspiel states; a nested bot asks at every solve.
    """
    return _masks(sf, player, default_classes(sf, player))


def _masks(
    sf: TreeSequenceForm, player: int, classes: ActionClasses
) -> tuple[tuple[str, NDArray[np.bool_]], ...]:
    strings, ids = sequence_labels(sf, player)
    return tuple(
        (name, np.array([False] + [member(s, int(a)) for s, a in zip(strings[1:], ids[1:])]))
        for name, member in classes.items()
    )


def bias_strategies(
    sf: TreeSequenceForm,
    blueprint: policies.Behavioural,
    player: int,
    *,
    classes: ActionClasses | None = None,
    factor: float = BIAS_FACTOR,
) -> tuple[list[FloatArray], list[str]]:
    """The bias approach for opponent `player`: its blueprint, then its biased copies.

    One biased copy per action class (`default_classes` if none given). Returns (strategies,
    labels).
    """
    if not factor > 0:
        raise ValueError(f"{sf.name}: the bias factor must be positive, got {factor}")
    masks = _default_masks(sf, player) if classes is None else _masks(sf, player, classes)
    base = np.asarray(blueprint[player], dtype=np.float64)
    out, labels = [base], ["blueprint"]
    for name, mask in masks:
        out.append(bias(sf, base, player, mask=mask, factor=factor))
        labels.append(f"bias {name}")
    return out, labels


def pure_continuations(
    sf: TreeSequenceForm,
    limit: leaves_lib.DepthLimit,
    base: ArrayLike,
    *,
    player: int,
    max_strategies: int = MAX_PURE_CONTINUATIONS,
) -> list[FloatArray]:
    """Every reduced pure continuation of `player` below each of its leaf information sets.

    The set of Proposition 1. Strategy n plays, below every leaf information set I, I's n-th
    pure continuation (its first when I has fewer, a duplicate value that changes nothing),
    and `base` elsewhere.
    """
    tp = sf.treeplexes[player]
    owner = _leaf_set_above(sf, limit, player)
    children: dict[int, list[int]] = {}
    tops: dict[int, list[int]] = {}
    for local in np.flatnonzero(owner >= 0).tolist():
        parent = int(tp.parent_seq[local])
        children.setdefault(parent, []).append(local)
        if parent == 0 or owner[tp.seq_infoset[parent]] != owner[local]:
            tops.setdefault(int(owner[local]), []).append(local)
    per_set = [
        _pure_choices(tp, children, infs, max_strategies=max_strategies, name=sf.name)
        for infs in tops.values()
    ]
    k = max((len(p) for p in per_set), default=1)
    elsewhere = np.asarray(base, dtype=np.float64)
    strategies = []
    for n in range(k):
        infosets: list[int] = []
        actions: list[int] = []
        for pures in per_set:
            chosen = pures[n if n < len(pures) else 0]
            infosets.extend(chosen)
            actions.extend(chosen.values())
        b = elsewhere.copy()
        starts = tp.seq_start[infosets]  # the sets below different leaves are disjoint
        b[arrays.segment_indices(starts, tp.num_actions[infosets])] = 0.0
        b[starts + np.asarray(actions, dtype=np.int64)] = 1.0
        strategies.append(b)
    return strategies


def _leaf_set_above(sf: TreeSequenceForm, limit: leaves_lib.DepthLimit, player: int) -> IntArray:
    """For each of `player`'s information sets, the leaf information set above it, or -1.

    Leaf information sets are numbered in order of first appearance in `limit.keys[player]`.
    """
    tree, tp = sf.tree, sf.treeplexes[player]
    leaf_set = arrays.intern(limit.keys[player])
    below = tree.top_down(
        np.int64(-1),
        lambda nodes, up: np.where(limit.row[nodes] >= 0, leaf_set[limit.row[nodes]], up),
    )
    nodes, offsets = tree.infoset_nodes
    owner: IntArray = below[nodes[offsets[tp.infoset_ids]]]
    return owner


def _pure_choices(
    tp: Treeplex,
    children: Mapping[int, list[int]],
    infosets: list[int],
    *,
    max_strategies: int,
    name: str,
) -> list[dict[int, int]]:
    """Every reduced pure choice {local information set: action} at `infosets` and below.

    `children` maps a sequence to the information sets it leads to (below a leaf information
    set); ValueError, naming game `name`, past `max_strategies` choices.
    """
    choices = []
    for inf in infosets:
        options = []
        for k in range(int(tp.num_actions[inf])):
            seq = int(tp.seq_start[inf]) + k
            below = children.get(seq, [])
            for rest in _pure_choices(
                tp, children, below, max_strategies=max_strategies, name=name
            ):
                options.append({inf: k, **rest})
        choices.append(options)
    out = []
    for combo in itertools.product(*choices):
        merged: dict[int, int] = {}
        for c in combo:
            merged.update(c)
        out.append(merged)
        if len(out) > max_strategies:
            raise ValueError(
                f"{name}: more than {max_strategies} pure continuations below a leaf "
                "information set"
            )
    return out


def best_response(
    sf: TreeSequenceForm, behavioural: policies.Behavioural, player: int
) -> FloatArray:
    """`player`'s best response (behavioural) to the other player's strategy in `sf`."""
    other = 1 - player
    x = sf.treeplexes[other].realization_plan(np.asarray(behavioural[other], dtype=np.float64))
    _, br = sf.treeplexes[player].best_response(sf.sequence_values(player, x))
    return br


def self_generative(
    q: BlueprintQuantities,
    subgames: Sequence[Subgame],
    limit: leaves_lib.DepthLimit,
    *,
    player: int,
    num_values: int,
    gadget: GadgetKind = "unsafe",
    method: ggse.Method = "cfr",
    iterations: int = ggse.DEFAULT_ITERATIONS,
    weaken: bool = True,
    lp_vertex: str = "simplex",
) -> leaves_lib.MultiValuedLeaves:
    """The self-generative approach (module docstring) for solving `player`.

    K = `num_values` continuation values at the depth limit, weakened unless `weaken` is
    False (`lp_vertex`: `solving.solve_depth_limited`'s).
    """
    if num_values < 1:
        raise ValueError(f"{q.sf.name}: num_values must be >= 1, got {num_values}")
    sf, opponent = q.sf, 1 - player
    beliefs = leaves_lib.leaf_beliefs(sf, limit, q.blueprint, player)
    strategies = [np.asarray(q.blueprint[opponent], dtype=np.float64)]
    labels = ["blueprint"]

    def values() -> leaves_lib.MultiValuedLeaves:
        leaves = leaves_lib.exact_values(
            sf, limit, q.blueprint, player=player, strategies=strategies, labels=labels
        )
        return leaves_lib.weaken(leaves, beliefs) if weaken else leaves

    while len(strategies) < num_values and not interrupts.requested():  # Ctrl-C: the set so far
        solution = solving.solve_depth_limited(
            q,
            subgames,
            values(),
            gadget=gadget,
            prior="none",
            method=method,
            iterations=iterations,
            lp_vertex=lp_vertex,
        )
        strategies.append(best_response(sf, solution.behavioural, opponent))
        labels.append(f"best response {len(strategies) - 1}")
    return values()


def check_set(
    sf: TreeSequenceForm, kind: str, num_values: int, opponent: int | None = None
) -> None:
    """ValueError unless `kind` is a set kind and `num_values` a K it can give.

    For 'bias', K is checked against `opponent`'s action classes when given.
    """
    if kind not in SET_KINDS:
        raise ValueError(f"{sf.name}: unknown strategy set {kind!r}; sets: {SET_KINDS}")
    if isinstance(num_values, bool) or not isinstance(num_values, int) or num_values < 1:
        raise ValueError(f"{sf.name}: the number of values K must be an int >= 1, got {num_values}")
    if kind == "blueprint" and num_values != 1:
        raise ValueError(f"{sf.name}: the 'blueprint' set is the single-valued K = 1")
    if kind == "bias" and opponent is not None:
        classes = [name for name, _ in _default_masks(sf, opponent)]
        if num_values > 1 + len(classes):
            raise ValueError(
                f"{sf.name}: the bias set of player {opponent} has {1 + len(classes)} "
                f"strategies (the blueprint and {', '.join(classes)}), K = {num_values} asked"
            )


def default_num_values(sf: TreeSequenceForm, kind: str) -> int:
    """The K to use when none is asked.

    `DEFAULT_NUM_VALUES`, or fewer where the set has fewer strategies for either player (the
    bias set of Kuhn poker has 3: the blueprint, fold and call), 1 for the 'blueprint' set
    (and for 'pure', whose K is its own count).
    """
    if kind in ("blueprint", "pure"):
        return 1
    if kind == "bias":
        sizes = [1 + len(_default_masks(sf, p)) for p in (0, 1)]
        return min(DEFAULT_NUM_VALUES, *sizes)
    return DEFAULT_NUM_VALUES


def continuation_leaves(
    q: BlueprintQuantities,
    subgames: Sequence[Subgame],
    limit: leaves_lib.DepthLimit,
    *,
    player: int,
    kind: SetKind,
    num_values: int,
    gadget: GadgetKind = "unsafe",
    method: ggse.Method = "cfr",
    iterations: int = ggse.DEFAULT_ITERATIONS,
) -> leaves_lib.MultiValuedLeaves:
    """K = `num_values` continuation values of the opponent of `player` from the set `kind`.

    `kind` is 'bias' (the blueprint and the first K - 1 biased copies), 'self_generative',
    'blueprint' (K = 1, the naive single-valued leaves) or 'pure' (every pure continuation;
    K is the largest count, `num_values` is ignored).
    """
    sf = q.sf
    check_set(sf, kind, num_values)
    opponent = 1 - player
    if kind == "self_generative":
        return self_generative(
            q,
            subgames,
            limit,
            player=player,
            num_values=num_values,
            gadget=gadget,
            method=method,
            iterations=iterations,
        )
    if kind == "pure":
        strategies = pure_continuations(sf, limit, q.blueprint[opponent], player=opponent)
        labels = [f"pure {n}" for n in range(len(strategies))]
    else:
        strategies, labels = bias_strategies(sf, q.blueprint, opponent)
        if num_values > len(strategies):
            raise ValueError(
                f"{sf.name}: the bias set has {len(strategies)} strategies ({labels}), "
                f"K = {num_values} asked"
            )
        strategies, labels = strategies[:num_values], labels[:num_values]
    return leaves_lib.exact_values(
        sf, limit, q.blueprint, player=player, strategies=strategies, labels=labels
    )
