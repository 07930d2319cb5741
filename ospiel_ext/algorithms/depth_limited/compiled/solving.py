"""Depth-limited solving of a compiled game: the subgames' depth-limited games, solved and spliced.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games":

* Section 4: a depth-limited subgame for player i is a `subgames.GadgetGame` whose copy of the
  game stops at the depth limit, where the opponent picks one of K continuation values
  (`leaves.depth_limited_game`, `leaves.MultiValuedLeaves`); `solve_depth_limited` solves one
  per subgame with the core solvers.
* Proposition 1 (safety): a subgame that does not start at the start of the game needs the
  opponent's root counterfactual best-response values; the resolving gadget of
  Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
  Imperfect-Information Games", Section 2.1, bounds them (`gadget='resolving'`, also
  'max_margin' with any GGSE prior of Section 5, their Section 8.1). 'unsafe' uses the
  blueprint's beliefs; at the start of the game (`start_subgames`) it is the game itself.

The solution replaces player i's blueprint inside the depth-limited region only: the
full-game strategy plays the depth-limited solution above the limit and the blueprint beyond
(`DepthLimitedSolution.behavioural`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from ospiel_ext import policies
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.leaves import MultiValuedLeaves, depth_limited_game
from ospiel_ext.algorithms.subgames import ggse, priors
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.runtime import interrupts
from ospiel_ext.tree import GameTree


def start_subgames(tree: GameTree) -> tuple[ss.Subgame, ...]:
    """The public states at the start of the game (one for most games).

    Depth-limited solving "rooted at the start of the game" (Section 4) solves these.
    """
    return ss.subgames(tree, ss.Cut.after_moves(0))


@dataclasses.dataclass(frozen=True, eq=False)
class DepthLimitedSolution:
    """A solved depth-limited subgame.

    Attributes:
      leaves: the multi-valued leaves it was built with.
      solutions: the solved depth-limited (gadget) games, one per subgame.
      behavioural: the full-game profile: the blueprint with player i's strategy replaced
        by the solution inside the depth-limited region.
    """

    leaves: MultiValuedLeaves
    solutions: tuple[ggse.GadgetSolution, ...]
    behavioural: policies.Behavioural

    @property
    def player(self) -> int:
        """The solving player i (the leaves' player)."""
        return self.leaves.player


def solve_depth_limited(
    q: ss.BlueprintQuantities,
    subgames: Sequence[ss.Subgame],
    leaves: MultiValuedLeaves,
    *,
    gadget: GadgetKind = "unsafe",
    prior: priors.PriorKind = "none",
    method: ggse.Method = "cfr",
    iterations: int = ggse.DEFAULT_ITERATIONS,
    eps: float | None = None,
    lp_vertex: str = "simplex",
) -> DepthLimitedSolution:
    """Solves each subgame's depth-limited game and splices the solutions into the blueprint.

    Each depth-limited game is solved for `leaves.player` (CFR+, the LP or EGT, GGSE with a
    prior). Ctrl-C, SIGTERM or an enclosing `interrupts.deadline` stops it (the solve under
    way keeps its result so far, the subgames not begun keep the blueprint). `lp_vertex`
    (`ggse.LP_VERTICES`) picks the LP's optimal solution where it has many: a depth-limited
    game usually does.
    """
    solutions = []
    with interrupts.graceful():
        for sub in subgames:
            if interrupts.requested():
                break
            game = depth_limited_game(q, sub, leaves, gadget)
            try:
                solutions.append(
                    ggse.solve(
                        game,
                        priors.gadget_prior(game, prior),
                        method,
                        eps=eps,
                        iterations=iterations,
                        lp_vertex=lp_vertex,
                    )
                )
            except interrupts.Interrupted:  # an LP has no solution so far
                break
    behavioural = ss.splice(q.sf, q.blueprint, solutions)
    return DepthLimitedSolution(leaves, tuple(solutions), behavioural)
