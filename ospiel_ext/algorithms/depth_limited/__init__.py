"""Depth-limited solving with multi-valued states.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games"
(NeurIPS): Section 4's multi-valued states, Section 5's nested solving, Section 6.1's off-tree
action; with the gadgets, priors and nested-solving experiments of Kubíček, Lisý & Sandholm
(2025), "Equilibrium Refinements Improve Subgame Solving in Imperfect-Information Games",
Section 8.1. A shared core, then three stacks: games compiled to a `GameTree`; games too large
to compile, which are walked from pyspiel states and valued by rollouts; and poker games laid
out as public tree x hand ranges (`poker.range_tree`), evaluated exactly. One module per step.

The core (the stacks use it):

* `leaves`: the depth limit, the K continuation values of each leaf state (exact, or Monte
  Carlo rollouts with standard errors), Section 4's weakening, and the depth-limited subgame
  as a gadget game of the subgame package (`depth_limited_game`);
* `rollouts`: Monte Carlo rollouts of pyspiel states under OpenSpiel policies (Section 4's
  "Monte Carlo simulations"), with standard errors;
* `settings`: `NestedSettings`, the one settings class of the nested bots of both stacks;
* `translation`: the pseudo-harmonic mapping of an off-tree bet and how actions after it are
  matched (`compiled.off_tree` and `ranges.off_tree`).

`compiled/`, games compiled to a `GameTree`:

* `compiled.strategy_sets`: the opponent's continuation strategies - bias, self-generative,
  and every pure continuation (Proposition 1);
* `compiled.solving`: the depth-limited subgames solved by CFR+, the LP or EGT and spliced
  into the blueprint (`solve_depth_limited`);
* `compiled.bot`: a blueprint bot and the nested depth-limited solving bot (Section 5,
  Table 1);
* `compiled.off_tree`: an opponent action outside the action abstraction (Section 6.1, Figure
  2), its in-abstraction counterparts and pseudo-harmonic action translation;
* `compiled.off_tree_solving`: depth-limited solving of the subgame after it, with leaf values
  transferred from the neighbouring in-abstraction actions, then safe subgame solving beyond
  the limit (`solve_off_tree`).

`sampled/`, games too large to compile:

* `sampled.from_states`: the tree walked from pyspiel states down to the limit, rollout values
  under OpenSpiel policies, the biased policies of Section 4, the solution as an OpenSpiel
  policy (`solve_from_states`);
* `sampled.public_belief`: the public state's histories and their reaches, followed along the
  actual history, sampled above a budget, compiled down to the depth limit;
* `sampled.continuation`: exact leaf values where the rest of the game is small enough to
  compile;
* `sampled.bot`: the nested solving bot of a game too large to compile (Section 8.1 of
  Kubíček et al.); its blueprint is any OpenSpiel policy, e.g. Monte Carlo CFR
  (`subgames.blueprints.mccfr_blueprint`).

`ranges/`, poker games on the range layout:

* `ranges.off_tree`: Section 6.1's off-tree action in no-limit hold'em under an action
  abstraction, its in-abstraction counterparts and pseudo-harmonic action translation,
  evaluated by the range walker.
* `ranges.leaves`, `ranges.solving`: Section 4's multi-valued states at the end of the first
  round (K continuations' values, linear in the opponent's reach) and the depth-limited first
  round solved with them by CFR+, no pass below the limit (`ranges.gadgets`: resolving and
  max-margin gadgets at subgame roots);
* `ranges.off_tree_solving`, `ranges.beyond_limit`: that solve after the off-tree action, then
  safe subgame solving of every flop subgame below it, with the values the depth-limited game
  promised the bettor as its alternatives.

On top of the first two stacks, `matches`: head-to-head matches of either stack's bots as sweep
tasks, in duplicate (Table 1; Kubíček et al.'s Section 8.1 round robin), and `match_report`: their
mean returns, confidence intervals, win rates and worst-matchup table (Figure 4).

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

from ospiel_ext.algorithms.depth_limited.compiled.bot import NestedSolvingBot, ProfileBot
from ospiel_ext.algorithms.depth_limited.compiled.off_tree import (
    OffTree,
    find_off_tree,
    rpat_profile,
)
from ospiel_ext.algorithms.depth_limited.compiled.off_tree_solving import solve_off_tree
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
from ospiel_ext.algorithms.depth_limited.sampled.from_states import (
    BiasedPolicy,
    DepthLimitedPolicy,
    solve_from_states,
)
from ospiel_ext.algorithms.depth_limited.settings import SET_KINDS, NestedSettings, SetKind

__all__ = [
    "SET_KINDS",
    "BiasedPolicy",
    "DepthLimit",
    "DepthLimitedPolicy",
    "DepthLimitedSolution",
    "LargeNestedSolvingBot",
    "MultiValuedLeaves",
    "NestedSettings",
    "NestedSolvingBot",
    "OffTree",
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
    "find_off_tree",
    "leaf_beliefs",
    "parse_limit",
    "pure_continuations",
    "rollout_values",
    "rpat_profile",
    "self_generative",
    "solve_depth_limited",
    "solve_from_states",
    "solve_off_tree",
    "start_subgames",
    "weaken",
]
