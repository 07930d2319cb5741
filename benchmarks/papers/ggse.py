r"""Reproduce Section 8 and Appendix B of Kubíček, Lisý & Sandholm (2025), "Equilibrium
Refinements Improve Subgame Solving in Imperfect-Information Games".

  python benchmarks/papers/ggse.py --workers=2 --output_json=docs/results/ggse.json \
      --plots_dir=docs/results

Games (App. C): imperfect-information Goofspiel 5 (cards dealt from highest to lowest, cut
after one and two rounds = 2 and 4 moves of the turn-based game), Leduc hold'em (cut after the
public card), Liar's dice 1,4 (cut after the first bid). Blueprints: checkpoints of one vanilla
CFR run at --cfr_blueprints log-spaced iterations up to --cfr_max_iterations, and
--dirichlet_blueprints Dirichlet(1) strategies (seeds 0..). Every technique (resolving /
max-margin x no / uniform / blueprint prior, unsafe, optimal continuation) resolves every
subgame of the cut for both players, with each --solvers (CFR+ --iterations, eps --tremble; the
LP). The grid runs through `executors.executor` (local processes; --scheduler=HOST:PORT runs it on
a Dask cluster). Writes Figure 2 (CFR+) / Figure 19 (LP) scatter plots, Figure 3 convergence
curves (--convergence_iterations on the first CFR checkpoint of each case), Figure 18 (unsafe
minus resolving with the blueprint prior), prints markdown tables (summary and Appendix B.1's
paired one-sided t-tests) and the JSON (one row per record).

Without a prior the gadget LP has many optimal solutions, and which one the solver returns
decides the full-game exploitability (the paper's argument for refinements). The LP tasks of
resolving/none and max_margin/none are therefore also run with each further --lp_vertices
(interior point with crossover, and random vertices of the optimal face: `ggse.LP_VERTICES`);
two more tables give the spread and the max-margin - resolving comparison per vertex. The other
tables and figures use the first vertex (HiGHS's dual simplex).
"""

import collections
import dataclasses

import numpy as np
from absl import app, flags

from ospiel_ext.algorithms.subgames import blueprints, ggse
from ospiel_ext.algorithms.subgames import experiment as ex
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import executors

GOOFSPIEL_5 = (
    "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=5,"
    "points_order=descending))"
)
CASES = {
    "goofspiel": [(GOOFSPIEL_5, "after_moves=2"), (GOOFSPIEL_5, "after_moves=4")],
    "leduc": [("leduc_poker", "public_chance")],
    "liars_dice": [("liars_dice(numdice=1,dice_sides=4)", "after_moves=1")],
}
SHORT = {GOOFSPIEL_5: "goofspiel5", "liars_dice(numdice=1,dice_sides=4)": "liars_dice_1_4"}
CONVERGENCE_TECHNIQUES = (
    "resolving/none",
    "resolving/blueprint",
    "max_margin/none",
    "max_margin/blueprint",
    "unsafe",
)

