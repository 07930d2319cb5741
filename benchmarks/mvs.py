r"""Reproduce depth-limited solving with multi-valued states: Brown, Sandholm & Amos (2018),
"Depth-Limited Solving for Imperfect-Information Games" (NeurIPS), Section 2 (Figure 1),
Section 4 (multi-valued states, the bias and self-generative sets, Proposition 1) and the
compiled-game analogue of Section 6.1 (exploitability against the number of values K).

  python benchmarks/mvs.py --output_json=docs/results/depth_limited.json \
      --plots_dir=docs/results

1. RPS+ (Figure 1): the LP equilibrium is the blueprint; player 0 solves the depth-limited game
   cut after one move (its own action) with K = 1..4 values from each set - every pure
   continuation of player 1, the bias set (the blueprint, then one action multiplied by 10),
   the self-generative set (the blueprint, then best responses). Per (set, K, solver): the
   depth-limited solution, its value in the depth-limited game, its exploitability in the full
   game, and, on a grid of step GRID_STEP over the simplex, every strategy that is optimal in
   the depth-limited game and the worst full-game exploitability among them (K = 1: every
   strategy is optimal, pure Scissors included).
2. Leduc (depth limit at the end of the first betting round, before the public card - the
   paper's Section 6 limits -, and after it, one continuation choice per public card),
   imperfect-information Goofspiel 5 (after 2 and 4 moves
   of the turn-based game = 1 and 2 rounds), Liar's dice 1,4 (after 1 and 2 bids): blueprints
   are checkpoints of one vanilla CFR run (--blueprints); depth-limited solving rooted at the
   start of the game for each player separately (its depth-limited game, the other player
   choosing among K values at its leaf information sets), the two strategies spliced into one
   profile. Sets: self-generative (K in --num_values; the K-set is the first K of the largest,
   since each round depends only on the earlier ones), bias (1 + number of action classes: the
   K of --num_values below that and the whole set, per player) and all pure continuations
   (Proposition 1's set; only where the library enumerates it for both players). Solvers: the
   LP and CFR+ (--iterations), the same solver generating the self-generative set. Beside
   each: the blueprint's exploitability, full-depth solving's (the same solver on the whole
   game; the LP's is 0) and the fixed-below bound: the least exploitability of a strategy that
   plays the blueprint at and below the depth limit (one sequence-form LP per player: what
   depth-limited solving reaches with every pure continuation, Proposition 1).

Exploitability is OpenSpiel's, of the profile ((E_0 + E_1) / 2, E_i = v_o^* less what a best
response gets against player i's strategy), from `evaluate.evaluate_profile`; E_i from
`subgames.combine.player_exploitability`. Prints markdown tables, writes one PNG per game
(--plots_dir) and the JSON (--output_json, one row per record).
"""

import os
import sys
import time

import numpy as np
from absl import flags
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import cli, cli_flags, cli_output, evaluate, lp, policies
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.strategy_sets import sequence_labels
from ospiel_ext.algorithms.subgames import combine, ggse
from ospiel_ext.constraints import sequence_lower_bounds

GOOFSPIEL_5 = (
    "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=5,"
    "points_order=descending))"
)
LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"
CASES = {
    "leduc": [("leduc_poker", "round_end"), ("leduc_poker", "public_chance")],
    "goofspiel": [(GOOFSPIEL_5, "after_moves=2"), (GOOFSPIEL_5, "after_moves=4")],
    "liars_dice": [(LIARS_DICE, "after_moves=1"), (LIARS_DICE, "after_moves=2")],
}
GAMES = ("rps_plus", *CASES)
SHORT = {GOOFSPIEL_5: "goofspiel5", LIARS_DICE: "liars_dice_1_4", "leduc_poker": "leduc"}
SETS = ("self_generative", "self_generative_unweakened", "bias", "pure")
SELF_GENERATIVE = {"self_generative": True, "self_generative_unweakened": False}  # weaken?
SOLVERS = ("lp", "cfr_plus")  # of ggse.SOLVER_METHODS
RPS_EQUILIBRIUM = (0.4, 0.4, 0.2)  # Section 2
RPS_MAX_K = 4
GRID_STEP = 0.01
OPTIMAL_TOLERANCE = 1e-9
PROPOSITION1_TOLERANCE = 1e-7
DISPLAY_ZERO = 1e-12  # tables print |E| below this (rounding of a true 0) as 0

