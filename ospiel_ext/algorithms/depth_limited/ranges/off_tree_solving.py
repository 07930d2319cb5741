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

import dataclasses

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


@dataclasses.dataclass(frozen=True, eq=False)
class Translated:
    """RPAT's profile of `off.game` and the in-abstraction alternatives against it.

    What every depth-limited solve after the off-tree action starts from, whatever its K or
    gadget: `strategy` (`off_tree.rpat_strategy`), and the off-tree action's column with o's
    alternatives there (`in_abstraction_alternatives`, a best-response pass of `off.game`).
    """

    strategy: Arrays
    action: int
    alternatives: FloatArray

    @classmethod
    def of(cls, off: OffTree, blueprint: Arrays, rpat: Arrays | None = None) -> Translated:
        """From the abstraction's per-entry blueprint (`rpat`: its RPAT profile, if known)."""
        strategy = rpat_strategy(off, blueprint) if rpat is None else rpat
        return cls(strategy, *in_abstraction_alternatives(off, strategy))


def depth_limited_response(
    off: OffTree,
    blueprint: Arrays,
    abstract_leaves: LeafValues,
    *,
    iterations: int = 1000,
    gadget: GadgetKind = "resolving",
    translated: Translated | None = None,
) -> Arrays:
    """The responder's strategy in `off.game` after the off-tree action, solved.

    The depth-limited solution (`iterations` of CFR+) in the first round below the off-tree
    action, RPAT elsewhere (module docstring); the bettor's arrays are RPAT's profile's (the
    lifted blueprint).

    `blueprint`: the abstraction's per-entry blueprint; `abstract_leaves`: K values at the
    end of the abstraction's first round for the responder (e.g. `solving.self_generative`),
    transferred to the leaves after the off-tree action (`off_tree.transferred_leaves`);
    `gadget`: 'resolving' or 'max_margin' (`solving.Gadget`); `translated`:
    `Translated.of(off, blueprint)`, computed once for several solves (here if None).
    Ctrl-C or SIGTERM ends the solve with its average so far (the run loop).
    """
    start = Translated.of(off, blueprint) if translated is None else translated
    return solved_after(
        off,
        transferred_leaves(off, abstract_leaves),
        iterations=iterations,
        gadget=gadget,
        translated=start,
    )


def solved_after(
    off: OffTree,
    leaves: LeafValues,
    *,
    iterations: int,
    gadget: GadgetKind,
    translated: Translated,
) -> Arrays:
    """`depth_limited_response` with K values at the end of `off.game`'s own first round.

    `leaves`: e.g. the transferred ones, or values made in `off.game` itself (which measures
    what the transfer costs).
    """
    rpat = translated.strategy
    solver = DepthLimitedRangeSolver(
        RangeWalker(off.game),
        leaves,
        off.player,
        gadget=Gadget(
            action=translated.action,
            alternatives=translated.alternatives,
            fixed=rpat[0],
            kind=gadget,
        ),
    )
    solver_lib.run(solver, iterations)
    first, _ = solver.average_strategy()
    response = [first, *rpat[1:]]
    return mix(off.game, (response, rpat) if off.player == 0 else (rpat, response))
