"""Algorithm 6.7: grow a trunk until its best certificate is an epsilon-certificate.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021.

`search` solves both LPs of the trunk (`trunk_lps`), expands the pseudoterminal nodes in the
support of the optimistic profile, by default also those in the pessimistic profile's support,
optionally also the shallowest pseudoterminal node (Section 6.3), until epsilon <= target;
nature sampling (Section 5, Theorem 5.1: `trunks.NatureSampling`) replaces chance
distributions by empirical ones with the theorem's sample size.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Literal

import numpy as np
import pyspiel
from absl import logging
from numpy.typing import NDArray

from ospiel_ext import loading, lp
from ospiel_ext.algorithms.certificates.certificate import Certificate
from ospiel_ext.algorithms.certificates.steps import AUTO, Choice, Steps
from ospiel_ext.algorithms.certificates.trunk_lps import Earlier, TrunkSolves, solve_trunk
from ospiel_ext.algorithms.certificates.trunks import BlackBox, Trunk
from ospiel_ext.runtime import executors, interrupts, progress, stops
from ospiel_ext.runtime.budget import Budget
from ospiel_ext.sequence_form import TreeSequenceForm


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
      parts: the independent parts the trunk LPs were split into (`tree_parts`; 1: whole).
      parts_reused: parts unchanged since the last iteration, whose solves were kept.
    """

    nodes: int
    infosets: int
    build_seconds: float
    lp_seconds: float
    expand_seconds: float
    other_seconds: float
    expanded: int
    parts: int = 1
    parts_reused: int = 0


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
      explored_nodes: the nodes of the trunk the search grew (its last), against the
        certificate's trunk (`certificate.trunk`), which may be an earlier, smaller one.
      expand_below, lp_method: the steps of the last iteration (`steps.Steps`).
      choices: the changes "auto" made to them, in order (`steps.Choice`).
    """

    certificate: Certificate
    iterations: int
    seconds: float
    lp_seconds: float
    stop_reason: SearchStop
    simplex_iterations: int = 0
    trace: tuple[IterationCost, ...] = ()
    peak_memory: int = 0
    explored_nodes: int = 0
    expand_below: int = 0
    lp_method: str = "simplex"
    choices: tuple[Choice, ...] = ()


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
    return Certificate.verified(sf, (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform))


def search(  # noqa: PLR0913 (one keyword per flag of `ospiel-ext certify`)
    game: pyspiel.Game | str,
    epsilon: float = 0.0,
    max_nodes: int | float | None = None,
    *,
    time_limit: float | None = None,
    expand_shallowest: bool = False,
    expand_pessimistic: bool = True,
    black_box: BlackBox | None = None,
    warm_start: bool = True,
    expand_below: int | str = AUTO,
    lp_method: str = AUTO,
    max_memory: int | None = None,
    threads: int | None = None,
) -> SearchResult:
    """Algorithm 6.7: grow a trunk until its pessimistic equilibrium is an epsilon-certificate.

    Stops at epsilon, when no pseudoterminal node is in the optimistic profile's support
    (Theorem 6.8: then epsilon is 0), when expanding would pass `max_nodes` trunk nodes (None:
    `DEFAULT_MAX_TRUNK_NODES`; `loading.NO_NODE_CAP`: no cap), when the resident memory passes
    `max_memory` bytes, after `time_limit` seconds, or on Ctrl-C / SIGTERM
    (`runtime.interrupts`); returns the best certificate so far. Time, memory and Ctrl-C are
    checked between the phases of an iteration and at every node expanded, and HiGHS gets the
    time left and stops on Ctrl-C, so the run ends within moments of its budget.

    Every trunk is checked for perfect recall (the game's, on the part expanded so far):
    imperfect recall is refused as `walk.game_tree` refuses it, since the sequence form
    and its certificate assume it.

    `expand_pessimistic` also expands the pseudoterminal nodes that the pessimistic profile (the
    certificate) reaches with the optimistic one, or with itself: where the gap beta* - alpha*
    lies as much as in the optimistic profile's support (Section 6.3 allows expanding any
    node; Theorem 6.8's stop is unchanged). With Algorithm 6.7's step (k = 0) on Table 1's
    Goofspiels and the search game it takes 36-44 % fewer iterations to a 0-certificate, on
    trunks 0.66-1.21x the size; the same on 5-rank Leduc (`docs/engineering.md`). False is
    Algorithm 6.7's own choice.
    `warm_start` starts each LP from the previous trunk's final basis (HiGHS, alien basis).
    `expand_below` also expands the new pseudoterminal children of the expanded nodes, that
    many levels deeper, in the same iteration (Algorithm 6.7 may expand any nodes; fewer,
    larger steps where each iteration's cost grows with the whole trunk).
    `lp_method` is HiGHS's algorithm for the trunk LPs (`highs.METHODS`: "simplex", warm-started
    as above, or "ipm", interior point with crossover, cold; faster on large trunks).
    "auto" (the default of both) chooses them from the growth and LP seconds of the iterations
    so far (`steps.Steps`); `expand_below=0, lp_method="simplex", expand_pessimistic=False` is
    Algorithm 6.7's own step.
    From `trunk_lps.SPLIT_MIN_NODES` nodes the trunk LPs split into independent parts below
    public chance at the top of the trunk (`tree_parts.independent_parts`), solved apart on up
    to `threads` threads (None: the usable cores); a part no expansion grew keeps its solves.
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
    steps = Steps(expand_below, lp_method)
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
            expand_pessimistic=expand_pessimistic,
            warm_start=warm_start,
            steps=steps,
            threads=executors.usable_cores() if threads is None else threads,
        )