_GAMES = flags.DEFINE_list("games", list(GAMES), f"Games among {list(GAMES)}.")
_NUM_VALUES = flags.DEFINE_list(
    "num_values", ["1", "2", "4", "8", "16"], "K, the number of values per leaf state."
)
_SOLVERS = flags.DEFINE_list("solvers", list(SOLVERS), f"Solvers among {list(SOLVERS)}.")
_SETS = flags.DEFINE_list("sets", list(SETS), f"Continuation sets among {list(SETS)}.")
_BLUEPRINTS = flags.DEFINE_list(
    "blueprints", ["30", "300", "3000"], "Vanilla CFR checkpoints (iterations) as blueprints."
)
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ iterations per solve.")
_LP_VERTEX = flags.DEFINE_enum(
    "lp_vertex",
    "simplex",
    ["simplex", "ipm"],
    "The LP's optimal solution where the depth-limited game has many (ggse.LP_VERTICES): "
    "HiGHS's dual simplex or interior point with crossover.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_PLOTS_DIR = flags.DEFINE_string("plots_dir", None, "Write the PNGs here.")


def _fmt(v):
    """4 significant digits; |v| below DISPLAY_ZERO as 0."""
    return "0" if abs(v) < DISPLAY_ZERO else f"{v:.4g}"


def _markdown(header, rows):
    """A markdown table with `_fmt`'s numbers."""
    return cli_output.markdown(header, rows, number=_fmt)


# -- RPS+ (Section 2, Figure 1) ---------------------------------------------------------------


def _simplex_grid(step):
    n = int(round(1 / step))
    pts = [(a, b, n - a - b) for a in range(n + 1) for b in range(n + 1 - a)]
    return np.array(pts, dtype=np.float64) / n


def _rps_sets(sf, q, limit, subs, solver, checks):
    """{set: leaves with RPS_MAX_K values or fewer} for player 0. The blueprint is an exact
    equilibrium, so weakening changes nothing: the unweakened self-generative set is checked
    equal to the weakened one and not listed."""
    bp = q.blueprint
    out = {}
    if "pure" in _SETS.value:
        pure = dl.pure_continuations(sf, limit, bp[1], 1)
        strings, _ = sequence_labels(sf, 1)
        labels = [f"P1 plays {strings[int(np.argmax(b[1:])) + 1]}" for b in pure]
        out["pure"] = dl.exact_values(sf, limit, bp, 0, pure, labels)
    if "bias" in _SETS.value:
        strategies, labels = dl.bias_strategies(sf, bp, 1)
        out["bias"] = dl.exact_values(sf, limit, bp, 0, strategies, labels)

    def generate(weaken):
        return dl.self_generative(
            q, subs, limit, 0, RPS_MAX_K, "unsafe", ggse.SOLVER_METHODS[solver], _ITERATIONS.value,
            weaken=weaken, lp_vertex=_LP_VERTEX.value,
        )  # fmt: skip

    if "self_generative" in _SETS.value:
        out["self_generative"] = generate(True)
        if "self_generative_unweakened" in _SETS.value:
            raw = generate(False)
            if not np.allclose(raw.values, out["self_generative"].values, atol=1e-12):
                checks.append(f"rps_plus ({solver}): weakening changed the values")
    return out


def run_rps_plus(checks):
    """Section 2 / Figure 1 on RPS+ (module docstring, item 1)."""
    sf = cli.compile_game(cli.load_game("rps_plus"))
    blueprint = lp.solve(sf).behavioural
    v0 = combine.game_value(sf)
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
        [combine.player_exploitability(sf, np.concatenate([[1.0], x]), 0, v0) for x in grid]
    )
    rows, optimal_sets = [], {}
    for solver in _SOLVERS.value:
        for name, leaves in _rps_sets(sf, q, limit, subs, solver, checks).items():
            for k in range(1, min(RPS_MAX_K, leaves.num_values) + 1):
                sub_leaves = leaves.select(range(k))
                start = time.perf_counter()
                sol = dl.solve(
                    q,
                    subs,
                    sub_leaves,
                    method=ggse.SOLVER_METHODS[solver],
                    iterations=_ITERATIONS.value,
                    lp_vertex=_LP_VERTEX.value,
                )
                seconds = time.perf_counter() - start
                x = sol.behavioural[0][1:]
                e = combine.player_exploitability(sf, sol.behavioural[0], 0, v0)
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
                    exact = dl.solve(
                        q, subs, sub_leaves, method="lp", lp_vertex=_LP_VERTEX.value
                    ).behavioural[0][1:]
                    v_star = float((exact @ values).min())
                optimal = guaranteed >= v_star - OPTIMAL_TOLERANCE
                optimal_sets[solver, name, k] = grid[optimal]
                eq = bool(np.allclose(x, RPS_EQUILIBRIUM, atol=2e-3))
                rows.append(
                    {
                        "solver": solver,
                        "set": name,
                        "K": k,
                        "labels": list(sub_leaves.labels),
                        "strategy": [float(v) for v in x],
                        "depth_limited_value": dl_value,
                        "optimal_value": v_star,
                        "exploitability": float(e),
                        "equilibrium": eq,
                        "grid_optimal": int(optimal.sum()),
                        "grid_optimal_max_exploitability": (
                            float(grid_exploitability[optimal].max()) if optimal.any() else None
                        ),
                        "seconds": seconds,
                    }
                )
    return {"equilibrium": list(RPS_EQUILIBRIUM), "grid_step": GRID_STEP, "rows": rows}, (
        optimal_sets
    )


