"""RPS+ (Brown, Sandholm & Amos 2018, Section 2 and Figure 1; benchmarks/papers/depth_limited.py,
item 1 of its docstring): player 0 solves the depth-limited game cut after its own move with
K = 1..4 values from each set, and a grid over the simplex finds every strategy optimal in that
game."""

import dataclasses
import time

import numpy as np
from depth_limited_report import markdown

from ospiel_ext import evaluate, lp
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.compiled.strategy_sets import sequence_labels
from ospiel_ext.algorithms.subgames import ggse
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import output as cli_output

RPS_EQUILIBRIUM = (0.4, 0.4, 0.2)  # Section 2
RPS_MAX_K = 4
GRID_STEP = 0.01
OPTIMAL_TOLERANCE = 1e-9


@dataclasses.dataclass(frozen=True, kw_only=True)
class RpsRow:
    """Player 0's depth-limited solution of RPS+ with one set, K and solver.

    Attributes:
      solver, set, K: the solve's.
      labels: the K continuations of player 1 (their labels).
      strategy: player 0's (R, P, S).
      depth_limited_value: what the strategy guarantees in the depth-limited game.
      optimal_value: the depth-limited game's value (by the LP whatever the solver).
      exploitability: player 0's in the full game.
      equilibrium: the strategy is (0.4, 0.4, 0.2) to 2e-3.
      grid_optimal: how many grid points are optimal in the depth-limited game.
      grid_optimal_max_exploitability: the worst full-game exploitability among them.
      seconds: the solve's.
    """

    solver: str
    set: str
    K: int
    labels: list
    strategy: list
    depth_limited_value: float
    optimal_value: float
    exploitability: float
    equilibrium: bool
    grid_optimal: int
    grid_optimal_max_exploitability: float | None
    seconds: float

    def as_json(self):
        """The row in the results file (figures to 6 significant digits)."""
        return {
            f.name: cli_output.round_figures(getattr(self, f.name))
            for f in dataclasses.fields(self)
        }


def _simplex_grid(step):
    n = round(1 / step)
    pts = [(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)]
    return np.array(pts, dtype=np.float64) / n


def _rps_sets(settings, sf, q, *, limit, subs, solver, checks):
    """{set: leaves with RPS_MAX_K values or fewer} for player 0. The blueprint is an exact
    equilibrium, so weakening changes nothing: the unweakened self-generative set is checked
    equal to the weakened one and not listed."""
    bp = q.blueprint
    out = {}
    if "pure" in settings.sets:
        pure = dl.pure_continuations(sf, limit, bp[1], player=1)
        strings, _ = sequence_labels(sf, 1)
        labels = [f"P1 plays {strings[int(np.argmax(b[1:])) + 1]}" for b in pure]
        out["pure"] = dl.exact_values(sf, limit, bp, player=0, strategies=pure, labels=labels)
    if "bias" in settings.sets:
        strategies, labels = dl.bias_strategies(sf, bp, 1)
        out["bias"] = dl.exact_values(sf, limit, bp, player=0, strategies=strategies, labels=labels)

    def generate(weaken):
        return dl.self_generative(
            q, subs, limit, player=0, num_values=RPS_MAX_K, gadget="unsafe",
            method=ggse.SOLVER_METHODS[solver], iterations=settings.iterations,
            weaken=weaken, lp_vertex=settings.lp_vertex,
        )  # fmt: skip

    if "self_generative" in settings.sets:
        out["self_generative"] = generate(True)
        if "self_generative_unweakened" in settings.sets:
            raw = generate(False)
            if not np.allclose(raw.values, out["self_generative"].values, atol=1e-12):
                checks.append(f"rps_plus ({solver}): weakening changed the values")
    return out


