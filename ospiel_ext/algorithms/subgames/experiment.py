"""The experiment grid of Section 8 and Appendix B as a sweep of independent tasks.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 8 (Figures 2, 3, 18, 19) and Appendix B.1 (paired
t-tests): for every game, cut and blueprint, every technique resolves every subgame of the cut
for both players; the record is the exploitability of the spliced profile against the
blueprint's, plus each player's E(pi_i) and the Theorem 1 quantities.

A `Task` is one (game, cut, blueprint, technique, solver, iterations, eps); `run_task` (a
module-level function, so any `concurrent.futures` executor, local processes or a Dask cluster,
can run it) solves all subgames x players of the task in one CFR+ run on their disjoint union
(`batch.solve_cfr_batch`) or one LP per gadget, and returns a frozen `Record`. The blueprint's
behavioural arrays travel inside the task (CFR checkpoints come from one run in the parent,
`blueprints.make_blueprints`), so a worker never repeats the blueprint's CFR run.

Techniques (`TECHNIQUES`): resolving and max-margin with no / uniform / blueprint prior, the
unsafe subgame, and the optimal continuation (Definition 3, one LP per player; its solver is
always the LP).
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import itertools
import time
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np

from ospiel_ext import evaluate, lp, policies
from ospiel_ext.algorithms.subgames import blueprints, combine, cuts, gadgets, ggse, priors
from ospiel_ext.runtime import sweeps

TECHNIQUES: tuple[str, ...] = (
    "resolving/none",
    "resolving/uniform",
    "resolving/blueprint",
    "max_margin/none",
    "max_margin/uniform",
    "max_margin/blueprint",
    "unsafe",
    "optimal_continuation",
)
NO_PRIOR = ("resolving/none", "max_margin/none")
"""The techniques whose gadget LP has many optimal solutions (`ggse.LP_VERTICES` picks one)."""
SOLVERS = ("cfr_plus", "lp", "egt")


def parse_technique(technique: str) -> tuple[str, str]:
    """(gadget kind, prior kind) of a technique name."""
    if technique not in TECHNIQUES:
        raise ValueError(f"unknown technique {technique!r}; techniques: {TECHNIQUES}")
    kind, _, prior = technique.partition("/")
    return kind, prior or "none"


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Task:
    """One solve of the grid.

    Attributes:
      game: a pyspiel.load_game string.
      cut: a `cuts.parse_cut` spec.
      blueprint: its label ('cfr:N', 'dirichlet:SEED' or a file name).
      behavioural: the blueprint's behavioural arrays.
      technique: one of `TECHNIQUES`.
      solver: 'cfr_plus', 'lp' or 'egt'.
      iterations: CFR+ / EGT iterations.
      eps: GGSE tremble size (the LP's first eps).
      lp_vertex: which optimal solution the LP returns (`ggse.LP_VERTICES`).
    """

    game: str
    cut: str
    blueprint: str
    behavioural: policies.Behavioural
    technique: str
    solver: str
    iterations: int
    eps: float
    lp_vertex: str = "simplex"

    def __repr__(self) -> str:  # one line for progress and errors, without the arrays
        vertex = "" if self.lp_vertex == "simplex" else f", {self.lp_vertex}"
        return (
            f"Task({self.game}, {self.cut}, {self.blueprint}, {self.technique}, {self.solver}, "
            f"{self.iterations} it., eps={self.eps}{vertex})"
        )


@dataclasses.dataclass(frozen=True, kw_only=True)
class Record:
    """The outcome of one `Task` (all exploitabilities in OpenSpiel's sense).

    Attributes:
      game, cut, blueprint, technique, solver, iterations, eps: the task's.
      subgames: the number of subgames of the cut (all are resolved).
      blueprint_exploitability: of the blueprint profile, (E(pi_0) + E(pi_1)) / 2.
      exploitability: of the profile with every subgame resolved for both players.
      blueprint_player_exploitability: E(pi_bar_i) per player (Section 2).
      player_exploitability: E(pi_i) per player after resolving.
      gain: E(pi_bar_i) - E(pi_i) per player.
      theorem1_bound: Theorem 1's lower bound on `gain` per player.
      min_delta: the smallest Delta(s_o) over the root information sets, per player.
      seconds: wall time of the task.
      lp_vertex: the task's.
    """

    game: str
    cut: str
    blueprint: str
    technique: str
    solver: str
    iterations: int
    eps: float
    subgames: int
    blueprint_exploitability: float
    exploitability: float
    blueprint_player_exploitability: tuple[float, float]
    player_exploitability: tuple[float, float]
    gain: tuple[float, float]
    theorem1_bound: tuple[float, float]
    min_delta: tuple[float, float]
    seconds: float
    lp_vertex: str = "simplex"

    def as_dict(self) -> dict:
        """The record as a dict of its fields (`dataclasses.asdict`)."""
        return dataclasses.asdict(self)


def check_task(task: Task) -> None:
    """ValueError naming the game unless the task's options are valid."""
    parse_technique(task.technique)
    cuts.parse_cut(task.cut)
    if task.solver not in SOLVERS:
        raise ValueError(f"{task.game}: unknown solver {task.solver!r}; solvers: {SOLVERS}")
    if not (np.isfinite(task.eps) and 0 < task.eps < 1):
        raise ValueError(f"{task.game}: eps must be in (0, 1), got {task.eps}")
    if isinstance(task.iterations, bool) or task.iterations < 1:
        raise ValueError(f"{task.game}: iterations must be positive, got {task.iterations}")
    try:
        ggse.parse_vertex(task.lp_vertex)
    except ValueError as e:
        raise ValueError(f"{task.game}: {e}") from None
    if task.lp_vertex != "simplex" and (task.solver != "lp" or task.technique not in NO_PRIOR):
        raise ValueError(
            f"{task.game}: lp_vertex {task.lp_vertex!r} needs the LP and a technique without "
            f"a prior ({', '.join(NO_PRIOR)})"
        )


def resolve_profile(
    q: blueprints.BlueprintQuantities,
    subs: Sequence[cuts.Subgame],
    technique: str,
    *,
    solver: str,
    iterations: int,
    eps: float,
    value0: float,
    lp_vertex: str = "simplex",
) -> tuple[policies.Behavioural, combine.Resolution | None]:
    """The blueprint with every subgame in `subs` resolved by `technique`, and the `Resolution`.

    Every subgame is resolved for both players (CFR+ in one batched run; `lp_vertex` as
    `combine.resolve`'s); the `Resolution` is None for the optimal continuation.
    """
    kind, prior = parse_technique(technique)
    if kind == "optimal_continuation":
        oc = [combine.optimal_continuation(q, p, subs, value0=value0) for p in (0, 1)]
        return (oc[0].behavioural[0], oc[1].behavioural[1]), None
    method = ggse.SOLVER_METHODS[solver]
    resolution = combine.resolve(
        q,
        subs,
        cast(gadgets.GadgetKind, kind),  # parse_technique checked both names
        prior=cast(priors.PriorKind, prior),
        method=method,
        eps=eps,
        iterations=iterations,
        batch=method == "cfr",
        lp_vertex=lp_vertex,
    )
    return resolution.behavioural, resolution


def run_task(task: Task) -> Record:
    """Solves one task (module docstring); top-level so that any executor can pickle it."""
    start = time.perf_counter()
    check_task(task)
    sf = blueprints.full_game(task.game)
    subs = cuts.subgames(sf.tree, cuts.parse_cut(task.cut))
    before = blueprints.BlueprintQuantities.compute(sf, task.behavioural)
    value0 = lp.game_value(sf)
    profile, _ = resolve_profile(
        before,
        subs,
        task.technique,
        solver=task.solver,
        iterations=task.iterations,
        eps=task.eps,
        value0=value0,
        lp_vertex=task.lp_vertex,
    )
    after = blueprints.BlueprintQuantities.compute(sf, profile)
    reports = [combine.safety_report(before, after, subs, player=p, value0=value0) for p in (0, 1)]
    return Record(
        game=task.game,
        cut=task.cut,
        blueprint=task.blueprint,
        technique=task.technique,
        solver=task.solver,
        iterations=task.iterations,
        eps=task.eps,
        subgames=len(subs),
        blueprint_exploitability=evaluate.evaluate_profile(sf, before.blueprint).exploitability,
        exploitability=evaluate.evaluate_profile(sf, profile).exploitability,
        blueprint_player_exploitability=(
            reports[0].blueprint_exploitability,
            reports[1].blueprint_exploitability,
        ),
        player_exploitability=(reports[0].exploitability, reports[1].exploitability),
        gain=(reports[0].gain, reports[1].gain),
        theorem1_bound=(reports[0].theorem1_bound, reports[1].theorem1_bound),
        min_delta=(reports[0].min_delta, reports[1].min_delta),
        seconds=time.perf_counter() - start,
        lp_vertex=task.lp_vertex,
    )


def grid(
    cases: Sequence[tuple[str, str]],
    blueprint_sets: Sequence[Sequence[tuple[str, policies.Behavioural]]],
    techniques: Sequence[str],
    *,
    solvers: Sequence[str],
    iterations: int = ggse.DEFAULT_ITERATIONS,
    eps: float = ggse.DEFAULT_EPS,
    lp_vertices: Sequence[str] = ("simplex",),
) -> list[Task]:
    """Every (case, blueprint, technique, solver); `blueprint_sets[k]` are case k's blueprints.

    The optimal continuation is an LP whatever the solver: it appears once, with 'lp'. LP
    tasks of a technique without a prior (resolving/none, max_margin/none), whose gadget LP has
    many optimal solutions, are run once per `lp_vertices` (`ggse.LP_VERTICES`); the others
    with the first.
    """
    tasks = []
    for (game, cut), bps in zip(cases, blueprint_sets, strict=True):
        for (label, b), technique, solver in itertools.product(bps, techniques, solvers):
            if technique == "optimal_continuation" and solver != solvers[-1]:
                continue
            s = "lp" if technique == "optimal_continuation" else solver
            vertices = lp_vertices if s == "lp" and technique in NO_PRIOR else lp_vertices[:1]
            for v in vertices:
                tasks.append(
                    Task(
                        game=game,
                        cut=cut,
                        blueprint=label,
                        behavioural=b,
                        technique=technique,
                        solver=s,
                        iterations=iterations,
                        eps=eps,
                        lp_vertex=v,
                    )
                )
    for t in tasks:
        check_task(t)
    return tasks


def sweep(
    tasks: Sequence[Task],
    executor: cf.Executor,
    stop: Callable[[], bool] | None = None,
) -> sweeps.SweepResult[Record]:
    """`run_task` over `tasks` on the executor (`sweeps.map_tasks`).

    Ctrl-C / stop() return the finished records.
    """
    return sweeps.map_tasks(run_task, tasks, executor, stop=stop)


@dataclasses.dataclass(frozen=True, kw_only=True)
class TTest:
    """Appendix B.1's paired one-sided t-test of two techniques over matched blueprints.

    H1: the row technique's exploitability is lower than the column's
    (`scipy.stats.ttest_rel(row, column, alternative="less")`); a small `p_value` means the
    row is better. `mean_difference` is mean(row - column).
    """

    game: str
    cut: str
    solver: str
    row: str
    column: str
    n: int
    statistic: float
    p_value: float
    mean_difference: float


def paired_t_tests(records: Sequence[Record], techniques: Sequence[str]) -> list[TTest]:
    """Appendix B.1's t-test for every (game, cut, solver) and ordered pair of techniques.

    For every (game, cut, solver) and ordered pair of distinct techniques, the test over the
    blueprints both were run on (pairs with fewer than two blueprints are left out).
    Optimal-continuation records (always LP) are matched to every solver.
    """
    import scipy.stats  # 0.4 s: only where the t-tests are made

    exp: dict[tuple[str, str, str, str], dict[str, float]] = {}
    solvers = sorted({r.solver for r in records if r.technique != "optimal_continuation"})
    for r in records:
        for s in solvers if r.technique == "optimal_continuation" else [r.solver]:
            exp.setdefault((r.game, r.cut, s, r.technique), {})[r.blueprint] = r.exploitability
    out = []
    for game, cut in dict.fromkeys((r.game, r.cut) for r in records):
        for s in solvers:
            for row, col in itertools.permutations(techniques, 2):
                a, b = exp.get((game, cut, s, row), {}), exp.get((game, cut, s, col), {})
                common = sorted(set(a) & set(b))
                if len(common) < 2:
                    continue
                x = np.array([a[k] for k in common])
                y = np.array([b[k] for k in common])
                test = scipy.stats.ttest_rel(x, y, alternative="less")
                out.append(
                    TTest(
                        game=game,
                        cut=cut,
                        solver=s,
                        row=row,
                        column=col,
                        n=len(common),
                        statistic=float(test.statistic),
                        p_value=float(test.pvalue),
                        mean_difference=float(np.mean(x - y)),
                    )
                )
    return out