def _rps_table(result):
    header = [
        "solver",
        "set",
        "K",
        "depth-limited solution (R, P, S)",
        "DL value of it",
        "E (full game)",
        "= (0.4, 0.4, 0.2)?",
        "optimal grid points",
        "max E among them",
    ]
    rows = [
        [
            r["solver"],
            r["set"],
            r["K"],
            "(" + ", ".join(f"{v:.3f}" for v in r["strategy"]) + ")",
            r["depth_limited_value"],
            r["exploitability"],
            "yes" if r["equilibrium"] else "no",
            r["grid_optimal"],
            r["grid_optimal_max_exploitability"],
        ]
        for r in result["rows"]
    ]
    return _markdown(header, rows)


def _rps_plot(plt, path, optimal_sets):
    """Figure 1 analogue: per (set, K), the strategies of player 0 optimal in the depth-limited
    game (LP solver) on the simplex, and the equilibrium."""
    keys = [k for k in optimal_sets if k[0] == ("lp" if "lp" in _SOLVERS.value else k[0])]
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


# -- Exploitability against K (the compiled-game analogue of Section 6.1) ---------------------


def fixed_below_bound(sf, limit, blueprint, player, value0):
    """(E_i, strategy): the least exploitability of player i with its blueprint fixed at every
    information set at or below the depth limit (one sequence-form LP; fixing the lower bound
    of every action of an information set to the blueprint forces equality)."""
    tree, tp = sf.tree, sf.treeplexes[player]
    nodes, offsets = tree.infoset_nodes
    below = ~limit.expand[nodes[offsets[tp.infoset_ids]]]
    lower = np.zeros(tp.num_sequences)
    for local in np.flatnonzero(below).tolist():
        start = int(tp.seq_start[local])
        seqs = slice(start, start + int(tp.num_actions[local]))
        lower[seqs] = blueprint[player][seqs]
    solution = lp.solve(sf, player=player, own_constraints=sequence_lower_bounds(tp, lower))
    sign = 1.0 if player == 0 else -1.0
    return sign * value0 - sign * solution.value, solution.behavioural[player]