def run_rps_plus(settings, checks):
    """Section 2 / Figure 1 on RPS+ (module docstring): the rows, and {(solver, set, K): the
    grid points optimal in the depth-limited game}; a failed check is appended to
    `checks`."""
    sf = cli.compile_game(cli.load_game("rps_plus"))
    blueprint = lp.solve(sf).behavioural
    v0 = lp.game_value(sf)
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    limit = dl.depth_limit(sf.tree, ss.Cut.after_moves(1))
    subs = dl.start_subgames(sf.tree)
    # leaf row -> player 0's action (the last action of each leaf's history); player 0's
    # sequences 1, 2, 3 are its actions 0, 1, 2 = R, P, S
    if sequence_labels(sf, 0)[0] != ["", "R", "P", "S"]:
        raise ValueError(f"rps_plus: unexpected actions {sequence_labels(sf, 0)}")
    action_of_leaf = np.array([sf.tree.history(int(h))[-1] for h in limit.nodes])
    grid = _simplex_grid(GRID_STEP)  # rows: (R, P, S) probabilities
    grid_exploitability = np.array(
        [evaluate.player_exploitability(sf, np.concatenate([[1.0], x]), 0, v0) for x in grid]
    )
    rows, optimal_sets = [], {}
    for solver in settings.solvers:
        method = ggse.SOLVER_METHODS[solver]
        for name, leaves in _rps_sets(
            settings, sf, q, limit=limit, subs=subs, solver=solver, checks=checks
        ).items():
            for k in range(1, min(RPS_MAX_K, leaves.num_values) + 1):
                sub_leaves = leaves.select(range(k))
                start = time.perf_counter()
                sol = dl.solve_depth_limited(
                    q,
                    subs,
                    sub_leaves,
                    method=method,
                    iterations=settings.iterations,
                    lp_vertex=settings.lp_vertex,
                )
                seconds = time.perf_counter() - start
                x = sol.behavioural[0][1:]
                e = evaluate.player_exploitability(sf, sol.behavioural[0], 0, v0)
                # The depth-limited game by hand: player 1 picks, at its one leaf information
                # set, the column n minimising sum_a x_a v(a, n).
                values = np.zeros((3, k))
                values[action_of_leaf] = sub_leaves.values
                guaranteed = (grid @ values).min(axis=1)
                dl_value = float((x @ values).min())
                gadget_value = float(sol.solutions[0].value)
                if abs(gadget_value - dl_value) > 1e-9:
                    checks.append(f"rps_plus {name} K={k}: gadget {gadget_value} != {dl_value}")
                # the depth-limited game's value, by the LP whatever the solver
                if solver == "lp":
                    v_star = dl_value
                else:
                    exact = dl.solve_depth_limited(
                        q, subs, sub_leaves, method="lp", lp_vertex=settings.lp_vertex
                    ).behavioural[0][1:]
                    v_star = float((exact @ values).min())
                optimal = guaranteed >= v_star - OPTIMAL_TOLERANCE
                optimal_sets[solver, name, k] = grid[optimal]
                rows.append(
                    RpsRow(
                        solver=solver,
                        set=name,
                        K=k,
                        labels=list(sub_leaves.labels),
                        strategy=[float(v) for v in x],
                        depth_limited_value=dl_value,
                        optimal_value=v_star,
                        exploitability=float(e),
                        equilibrium=bool(np.allclose(x, RPS_EQUILIBRIUM, atol=2e-3)),
                        grid_optimal=int(optimal.sum()),
                        grid_optimal_max_exploitability=(
                            float(grid_exploitability[optimal].max()) if optimal.any() else None
                        ),
                        seconds=seconds,
                    )
                )
    return rows, optimal_sets


def rps_table(rows):
    """The printed table of the RPS+ rows."""
    header = ["solver", "set", "K", "depth-limited solution (R, P, S)", "DL value of it",
              "E (full game)", "= (0.4, 0.4, 0.2)?", "optimal grid points",
              "max E among them"]  # fmt: skip
    table = [
        [
            r.solver,
            r.set,
            r.K,
            "(" + ", ".join(f"{v:.3f}" for v in r.strategy) + ")",
            r.depth_limited_value,
            r.exploitability,
            "yes" if r.equilibrium else "no",
            r.grid_optimal,
            r.grid_optimal_max_exploitability,
        ]
        for r in rows
    ]
    return markdown(header, table)


def rps_plot(settings, plt, path, optimal_sets):
    """Figure 1 analogue: per (set, K), the strategies of player 0 optimal in the depth-limited
    game (LP solver) on the simplex, and the equilibrium."""
    keys = [k for k in optimal_sets if k[0] == ("lp" if "lp" in settings.solvers else k[0])]
    sets = list(dict.fromkeys(k[1] for k in keys))
    fig, axes = plt.subplots(
        len(sets), RPS_MAX_K, figsize=(2.6 * RPS_MAX_K, 2.5 * len(sets)), squeeze=False
    )
    corners = np.array([[0.0, 0.0], [1.0, 0.0], [0.5, np.sqrt(3) / 2]])  # R, P, S
    eq = np.array(RPS_EQUILIBRIUM) @ corners
    for r, name in enumerate(sets):
        for k in range(1, RPS_MAX_K + 1):
            ax = axes[r][k - 1]
            ax.plot(*np.vstack([corners, corners[:1]]).T, "k-", lw=0.6)
            pts = optimal_sets.get((keys[0][0], name, k))
            if pts is not None and len(pts):
                xy = pts @ corners
                ax.scatter(xy[:, 0], xy[:, 1], s=2 if len(pts) > 3 else 60, color="tab:blue")
            elif pts is None:
                ax.text(0.5, 0.3, "n/a", ha="center")
            ax.plot(*eq, marker="*", ms=13, mfc="none", mec="red", zorder=5)
            for c, label in zip(corners, "RPS"):
                ax.annotate(label, c, fontsize=7, ha="center", va="bottom")
            ax.set_axis_off()
            ax.set_aspect("equal")
            ax.set_title(f"{name}, K={k}", fontsize=8)
    fig.suptitle(
        "RPS+: player 0's strategies optimal in the depth-limited game (blue; grid step "
        f"{GRID_STEP}), the equilibrium (red star)"
    )
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=90)
    plt.close(fig)