_GAMES = flags.DEFINE_list("games", list(CASES), f"Games among {list(CASES)}.")
_CFR = flags.DEFINE_integer("cfr_blueprints", 25, "CFR checkpoint blueprints per game.", 0)
_CFR_MAX = flags.DEFINE_integer("cfr_max_iterations", 1000, "Last CFR checkpoint.", 1)
_DIRICHLET = flags.DEFINE_integer("dirichlet_blueprints", 20, "Dirichlet(1) blueprints.", 0)
_SOLVERS = flags.DEFINE_list("solvers", ["cfr_plus", "lp"], "Gadget solvers (cfr_plus, lp).")
_TECHNIQUES = flags.DEFINE_list("techniques", list(ex.TECHNIQUES), "Techniques.")
_ITERATIONS = flags.DEFINE_integer("iterations", 5000, "CFR+ iterations (Table 1).", 1)
_TREMBLE = flags.DEFINE_float("tremble", 1e-3, "GGSE tremble size, the paper's epsilon (Table 1).")
cli_flags.rename("epsilon", "tremble")
_CONVERGENCE = flags.DEFINE_list(
    "convergence_iterations",
    ["10", "30", "100", "300", "1000", "3000"],
    "Figure 3: CFR+ iteration counts (besides --iterations) on one blueprint; empty: none.",
)
_LP_VERTICES = flags.DEFINE_list(
    "lp_vertices",
    ["simplex", "ipm", *(f"random:{k}" for k in range(6))],
    "Optimal solutions of the gadget LPs without a prior to compare (ggse.LP_VERTICES); the "
    "first is the grid's.",
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Stop the sweep after this many seconds.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the records here as JSON.")
_PLOTS_DIR = flags.DEFINE_string("plots_dir", None, "Write the PNGs here.")
_SCHEDULER = executors.define_scheduler_flag()
_WORKERS = executors.define_workers_flag()


def _checkpoints(count, last):
    """`count` strictly increasing, roughly log-spaced CFR iteration counts ending at `last`."""
    out = []
    for v in np.geomspace(1, last, count) if count else []:
        out.append(max(round(v), out[-1] + 1 if out else 1))
    return out


def _name(game, cut):
    return f"{SHORT.get(game, game)} {cut}"


def _tasks(cases):
    blueprint_sets = []
    cache = {}
    for game, _ in cases:
        if game not in cache:
            cache[game] = blueprints.make_blueprints(
                game, _checkpoints(_CFR.value, _CFR_MAX.value), range(_DIRICHLET.value)
            )
        blueprint_sets.append(cache[game])
    tasks = ex.grid(
        cases,
        blueprint_sets,
        _TECHNIQUES.value,
        solvers=_SOLVERS.value,
        iterations=_ITERATIONS.value,
        eps=_TREMBLE.value,
        lp_vertices=_LP_VERTICES.value,
    )
    counts = sorted({int(k) for k in _CONVERGENCE.value if int(k) < _ITERATIONS.value})
    if counts and "cfr_plus" in _SOLVERS.value:
        convergence = [bps[:1] for bps in blueprint_sets]
        techniques = [t for t in CONVERGENCE_TECHNIQUES if t in _TECHNIQUES.value]
        for k in counts:
            tasks += ex.grid(
                cases,
                convergence,
                techniques,
                solvers=["cfr_plus"],
                iterations=k,
                eps=_TREMBLE.value,
            )
    return tasks


def _in_grid(r):
    """A record of the main grid (not a Figure 3 convergence run, not another LP vertex)."""
    lp = r.solver == "lp"
    return (r.iterations == _ITERATIONS.value or lp) and r.lp_vertex == _LP_VERTICES.value[0]


def _summary(records):
    groups = collections.defaultdict(list)
    for r in records:
        if _in_grid(r):
            groups[_name(r.game, r.cut), r.solver, r.technique].append(r)
    rows = []
    for (case, solver, technique), rs in groups.items():
        bp = np.array([r.blueprint_exploitability for r in rs])
        e = np.array([r.exploitability for r in rs])
        worse = sum(
            r.player_exploitability[p] > r.blueprint_player_exploitability[p] + 1e-9
            for r in rs
            for p in (0, 1)
        )
        rows.append(
            [
                case,
                solver,
                technique,
                len(rs),
                float(bp.mean()),
                float(e.mean()),
                float(np.mean(1 - e / bp)),
                float(np.max(1 - e / bp)),
                worse,
                float(np.mean([r.seconds for r in rs])),
            ]
        )
    header = [
        "case",
        "solver",
        "technique",
        "n",
        "mean E(blueprint)",
        "mean E(resolved)",
        "mean reduction",
        "max reduction",
        "E_i worse (of 2n)",
        "s/task",
    ]
    return header, rows


def _vertex_table(records):
    """{(case, technique): {vertex: {blueprint: E}}} of the LP records without a prior."""
    out = collections.defaultdict(lambda: collections.defaultdict(dict))
    for r in records:
        if r.solver == "lp" and r.technique in ex.NO_PRIOR:
            out[_name(r.game, r.cut), r.technique][r.lp_vertex][r.blueprint] = r.exploitability
    return out


def _vertex_spread(records):
    """How far the choice among the gadget LP's optimal solutions moves the exploitability:
    per case and technique without a prior, the mean over the blueprints for the grid's
    vertex and the others, and the per-blueprint range over all vertices."""
    header = ["case", "technique", "n", "vertices", *(f"mean E {v}" for v in ("simplex", "ipm")),
              "lowest mean", "highest mean", "mean range per blueprint", "max range"]  # fmt: skip
    rows = []
    for (case, technique), by_vertex in _vertex_table(records).items():
        common = sorted(set.intersection(*(set(e) for e in by_vertex.values())))
        if not common or len(by_vertex) < 2:
            continue
        e = np.array([[by_vertex[v][b] for b in common] for v in by_vertex])  # vertex x bp
        means = dict(zip(by_vertex, e.mean(axis=1)))
        span = e.max(axis=0) - e.min(axis=0)
        rows.append(
            [case, technique, len(common), len(by_vertex),
             *(float(means[v]) if v in means else "" for v in ("simplex", "ipm")),
             float(e.mean(axis=1).min()), float(e.mean(axis=1).max()), float(span.mean()),
             float(span.max())]
        )  # fmt: skip
    return header, rows


def _vertex_comparison(records):
    """max_margin/none - resolving/none per case and LP vertex: the mean difference over the
    blueprints and the one-sided paired t-test's p for "max-margin is lower" (as App. B.1)."""
    import scipy.stats  # 0.4 s: only where the t-tests are made

    table = _vertex_table(records)
    header = ["case", "vertex", "n", "mean E resolving", "mean E max-margin",
              "mean difference", "p (max-margin lower)"]  # fmt: skip
    rows = []
    for case in dict.fromkeys(c for c, _ in table):
        res, mm = table.get((case, "resolving/none")), table.get((case, "max_margin/none"))
        if not res or not mm:
            continue
        for v in [v for v in res if v in mm]:
            common = sorted(set(res[v]) & set(mm[v]))
            if len(common) < 2:
                continue
            a = np.array([mm[v][b] for b in common])
            b = np.array([res[v][b] for b in common])
            p = scipy.stats.ttest_rel(a, b, alternative="less").pvalue
            rows.append([case, v, len(common), float(b.mean()), float(a.mean()),
                         float((a - b).mean()), float(p)])  # fmt: skip
    return header, rows


def _scatter(plt, path, records, *, solver, title):
    cases = list(dict.fromkeys(_name(r.game, r.cut) for r in records))
    fig, axes = plt.subplots(1, len(cases), figsize=(4.5 * len(cases), 4.2), squeeze=False)
    for ax, case in zip(axes[0], cases):
        for technique in ex.TECHNIQUES:
            rs = [
                r
                for r in records
                if _name(r.game, r.cut) == case
                and r.technique == technique
                and (r.solver == solver or technique == "optimal_continuation")
                and _in_grid(r)
            ]
            if rs:
                ax.scatter(
                    [r.blueprint_exploitability for r in rs],
                    [r.exploitability for r in rs],
                    s=10,
                    label=technique,
                )
        lim = max(r.blueprint_exploitability for r in records if _name(r.game, r.cut) == case)
        ax.plot([0, lim], [0, lim], "k--", lw=0.7)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("blueprint exploitability")
        ax.set_ylabel("resolved exploitability")
        ax.set_title(case, fontsize=9)
    axes[0][0].legend(fontsize=6)
    fig.suptitle(title)
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=90)
    plt.close(fig)


