"""Putting resolved subgames back: splicing, Theorem 1, safety, optimal continuation.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games":

* Section 2.1: the combined strategy pi_bar_i <- pi_i^{G^{s0}} plays the subgame solution
  inside the subgame and the blueprint elsewhere (`splice`, `resolve`);
* Theorem 1: with Delta(s_o) = v_i^{(pi_i, BR)}(s_o) - v_i^{(pi_bar_i, BR_bar)}(s_o) the change
  of the counterfactual best-response value of every opponent root information set,
  u_i(pi_i, BR) - u_i(pi_bar_i, BR_bar) >= sum_{s_o} P_o^{BR}(s_o) W(s_o) Delta(s_o).
  The proof (eqs 16-20) sums sum_h P_i P_c u over h in s_o, i.e. the unnormalised
  counterfactual value W(s_o) v(s_o) with Section 2's normalised v; the statement's plain v
  mixes the two (the sign condition is the same). Summed over the disjoint subgames of a cut
  the bound still holds (`safety_report`);
* safety (Section 2.1): a safe gadget's solution never increases the exploitability
  E(pi_i) = u_o(pi_i, BR) - u_o^* of player i (Section 2);
* Definition 3, eq. 1: the optimal continuation strategy maximises player i's guaranteed value
  with the blueprint fixed at the information sets above the subgame (`optimal_continuation`,
  one sequence-form LP with x[s] >= pi_bar(s) x[parent(s)] on the fixed sequences, which
  forces equality since a fixed information set's bounds sum to one).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from typing import Literal

import numpy as np
from open_spiel.python import policy as policy_lib

from ospiel_ext import arrays, evaluate, lp, lp_model, policies
from ospiel_ext.algorithms.subgames import batch as batch_lib
from ospiel_ext.algorithms.subgames import ggse, priors
from ospiel_ext.algorithms.subgames.blueprints import BlueprintQuantities
from ospiel_ext.algorithms.subgames.cuts import Subgame
from ospiel_ext.algorithms.subgames.gadgets import GadgetGame, GadgetKind, gadget_game
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.constraints import sequence_lower_bounds
from ospiel_ext.runtime import interrupts, stops
from ospiel_ext.sequence_form import TreeSequenceForm

THEOREM_TOLERANCE = 1e-9


@functools.lru_cache(maxsize=16)
def _key_index(sf: TreeSequenceForm, player: int) -> dict[str, int]:
    return {k: n for n, k in enumerate(sf.infoset_keys(player))}


def _infoset_sequences(seq_start: IntArray, num_actions: IntArray) -> IntArray:
    """The sequences of the given information sets, concatenated in order."""
    if not len(num_actions):
        return np.zeros(0, dtype=np.int64)
    return arrays.segment_indices(seq_start, num_actions)


def _sequence_map(
    sf: TreeSequenceForm, gadget: GadgetGame, player: int
) -> tuple[IntArray, IntArray]:
    """The sequences of `player`'s non-auxiliary gadget information sets and of the full game.

    The same sequences in both, matched by information state key (same action order).
    """
    gtp, tp = gadget.sf.treeplexes[player], sf.treeplexes[player]
    local = np.flatnonzero(gadget.original_infosets(player))
    keys, index = gadget.sf.infoset_keys(player), _key_index(sf, player)
    full = np.array([index[keys[j]] for j in local.tolist()], dtype=np.int64)
    sizes = gtp.num_actions[local]
    return (
        _infoset_sequences(gtp.seq_start[local], sizes),
        _infoset_sequences(tp.seq_start[full], sizes),
    )


def splice(
    sf: TreeSequenceForm, blueprint: policies.Behavioural, solutions: Sequence[ggse.GadgetSolution]
) -> policies.Behavioural:
    """The blueprint with each solution's strategies at its gadget's information sets.

    The strategies at the gadget's non-auxiliary information sets (the solved player's, both
    players' for the unsafe subgame) replace the blueprint's; fresh arrays.
    """
    out = [np.array(blueprint[0], dtype=np.float64), np.array(blueprint[1], dtype=np.float64)]
    for sol in solutions:
        g = sol.gadget
        if g.subgame.tree is not sf.tree:
            raise ValueError(f"game {sf.name}: {g.sf.name} was not built from this game")
        for p in g.solved_players:
            gadget_seqs, full_seqs = _sequence_map(sf, g, p)
            out[p][full_seqs] = sol.behavioural[p][gadget_seqs]
    return out[0], out[1]


def restrict(
    sf: TreeSequenceForm, behavioural: policies.Behavioural, gadget: GadgetGame
) -> policies.Behavioural:
    """The inverse of `splice`: the gadget's strategies of a full-game profile.

    The profile's strategies at the gadget's non-auxiliary information sets (uniform at the
    auxiliary ones), e.g. to evaluate the blueprint inside a gadget.
    """
    if gadget.subgame.tree is not sf.tree:
        raise ValueError(f"game {sf.name}: {gadget.sf.name} was not built from this game")
    out = [tp.uniform.copy() for tp in gadget.sf.treeplexes]
    for p in (0, 1):
        gadget_seqs, full_seqs = _sequence_map(sf, gadget, p)
        out[p][gadget_seqs] = np.asarray(behavioural[p], dtype=np.float64)[full_seqs]
    return out[0], out[1]


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Resolution(stops.Stoppable):
    """Every subgame of a cut resolved with one technique.

    Attributes:
      sf: the full game.
      behavioural: the spliced profile.
      solutions: the solved gadgets.
      skipped: (subgame index, player) pairs left to the blueprint because the player (for
        the unsafe subgame: the profile) never reaches the subgame under it.
      stop_reason: 'solved' (every gadget), or 'interrupted' / 'time_limit' when Ctrl-C or
        a deadline (`ospiel_ext.runtime.interrupts`) stopped the resolving: the gadget being solved
        then keeps its solution so far (`GadgetSolution.iterations` says how far it got) and
        the gadgets not yet begun are left to the blueprint (absent from `solutions`).
    """

    sf: TreeSequenceForm
    behavioural: policies.Behavioural
    solutions: tuple[ggse.GadgetSolution, ...]
    skipped: tuple[tuple[int, int | None], ...]
    stop_reason: Literal["solved", "interrupted", "time_limit"] = "solved"

    def policy(self) -> policy_lib.TabularPolicy:
        """The spliced profile as a fresh TabularPolicy of the full game."""
        return policies.layout(self.sf).to_tabular(self.behavioural)


def resolve(
    q: BlueprintQuantities,
    subgames: Sequence[Subgame],
    kind: GadgetKind,
    *,
    prior: priors.PriorKind = "none",
    method: ggse.Method = "cfr",
    players: Sequence[int] = (0, 1),
    eps: float | None = None,
    iterations: int = ggse.DEFAULT_ITERATIONS,
    batch: bool = False,
    lp_vertex: str = "simplex",
) -> Resolution:
    """Solves the `kind` gadget of every subgame and splices the solutions into the blueprint.

    The gadget is solved for every player in `players` (once per subgame for the unsafe
    subgame, which solves both) and the solutions are spliced into the blueprint (`ggse.solve`;
    eps defaults to the method's; `lp_vertex` picks the LP's optimal solution,
    `ggse.solve_lp`'s `vertex`). `batch` (CFR only) solves all gadgets by one run on their
    union (`batch.solve_cfr_batch`), with the same result.

    Ctrl-C, SIGTERM or an enclosing `interrupts.deadline` stops it between gadgets and inside
    a solve (`Resolution.stop_reason`): the result so far is returned.
    """
    if batch and method != "cfr":
        raise ValueError(f"game {q.sf.name}: batch=True needs method 'cfr', got {method!r}")
    solutions: list[ggse.GadgetSolution] = []
    with interrupts.graceful():
        gadgets, gadget_priors, skipped = _gadgets(q, subgames, kind, prior=prior, players=players)
        if interrupts.requested():
            gadgets = []  # none solved: the blueprint everywhere
        if batch and gadgets:
            e = ggse.DEFAULT_EPS if eps is None else eps
            solutions.extend(
                batch_lib.solve_cfr_batch(gadgets, gadget_priors, e, iterations=iterations)
            )
        else:
            solutions = _solve_each(
                gadgets,
                gadget_priors,
                method,
                eps=eps,
                iterations=iterations,
                lp_vertex=lp_vertex,
            )
    b = splice(q.sf, q.blueprint, solutions)
    return Resolution(
        sf=q.sf,
        behavioural=b,
        solutions=tuple(solutions),
        skipped=tuple(skipped),
        stop_reason=interrupts.stop_reason() or "solved",
    )


def _gadgets(
    q: BlueprintQuantities,
    subgames: Sequence[Subgame],
    kind: GadgetKind,
    *,
    prior: priors.PriorKind,
    players: Sequence[int],
) -> tuple[list[GadgetGame], list[priors.Prior | None], list[tuple[int, int | None]]]:
    """The gadgets `resolve` solves, their priors, and the (subgame, player) pairs it skips.

    A pair is skipped when the player (for the unsafe subgame: the profile) never reaches the
    subgame. After Ctrl-C no further gadget is built (unreached pairs are still recorded).
    """
    gadgets: list[GadgetGame] = []
    gadget_priors: list[priors.Prior | None] = []
    skipped: list[tuple[int, int | None]] = []
    for sub in subgames:
        for i in [None] if kind == "unsafe" else list(players):
            rv = q.root_values(sub, 0 if i is None else i)
            reached = rv.reach.prod(axis=0) if i is None else rv.w
            if not np.any(reached > 0):
                skipped.append((sub.index, i))
                continue
            if interrupts.requested():
                break
            gadget = gadget_game(kind, q, sub, player=i)
            gadgets.append(gadget)
            gadget_priors.append(priors.gadget_prior(gadget, prior))
    return gadgets, gadget_priors, skipped


def _solve_each(
    gadgets: Sequence[GadgetGame],
    gadget_priors: Sequence[priors.Prior | None],
    method: ggse.Method,
    *,
    eps: float | None,
    iterations: int,
    lp_vertex: str,
) -> list[ggse.GadgetSolution]:
    """`ggse.solve` on each gadget in turn; stops before the next one on Ctrl-C.

    An LP interrupted inside has no solution so far: the gadgets solved before it are returned.
    """
    solutions: list[ggse.GadgetSolution] = []
    for gadget, pi in zip(gadgets, gadget_priors):
        if interrupts.requested():
            break
        try:
            solutions.append(
                ggse.solve(gadget, pi, method, eps=eps, iterations=iterations, lp_vertex=lp_vertex)
            )
        except interrupts.Interrupted:  # an LP has no solution so far
            break
    return solutions


@dataclasses.dataclass(frozen=True, kw_only=True)
class RootImprovements:
    """Delta(s_o) per opponent root information set of one subgame (player i's utility).

    Attributes:
      player: the resolving player i.
      keys: the opponent's root information sets.
      weight: W(s_o) (the same for both strategies: they agree above the cut).
      before, after: v_bar(s_o) of the blueprint and of the new strategy (player i's utility).
    """

    player: int
    keys: tuple[str, ...]
    weight: FloatArray
    before: FloatArray
    after: FloatArray

    @property
    def delta(self) -> FloatArray:
        """Delta(s_o) = after - before per opponent root information set."""
        return self.after - self.before


def root_improvements(
    before: BlueprintQuantities, after: BlueprintQuantities, subgame: Subgame, player: int
) -> RootImprovements:
    """Delta(s_o) of Theorem 1 between two profiles' quantities.

    E.g. between the blueprint and the spliced profile.
    """
    rv0, rv1 = before.root_values(subgame, player), after.root_values(subgame, player)
    if not np.allclose(rv0.weight, rv1.weight, atol=1e-12, rtol=1e-9):
        raise ValueError(
            f"game {before.sf.name}: player {player}'s strategies differ above subgame "
            f"{subgame.index} (the weights W(s_o) differ)"
        )
    return RootImprovements(
        player=player,
        keys=rv0.keys,
        weight=rv0.weight,
        before=rv0.sign * rv0.cfbr,
        after=rv1.sign * rv1.cfbr,
    )


@dataclasses.dataclass(frozen=True, kw_only=True)
class SafetyReport:
    """Safety of a resolved strategy of player i (module docstring).

    Attributes:
      player: i.
      min_delta: the smallest Delta(s_o) over all root information sets of all subgames.
      blueprint_exploitability: E(pi_bar_i).
      exploitability: E(pi_i).
      profile_exploitability: OpenSpiel's exploitability of the new profile.
      gain: u_i(pi_i, BR) - u_i(pi_bar_i, BR_bar) = E(pi_bar_i) - E(pi_i).
      theorem1_bound: sum over subgames and s_o of P_o^{BR}(s_o) W(s_o) Delta(s_o).
    """

    player: int
    min_delta: float
    blueprint_exploitability: float
    exploitability: float
    profile_exploitability: float
    gain: float
    theorem1_bound: float

    @property
    def safe(self) -> bool:
        """Whether E(pi_i) <= E(pi_bar_i) (up to `THEOREM_TOLERANCE`)."""
        return self.exploitability <= self.blueprint_exploitability + THEOREM_TOLERANCE

    @property
    def theorem1_holds(self) -> bool:
        """Whether the gain is at least Theorem 1's bound (up to `THEOREM_TOLERANCE`)."""
        return self.gain >= self.theorem1_bound - THEOREM_TOLERANCE


def safety_report(
    before: BlueprintQuantities,
    after: BlueprintQuantities,
    subgames: Sequence[Subgame],
    *,
    player: int,
    value0: float | None = None,
) -> SafetyReport:
    """Theorem 1 and the safety of player `player`'s new strategy against the blueprint.

    The new strategy is `after.blueprint`, the blueprint `before.blueprint`, over the given
    subgames of one cut.
    """
    sf = before.sf
    if after.sf is not sf:
        raise ValueError(f"game {sf.name}: the two profiles belong to different games")
    v0 = lp.game_value(sf) if value0 is None else value0
    o = 1 - player
    y_br = sf.treeplexes[o].realization_plan(after.best_responses[player])
    deltas, bound = [], 0.0
    for sub in subgames:
        imp = root_improvements(before, after, sub, player)
        rv = after.root_values(sub, player)
        first = arrays.first_index(rv.root_infoset, len(rv.keys))
        reach = y_br[sf.node_seq[o][rv.roots[first]]]
        bound += float(np.sum(reach * imp.weight * imp.delta))
        deltas.append(imp.delta[imp.weight > 0])
    e_before = evaluate.player_exploitability(sf, before.blueprint[player], player, v0)
    e_after = evaluate.player_exploitability(sf, after.blueprint[player], player, v0)
    profile = evaluate.evaluate_profile(sf, after.blueprint).exploitability
    all_deltas = np.concatenate(deltas) if deltas else np.zeros(0)
    min_delta = float(all_deltas.min()) if len(all_deltas) else 0.0
    return SafetyReport(
        player=player,
        min_delta=min_delta,
        blueprint_exploitability=e_before,
        exploitability=e_after,
        profile_exploitability=profile,
        gain=e_before - e_after,
        theorem1_bound=bound,
    )


@dataclasses.dataclass(frozen=True, kw_only=True)
class OptimalContinuation:
    """Definition 3's optimal continuation.

    Attributes:
      player: i.
      value: player i's guaranteed value in the full game with the fixed part (eq. 1).
      exploitability: E of that strategy (game value minus `value`).
      behavioural: the blueprint with player i's information sets in the subgames replaced by
        the LP's strategy.
      solution: the LP solution.
    """

    player: int
    value: float
    exploitability: float
    behavioural: policies.Behavioural
    solution: lp_model.LPSolution


def optimal_continuation(
    q: BlueprintQuantities,
    player: int,
    subgames: Sequence[Subgame],
    *,
    fixed: Literal["trunk", "ancestors"] = "trunk",
    value0: float | None = None,
) -> OptimalContinuation:
    """The optimal continuation in `subgames` (Definition 3, eq. 1) by one sequence-form LP.

    Args:
      q: the blueprint's quantities.
      player: i.
      subgames: subgames of one cut.
      fixed: 'trunk' fixes the blueprint at every information set of player i above the cut
        (all subgames of the cut are replaced at once); 'ancestors' fixes, per Definition 3
        literally, the information sets with a node above a root of `subgames`.
      value0: player 0's game value, if known.
    """
    sf = q.sf
    if player not in (0, 1):
        raise ValueError(f"game {sf.name}: player must be 0 or 1, got {player}")
    if not subgames or any(s.root_set is not subgames[0].root_set for s in subgames):
        raise ValueError(f"game {sf.name}: give one or more subgames of one cut")
    root_set, tree = subgames[0].root_set, sf.tree
    if tree is not root_set.tree:
        raise ValueError(f"game {sf.name}: the subgames were cut from another compiled tree")
    tp = sf.treeplexes[player]
    chosen = np.zeros(root_set.num_roots + 1, dtype=bool)
    for s in subgames:
        chosen[s.root_indices] = True
    if fixed == "trunk":
        fixed_nodes = root_set.root_of == -1
    elif fixed == "ancestors":
        fixed_nodes = np.zeros(tree.num_nodes, dtype=bool)
        fixed_nodes[tree.parent[np.concatenate([s.roots for s in subgames])]] = True
        for level in reversed(tree.levels):  # propagate to every ancestor, deepest first
            np.logical_or.at(fixed_nodes, tree.parent[level.nodes], fixed_nodes[level.nodes])
    else:
        raise ValueError(f"game {sf.name}: fixed must be 'trunk' or 'ancestors', got {fixed!r}")
    mine = np.zeros(tree.num_infosets, dtype=bool)
    mine[tp.infoset_ids] = True
    decision = np.flatnonzero((tree.infoset >= 0) & mine[np.maximum(tree.infoset, 0)])
    local = np.full(tree.num_infosets, -1, dtype=np.int64)
    local[tp.infoset_ids] = np.arange(tp.num_infosets)
    fixed_inf = np.unique(local[tree.infoset[decision[fixed_nodes[decision]]]])
    inside = chosen[root_set.root_of[decision]] & (root_set.root_of[decision] >= 0)
    sub_inf = np.unique(local[tree.infoset[decision[inside]]])
    lower = np.zeros(tp.num_sequences)
    seqs = _infoset_sequences(tp.seq_start[fixed_inf], tp.num_actions[fixed_inf])
    lower[seqs] = q.blueprint[player][seqs]
    solution = lp.solve(
        sf, player=player, constraints=lp.LPConstraints(own=sequence_lower_bounds(tp, lower))
    )
    v0 = lp.game_value(sf) if value0 is None else value0
    sign = 1.0 if player == 0 else -1.0
    out = [q.blueprint[0].copy(), q.blueprint[1].copy()]
    seqs = _infoset_sequences(tp.seq_start[sub_inf], tp.num_actions[sub_inf])
    out[player][seqs] = solution.behavioural[player][seqs]
    value = sign * solution.value
    return OptimalContinuation(
        player=player,
        value=value,
        exploitability=sign * v0 - value,
        behavioural=(out[0], out[1]),
        solution=solution,
    )
