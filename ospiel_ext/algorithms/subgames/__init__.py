"""Safe subgame solving with gadget games and gadget game sequential equilibria (GGSE).

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games". The steps, one module each:

* `cuts`: where the trunk ends, the roots, public states as common-knowledge closures
  (Section 2.1);
* `blueprints`: blueprints (CFR checkpoints, Dirichlet, policy files; Monte Carlo CFR for games
  too large to compile) and the quantities of each subgame under them: reaches,
  counterfactual best-response values (Sections 2, 4, 8);
* `gadgets`: resolving, max-margin and unsafe gadget games (Section 2.1, Figure 1, App. A);
  `reach_margin`: the reach max-margin targets (Brown & Sandholm 2017; ours, see there);
* `priors`: none / uniform / blueprint priors of the auxiliary information sets (Section 5);
* `ggse`: GGSE (Definition 2) by CFR+ with basis matrices (Section 7.2), the perturbed LP
  (Section 7.1) or EGT; plain Nash without a prior;
* `batch`: many gadgets solved by one CFR+ run on their disjoint union;
* `combine`: splicing solutions into the blueprint, Theorem 1, safety, the optimal
  continuation (Definition 3).

    >>> import ospiel_ext.games
    >>> from ospiel_ext import sequence_form
    >>> from ospiel_ext.algorithms import subgames as ss
    >>> sf = sequence_form.for_game("forfeit_matching_pennies")
    >>> blueprint = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    >>> q = ss.BlueprintQuantities.compute(sf, blueprint)
    >>> (sub,) = ss.subgames(sf.tree, ss.Cut.after_moves(1))
    >>> gadget = ss.resolving_gadget(q, sub, player=0)
    >>> solution = ss.solve_lp(gadget, ss.gadget_prior(gadget, "uniform"))
    >>> round(solution.value, 6), solution.optimal_at_zero
    (0.0, True)
"""

from ospiel_ext.algorithms.subgames.batch import GadgetUnion, solve_cfr_batch, union
from ospiel_ext.algorithms.subgames.blueprints import (
    BlueprintQuantities,
    MCCFRPolicy,
    RootValues,
    cfr_checkpoints,
    dirichlet_blueprints,
    load_blueprint,
    mccfr_blueprint,
)
from ospiel_ext.algorithms.subgames.combine import (
    OptimalContinuation,
    Resolution,
    RootImprovements,
    SafetyReport,
    optimal_continuation,
    resolve,
    restrict,
    root_improvements,
    safety_report,
    splice,
)
from ospiel_ext.algorithms.subgames.cuts import (
    Cut,
    RootSet,
    Subgame,
    find_roots,
    public_states,
    subgames,
)
from ospiel_ext.algorithms.subgames.gadgets import (
    GadgetGame,
    gadget_game,
    max_margin_gadget,
    resolving_gadget,
    unsafe_subgame,
)
from ospiel_ext.algorithms.subgames.ggse import (
    GadgetSolution,
    solve,
    solve_cfr,
    solve_egt,
    solve_lp,
)
from ospiel_ext.algorithms.subgames.priors import gadget_prior
from ospiel_ext.algorithms.subgames.reach_margin import reach_gifts

__all__ = [
    "BlueprintQuantities",
    "Cut",
    "GadgetGame",
    "GadgetSolution",
    "GadgetUnion",
    "MCCFRPolicy",
    "OptimalContinuation",
    "Resolution",
    "RootImprovements",
    "RootSet",
    "RootValues",
    "SafetyReport",
    "Subgame",
    "cfr_checkpoints",
    "dirichlet_blueprints",
    "find_roots",
    "gadget_game",
    "gadget_prior",
    "load_blueprint",
    "max_margin_gadget",
    "mccfr_blueprint",
    "optimal_continuation",
    "public_states",
    "reach_gifts",
    "resolve",
    "resolving_gadget",
    "restrict",
    "root_improvements",
    "safety_report",
    "solve",
    "solve_cfr",
    "solve_cfr_batch",
    "solve_egt",
    "solve_lp",
    "splice",
    "subgames",
    "union",
    "unsafe_subgame",
]