def _distinct(leaves):
    """How many of the leaves' K value columns differ (to 1e-9): a self-generative set stops
    growing when a best response repeats one already in it."""
    return len({tuple(np.round(c, 9)) for c in leaves.values.T})


def _k_points(size):
    """The K of --num_values a set of `size` strategies has, and the whole set."""
    return sorted({k for k in NUM_VALUES if k < size} | {size})


def _leaf_sets(sf, q, limit, subs, player, solver, max_k):
    """{set: (leaves of the largest K, generation seconds)} for solving `player`."""
    bp, opponent = q.blueprint, 1 - player
    out = {}
    for name, weaken in SELF_GENERATIVE.items():
        if name in _SETS.value:
            start = time.perf_counter()
            leaves = dl.self_generative(
                q,
                subs,
                limit,
                player,
                max_k,
                "unsafe",
                ggse.SOLVER_METHODS[solver],
                _ITERATIONS.value,
                weaken,
                _LP_VERTEX.value,
            )
            out[name] = (leaves, time.perf_counter() - start)
    if "bias" in _SETS.value:
        start = time.perf_counter()
        strategies, labels = dl.bias_strategies(sf, bp, opponent)
        leaves = dl.exact_values(sf, limit, bp, player, strategies, labels)
        out["bias"] = (leaves, time.perf_counter() - start)
    if "pure" in _SETS.value:
        start = time.perf_counter()
        try:
            pure = dl.pure_continuations(sf, limit, bp[opponent], opponent)
        except ValueError:  # too many pure continuations below a leaf information set
            pure = None
        if pure is not None:
            leaves = dl.exact_values(sf, limit, bp, player, pure)
            out["pure"] = (leaves, time.perf_counter() - start)
    return out


RECORD_COLUMNS = [
    "game",
    "cut",
    "blueprint",
    "solver",
    "set",
    "K",
    "K0",
    "K1",
    "E0",
    "E1",
    "exploitability",
    "blueprint_exploitability",
    "full_depth_exploitability",
    "fixed_below_bound",
    "seconds",
]
KEY_COLUMNS = ("game", "cut", "blueprint", "solver")
REFERENCE_COLUMNS = [
    "game",
    "cut",
    "blueprint",
    "solver",
    "blueprint_E0",
    "blueprint_E1",
    "blueprint_exploitability",
    "full_depth_E0",
    "full_depth_E1",
    "full_depth_exploitability",
    "bound_E0",
    "bound_E1",
    "fixed_below_bound",
    "generation_seconds",
    "distinct_values",
    "seconds",
]