def _plots(records, out_dir):
    plt = cli_output.pyplot()
    paths = []
    for solver, fig_name in (("cfr_plus", "fig2"), ("lp", "fig19")):
        if any(r.solver == solver for r in records):
            path = f"{out_dir}/ggse_{fig_name}.png"
            title = f"resolved vs blueprint exploitability ({solver})"
            _scatter(plt, path, records, solver=solver, title=title)
            paths.append(path)
    for plot in (_convergence_plot, _fig18_plot):
        path = plot(plt, records, out_dir)
        if path is not None:
            paths.append(path)
    return paths


def _convergence_plot(plt, records, out_dir):
    """Figure 3 (CFR+ iterations against exploitability) if some case has several iteration
    counts; returns its path or None."""
    runs = collections.defaultdict(set)
    for r in records:
        if r.solver == "cfr_plus":
            runs[r.game, r.cut, r.blueprint].add(r.iterations)
    curves = [
        r for r in records if r.solver == "cfr_plus" and len(runs[r.game, r.cut, r.blueprint]) > 1
    ]
    cases = list(dict.fromkeys(_name(r.game, r.cut) for r in curves))
    if not cases:
        return None
    fig, axes = plt.subplots(1, len(cases), figsize=(4.5 * len(cases), 4), squeeze=False)
    for ax, case in zip(axes[0], cases):
        for technique in CONVERGENCE_TECHNIQUES:
            rs = sorted(
                (r.iterations, r.exploitability)
                for r in curves
                if _name(r.game, r.cut) == case and r.technique == technique
            )
            if len(rs) > 1:
                ax.loglog(*zip(*rs), marker=".", label=technique)
        ax.set_xlabel("CFR+ iterations")
        ax.set_ylabel(f"exploitability (blueprint {curves[0].blueprint})")
        ax.set_title(case, fontsize=9)
    axes[0][0].legend(fontsize=6)
    fig.tight_layout()
    path = f"{out_dir}/ggse_fig3.png"
    cli_output.save_figure(fig, path, dpi=90)
    plt.close(fig)
    return path


