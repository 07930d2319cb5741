"""The best certificate of a trunk: the two LPs of Section 6.1, with unbounded payoffs.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021.

* `best_certificate` (Section 6.1): the pessimistic equilibrium, x from the LP of (G~, alpha)
  and y from the LP of (G~, beta); its epsilon is value(beta) - value(alpha). The same solves
  give the optimistic profile (x from (G~, beta), y from (G~, alpha)) whose support
  Algorithm 6.7 expands (`search`).
* Public chance at the top of the trunk (`tree_parts.independent_parts`): both LPs split into
  one pair per part, solved apart and put back together (the same optimum, a cheaper solve
  where HiGHS's time grows faster than the LP, as the interior point's does).
* Unbounded payoffs (Section 6.4): in (G~, beta) the opponent's *bad* sequences (those with
  an unbounded leaf right below) are removed from LP (6.10), and the optimistic strategy is
  corrected by Algorithm 6.11 (infinitesimal weight on the sequences leading to unbounded
  leaves where the opponent would otherwise profit from a bad sequence); Theorem 6.12 makes
  the search stop exactly at a 0-certificate. While the opponent cannot avoid unbounded leaves
  at all (the value is infinite), the search expands the shallowest pseudoterminal nodes.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses

import numpy as np
from numpy.typing import NDArray

from ospiel_ext import lp
from ospiel_ext.algorithms.certificates.certificate import Certificate
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.budget import Budget
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_parts import Part, independent_parts
from ospiel_ext.treeplex import Treeplex

SUPPORT_TOLERANCE = 1e-9
"""Plan entries above this are in a profile's support."""
SPLIT_MIN_NODES = 50_000
"""Trunks of fewer nodes are solved whole: each part's LP costs a few milliseconds of set-up,
about what the split saves below 30,000 nodes (5-rank random Goofspiel, both LPs by the dual
simplex on one thread: whole / split 0.52 at 2,953 nodes, 1.03 at 29,999; 2.04 at 285,629 by
the interior point, 3.97 on two threads; `benchmarks/perf/certificate_parts.py`)."""


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


@dataclasses.dataclass(frozen=True)
class PartSolves:
    """Both sides of one part's LPs, and the part's size when solved.

    A part of a later trunk with as many nodes is the same subtree (a trunk only grows, and
    expanding adds nodes), so its LPs are the same and these solves stand (`solve_trunk`).
    """

    num_nodes: int
    sides: tuple[_Side | None, _Side | None]

    def reused(self) -> tuple[_Side | None, _Side | None]:
        """The sides as a later trunk's: no HiGHS time or iterations of their own."""
        beta, alpha = (
            None if s is None else dataclasses.replace(s, lp_seconds=0.0, simplex_iterations=0)
            for s in self.sides
        )
        return beta, alpha


Earlier = dict[int, PartSolves]
"""An earlier trunk's solves, per part (keyed by the part's root; 0: the whole trunk)."""


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


def _combine(
    whole: TreeSequenceForm,
    parts: list[Part],
    maps: list[tuple[IntArray, IntArray]],
    sides: list[_Side | None],
    *,
    player: int,
) -> _Side | None:
    """One side of the whole trunk from the same side of each part (None if one is None).

    `maps`: each part's `Part.sequence_map` for players 0 and 1. The value is the parts'
    values weighted by their chance reach; plans and corrections are each part's, on the whole
    trunk's sequences.
    """
    if any(side is None for side in sides):
        return None
    opp = 1 - player
    own, opponent = np.zeros(whole.shape[player]), np.zeros(whole.shape[opp])
    marked = np.zeros(whole.shape[player], dtype=bool)
    value = 0.0
    for part, seqs, side in zip(parts, maps, sides):
        assert side is not None
        mine, theirs = seqs[player], seqs[opp]
        own[mine], marked[mine] = side.own_plan, side.infinitesimal
        opponent[theirs] = side.opponent_plan
        value += part.reach * side.value
    return _Side(
        value=value,
        own_plan=own,
        opponent_plan=opponent,
        infinitesimal=marked,
        lp_seconds=sum(side.lp_seconds for side in sides if side is not None),
        simplex_iterations=sum(side.simplex_iterations for side in sides if side is not None),
        basis=None,
    )


@dataclasses.dataclass(frozen=True)
class TrunkSolves:
    """Both LPs of a trunk solved (`solve_trunk`): its best certificate and what the search needs.

    Attributes:
      certificate: the pessimistic equilibrium with its epsilon (the trunk's best certificate).
      optimistic_support: per player, the corrected optimistic profile's support (plan > 0 or
        corrected by Algorithm 6.11); None while some side's value is unbounded.
      pessimistic_support: per player, the pessimistic profile's (the certificate's) support;
        None with `optimistic_support`.
      sides: the (beta side, alpha side) solves of the whole trunk; None for a side whose
        value is unbounded.
      parts: each part's solves (one part, root 0, when not split), for the next trunk's.
      num_reused: parts whose solves an earlier trunk's gave (unchanged subtrees).
    """

    certificate: Certificate
    optimistic_support: tuple[NDArray[np.bool_], NDArray[np.bool_]] | None
    sides: tuple[_Side | None, _Side | None]
    parts: Earlier
    num_reused: int = 0

    @property
    def pessimistic_support(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_]] | None:
        """Per player, the sequences of the certificate's plan above `SUPPORT_TOLERANCE`."""
        beta, alpha = self.sides
        if self.optimistic_support is None or beta is None or alpha is None:
            return None
        return alpha.opponent_plan > SUPPORT_TOLERANCE, beta.opponent_plan > SUPPORT_TOLERANCE

    @property
    def num_parts(self) -> int:
        """The independent parts the LPs were split into (1: not split)."""
        return len(self.parts)

    @property
    def lp_seconds(self) -> float:
        """HiGHS's seconds on both sides."""
        return sum(side.lp_seconds for side in self.sides if side is not None)

    @property
    def simplex_iterations(self) -> int:
        """HiGHS's simplex iterations on both sides."""
        return sum(side.simplex_iterations for side in self.sides if side is not None)