def run_case(game_string, cut_spec, checks, blueprint_cache):
    """Records and references of one (game, cut) over blueprints x solvers (the CFR
    checkpoints of a game are computed once, in `blueprint_cache`)."""
    game = cli.load_game(game_string)
    sf = cli.compile_game(game)
    with cli_flags.refuse():
        limit = dl.depth_limit(sf.tree, dl.parse_limit(cut_spec))
    subs = dl.start_subgames(sf.tree)
    v0 = combine.game_value(sf)
    short = SHORT.get(game_string, game_string)
    if game_string not in blueprint_cache:
        blueprint_cache[game_string] = ss.cfr_checkpoints(game, BLUEPRINTS)
    blueprints = blueprint_cache[game_string]
    records, references = [], []
    for iters, policy in zip(BLUEPRINTS, blueprints):
        bp = ss.load_blueprint(sf, policy)
        q = ss.BlueprintQuantities.compute(sf, bp)
        bp_e = [combine.player_exploitability(sf, bp[i], i, v0) for i in (0, 1)]
        bound = [fixed_below_bound(sf, limit, bp, i, v0)[0] for i in (0, 1)]
        for solver in _SOLVERS.value:
            case_start = time.perf_counter()
            full = ss.resolve(
                q, subs, "unsafe", method=ggse.SOLVER_METHODS[solver], iterations=_ITERATIONS.value
            ).behavioural
            full_e = [combine.player_exploitability(sf, full[i], i, v0) for i in (0, 1)]
            sets = [_leaf_sets(sf, q, limit, subs, i, solver, max(NUM_VALUES)) for i in (0, 1)]
            generation = {
                name: sets[0][name][1] + sets[1][name][1] for name in sets[0] if name in sets[1]
            }
            distinct = {name: [_distinct(sets[i][name][0]) for i in (0, 1)] for name in generation}
            for name in generation:
                sizes = [sets[i][name][0].num_values for i in (0, 1)]
                if name in SELF_GENERATIVE:
                    points = list(NUM_VALUES)
                elif name == "bias":
                    points = _k_points(max(sizes))
                else:
                    points = [max(sizes)]
                for k in points:
                    start = time.perf_counter()
                    profile, ks = list(bp), []
                    for i in (0, 1):
                        leaves = sets[i][name][0]
                        ki = min(k, leaves.num_values)
                        sol = dl.solve(
                            q,
                            subs,
                            leaves.select(range(ki)),
                            method=ggse.SOLVER_METHODS[solver],
                            iterations=_ITERATIONS.value,
                            lp_vertex=_LP_VERTEX.value,
                        )
                        profile[i] = sol.behavioural[i]
                        ks.append(ki)
                    e = [combine.player_exploitability(sf, profile[i], i, v0) for i in (0, 1)]
                    total = evaluate.evaluate_profile(sf, (profile[0], profile[1])).exploitability
                    if abs(total - (e[0] + e[1]) / 2) > 1e-9:
                        checks.append(f"{short} {cut_spec}: E != (E0 + E1) / 2 ({total})")
                    # Proposition 1: with every pure continuation the depth-limited game is
                    # the full game with the blueprint fixed below the limit, so the LP
                    # solution meets the fixed-below bound (computed without this module).
                    if name == "pure" and solver == "lp":
                        for i in (0, 1):
                            if abs(e[i] - bound[i]) > PROPOSITION1_TOLERANCE:
                                checks.append(
                                    f"{short} {cut_spec} CFR {iters}: pure-set E{i} {e[i]} != "
                                    f"fixed-below bound {bound[i]}"
                                )
                    records.append(
                        [
                            short,
                            cut_spec,
                            iters,
                            solver,
                            name,
                            k,
                            ks[0],
                            ks[1],
                            e[0],
                            e[1],
                            total,
                            float(np.mean(bp_e)),
                            float(np.mean(full_e)),
                            float(np.mean(bound)),
                            time.perf_counter() - start,
                        ]
                    )
                    last_profile = (profile[0], profile[1])
            references.append(
                [
                    short,
                    cut_spec,
                    iters,
                    solver,
                    *bp_e,
                    float(np.mean(bp_e)),
                    *full_e,
                    float(np.mean(full_e)),
                    *bound,
                    float(np.mean(bound)),
                    {k: round(v, 3) for k, v in generation.items()},
                    distinct,
                    time.perf_counter() - case_start,
                ]
            )
    # OpenSpiel's own exploitability of the last profile, once per case (independent check).
    if records:
        ours = records[-1][RECORD_COLUMNS.index("exploitability")]
        theirs = os_exploitability.exploitability(
            game, policies.layout(sf).to_tabular(last_profile)
        )
        if abs(ours - theirs) > 1e-9:
            checks.append(f"{short} {cut_spec}: ours {ours} != OpenSpiel's {theirs}")
        print(f"{short} {cut_spec}: last profile E = {ours:.6g}, OpenSpiel's {theirs:.6g}")
    return records, references