def _fig18_plot(plt, records, out_dir):
    """Figure 18 (unsafe minus resolving with the blueprint prior) if there are such pairs;
    returns its path or None."""
    diffs = _fig18(records)
    if not diffs:
        return None
    fig, axes = plt.subplots(1, len(diffs), figsize=(4.5 * len(diffs), 3.6), squeeze=False)
    for ax, (key, rows) in zip(axes[0], diffs.items()):
        ax.bar(range(len(rows)), [d for _, _, d in rows])
        ax.axhline(0, color="k", lw=0.7)
        ax.set_xlabel("blueprints by exploitability")
        ax.set_ylabel("E(unsafe) - E(resolving+bp prior)")
        ax.set_title(" ".join(key), fontsize=8)
    fig.tight_layout()
    path = f"{out_dir}/ggse_fig18.png"
    cli_output.save_figure(fig, path, dpi=90)
    plt.close(fig)
    return path


def _fig18(records):
    """Per (case, solver): (blueprint, E(blueprint), E(unsafe) - E(resolving/blueprint))
    ordered by the blueprint's exploitability."""
    e = {}
    for r in records:
        if _in_grid(r):
            e[_name(r.game, r.cut), r.solver, r.technique, r.blueprint] = r
    out = collections.defaultdict(list)
    for (case, solver, technique, bp), r in e.items():
        other = e.get((case, solver, "resolving/blueprint", bp))
        if technique == "unsafe" and other is not None:
            out[case, solver].append(
                (bp, r.blueprint_exploitability, r.exploitability - other.exploitability)
            )
    return {k: sorted(v, key=lambda t: t[1]) for k, v in out.items()}


def _t_matrices(tests):
    out = collections.defaultdict(dict)
    for t in tests:
        cells = out[_name(t.game, t.cut), t.solver]
        cells[t.row, t.column] = t.p_value
        cells["n"] = t.n
    return out


def _cell(v):
    """A field of a record or t-test for the JSON: a game by its short name, figures rounded."""
    return SHORT.get(v, v) if isinstance(v, str) else cli_output.round_figures(v)


