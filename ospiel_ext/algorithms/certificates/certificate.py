"""Certificates of equilibria in black-box games: verification, search, minimal certificates.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021.

Trunks (Defs 3.1, 3.3; `trunks.Trunk`) are grown from the root on demand; their
pseudoterminal leaves carry the bound oracle's interval [lo, hi] on player 0's utility.

* `verify` (Prop. 3.5, Def. 6.2): for a profile (x, y) on a trunk,
  epsilon = beta*(y) - alpha*(x), player 0's best response in the optimistic game (leaves at
  hi) minus player 1's in the pessimistic one (leaves at lo): two linear-time treeplex passes,
  independent of the rest of the game.
* `best_certificate` (Section 6.1): the pessimistic equilibrium, x from the LP of (G~, alpha)
  and y from the LP of (G~, beta); its epsilon is value(beta) - value(alpha).
* `search` (Algorithm 6.7): solve both LPs, expand the pseudoterminal nodes in the support of
  the optimistic profile (x from (G~, beta), y from (G~, alpha)), optionally also the
  shallowest pseudoterminal node (Section 6.3), until epsilon <= target.
* `minimal_certificate` (Prop. 4.1): keep only the nodes reachable when at most one player
  deviates.

* Nature sampling (Section 5, Theorem 5.1): `trunks.NatureSampling` replaces chance
  distributions by empirical ones with the theorem's sample size.
* Unbounded payoffs (Section 6.4): in (G~, beta) the opponent's *bad* sequences (those with
  an unbounded leaf right below) are removed from LP (6.10), and the optimistic strategy is
  corrected by Algorithm 6.11 (infinitesimal weight on the sequences leading to unbounded
  leaves where the opponent would otherwise profit from a bad sequence); Theorem 6.12 makes
  the search stop exactly at a 0-certificate. While the opponent cannot avoid unbounded leaves
  at all (the value is infinite), the shallowest pseudoterminal nodes are expanded.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Literal

import numpy as np
import pyspiel
from absl import logging
from numpy.typing import NDArray
from open_spiel.python import policy as policy_lib

from ospiel_ext import interrupts, loading, lp, policies, progress, stops
from ospiel_ext.algorithms.certificates.trunks import BlackBox, Trunk
from ospiel_ext.arrays import FloatArray
from ospiel_ext.budget import Budget
from ospiel_ext.sequence_form import SequenceForm, Treeplex, TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder

SUPPORT_TOLERANCE = 1e-9
ZERO_TOLERANCE = 1e-12
"""A certificate is a 0-certificate when its epsilon is at most ZERO_TOLERANCE times its
trunk's payoff range (`Certificate.payoff_range`): what is left of an exact 0 after the LPs
and best responses in floating point, on the scale of the game's utilities."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class Certificate:
    """A trunk with a profile on it (Def. 3.4) and its epsilon (Def. 6.2).

    Attributes:
      sequence_form: of the trunk (a GameTree whose leaves carry [lo, hi]).
      behavioural: the profile, behavioural arrays over the trunk's treeplexes.
      epsilon: beta*(y) - alpha*(x).
      value_lower, value_upper: alpha*(x) <= game value <= beta*(y).
    """

    sequence_form: TreeSequenceForm
    behavioural: tuple[FloatArray, FloatArray]
    epsilon: float
    value_lower: float
    value_upper: float

    @property
    def trunk(self) -> GameTree:
        """The trunk: the GameTree of `sequence_form`, leaves carrying [lo, hi]."""
        return self.sequence_form.tree

    @property
    def payoff_range(self) -> float:
        """Largest minus smallest finite bound on player 0's utility over the trunk's leaves.

        It is at least the payoff range of the game the trunk has seen. Infinite bounds
        (pseudo-leaves of a game with unbounded utilities) are left out, so the range stays
        finite.
        """
        leaves = self.trunk.is_leaf
        bounds = np.concatenate([self.trunk.lo[leaves], self.trunk.hi[leaves]])
        bounds = bounds[np.isfinite(bounds)]
        if not bounds.size:
            return 0.0
        return float(bounds.max() - bounds.min())

    @property
    def zero_tolerance(self) -> float:
        """`ZERO_TOLERANCE` times `payoff_range`.

        The epsilon up to which this is a 0-certificate.
        """
        return ZERO_TOLERANCE * self.payoff_range

    @property
    def is_zero(self) -> bool:
        """Whether this is a 0-certificate: epsilon is 0 up to `zero_tolerance`.

        A 0-certificate is an exact equilibrium of the game (Theorem 6.8).
        """
        return bool(np.isfinite(self.epsilon)) and self.epsilon <= self.zero_tolerance

    def size(self) -> tuple[int, int]:
        """(nodes, information sets) of the trunk."""
        return self.trunk.num_nodes, self.trunk.num_infosets

    def strategy_table(self) -> policies.Tables:
        """Per player, {information_state_string: {action: probability}}.

        The tables cover the player's infosets of the trunk (`policies.behavioural_to_table`).
        """
        return policies.behavioural_to_table(self.sequence_form, self.behavioural)