def _search(
    trunk: Trunk,
    epsilon: float,
    cap: int | float,
    budget: Budget,
    *,
    expand_shallowest: bool,
    expand_pessimistic: bool,
    warm_start: bool,
    steps: Steps,
    threads: int,
) -> SearchResult:
    """The loop of `search` (see there)."""
    best: Certificate | None = None
    lp_seconds, simplex, iteration = 0.0, 0, 0
    reason: SearchStop | None = None
    earlier: Earlier = {}
    trace: list[IterationCost] = []
    with progress.Counter(
        f"certifying {trunk.game}", unit="iteration", log_seconds=progress.RUN_LOG_SECONDS
    ) as shown:
        while reason is None:
            iteration += 1
            began = time.perf_counter()
            sf = TreeSequenceForm(trunk.tree())
            sf.tree.check_perfect_recall()
            built = time.perf_counter()
            solved, reason = _solve_within(
                sf, earlier, steps.lp_method, budget, threads=threads, warm_start=warm_start
            )
            if solved is None:
                break
            earlier = solved.parts
            simplex += solved.simplex_iterations
            cert = solved.certificate
            lp_seconds += solved.lp_seconds
            if best is None or cert.epsilon < best.epsilon:
                best = cert
            shown.set_postfix(epsilon=f"{best.epsilon:.3g}", trunk_nodes=f"{trunk.num_nodes:,}")
            shown.update_to(iteration)
            logging.vlog(
                1,
                "iteration %d  trunk nodes %d  infosets %d  LP parts %d (%d kept)  alpha* %.6g  "
                "beta* %.6g  epsilon %.3g",
                iteration,
                trunk.num_nodes,
                cert.trunk.num_infosets,
                solved.num_parts,
                solved.num_reused,
                cert.value_lower,
                cert.value_upper,
                cert.epsilon,
            )
            to_expand = _nodes_to_expand(
                trunk, solved, shallowest=expand_shallowest, pessimistic=expand_pessimistic
            )
            reason = _done(cert, epsilon, trunk, to_expand=to_expand, cap=cap)
            expanding = time.perf_counter()
            expanded = 0
            if reason is None:
                room = min(cap, steps.room(trunk.num_nodes))
                expanded, reason = _expand(
                    trunk, to_expand, steps.expand_below, room=room, budget=budget
                )
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
                    parts=solved.num_parts,
                    parts_reused=solved.num_reused,
                )
            )
            if reason is None:  # the next iteration's steps (none after the last)
                steps.observe(
                    iteration,
                    nodes=sf.tree.num_nodes,
                    nodes_after=trunk.num_nodes,
                    seconds=expanding - began,
                    lp_seconds=solved.lp_seconds,
                )
    assert reason is not None
    if best is None:  # stopped before the first trunk's LPs: its uniform profile
        best = _uniform_certificate(sf)
    logging.vlog(
        1,
        "certificate search stopped (%s) after %d iterations, %.1fs: epsilon %.3g, trunk of "
        "%d nodes (%d explored); %s",
        reason, iteration, budget.elapsed(), best.epsilon, best.trunk.num_nodes,
        trunk.num_nodes, steps.describe(),
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
        explored_nodes=trunk.num_nodes,
        expand_below=steps.expand_below,
        lp_method=steps.lp_method,
        choices=tuple(steps.choices),
    )


