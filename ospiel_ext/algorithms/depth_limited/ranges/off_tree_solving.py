"""Depth-limited solving after an off-tree first action, on the hold'em range layout.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games", Section
6.1 and Figure 2, as `compiled.off_tree_solving.depth_limited_response` does on compiled games:
the responder i answers the bettor o's off-tree action at the start of the game
(`off_tree.OffTree`) by solving the rest of the first round below it
(`solving.DepthLimitedRangeSolver` with a `solving.Gadget`): leaves with K values transferred
from the abstraction ("the average of those two corresponding value vectors":
`off_tree.transferred_leaves`), a resolving or max-margin gadget whose alternatives are o's
counterfactual best-response values of its best in-abstraction first action against the
translated strategy (`in_abstraction_alternatives`: Section 5's goal that the off-tree action
pay o no more than an action already in the abstraction), and the translated strategy (RPAT,
`off_tree.rpat_strategy`) everywhere else, beyond the limit too. The paper solved the game
beyond the limit by safe subgame solving: `beyond_limit.resolve_below`.
"""

from __future__ import annotations

import numpy as np

from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.depth_limited.ranges.gadgets import GadgetKind
from ospiel_ext.algorithms.depth_limited.ranges.leaves import LeafValues
from ospiel_ext.algorithms.depth_limited.ranges.off_tree import (
    OffTree,
    rpat_strategy,
    transferred_leaves,
)
from ospiel_ext.algorithms.depth_limited.ranges.solving import (
    DepthLimitedRangeSolver,
    Gadget,
    first_decision,
)
from ospiel_ext.algorithms.poker.range_tree import Arrays
from ospiel_ext.algorithms.poker.range_walker import RangeWalker, mix
from ospiel_ext.arrays import FloatArray


def in_abstraction_alternatives(off: OffTree, strategy: Arrays) -> tuple[int, FloatArray]:
    """The off-tree action's column at o's first decision, and o's alternatives there.

    The alternatives (F,): per entry, o's counterfactual best-response value of its best
    in-abstraction action at the game's first decision against `strategy` (a profile of
    `off.game`; the responder's arrays matter).

    Raises:
      ValueError: the off-tree action is not o's first action of the game.
    """
    tree, o = off.game, 1 - off.player
    first = first_decision(tree)
    keys = [child.key for child in first.node.children]
    if first.node.player != o or len(off.roots) != 1 or off.roots[0] not in keys:
        raise ValueError(
            f"game {tree.name}: the off-tree action is not the bettor's first action of the game"
        )
    walker = RangeWalker(tree)
    walker.best_response(o, strategy)
    values = walker.upper_rows()[0]  # o's best-response values at the first round's nodes
    action = keys.index(off.roots[0])
    children = tree.rounds[0].groups[first.group].children[first.index]
    others = [values[children[a]] for a in range(len(keys)) if a != action]
    return action, np.max(others, axis=0)


def depth_limited_response(
    off: OffTree,
    blueprint: Arrays,
    abstract_leaves: LeafValues,
    *,
    iterations: int = 1000,
    gadget: GadgetKind = "resolving",
) -> Arrays:
    """The responder's strategy in `off.game` after the off-tree action, solved.

    The depth-limited solution (`iterations` of CFR+) in the first round below the off-tree
    action, RPAT elsewhere (module docstring); the bettor's arrays are RPAT's profile's (the
    lifted blueprint).

    `blueprint`: the abstraction's per-entry blueprint; `abstract_leaves`: K values at the
    end of the abstraction's first round for the responder (e.g. `solving.self_generative`);
    `gadget`: 'resolving' or 'max_margin' (`solving.Gadget`).
    Ctrl-C or SIGTERM ends the solve with its average so far (the run loop).
    """
    rpat = rpat_strategy(off, blueprint)
    action, alternatives = in_abstraction_alternatives(off, rpat)
    solver = DepthLimitedRangeSolver(
        RangeWalker(off.game),
        transferred_leaves(off, abstract_leaves),
        off.player,
        gadget=Gadget(action=action, alternatives=alternatives, fixed=rpat[0], kind=gadget),
    )
    solver_lib.run(solver, iterations)
    first, _ = solver.average_strategy()
    response = [first, *rpat[1:]]
    return mix(off.game, (response, rpat) if off.player == 0 else (rpat, response))