def compact_json(result, tests):
    """The sweep as small JSON: one row per record (6 significant digits) and per t-test."""
    columns = [f.name for f in dataclasses.fields(ex.Record)]
    t_columns = [f.name for f in dataclasses.fields(ex.TTest)]
    return {
        "wall_seconds": round(result.wall_seconds, 1),
        "tasks": result.total,
        "completed": result.completed,
        "interrupted": result.stopped_early,
        "games": {short: game for game, short in SHORT.items()},
        "columns": columns,
        "records": [[_cell(getattr(r, c)) for c in columns] for r in result.results],
        "t_test_columns": t_columns,
        "t_tests": [[_cell(getattr(t, c)) for c in t_columns] for t in tests],
    }


def _check_flags():
    cli_flags.require(set(_GAMES.value) <= set(CASES), f"--games must be among {list(CASES)}")
    cli_flags.require(set(_SOLVERS.value) <= {"cfr_plus", "lp"}, "--solvers: cfr_plus, lp")
    cli_flags.require(0 < _TREMBLE.value < 1, f"--tremble must be in (0, 1), got {_TREMBLE.value}")
    cli_flags.positive(_ITERATIONS)
    cli_flags.positive(_TIME_LIMIT)
    cli_flags.output_path(_OUTPUT_JSON)
    if _PLOTS_DIR.value:
        cli_flags.plots_dir(_PLOTS_DIR)
    cli_flags.require(_CFR.value + _DIRICHLET.value >= 1, "give at least one blueprint")
    cli_flags.require(bool(_LP_VERTICES.value), "--lp_vertices: give at least one")
    try:
        for t in _TECHNIQUES.value:
            ex.parse_technique(t)
        for v in _LP_VERTICES.value:
            ggse.parse_vertex(v)
    except ValueError as e:
        raise app.UsageError(str(e)) from None


def _print_t_tests(tests):
    print("\nApp. B.1 paired one-sided t-tests: p of H1 'row has lower exploitability'")
    for (case, solver), cells in _t_matrices(tests).items():
        techniques = [t for t in _TECHNIQUES.value]
        rows = [[a] + [cells.get((a, b), "") for b in techniques] for a in techniques]
        print(f"\n{case}, {solver}, n = {cells['n']}:")
        print(cli_output.markdown(["row \\ column", *techniques], rows))


def main(argv):
    cli_flags.no_arguments(argv)
    _check_flags()
    cases = [c for g in _GAMES.value for c in CASES[g]]
    tasks = _tasks(cases)
    print(f"{len(tasks)} tasks on {len(cases)} game/cut cases", flush=True)
    with (
        cli.stoppable(_TIME_LIMIT.value),  # Ctrl-C or the time limit: the records so far
        executors.executor(_SCHEDULER.value, _WORKERS.value) as executor,
    ):
        result = ex.sweep(tasks, executor)
    records = result.results
    print(
        f"{result.completed}/{result.total} tasks in {result.wall_seconds:.1f} s wall "
        f"({sum(r.seconds for r in records):.1f} s of task time)"
    )
    header, rows = _summary(records)
    print(cli_output.markdown(header, rows))
    tests = ex.paired_t_tests([r for r in records if _in_grid(r)], _TECHNIQUES.value)
    _print_t_tests(tests)
    if len(_LP_VERTICES.value) > 1:
        print("\nThe gadget LP's optimal solutions without a prior (--lp_vertices):")
        print(cli_output.markdown(*_vertex_spread(records)))
        print("\nmax_margin/none - resolving/none by LP vertex:")
        print(cli_output.markdown(*_vertex_comparison(records)))
    for (case, solver), rows18 in _fig18(records).items():
        d = [x for _, _, x in rows18]
        print(f"fig18 {case} {solver}: min {min(d):.4g} max {max(d):.4g} (n={len(d)})")
    if _OUTPUT_JSON.value:
        cli_output.write_rows_json(_OUTPUT_JSON.value, compact_json(result, tests))
    if _PLOTS_DIR.value:
        for path in _plots(records, _PLOTS_DIR.value):
            print("wrote", path)


if __name__ == "__main__":
    cli.main(main)
