"""Depth-limited solving with multi-valued states.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games"
(NeurIPS), with the gadgets and priors of Kubíček, Lisý & Sandholm (2025), "Equilibrium
Refinements Improve Subgame Solving in Imperfect-Information Games", Section 8.1. One module
per step:

* `leaves`: the depth limit, the K continuation values of each leaf state (exact, or Monte
  Carlo rollouts with standard errors) and Section 4's weakening;
* `strategy_sets`: the opponent's continuation strategies - bias, self-generative, and every
  pure continuation (Proposition 1);
* `solving`: the depth-limited subgame as a gadget game of the subgame package, solved by
  CFR+, the LP or EGT, spliced into the blueprint;
* `bot`: a blueprint bot and the nested depth-limited solving bot (Section 5, Table 1);
* `matches`: head-to-head matches as sweep tasks (Table 1; GGSE Section 8.1's round robin);
* `from_states`: games too large to compile - the tree walked from pyspiel states down to
  the limit, rollout values under OpenSpiel policies, the solution as an OpenSpiel policy;
* `translation` and `off_tree`: an opponent action outside the action abstraction (Section
  6.1, Figure 2) - pseudo-harmonic action translation, against depth-limited solving of the
  subgame after it with leaf values transferred from the neighbouring in-abstraction actions.

    >>> import numpy as np
    >>> import ospiel_ext.games
    >>> from ospiel_ext import lp, sequence_form
    >>> from ospiel_ext.algorithms import depth_limited as dl, subgames as ss
    >>> sf = sequence_form.for_game("rps_plus")
    >>> blueprint = lp.solve(sf).behavioural
    >>> q = ss.BlueprintQuantities.compute(sf, blueprint)
    >>> limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    >>> pure = dl.pure_continuations(sf, limit, blueprint[1], player=1)
    >>> leaves = dl.exact_values(sf, limit, blueprint, player=0, strategies=pure)
    >>> leaves.num_values
    3
    >>> solution = dl.solve_depth_limited(q, dl.start_subgames(sf.tree), leaves, method="lp")
    >>> np.round(solution.behavioural[0][1:], 6).tolist()
    [0.4, 0.4, 0.2]
"""

from ospiel_ext.algorithms.depth_limited.compiled import off_tree, off_tree_solving
from ospiel_ext.algorithms.depth_limited.compiled.bot import NestedSolvingBot, ProfileBot
from ospiel_ext.algorithms.depth_limited.compiled.solving import (
    DepthLimitedSolution,
    solve_depth_limited,
    start_subgames,
)
from ospiel_ext.algorithms.depth_limited.compiled.strategy_sets import (
    best_response,
    bias,
    bias_strategies,
    check_set,
    continuation_leaves,
    default_classes,
    default_num_values,
    pure_continuations,
    self_generative,
)
from ospiel_ext.algorithms.depth_limited.leaves import (
    DepthLimit,
    MultiValuedLeaves,
    depth_limit,
    depth_limited_game,
    estimate_by_rollouts,
    exact_values,
    leaf_beliefs,
    parse_limit,
    weaken,
)
from ospiel_ext.algorithms.depth_limited.rollouts import RolloutEstimate, rollout_values
from ospiel_ext.algorithms.depth_limited.sampled.bot import LargeNestedSolvingBot
from ospiel_ext.algorithms.depth_limited.settings import SET_KINDS, NestedSettings, SetKind

__all__ = [
    "SET_KINDS",
    "DepthLimit",
    "DepthLimitedSolution",
    "LargeNestedSolvingBot",
    "MultiValuedLeaves",
    "NestedSettings",
    "NestedSolvingBot",
    "ProfileBot",
    "RolloutEstimate",
    "SetKind",
    "best_response",
    "bias",
    "bias_strategies",
    "check_set",
    "continuation_leaves",
    "default_classes",
    "default_num_values",
    "depth_limit",
    "depth_limited_game",
    "estimate_by_rollouts",
    "exact_values",
    "leaf_beliefs",
    "off_tree",
    "off_tree_solving",
    "parse_limit",
    "pure_continuations",
    "rollout_values",
    "self_generative",
    "solve_depth_limited",
    "start_subgames",
    "weaken",
]