def _case_tables(records, references):
    """Per (game, cut, blueprint): a row per (solver, set, K)."""
    col = {c: n for n, c in enumerate(RECORD_COLUMNS)}
    rcol = {c: n for n, c in enumerate(REFERENCE_COLUMNS)}
    out = []
    for ref in references:
        key = (ref[rcol["game"]], ref[rcol["cut"]], ref[rcol["blueprint"]])
        solver = ref[rcol["solver"]]
        rows = [
            [
                r[col["set"]],
                _k_label(r),
                r[col["E0"]],
                r[col["E1"]],
                r[col["exploitability"]],
                r[col["seconds"]],
            ]
            for r in records
            if (r[col["game"]], r[col["cut"]], r[col["blueprint"]]) == key
            and r[col["solver"]] == solver
        ]
        title = (
            f"{key[0]}, cut {key[1]}, blueprint CFR {key[2]} it., solver {solver}: "
            f"E(blueprint) = {ref[rcol['blueprint_exploitability']]:.4g}, "
            f"E(full-depth {solver}) = {_fmt(ref[rcol['full_depth_exploitability']])}, "
            f"fixed-below bound = {ref[rcol['fixed_below_bound']]:.4g} "
            f"(E0 {ref[rcol['bound_E0']]:.4g}, E1 {ref[rcol['bound_E1']]:.4g}); "
            f"set generation s: {ref[rcol['generation_seconds']]}; distinct value columns "
            f"(solving player 0, player 1) of the largest sets: {ref[rcol['distinct_values']]}"
        )
        out.append((title, _markdown(["set", "K", "E0", "E1", "E", "s"], rows)))
    return out


def _summary(records, references, solver):
    """One row per (game, cut, blueprint) for `solver`: E of the naive K = 1, of each
    self-generative K (weakened, unweakened), of the whole bias and pure sets, beside the
    blueprint, the fixed-below bound and full-depth solving."""
    col = {c: n for n, c in enumerate(RECORD_COLUMNS)}
    rcol = {c: n for n, c in enumerate(REFERENCE_COLUMNS)}
    ks = [k for k in NUM_VALUES if k > 1]
    short = {"self_generative": "SG", "self_generative_unweakened": "SG-u"}
    sg_sets = [name for name in SELF_GENERATIVE if name in _SETS.value]
    header = ["game", "cut", "blueprint", "E(blueprint)", "K=1 (naive)"]
    header += [f"{short[name]} K={k}" for name in sg_sets for k in ks]
    header += ["bias, whole set (K)", "pure, whole set (K)", "fixed-below bound", "full-depth"]
    rows = []
    for ref in references:
        if ref[rcol["solver"]] != solver:
            continue
        key = tuple(ref[rcol[c]] for c in KEY_COLUMNS)
        mine = [r for r in records if tuple(r[col[c]] for c in KEY_COLUMNS) == key]

        def e(name, k, mine=mine):
            return next(
                (
                    r[col["exploitability"]]
                    for r in mine
                    if (r[col["set"]], r[col["K"]]) == (name, k)
                ),
                None,
            )

        def whole(name, mine=mine):
            rs = [r for r in mine if r[col["set"]] == name]
            if not rs:
                return None
            v = rs[-1][col["exploitability"]]
            return f"{_fmt(v)} ({_k_label(rs[-1])})"

        naive = next(
            (e(name, 1) for name in (*SELF_GENERATIVE, "bias") if e(name, 1) is not None), None
        )
        rows.append(
            [
                *key[:3],
                ref[rcol["blueprint_exploitability"]],
                naive,
                *[e(name, k) for name in sg_sets for k in ks],
                whole("bias"),
                whole("pure"),
                ref[rcol["fixed_below_bound"]],
                ref[rcol["full_depth_exploitability"]],
            ]
        )
    return _markdown(header, rows)


def _k_label(record):
    """K of a record: one number, or K0/K1 where the players' sets differ in size."""
    col = {c: n for n, c in enumerate(RECORD_COLUMNS)}
    k0, k1 = record[col["K0"]], record[col["K1"]]
    return str(k0) if k0 == k1 else f"{k0}/{k1}"


