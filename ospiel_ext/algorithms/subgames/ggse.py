"""Gadget game sequential equilibria (GGSE) by CFR+, the perturbed LP and EGT; plain Nash.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Definition 2: a GGSE is a limit, as eps -> 0+, of Nash
equilibria of the gadget game in which the opponent plays every action a of every auxiliary
information set s^G with probability at least eps * pi^P(s^G, a). All three solvers take the
trembles as one `constraints.BehaviouralLowerBounds.from_prior(eps, prior)` keyed by the
auxiliary information sets only (every other information set is unconstrained):

* CFR+ (Section 7.2): basis matrices at the auxiliary information sets, eq. 6
  B = (1 - eps) I + eps P; the played strategy is B pi (eq. 4) and regrets are B^T r' (eq. 5).
  Only P = p 1^T (every column the prior) gives B pi >= eps p; the paper calls P "symmetric",
  which holds for a uniform prior only. Default eps = 1e-3 and 5000 iterations (App. B.4,
  Table 1). The output is the average strategy.
* The perturbed sequence-form LP (Section 7.1, eqs 3a-3d; App. D eqs 40a-d): the LP (2a-2d)
  of player i plus one column r_s >= 0 per auxiliary sequence s (cost 0; -1 in row s of (2c)
  and +eps p_s in the row of its parent sequence, the empty one), whose dual reads
  y_s >= eps p_s y_empty - exactly Definition 2 (the paper's (f + eps p)^T v in (3a) is the
  change of variables y = z + eps p). eps decreases from eps0 by factors of 10 until the
  solution "remains optimal when eps is set to 0": its guaranteed value in the unperturbed
  gadget equals the LP value at eps = 0.
* EGT with the perturbed dilated entropy (Kroer, Farina & Sandholm 2017, "Smoothing Method for
  Approximate Extensive-Form Perfect Equilibrium"), the same bounds.

Without a prior each solver computes a plain Nash equilibrium of the gadget (Section 8's "no
prior"). The gadget LP then has many optimal solutions, which differ in the full game
(Observation 1); `solve_lp`'s `vertex` chooses one: HiGHS's dual simplex ("simplex", the
default), interior point with crossover ("ipm"), or "random:SEED", the vertex of the optimal face
that maximises a Gaussian random linear function of player i's realization plan (a random
optimal vertex; docs/results/ggse.md measures how far the choice moves the full-game
exploitability). Values are player i's (zero-sum) utility in the gadget; a resolving gadget's
unnormalised value (Section 3) is `scale` times it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Literal

import numpy as np
from absl import logging
from numpy.typing import ArrayLike

from ospiel_ext import evaluate, lp, lp_model, policies
from ospiel_ext.algorithms import cfr_variants, egt
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.subgames.gadgets import GadgetGame
from ospiel_ext.arrays import FloatArray
from ospiel_ext.constraints import BehaviouralLowerBounds

Method = Literal["cfr", "lp", "egt"]
SOLVER_METHODS: dict[str, Method] = {"cfr_plus": "cfr", "lp": "lp", "egt": "egt"}
"""The solver names of the commands and benchmarks (`--solver`, `--solvers`) -> their Method."""

DEFAULT_EPS = 1e-3  # App. B.4, Table 1
DEFAULT_ITERATIONS = 5000
LP_EPS0 = 1e-2
LP_MAX_DECREASES = 8
OPTIMALITY_TOLERANCE = 1e-9  # relative to 1 + max|A|
LP_VERTICES = ("simplex", "ipm", "random:SEED")
"""Which optimal solution `solve_lp` returns without a prior (module docstring)."""


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class GadgetSolution:
    """A solved gadget game.

    Attributes:
      gadget: the gadget game.
      behavioural: both players' strategies on the gadget's sequence form.
      value: the guaranteed value of the solved player's strategy in the unperturbed gadget
        (player i's utility; player 0's for the unsafe subgame), i.e. minus the opponent's
        best-response value against it.
      method: 'cfr', 'lp' or 'egt'.
      eps: the tremble size (0 without a prior).
      prior: the prior (None: plain Nash).
      iterations: solver iterations (0 for the LP).
      optimal_at_zero: LP only: the eps solution is optimal in the unperturbed LP.
      lp_value: LP only: the value V* of the unperturbed LP (player i's utility).
      simplex_iterations: LP only: HiGHS simplex iterations over all solves.
    """

    gadget: GadgetGame
    behavioural: policies.Behavioural
    value: float
    method: Method
    eps: float
    prior: Mapping[str, ArrayLike] | None
    iterations: int = 0
    optimal_at_zero: bool | None = None
    lp_value: float | None = None
    simplex_iterations: int | None = None

    @property
    def unnormalised_value(self) -> float:
        """Scale * value: the value with the chance weights of Section 3 (need not sum to 1)."""
        return self.gadget.scale * self.value


def _solved_player(gadget: GadgetGame) -> int:
    return 0 if gadget.player is None else gadget.player


def lower_bounds(
    gadget: GadgetGame, prior: Mapping[str, ArrayLike] | None, eps: float
) -> BehaviouralLowerBounds | None:
    """The trembles of Definition 2, eps * prior at the auxiliary information sets.

    They are the bounds every solver takes; None without a prior. ValueError unless eps is in
    (0, 1) and every key of the prior is an auxiliary information set of the gadget.
    """
    if prior is None:
        return None
    if not (np.isfinite(eps) and 0 < eps < 1):
        raise ValueError(f"{gadget.sf.name}: eps must be in (0, 1), got {eps}")
    unknown = set(prior) - set(gadget.aux_keys)
    if unknown:
        raise ValueError(
            f"{gadget.sf.name}: prior key {sorted(unknown)[0]!r} is not an auxiliary "
            "information set of the gadget (GGSE trembles only there)"
        )
    return BehaviouralLowerBounds.from_prior(eps, prior)


def _check_iterations(gadget: GadgetGame, iterations: int) -> None:
    if isinstance(iterations, bool) or not isinstance(iterations, int) or iterations < 1:
        raise ValueError(f"{gadget.sf.name}: iterations must be a positive int, got {iterations}")


def solve_cfr(
    gadget: GadgetGame,
    prior: Mapping[str, ArrayLike] | None,
    eps: float = DEFAULT_EPS,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    config: cfr_variants.CFRConfig = cfr_variants.CFR_PLUS,
    time_limit: float | None = None,
) -> GadgetSolution:
    """GGSE by CFR+ with basis matrices at the auxiliary information sets (Section 7.2).

    Plain CFR+ without a prior. Runs through `solver.run` (Ctrl-C or `time_limit` seconds
    return the average so far).
    """
    _check_iterations(gadget, iterations)
    bounds = lower_bounds(gadget, prior, eps)
    solver = cfr_variants.CFRVariantSolver(gadget.sf, config, lower_bounds=bounds)
    e = eps if bounds else 0.0
    return _run_iterative(gadget, solver, "cfr", e, prior=prior, iterations=iterations,
                          time_limit=time_limit)  # fmt: skip


def solve_egt(
    gadget: GadgetGame,
    prior: Mapping[str, ArrayLike] | None,
    eps: float = DEFAULT_EPS,
    *,
    iterations: int = DEFAULT_ITERATIONS,
    dgf_weight: float = 1.0,
    time_limit: float | None = None,
) -> GadgetSolution:
    """GGSE by EGT with the eps * prior-perturbed dilated entropy; plain EGT without a prior."""
    _check_iterations(gadget, iterations)
    bounds = lower_bounds(gadget, prior, eps)
    solver = egt.EGTSolver(gadget.sf, dgf_weight=dgf_weight, lower_bounds=bounds)
    e = eps if bounds else 0.0
    return _run_iterative(gadget, solver, "egt", e, prior=prior, iterations=iterations,
                          time_limit=time_limit)  # fmt: skip


def _run_iterative(
    gadget: GadgetGame,
    solver: solver_lib.Solver,
    method: Method,
    eps: float,
    *,
    prior: Mapping[str, ArrayLike] | None,
    iterations: int,
    time_limit: float | None = None,
) -> GadgetSolution:
    """Runs an iterative solver on the gadget through the one run loop; its average."""
    result = solver_lib.run(solver, iterations, time_limit=time_limit)
    b = solver.average_behavioural()
    i = _solved_player(gadget)
    return GadgetSolution(
        gadget=gadget,
        behavioural=b,
        value=evaluate.guaranteed_value(gadget.sf, b[i], i),
        method=method,
        eps=eps,
        prior=prior,
        iterations=result.iterations,
    )


def _same_strategy(gadget: GadgetGame, a: FloatArray, b: FloatArray, player: int) -> bool:
    """Equal (1e-9) behavioural strategies at the player's non-auxiliary information sets."""
    tp = gadget.sf.treeplexes[player]
    mask = tp.spread(gadget.original_infosets(player).astype(np.float64))[1:] > 0
    return bool(np.allclose(a[1:][mask], b[1:][mask], atol=1e-9, rtol=0))


def parse_vertex(vertex: str) -> tuple[str, int | None]:
    """(HiGHS method, random seed or None) of a `LP_VERTICES` choice; ValueError otherwise."""
    kind, _, seed = vertex.partition(":")
    if vertex in ("simplex", "ipm"):
        return vertex, None
    if kind == "random" and seed.isdigit():
        return "simplex", int(seed)
    raise ValueError(f"unknown LP vertex {vertex!r}; choices: {', '.join(LP_VERTICES)}")


def _parse_vertex(gadget: GadgetGame, vertex: str) -> tuple[str, int | None]:
    try:
        method, seed = parse_vertex(vertex)
    except ValueError as e:
        raise ValueError(f"{gadget.sf.name}: {e}") from None
    if seed is not None and gadget.kind == "unsafe":
        raise ValueError(
            f"{gadget.sf.name}: vertex {vertex!r} applies to resolving and max-margin gadgets "
            "(the unsafe subgame's LP gives both players' strategies)"
        )
    return method, seed


def _random_optimal_plan(
    model: lp_model.SequenceFormLP, objective: float, tolerance: float, seed: int
) -> FloatArray:
    """Player i's realization plan at a random vertex of the LP's optimal face.

    The optimal face is where the objective is within `tolerance` of `objective`; the vertex is
    the one that maximises a Gaussian random linear function.
    """
    n = model.program.column_range("x")
    costs = np.random.default_rng(seed).standard_normal(n.stop - n.start)
    face = model.program.optimal_face(objective, tolerance, lp_model.FIRST_FREE_KIND, {"x": costs})
    result = face.run()
    if not result.optimal:
        raise lp.LPError(f"{model.sequence_form.name}: optimal face: {result.message}")
    return np.maximum(result.column_values[n], 0.0)


def solve_lp(
    gadget: GadgetGame,
    prior: Mapping[str, ArrayLike] | None,
    eps0: float = LP_EPS0,
    *,
    max_decreases: int = LP_MAX_DECREASES,
    require_stable: bool = False,
    vertex: str = "simplex",
) -> GadgetSolution:
    """GGSE by the perturbed sequence-form LP with the eps schedule of Section 7.1.

    See the module docstring; the plain LP (a vertex Nash equilibrium) without a prior.

    Args:
      gadget: the gadget game.
      prior: the prior at the auxiliary information sets, or None.
      eps0: the first eps; eps = eps0 * 10^-k for k = 0 .. max_decreases.
      max_decreases: the most times eps is divided by 10.
      require_stable: also demand that the strategy equal the one at eps / 10 (1e-9).
      vertex: one of `LP_VERTICES` (module docstring): HiGHS's method for every solve, and
        without a prior which optimal vertex is returned ("random:SEED" applies only there).

    If no eps passes, the last solution is returned with `optimal_at_zero=False` and a
    warning is logged.
    """
    method, seed = _parse_vertex(gadget, vertex)
    i = _solved_player(gadget)
    sign = 1.0 if i == 0 else -1.0
    model = lp_model.sequence_form_lp(gadget.sf, player=i)
    base = model.solution(model.run(method=method))
    v_star = sign * base.value
    iterations = base.simplex_iterations
    scale = 1.0 + gadget.sf.max_abs_payoff()
    tolerance = OPTIMALITY_TOLERANCE * scale
    if prior is None:
        behavioural, value = base.behavioural, v_star
        if seed is not None:
            plan = _random_optimal_plan(model, v_star, tolerance, seed)
            own = gadget.sf.treeplexes[i].behavioural(plan)
            behavioural = (own, base.behavioural[1]) if i == 0 else (base.behavioural[0], own)
            value = evaluate.guaranteed_value(gadget.sf, own, i)
        return GadgetSolution(
            gadget=gadget,
            behavioural=behavioural,
            value=value,
            method="lp",
            eps=0.0,
            prior=None,
            optimal_at_zero=True,
            lp_value=v_star,
            simplex_iterations=iterations,
        )
    if isinstance(max_decreases, bool) or not isinstance(max_decreases, int) or max_decreases < 0:
        raise ValueError(f"{gadget.sf.name}: max_decreases must be an int >= 0")

    def solve_at(eps: float) -> lp_model.LPSolution:
        bounds = lower_bounds(gadget, prior, eps)
        assert bounds is not None
        perturbed = model.add_lower_bounds(bounds, own=False)
        return perturbed.solution(perturbed.run(method=method))

    eps, solution, ok = eps0, None, False
    for k in range(max_decreases + 1):
        eps = eps0 * 10.0**-k
        solution = solve_at(eps)
        iterations += solution.simplex_iterations
        value = evaluate.guaranteed_value(gadget.sf, solution.behavioural[i], i)
        ok = abs(value - v_star) <= tolerance
        if ok and require_stable:
            finer = solve_at(eps / 10)
            iterations += finer.simplex_iterations
            ok = _same_strategy(gadget, solution.behavioural[i], finer.behavioural[i], i)
        if ok:
            warm = model.run(warm_start=solution.basis)
            logging.vlog(
                1,
                "%s: eps %.1e stays optimal at eps = 0 (the eps = 0 LP warm-started from its "
                "basis took %d simplex iterations)",
                gadget.sf.name,
                eps,
                warm.simplex_iterations,
            )
            break
    assert solution is not None
    if not ok:
        logging.warning(
            "%s: no eps down to %.1e gave a solution optimal at eps = 0; returning the last",
            gadget.sf.name,
            eps,
        )
    return GadgetSolution(
        gadget=gadget,
        behavioural=solution.behavioural,
        value=evaluate.guaranteed_value(gadget.sf, solution.behavioural[i], i),
        method="lp",
        eps=eps,
        prior=prior,
        optimal_at_zero=ok,
        lp_value=v_star,
        simplex_iterations=iterations,
    )


def solve(
    gadget: GadgetGame,
    prior: Mapping[str, ArrayLike] | None,
    method: Method = "cfr",
    *,
    eps: float | None = None,
    iterations: int = DEFAULT_ITERATIONS,
    time_limit: float | None = None,
    lp_vertex: str = "simplex",
) -> GadgetSolution:
    """`solve_cfr`, `solve_lp` or `solve_egt` by name.

    `eps` (default: `DEFAULT_EPS`, for the LP `LP_EPS0`) is the LP's first eps; `time_limit`
    (seconds) bounds CFR+ and EGT; `lp_vertex` is `solve_lp`'s `vertex`.
    """
    e = DEFAULT_EPS if eps is None else eps
    if method == "cfr":
        return solve_cfr(gadget, prior, e, iterations=iterations, time_limit=time_limit)
    if method == "lp":
        return solve_lp(gadget, prior, eps0=LP_EPS0 if eps is None else eps, vertex=lp_vertex)
    if method == "egt":
        return solve_egt(gadget, prior, e, iterations=iterations, time_limit=time_limit)
    raise ValueError(f"{gadget.sf.name}: unknown method {method!r}; methods: cfr, lp, egt")
