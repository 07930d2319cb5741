"""Many gadget games solved by one CFR+ run on their disjoint union.

Resolving every subgame of a cut, for both players and every blueprint of a sweep, means
hundreds of small independent CFR+ runs whose cost is numpy call overhead, not arithmetic. The
disjoint union of K gadget games is one game: a root chance node leads to every gadget with
weight 1 (`TreeBuilder.set_chance_prob`; the weights need not sum to one, and with weight 1
every block's values are exactly the gadget's), and gadget k's information sets are re-keyed
"<k>|<key>" so that no two gadgets share one (two gadgets of one subgame, for players 0 and 1,
hold the same keys). Its treeplexes and payoff are block-diagonal, so one vectorised CFR+
iteration advances every gadget at once, and each block's iterates are those of a separate run
(alternating updates and linear averaging act block by block) up to floating-point rounding:
sums run in another order, and regret matching+ can turn a difference of 1e-16 in a regret that
is 0 in exact arithmetic into a different iterate. The GGSE trembles (Kubíček, Lisý & Sandholm
2025, "Equilibrium Refinements Improve Subgame Solving in Imperfect-Information Games", Section
7.2, eq. 6) are the gadgets' own, re-keyed.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import arrays, evaluate
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.subgames import ggse
from ospiel_ext.algorithms.subgames.gadgets import GadgetGame
from ospiel_ext.arrays import IntArray
from ospiel_ext.constraints import BehaviouralLowerBounds
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder


def union_key(k: int, key: str) -> str:
    """The key of gadget k's information set `key` in the union."""
    return f"{k}|{key}"


@dataclasses.dataclass(frozen=True, eq=False)
class GadgetUnion:
    """The disjoint union of gadget games (module docstring).

    Attributes:
      gadgets: the gadgets, in the order of the union's root chance outcomes.
      tree: the union's tree.
      sf: its sequence form.
      sequences: per gadget and player, the union's sequence of each of the gadget's
        sequences (entry 0, the empty sequence, maps to the union's empty sequence).
    """

    gadgets: tuple[GadgetGame, ...]
    tree: GameTree
    sf: TreeSequenceForm
    sequences: tuple[tuple[IntArray, IntArray], ...]


def _sequence_map(union_sf: TreeSequenceForm, gadget: GadgetGame, k: int, p: int) -> IntArray:
    gtp, tp = gadget.sf.treeplexes[p], union_sf.treeplexes[p]
    index = {key: n for n, key in enumerate(union_sf.infoset_keys(p))}
    local = np.array([index[union_key(k, key)] for key in gadget.sf.infoset_keys(p)], np.int64)
    out = np.zeros(gtp.num_sequences, dtype=np.int64)
    if len(local):
        ranks = arrays.segment_ranks(gtp.num_actions)
        out[1:] = np.repeat(tp.seq_start[local], gtp.num_actions) + ranks
    return out


def _rekey(k: int, keys: list[str]) -> Callable[[int], str]:
    return lambda j: union_key(k, keys[j])


def union(gadgets: Sequence[GadgetGame]) -> GadgetUnion:
    """The disjoint union of `gadgets` (module docstring)."""
    gadgets = tuple(gadgets)
    if not gadgets or not all(isinstance(g, GadgetGame) for g in gadgets):
        raise ValueError("union needs one or more GadgetGame objects")
    k_total = len(gadgets)
    builder = TreeBuilder(name=f"union of {k_total} gadget games", game=None, utility_sum=0.0)
    first = builder.expand_chance(builder.add_root(), range(k_total), [1 / k_total] * k_total)
    for k, g in enumerate(gadgets):
        builder.set_chance_prob(first + k, 1.0)  # weight 1: every block's values unscaled
        builder.copy_subtree(g.tree, 0, first + k, infoset_key=_rekey(k, g.tree.infoset_key))
    tree = builder.freeze()
    sf = TreeSequenceForm(tree)
    maps = tuple(
        (_sequence_map(sf, g, k, 0), _sequence_map(sf, g, k, 1)) for k, g in enumerate(gadgets)
    )
    return GadgetUnion(gadgets, tree, sf, maps)


def solve_cfr_batch(
    gadgets: Sequence[GadgetGame],
    priors: Sequence[Mapping[str, ArrayLike] | None],
    eps: float = ggse.DEFAULT_EPS,
    *,
    iterations: int = ggse.DEFAULT_ITERATIONS,
    config: cfr_variants.CFRConfig = cfr_variants.CFR_PLUS,
) -> tuple[ggse.GadgetSolution, ...]:
    """`ggse.solve_cfr` of every gadget (with its prior, or None) by one run on their union.

    The same solutions as separate runs up to floating-point rounding (module docstring).
    """
    if len(priors) != len(gadgets):
        raise ValueError(f"{len(gadgets)} gadgets but {len(priors)} priors")
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"iterations must be a positive int, got {iterations}")
    joint = union(gadgets)
    bounds: dict[str, NDArray[np.float64]] = {}
    for k, (g, prior) in enumerate(zip(joint.gadgets, priors)):
        checked = ggse.lower_bounds(g, prior, eps)
        if checked is not None:
            bounds.update({union_key(k, key): v for key, v in checked.per_infoset.items()})
    solver = cfr_variants.CFRVariantSolver(
        joint.sf, config, lower_bounds=BehaviouralLowerBounds(0.0, bounds) if bounds else None
    )
    result = solver_lib.run(solver, iterations)
    average = solver.average_behavioural()
    out = []
    for g, prior, maps in zip(joint.gadgets, priors, joint.sequences):
        b = (average[0][maps[0]], average[1][maps[1]])
        i = 0 if g.player is None else g.player
        out.append(
            ggse.GadgetSolution(
                gadget=g,
                behavioural=b,
                value=evaluate.guaranteed_value(g.sf, b[i], i),
                method="cfr",
                eps=eps if prior is not None else 0.0,
                prior=prior,
                iterations=result.iterations,
            )
        )
    return tuple(out)