def verify(sf: SequenceForm, behavioural: tuple[FloatArray, FloatArray]) -> tuple[float, float]:
    """(alpha*(x), beta*(y)) of a profile on a trunk (Def. 6.2), or on any sequence form.

    Epsilon is their difference.
    alpha*(x) = min_y' x^T A_lo y' and beta*(y) = max_x' x'^T A_hi y, by one best-response pass
    per player; infinite bounds on leaves the fixed strategy never reaches do not count.
    """
    tp0, tp1 = sf.treeplexes
    x, y = tp0.realization_plan(behavioural[0]), tp1.realization_plan(behavioural[1])
    beta, _ = tp0.best_response(sf.bound_sequence_values(0, y, "hi"))
    neg_alpha, _ = tp1.best_response(sf.bound_sequence_values(1, x, "lo"))
    return -neg_alpha, beta


@dataclasses.dataclass(frozen=True, kw_only=True)
class _Side:
    """(G~, beta) solved for player 0, or (G~, alpha) for player 1.

    The game in which `player` may win an unbounded amount (Section 6.4), solved from that
    player's side.
    """

    value: float  # player 0's value
    own_plan: FloatArray  # the solving player's plan (its optimistic strategy)
    opponent_plan: FloatArray  # the opponent's plan (its pessimistic strategy)
    infinitesimal: NDArray[np.bool_]  # the solving player's sequences corrected (Alg. 6.11)
    lp_seconds: float
    simplex_iterations: int
    basis: lp.Basis | None