def _case_plot(plt, path, short, records, references):
    """Exploitability against K: one panel per (cut, blueprint)."""
    col = {c: n for n, c in enumerate(RECORD_COLUMNS)}
    rcol = {c: n for n, c in enumerate(REFERENCE_COLUMNS)}
    refs = [r for r in references if r[rcol["game"]] == short]
    cuts = list(dict.fromkeys(r[rcol["cut"]] for r in refs))
    bps = list(dict.fromkeys(r[rcol["blueprint"]] for r in refs))
    fig, axes = plt.subplots(
        len(cuts), len(bps), figsize=(4.2 * len(bps), 3.6 * len(cuts)), squeeze=False
    )
    colors = {
        "self_generative": "tab:blue",
        "self_generative_unweakened": "tab:purple",
        "bias": "tab:orange",
        "pure": "tab:green",
    }
    styles = {"lp": "-", "cfr_plus": "--"}
    for a, cut in enumerate(cuts):
        for b, bp in enumerate(bps):
            ax = axes[a][b]
            for solver in _SOLVERS.value:
                mine = [
                    r
                    for r in records
                    if (r[col["game"]], r[col["cut"]], r[col["blueprint"]], r[col["solver"]])
                    == (short, cut, bp, solver)
                ]
                for name in (*SELF_GENERATIVE, "bias"):
                    pts = [
                        (r[col["K"]], r[col["exploitability"]])
                        for r in mine
                        if r[col["set"]] == name
                    ]
                    if pts:
                        ax.plot(
                            *zip(*pts),
                            styles[solver],
                            marker="o",
                            ms=3,
                            color=colors[name],
                            label=f"{name} ({solver})",
                        )
                pure = [r for r in mine if r[col["set"]] == "pure"]
                if pure:
                    ax.axhline(
                        pure[-1][col["exploitability"]],
                        color=colors["pure"],
                        ls=styles[solver],
                        lw=1,
                        label=f"all pure, K={_k_label(pure[-1])} ({solver})",
                    )
                ref = next(
                    r
                    for r in refs
                    if (r[rcol["cut"]], r[rcol["blueprint"]], r[rcol["solver"]])
                    == (cut, bp, solver)
                )
                if ref[rcol["full_depth_exploitability"]] > 1e-12:
                    ax.axhline(
                        ref[rcol["full_depth_exploitability"]],
                        color="gray",
                        ls=styles[solver],
                        lw=1,
                        label=f"full-depth ({solver})",
                    )
            ref = next(r for r in refs if (r[rcol["cut"]], r[rcol["blueprint"]]) == (cut, bp))
            ax.axhline(ref[rcol["blueprint_exploitability"]], color="k", lw=1, label="blueprint")
            if ref[rcol["fixed_below_bound"]] > 1e-12:
                ax.axhline(
                    ref[rcol["fixed_below_bound"]],
                    color="tab:red",
                    ls=":",
                    lw=1.2,
                    label="fixed-below bound (LP)",
                )
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("K (values per leaf state)")
            ax.set_ylabel("exploitability")
            ax.set_title(f"{short} {cut}, blueprint CFR {bp}", fontsize=8)
    legend = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    axes[0][0].legend(list(legend.values()), list(legend), fontsize=6)
    note = "\n(full-depth LP: exploitability 0, not drawn)" if "lp" in _SOLVERS.value else ""
    fig.suptitle(f"{short}: exploitability of the depth-limited profile{note}", fontsize=9)
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=90)
    plt.close(fig)