def _solve_parts(
    parts: list[Part],
    earlier: Earlier,
    *,
    method: str,
    budget: Budget | None,
    threads: int,
    warm_start: bool,
) -> tuple[list[tuple[_Side | None, _Side | None]], int]:
    """Both sides of every part, the largest parts first, on up to `threads` threads.

    Returns them and how many parts kept earlier solves. A part as large as the earlier
    trunk's at the same root keeps its solves; the others start from the earlier solves' final
    bases (with `warm_start`). Ctrl-C, SIGTERM or a deadline stops the solves under way (each
    HiGHS run watches the same flag) and begins no other (`interrupts.Interrupted`).
    """
    kept = {
        k: before.reused()
        for k, p in enumerate(parts)
        if (before := earlier.get(p.root)) is not None and before.num_nodes == p.tree.num_nodes
    }

    def side(job: tuple[int, int]) -> _Side | None:
        interrupts.check()  # no solve begins once a stop was asked for
        part, player = parts[job[0]], job[1]
        before = earlier.get(part.root) if warm_start else None
        start = None if before is None else _basis(before.sides[player])
        return _solve_side(part.sequence_form, player, start, method=method, budget=budget)

    largest = sorted(range(len(parts)), key=lambda k: -parts[k].tree.num_nodes)
    jobs = [(k, player) for k in largest if k not in kept for player in (0, 1)]
    if threads <= 1 or len(jobs) <= 1:
        results = [side(job) for job in jobs]
    else:
        pool = cf.ThreadPoolExecutor(min(threads, len(jobs)), thread_name_prefix="trunk-lp")
        try:
            results = list(pool.map(side, jobs))
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    by_job = dict(zip(jobs, results))
    return [kept.get(k) or (by_job[k, 0], by_job[k, 1]) for k in range(len(parts))], len(kept)


def _basis(side: _Side | None) -> lp.Basis | None:
    """A side's final basis (None for an unbounded side)."""
    return None if side is None else side.basis


def solve_trunk(
    sf: TreeSequenceForm,
    earlier: Earlier | None = None,
    method: str = "simplex",
    budget: Budget | None = None,
    *,
    warm_start: bool = True,
    split: bool = True,
    threads: int = 1,
) -> TrunkSolves:
    """Both games of Section 6.1, with Section 6.4's corrections for unbounded payoffs.

    Gives the pessimistic equilibrium and the support of the corrected optimistic profile.
    `earlier`: an earlier trunk's `TrunkSolves.parts` (of the same game); its final bases
    warm-start these LPs (with `warm_start`). `budget`: the LPs get its remaining time
    (`lp.LPError` with status kTimeLimit after it). `split`: solve the independent parts below
    public chance apart (`tree_parts.independent_parts`; the same optimal values, the plans may
    be other optimal ones) once the trunk has `SPLIT_MIN_NODES` nodes, on up to `threads`
    threads (HiGHS runs without Python's lock, so parts solve side by side); a part no node of
    which was expanded since `earlier` keeps its solves (`PartSolves`).
    """
    earlier = earlier or {}
    parts = independent_parts(sf.tree) if split and sf.tree.num_nodes >= SPLIT_MIN_NODES else []
    if len(parts) <= 1:
        parts = [Part.whole(sf.tree)]
        before = earlier.get(0) if warm_start else None
        w = (None, None) if before is None else tuple(map(_basis, before.sides))
        solved = [
            (
                _solve_side(sf, 0, w[0], method=method, budget=budget),
                _solve_side(sf, 1, w[1], method=method, budget=budget),
            )
        ]
        beta, alpha = solved[0]
        reused = 0
    else:
        solved, reused = _solve_parts(
            parts, earlier, method=method, budget=budget, threads=threads, warm_start=warm_start
        )
        maps = [(p.sequence_map(sf, 0), p.sequence_map(sf, 1)) for p in parts]
        beta = _combine(sf, parts, maps, [b for b, _ in solved], player=0)
        alpha = _combine(sf, parts, maps, [a for _, a in solved], player=1)
    done = {p.root: PartSolves(p.tree.num_nodes, s) for p, s in zip(parts, solved)}
    if beta is None or alpha is None:
        uniform = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
        cert = Certificate(
            sequence_form=sf,
            behavioural=uniform,
            epsilon=np.inf,
            value_lower=-np.inf,
            value_upper=np.inf,
        )
        return TrunkSolves(cert, None, (beta, alpha), done, reused)
    plans = (alpha.opponent_plan, beta.opponent_plan)
    pessimistic = (sf.treeplexes[0].behavioural(plans[0]), sf.treeplexes[1].behavioural(plans[1]))
    cert = Certificate.verified(sf, pessimistic)
    support = (
        (beta.own_plan > SUPPORT_TOLERANCE) | beta.infinitesimal,
        (alpha.own_plan > SUPPORT_TOLERANCE) | alpha.infinitesimal,
    )
    return TrunkSolves(cert, support, (beta, alpha), done, reused)


def best_certificate(trunk: GameTree) -> Certificate:
    """The certificate with the smallest epsilon on a given trunk (Section 6.1)."""
    return solve_trunk(TreeSequenceForm(trunk)).certificate