def _close_bad(tp: Treeplex, bad: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """An infoset all of whose actions are bad makes the sequence leading to it bad."""
    while tp.num_infosets:
        all_bad = np.minimum.reduceat(bad[1:].astype(np.int8), tp.seq_start - 1) == 1
        parents = tp.parent_seq[all_bad]
        if bad[parents].all():
            return bad
        bad = bad.copy()
        bad[parents] = True
    return bad


def _correct(
    sf: TreeSequenceForm,
    player: int,
    plan: FloatArray,
    *,
    values: FloatArray,
    unbounded: NDArray[np.bool_],
    bad: NDArray[np.bool_],
) -> NDArray[np.bool_]:
    """Algorithm 6.11 CORRECT at every opponent infoset I: the mask of the corrected sequences.

    Where an action a is worth more to the opponent's unrestricted best response than I's value
    when avoiding bad sequences (V*(Ia) better than V(I)), the solving player's sequences that
    lead to an unbounded leaf under Ia get an infinitesimal weight; returns the mask of those
    sequences.
    """
    opp = 1 - player
    tp = sf.treeplexes[opp]
    g = sf.leaf_sequence_values(opp, plan, values)  # -inf where plan reaches an unbounded leaf
    v_star, _ = tp.infoset_values(g, None)
    restricted = np.where(bad, -np.inf, g)
    _, v_restricted = tp.infoset_values(restricted, None)
    better = np.zeros(tp.num_sequences, dtype=bool)
    better[1:] = v_star[1:] > tp.spread(v_restricted)[1:] + SUPPORT_TOLERANCE
    z = sf.leaves[unbounded]
    marked = np.zeros(sf.shape[player], dtype=bool)
    marked[sf.node_seq[player][z[better[sf.node_seq[opp][z]]]]] = True
    return marked


def _solve_side(
    sf: TreeSequenceForm,
    player: int,
    warm: lp.Basis | None,
    *,
    method: str,
    budget: Budget | None = None,
) -> _Side | None:
    """The LP (6.10) with the opponent's bad sequences removed.

    None if the opponent cannot avoid them (the value is unbounded). `budget`: HiGHS gets its
    remaining time.
    """
    opp = 1 - player
    z = sf.leaves
    values = sf.tree.hi[z] if player == 0 else sf.tree.lo[z]
    unbounded = np.isposinf(values) if player == 0 else np.isneginf(values)
    bad = np.zeros(sf.shape[opp], dtype=bool)
    bad[sf.node_seq[opp][z[unbounded]]] = True
    bad = _close_bad(sf.treeplexes[opp], bad)
    if bad[0]:
        return None
    finite = sf.leaf_matrix(np.where(unbounded, 0.0, values))
    sol = lp.solve(
        sf,
        payoff=finite,
        player=player,
        excluded_opponent_sequences=bad if bad.any() else None,
        warm_start=warm,
        return_basis=True,
        method=method,
        time_limit=None if budget is None else budget.remaining(),
    )
    own = sol.plans[player]
    marked = _correct(sf, player, own, values=values, unbounded=unbounded, bad=bad)
    return _Side(
        value=sol.value,
        own_plan=own,
        opponent_plan=sol.plans[opp],
        infinitesimal=marked,
        lp_seconds=sol.seconds,
        simplex_iterations=sol.simplex_iterations,
        basis=sol.basis,
    )


@dataclasses.dataclass(frozen=True)
class _Solves:
    certificate: Certificate
    # The corrected optimistic profile's support: per player, plan > 0 or corrected
    # (None while some side's value is unbounded).
    optimistic_support: tuple[NDArray[np.bool_], NDArray[np.bool_]] | None
    sides: tuple[_Side | None, _Side | None]  # (beta side, alpha side)

    @property
    def lp_seconds(self) -> float:
        return sum(side.lp_seconds for side in self.sides if side is not None)

    @property
    def simplex_iterations(self) -> int:
        return sum(side.simplex_iterations for side in self.sides if side is not None)


def _solve_trunk(
    sf: TreeSequenceForm,
    warm: tuple[lp.Basis | None, lp.Basis | None] = (None, None),
    method: str = "simplex",
    budget: Budget | None = None,
) -> _Solves:
    """Both games of Section 6.1, with Section 6.4's corrections for unbounded payoffs.

    Gives the pessimistic equilibrium and the support of the corrected optimistic profile.
    `warm`: bases of the previous trunk's (beta, alpha) LPs; `budget`: the LPs get its
    remaining time (`lp.LPError` with status kTimeLimit after it).
    """
    beta = _solve_side(sf, 0, warm[0], method=method, budget=budget)
    alpha = _solve_side(sf, 1, warm[1], method=method, budget=budget)
    if beta is None or alpha is None:
        uniform = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
        cert = Certificate(
            sequence_form=sf,
            behavioural=uniform,
            epsilon=np.inf,
            value_lower=-np.inf,
            value_upper=np.inf,
        )
        return _Solves(cert, None, (beta, alpha))
    plans = (alpha.opponent_plan, beta.opponent_plan)
    pessimistic = (sf.treeplexes[0].behavioural(plans[0]), sf.treeplexes[1].behavioural(plans[1]))
    value_lower, value_upper = verify(sf, pessimistic)
    cert = Certificate(
        sequence_form=sf,
        behavioural=pessimistic,
        epsilon=value_upper - value_lower,
        value_lower=value_lower,
        value_upper=value_upper,
    )
    support = (
        (beta.own_plan > SUPPORT_TOLERANCE) | beta.infinitesimal,
        (alpha.own_plan > SUPPORT_TOLERANCE) | alpha.infinitesimal,
    )
    return _Solves(cert, support, (beta, alpha))


def best_certificate(trunk: GameTree) -> Certificate:
    """The certificate with the smallest epsilon on a given trunk (Section 6.1)."""
    return _solve_trunk(TreeSequenceForm(trunk)).certificate


@dataclasses.dataclass(frozen=True, kw_only=True)
class IterationCost:
    """Where one iteration of Algorithm 6.7 spent its time, against the trunk it worked on.

    Attributes:
      nodes, infosets: the trunk's size when solved.
      build_seconds: the trunk's arrays and sequence form (rebuilt every iteration).
      lp_seconds: HiGHS on both sides.
      expand_seconds: expanding the chosen frontier nodes (pyspiel states, tree surgery).
      other_seconds: the rest (the LPs' matrices, the certificate, the support).
      expanded: nodes expanded after the solve (support leaves, and with `expand_below`
        their new children).
    """

    nodes: int
    infosets: int
    build_seconds: float
    lp_seconds: float
    expand_seconds: float
    other_seconds: float
    expanded: int


SearchStop = Literal[
    "epsilon",
    "no pseudoterminal node in support",
    "max_nodes",
    "max_memory",
    "time_limit",
    "interrupted",
]
"""The `stops.StopReason`s of the certificate search."""
DEFAULT_MAX_TRUNK_NODES = 5_000_000
"""Trunk node cap of `search` when none is given (`loading.NO_NODE_CAP` removes it). A trunk
node costs more than a compiled one (every pseudoterminal leaf keeps its pyspiel state):
Goofspiel trunks of 1.7 million nodes took about 3 GB here."""


@dataclasses.dataclass(frozen=True)
class SearchResult(stops.Stoppable):
    """The best certificate found and the run's statistics.

    Attributes:
      certificate: the best certificate found (the first trunk's uniform profile, verified,
        if the run stopped before any trunk LP was solved).
      iterations: iterations of Algorithm 6.7 begun.
      seconds, lp_seconds: wall-clock seconds of the run, and of HiGHS.
      stop_reason: why the run ended (`SearchStop`).
      simplex_iterations: HiGHS's, summed.
      trace: one `IterationCost` per iteration.
      peak_memory: the largest resident memory seen (bytes; 0 unless `max_memory` was set).
    """

    certificate: Certificate
    iterations: int
    seconds: float
    lp_seconds: float
    stop_reason: SearchStop
    simplex_iterations: int = 0
    trace: tuple[IterationCost, ...] = ()
    peak_memory: int = 0


def _support_leaves(
    sf: TreeSequenceForm,
    frontier: dict[int, pyspiel.State],
    support: tuple[NDArray[np.bool_], NDArray[np.bool_]],
) -> list[int]:
    """Pseudoterminal leaves in the support of the corrected optimistic profile."""
    z = sf.leaves
    reached = (
        (sf.chance_reach[z] > 0) & support[0][sf.node_seq[0][z]] & support[1][sf.node_seq[1][z]]
    )
    return [int(n) for n in z[reached] if int(n) in frontier]


def _uniform_certificate(sf: TreeSequenceForm) -> Certificate:
    """The uniform profile on a trunk with its (verified) epsilon.

    The certificate of a run stopped before its first LP was solved.
    """
    uniform = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    lower, upper = verify(sf, uniform)
    return Certificate(
        sequence_form=sf,
        behavioural=uniform,
        epsilon=upper - lower,
        value_lower=lower,
        value_upper=upper,
    )


def search(
    game: pyspiel.Game | str,
    epsilon: float = 0.0,
    max_nodes: int | float | None = None,
    *,
    time_limit: float | None = None,
    expand_shallowest: bool = False,
    black_box: BlackBox | None = None,
    warm_start: bool = True,
    expand_below: int = 0,
    lp_method: str = "simplex",
    max_memory: int | None = None,
) -> SearchResult:
    """Algorithm 6.7: grow a trunk until its pessimistic equilibrium is an epsilon-certificate.

    Stops at epsilon, when no pseudoterminal node is in the optimistic profile's support
    (Theorem 6.8: then epsilon is 0), when expanding would pass `max_nodes` trunk nodes (None:
    `DEFAULT_MAX_TRUNK_NODES`; `loading.NO_NODE_CAP`: no cap), when the resident memory passes
    `max_memory` bytes, after `time_limit` seconds, or on Ctrl-C / SIGTERM
    (`ospiel_ext.interrupts`); returns the best certificate so far. Time, memory and Ctrl-C are
    checked between the phases of an iteration and at every node expanded, and HiGHS gets the
    time left and stops on Ctrl-C, so the run ends within moments of its budget.

    Every trunk is checked for perfect recall (the game's, on the part expanded so far):
    imperfect recall is refused as `walk.game_tree` refuses it, since the sequence form
    and its certificate assume it.

    `warm_start` starts each LP from the previous trunk's final basis (HiGHS, alien basis).
    `expand_below` also expands the new pseudoterminal children of the expanded nodes, that
    many levels deeper, in the same iteration (Algorithm 6.7 may expand any nodes; fewer,
    larger steps where each iteration's cost grows with the whole trunk).
    `lp_method` is HiGHS's algorithm for the trunk LPs (`highs.METHODS`: "simplex", warm-started
    as above, or "ipm", interior point with crossover, cold; faster on large trunks).
    `black_box` is how the game is queried (Section 5; None: `BlackBox()`): its `bounds` oracle
    (default `trunks.utility_bounds`) and, with `nature`, chance sampled: the certificate is
    exact for the sampled trunk and worth epsilon + 2 nature.epsilon in the true game with
    probability 1 - 4 delta.

    Raises:
      ValueError: the game is not two-player zero-sum, lacks perfect recall (seen on a
        trunk), or an argument is out of range.
    """
    if not epsilon >= 0:
        raise ValueError(f"epsilon must be non-negative, got {epsilon}")
    if expand_below < 0:
        raise ValueError(f"expand_below must be non-negative, got {expand_below}")
    black_box = black_box or BlackBox()
    trunk = Trunk(game, black_box.bounds, black_box.nature)
    cap = loading.node_cap(trunk.game, max_nodes, DEFAULT_MAX_TRUNK_NODES, walk_whole_game=False)
    budget = Budget(time_limit, max_memory)
    with interrupts.graceful():
        return _search(
            trunk,
            epsilon,
            cap,
            budget,
            expand_shallowest=expand_shallowest,
            warm_start=warm_start,
            expand_below=expand_below,
            lp_method=lp_method,
        )


def _search(
    trunk: Trunk,
    epsilon: float,
    cap: int | float,
    budget: Budget,
    *,
    expand_shallowest: bool,
    warm_start: bool,
    expand_below: int,
    lp_method: str,
) -> SearchResult:
    """The loop of `search` (see there)."""
    best: Certificate | None = None
    lp_seconds, simplex, iteration = 0.0, 0, 0
    reason: SearchStop | None = None
    warm: tuple[lp.Basis | None, lp.Basis | None] = (None, None)
    trace: list[IterationCost] = []
    with progress.bar(f"certifying {trunk.game}", unit="it") as bar:
        while reason is None:
            iteration += 1
            began = time.perf_counter()
            sf = TreeSequenceForm(trunk.tree())
            sf.tree.check_perfect_recall()
            built = time.perf_counter()
            solved, reason = _solve_within(sf, warm, lp_method, budget)
            if solved is None:
                break
            if warm_start:
                beta_side, alpha_side = solved.sides
                warm = (
                    None if beta_side is None else beta_side.basis,
                    None if alpha_side is None else alpha_side.basis,
                )
            simplex += solved.simplex_iterations
            cert = solved.certificate
            lp_seconds += solved.lp_seconds
            if best is None or cert.epsilon < best.epsilon:
                best = cert
            bar.update()
            bar.set_postfix(epsilon=f"{best.epsilon:.3g}", trunk_nodes=trunk.num_nodes)
            logging.vlog(
                1,
                "iteration %d  trunk nodes %d  infosets %d  alpha* %.6g  beta* %.6g  epsilon %.3g",
                iteration,
                trunk.num_nodes,
                cert.trunk.num_infosets,
                cert.value_lower,
                cert.value_upper,
                cert.epsilon,
            )
            to_expand = _nodes_to_expand(trunk, solved, expand_shallowest)
            if cert.epsilon <= epsilon + cert.zero_tolerance:
                reason = "epsilon"
            elif not to_expand:
                reason = "no pseudoterminal node in support"
            elif trunk.num_nodes + _children_bound(trunk, to_expand) > cap:
                reason = "max_nodes"
            expanding = time.perf_counter()
            expanded = 0
            if reason is None:
                expanded, reason = _expand(trunk, to_expand, expand_below, cap=cap, budget=budget)
            done = time.perf_counter()
            trace.append(
                IterationCost(
                    nodes=sf.tree.num_nodes,
                    infosets=sf.tree.num_infosets,
                    build_seconds=built - began,
                    lp_seconds=solved.lp_seconds,
                    expand_seconds=done - expanding,
                    other_seconds=expanding - built - solved.lp_seconds,
                    expanded=expanded,
                )
            )
    assert reason is not None
    if best is None:  # stopped before the first trunk's LPs: its uniform profile
        best = _uniform_certificate(sf)
    logging.vlog(
        1,
        "certificate search stopped (%s) after %d iterations, %.1fs: epsilon %.3g, trunk of "
        "%d nodes",
        reason, iteration, budget.elapsed(), best.epsilon, best.trunk.num_nodes,
    )  # fmt: skip
    return SearchResult(
        certificate=best,
        iterations=iteration,
        seconds=budget.elapsed(),
        lp_seconds=lp_seconds,
        stop_reason=reason,
        simplex_iterations=simplex,
        trace=tuple(trace),
        peak_memory=budget.peak_memory,
    )


def _solve_within(
    sf: TreeSequenceForm,
    warm: tuple[lp.Basis | None, lp.Basis | None],
    method: str,
    budget: Budget,
) -> tuple[_Solves | None, SearchStop | None]:
    """(`_solve_trunk`'s solves, None), or (None, why the search stops).

    The second form when the budget is spent before or inside the LPs.
    """
    reason = budget.exceeded()
    if reason is not None:
        return None, reason
    try:
        return _solve_trunk(sf, warm, method, budget=budget), None
    except interrupts.Interrupted:  # HiGHS stopped by Ctrl-C or a deadline
        return None, interrupts.stop_reason() or "interrupted"
    except lp.LPError as e:
        if e.status != "kTimeLimit":
            raise
        return None, "time_limit"


def _nodes_to_expand(trunk: Trunk, solved: _Solves, expand_shallowest: bool) -> list[int]:
    """Algorithm 6.7's nodes to expand.

    The pseudoterminal leaves in the corrected optimistic profile's support (the shallowest
    level while a value is unbounded), and the shallowest one with `expand_shallowest`
    (Section 6.3).
    """
    if solved.optimistic_support is None:  # a value is unbounded: grow the top first
        depth = min(map(trunk.depth, trunk.frontier))
        to_expand = [n for n in trunk.frontier if trunk.depth(n) == depth]
    else:
        to_expand = _support_leaves(
            solved.certificate.sequence_form, trunk.frontier, solved.optimistic_support
        )
    if expand_shallowest and trunk.frontier:
        shallowest = min(trunk.frontier, key=trunk.depth)
        if shallowest not in to_expand:
            to_expand.append(shallowest)
    return to_expand


def _expand(
    trunk: Trunk, nodes: list[int], below: int, *, cap: int | float, budget: Budget
) -> tuple[int, SearchStop | None]:
    """Expands `nodes`, then their new pseudoterminal children `below` levels deep.

    Deeper levels only while they fit in `cap`, checking the budget at every node; returns how
    many nodes it expanded and why it stopped early (None if it did not: the first level is
    known to fit in `cap`).
    """
    count = 0
    for level in range(below + 1):
        children: list[int] = []
        for node in nodes:
            if level and trunk.num_nodes + _children_bound(trunk, [node]) > cap:
                return count, None
            stop = budget.exceeded()
            if stop is not None:
                return count, stop
            children += trunk.expand(node)
            count += 1
        nodes = children
    return count, None


def _children_bound(trunk: Trunk, nodes: list[int]) -> int:
    """How many nodes expanding `nodes` adds."""
    total = 0
    for n in nodes:
        state = trunk.frontier[n]
        total += (
            len(state.chance_outcomes()) if state.is_chance_node() else len(state.legal_actions())
        )
    return total


def minimal_certificate(cert: Certificate) -> Certificate:
    """Prop. 4.1: the certificate on its trunk cut down to the nodes reached by one deviation.

    The trunk is cut down to the nodes some player reaches while the other follows the
    certificate (with chance), plus the children of those it keeps expanded; the cut-off
    subtrees become leaves bounded by their descendants' bounds. Epsilon is unchanged.
    """
    tree, sf = cert.trunk, cert.sequence_form
    x, y = (tp.realization_plan(b) for tp, b in zip(sf.treeplexes, cert.behavioural))
    keep = (sf.chance_reach * x[sf.node_seq[0]] > 0) | (sf.chance_reach * y[sf.node_seq[1]] > 0)
    lo, hi = _subtree_bounds(tree)
    builder = TreeBuilder(name=f"minimal {tree.name}", game=tree.game, utility_sum=tree.utility_sum)
    builder.copy_subtree(tree, 0, builder.add_root(), expand=keep, leaf_lo=lo, leaf_hi=hi)
    small = TreeSequenceForm(builder.freeze())
    behavioural = policies.behavioural_from_table(small, cert.strategy_table(), "uniform")
    value_lower, value_upper = verify(small, behavioural)
    return Certificate(
        sequence_form=small,
        behavioural=behavioural,
        epsilon=value_upper - value_lower,
        value_lower=value_lower,
        value_upper=value_upper,
    )


def _subtree_bounds(tree: GameTree) -> tuple[FloatArray, FloatArray]:
    """Min of lo and max of hi over the leaves below every node."""
    return tree.bottom_up(tree.lo, np.minimum), tree.bottom_up(tree.hi, np.maximum)


class CertificatePolicy(policy_lib.Policy):
    """The certified strategy as an OpenSpiel policy of the full game (Prop. 3.5).

    The certificate's distribution at information states of the trunk, uniform elsewhere. Works
    for infinite games too; `to_tabular()` gives a TabularPolicy where the game is finite.

    Args:
      game: the game.
      tables: `Certificate.strategy_table()`, one table per player.
    """

    def __init__(self, game: pyspiel.Game, tables: policies.Tables):
        super().__init__(game, list(range(game.num_players())))
        self.tables = tables

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """OpenSpiel's `Policy.action_probabilities`: the certificate's row, else uniform."""
        player = state.current_player() if player_id is None else player_id
        row = self.tables[player].get(loading.infoset_key(state, player))
        legal = state.legal_actions(player)
        if row is None:
            return {a: 1.0 / len(legal) for a in legal}
        return {a: row.get(a, 0.0) for a in legal}

    def to_tabular(self) -> policy_lib.TabularPolicy:
        """The policy as the game's TabularPolicy (`policies.tabular_policy`)."""
        return policies.tabular_from_policy(self.game, self)