NUM_VALUES: list[int] = []
BLUEPRINTS: list[int] = []


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.require(set(_GAMES.value) <= set(GAMES), f"--games must be among {list(GAMES)}")
    cli_flags.require(bool(_GAMES.value), "--games is empty")
    cli_flags.require(
        set(_SOLVERS.value) <= set(SOLVERS) and bool(_SOLVERS.value),
        f"--solvers must be among {list(SOLVERS)}",
    )
    cli_flags.require(
        set(_SETS.value) <= set(SETS) and bool(_SETS.value), f"--sets must be among {list(SETS)}"
    )
    NUM_VALUES[:] = sorted(set(cli_flags.int_list(_NUM_VALUES)))
    BLUEPRINTS[:] = cli_flags.int_list(_BLUEPRINTS)
    cli_flags.require(
        all(b > a for a, b in zip(BLUEPRINTS, BLUEPRINTS[1:])),
        "--blueprints must be strictly increasing",
    )
    cli_flags.positive(_ITERATIONS)
    cli_flags.output_path(_OUTPUT_JSON)
    if _PLOTS_DIR.value:
        cli_flags.output_dir(_PLOTS_DIR)
        plt = cli_output.pyplot()
    wall = time.perf_counter()
    result = {}
    checks: list[str] = []
    if "rps_plus" in _GAMES.value:
        start = time.perf_counter()
        rps, optimal_sets = run_rps_plus(checks)
        rps["seconds"] = round(time.perf_counter() - start, 2)
        print(
            f"\nRPS+ (Figure 1), player 0, cut after_moves=1, LP blueprint ({rps['seconds']} s)\n"
        )
        print(_rps_table(rps))
        for k, v in rps.items():
            rows = (
                [{c: cli_output.round_figures(x) for c, x in r.items()} for r in v]
                if k == "rows"
                else None
            )
            result[f"rps_plus_{k}"] = v if rows is None else rows
        if _PLOTS_DIR.value:
            path = os.path.join(_PLOTS_DIR.value, "depth_limited_rps_plus.png")
            _rps_plot(plt, path, optimal_sets)
            print("wrote", path)
    records, references = [], []
    timings, blueprint_cache = {}, {}
    for name in [g for g in _GAMES.value if g in CASES]:
        start = time.perf_counter()
        for game, cut in CASES[name]:
            rec, ref = run_case(game, cut, checks, blueprint_cache)
            records += rec
            references += ref
        timings[name] = round(time.perf_counter() - start, 1)
        print(f"{name}: {timings[name]} s", flush=True)
    if records:
        for solver in _SOLVERS.value:
            print(f"\nExploitability of the depth-limited profile, solver {solver}\n")
            print(_summary(records, references, solver))
        for title, table in _case_tables(records, references):
            print(f"\n{title}\n")
            print(table)
        if _PLOTS_DIR.value:
            for name in [g for g in _GAMES.value if g in CASES]:
                short = SHORT.get(CASES[name][0][0])
                path = os.path.join(_PLOTS_DIR.value, f"depth_limited_{short}.png")
                _case_plot(plt, path, short, records, references)
                print("wrote", path)
    wall = time.perf_counter() - wall
    print(f"\nwall time {wall:.1f} s ({timings}); checks: {checks or 'all passed'}")
    if _OUTPUT_JSON.value:
        result.update(
            {
                "wall_seconds": round(wall, 1),
                "seconds_per_game": timings,
                "settings": {
                    "num_values": NUM_VALUES,
                    "blueprints": BLUEPRINTS,
                    "solvers": _SOLVERS.value,
                    "sets": _SETS.value,
                    "cfr_plus_iterations": _ITERATIONS.value,
                    "lp_vertex": _LP_VERTEX.value,
                },
                "games": {short: game for game, short in SHORT.items()},
                "checks": checks,
                "columns": RECORD_COLUMNS,
                "records": [cli_output.round_figures(r) for r in records],
                "reference_columns": REFERENCE_COLUMNS,
                "references": [cli_output.round_figures(r) for r in references],
            }
        )
        cli_output.write_rows_json(_OUTPUT_JSON.value, result)
    if checks:
        sys.exit(1)


if __name__ == "__main__":
    cli.main(main)