def _done(
    cert: Certificate, epsilon: float, trunk: Trunk, *, to_expand: list[int], cap: int | float
) -> SearchStop | None:
    """Why the search stops once a trunk is solved, or None.

    The target met, nothing to expand, or the node cap passed by the next expansion.
    """
    if cert.epsilon <= epsilon + cert.zero_tolerance:
        return "epsilon"
    if not to_expand:
        return "no pseudoterminal node in support"
    if trunk.num_nodes + _children_bound(trunk, to_expand) > cap:
        return "max_nodes"
    return None


def _solve_within(
    sf: TreeSequenceForm,
    earlier: Earlier,
    method: str,
    budget: Budget,
    *,
    threads: int,
    warm_start: bool,
) -> tuple[TrunkSolves | None, SearchStop | None]:
    """(`solve_trunk`'s solves, None), or (None, why the search stops).

    The second form when the budget is spent before or inside the LPs.
    """
    reason = budget.exceeded()
    if reason is not None:
        return None, reason
    try:
        solved = solve_trunk(
            sf, earlier, method, budget=budget, threads=threads, warm_start=warm_start
        )
        return solved, None
    except interrupts.Interrupted:  # HiGHS stopped by Ctrl-C or a deadline
        return None, interrupts.stop_reason() or "interrupted"
    except lp.LPError as e:
        if e.status != "kTimeLimit":
            raise
        return None, "time_limit"


def _nodes_to_expand(
    trunk: Trunk, solved: TrunkSolves, *, shallowest: bool, pessimistic: bool
) -> list[int]:
    """Algorithm 6.7's nodes to expand.

    The pseudoterminal leaves in the corrected optimistic profile's support (the shallowest
    level while a value is unbounded); with `pessimistic`, those in the support of the
    players' optimistic and pessimistic strategies mixed (`search`); with `shallowest`, the
    shallowest one (Section 6.3).
    """
    support = solved.optimistic_support
    if support is None:  # a value is unbounded: grow the top first
        depth = min(map(trunk.depth, trunk.frontier))
        to_expand = [n for n in trunk.frontier if trunk.depth(n) == depth]
    else:
        pessimistic_support = solved.pessimistic_support if pessimistic else None
        if pessimistic_support is not None:
            support = (support[0] | pessimistic_support[0], support[1] | pessimistic_support[1])
        to_expand = _support_leaves(solved.certificate.sequence_form, trunk.frontier, support)
    if shallowest and trunk.frontier:
        top = min(trunk.frontier, key=trunk.depth)
        if top not in to_expand:
            to_expand.append(top)
    return to_expand


def _expand(
    trunk: Trunk,
    nodes: list[int],
    below: int,
    *,
    room: int | float,
    budget: Budget,
) -> tuple[int, SearchStop | None]:
    """Expands `nodes`, then their new pseudoterminal children `below` levels deep.

    Deeper levels only while they fit in `room` trunk nodes (the search's node cap or the
    steps' room, the lesser), checking the budget at every node; returns how many nodes it
    expanded and why it stopped early (None if it did not: `_done` checked that the first
    level fits in the node cap).
    """
    count = 0
    for level in range(below + 1):
        children: list[int] = []
        for node in nodes:
            if level and trunk.num_nodes + _children_bound(trunk, [node]) > room:
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
