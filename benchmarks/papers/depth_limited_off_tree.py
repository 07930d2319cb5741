r"""Figure 2 analogue: responding to an off-tree bet by depth-limited solving with K values,
against randomized pseudo-harmonic action translation (RPAT) and against having the bet in
the abstraction. Brown, Sandholm & Amos (2018), "Depth-Limited Solving for
Imperfect-Information Games" (NeurIPS), Section 6.1.

  python benchmarks/papers/depth_limited_off_tree.py \
      --output_json=docs/results/depth_limited_off_tree.json \
      --plots_dir=docs/results

The game: no-limit `universal_poker` with two rounds (one private card each, one public card;
--num_ranks ranks x 2 suits, antes 2 each, stacks --stack), so both trees compile. The paper's
setting, scaled down:

* the action abstraction: fold, call, bets of 0.5x and 1x the pot, all-in
  (`games.poker_actions.PotFractionAbstraction`); the blueprint is CFR+ (--iterations) in it;
* the off-tree action: player 0 (the paper's P1) bets 0.75x the pot at the start of the game;
  the game in which exploitability is measured is the abstraction plus that bet;
* (a) RPAT: player 1 reads the 0.75x bet as 0.5x with probability f(0.75) = 3/7 and as 1x
  otherwise (Ganzfried & Sandholm 2013) and plays the blueprint accordingly;
* (b) depth-limited solving (`depth_limited.compiled.off_tree_solving.solve_off_tree`) of the
  subgame after the bet, cut at the end of the first betting round, each leaf's K values the
  average of its 0.5x and 1x counterparts' values from the self-generative set computed in the
  abstraction (Section 4; --weaken), K in --num_values; the subgame is a resolving gadget whose
  alternative is player 0's best in-abstraction first action; beyond the limit each
  second-round subgame is resolved safely against the values the depth-limited game promised
  player 0. Reported both before and after that second step;
* (c) the lower bound: CFR+ (--iterations) on the game with the 0.75x bet in the abstraction.

Exploitability here is player 1's: what a best-responding player 0 gains over the game value,
in the abstraction plus the off-tree bet (the paper's exploitability of P2's strategy), in
chips per game (antes 2 = 1 big blind of 2 chips: mbb/g = 500 x chips).
"""

import os
import time

from absl import flags

from ospiel_ext import evaluate, lp, walk
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited import translation
from ospiel_ext.algorithms.depth_limited.compiled import (
    off_tree,
    off_tree_solving,
    solving,
    strategy_sets,
)
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.games import poker_actions as pa
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import TreeSequenceForm

OFF_TREE = ("0.75p", 0.75)
NEIGHBOURS = (0.5, 1.0)
RESPONDER = 1

_NUM_RANKS = flags.DEFINE_integer("num_ranks", 6, "Card ranks (2 suits).")
_STACK = flags.DEFINE_integer("stack", 40, "Each player's stack in chips (antes 2).")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ iterations of both blueprints.")
_NUM_VALUES = flags.DEFINE_list("num_values", ["1", "2", "4", "8", "16"], "K values per leaf.")
_SOLVER = flags.DEFINE_enum("solver", "lp", ["lp", "cfr"], "Solver of the subgames.")
cli_flags.rename("method", "solver")
_SUBGAME_ITERATIONS = flags.DEFINE_integer(
    "subgame_iterations", 1000, "CFR+ iterations per subgame with --solver=cfr."
)
_VALUE_ITERATIONS = flags.DEFINE_integer(
    "value_iterations",
    20000,
    "Game values from this many CFR+ iterations (bracketed by the average profile's best "
    "responses); 0: the sequence-form LP (exact, slow past ~100,000 sequences).",
)
_GADGET = flags.DEFINE_enum(
    "gadget", "resolving", ["resolving", "max_margin"], "Gadget of the depth-limited subgame."
)
_TARGETS = flags.DEFINE_enum(
    "targets",
    "promised",
    ["promised", "translated"],
    "Alternatives of the gadgets beyond the limit: the values the depth-limited game "
    "promised, or the best response to the translated strategy there.",
)
_BOUND_ITERATIONS = flags.DEFINE_integer(
    "bound_iterations", 3000, "CFR+ iterations of the best-continuation bound (0: skip it)."
)
_WEAKEN = flags.DEFINE_boolean("weaken", False, "Weaken the self-generative set (Section 4).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_PLOTS_DIR = flags.DEFINE_string("plots_dir", None, "Write the Figure 2 analogue PNG here.")


def game_string(num_ranks: int, stack: int) -> str:
    return (
        "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=2 2,"
        f"firstPlayer=1 1,numSuits=2,numRanks={num_ranks},numHoleCards=1,"
        f"numBoardCards=0 1,stack={stack} {stack},bettingAbstraction=fullgame)"
    )


def cfr_plus(sf: TreeSequenceForm, iterations: int):
    solver = cfr_variants.CFRVariantSolver(sf, cfr_variants.CFR_PLUS)
    solver_lib.run(solver, iterations)
    return solver.average_behavioural()


def game_value(sf: TreeSequenceForm, iterations: int) -> tuple[float, float]:
    """(player 0's game value, its error bound): the LP's (error 0), or the midpoint of
    [min_y u(x_bar, y), max_x u(x, y_bar)] of CFR+'s average profile after `iterations`."""
    if iterations == 0:
        return lp.game_value(sf), 0.0
    ev = evaluate.evaluate_profile(sf, cfr_plus(sf, iterations))
    hi, lo = ev.best_response_values[0], sf.utility_sum - ev.best_response_values[1]
    return (hi + lo) / 2, (hi - lo) / 2


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_NUM_RANKS)
    cli_flags.positive(_ITERATIONS)
    cli_flags.positive(_SUBGAME_ITERATIONS)
    cli_flags.require(_STACK.value >= 8, "--stack must be at least 8 (antes are 2)")
    ks = sorted(set(cli_flags.int_list(_NUM_VALUES)))
    cli_flags.output_path(_OUTPUT_JSON)
    if _PLOTS_DIR.value:
        cli_flags.output_dir(_PLOTS_DIR)
    wall = time.perf_counter()
    game = cli.load_game(game_string(_NUM_RANKS.value, _STACK.value))
    abstraction = pa.PotFractionAbstraction(fractions=NEIGHBOURS)
    with_bet = pa.PotFractionAbstraction(
        fractions=NEIGHBOURS, extra=pa.first_bet_extra(0, dict([OFF_TREE]))
    )
    timed = cli.StageTimer()

    abstract = timed("compile", lambda: TreeSequenceForm(walk.game_tree(game, actions=abstraction)))
    full = timed(
        "compile_with_bet", lambda: TreeSequenceForm(walk.game_tree(game, actions=with_bet))
    )
    print(
        f"{game}\nabstraction: {abstract.tree.num_nodes:,} nodes, "
        f"{abstract.tree.num_infosets:,} infosets; with the 0.75x bet: "
        f"{full.tree.num_nodes:,} nodes, {full.tree.num_infosets:,} infosets"
    )
    blueprint = timed("blueprint", lambda: cfr_plus(abstract, _ITERATIONS.value))
    cli_flags.non_negative(_VALUE_ITERATIONS)
    value_abs, error_abs = timed("value", lambda: game_value(abstract, _VALUE_ITERATIONS.value))
    value, error = timed("value_with_bet", lambda: game_value(full, _VALUE_ITERATIONS.value))
    print(
        f"game values: {value_abs:.8f} ± {error_abs:.1e} (abstraction), "
        f"{value:.8f} ± {error:.1e} (with the bet)"
    )
    p = translation.pseudo_harmonic(OFF_TREE[1], *NEIGHBOURS)

    def replacements(state):
        labels = abstraction.labels(state)
        return [labels[pa.fraction_label(f)] for f in NEIGHBOURS]

    off = timed(
        "maps",
        lambda: off_tree.find_off_tree(
            full,
            abstract,
            RESPONDER,
            replacements=replacements,
            weights=(p, 1 - p),
            translate=with_bet.translate,
        ),
    )

    def expl(behavioural):
        return evaluate.player_exploitability(full, behavioural[RESPONDER], RESPONDER, value)

    cli_flags.non_negative(_BOUND_ITERATIONS)
    cut = ss.Cut.after_public_chance()

    def bound(behavioural):
        """The best continuation beyond the limit (None when skipped)."""
        if not _BOUND_ITERATIONS.value:
            return None
        return expl(
            off_tree_solving.best_continuation(off, behavioural, cut, _BOUND_ITERATIONS.value)
        )

    rpat = timed("rpat", lambda: off_tree.rpat_profile(off, blueprint))
    rows = {
        "blueprint_in_abstraction": evaluate.player_exploitability(
            abstract, blueprint[RESPONDER], RESPONDER, value_abs
        ),
        "rpat": expl(rpat),
        "rpat_best_continuation": timed("rpat_bound", lambda: bound(rpat)),
        "bet_in_abstraction": expl(timed("lower_bound", lambda: cfr_plus(full, _ITERATIONS.value))),
    }
    q = ss.BlueprintQuantities.compute(abstract, blueprint)
    limit = leaves_lib.depth_limit(abstract.tree, cut)
    method, iters = _SOLVER.value, _SUBGAME_ITERATIONS.value
    values = timed(
        "self_generative",
        lambda: strategy_sets.self_generative(
            q,
            solving.start_subgames(abstract.tree),
            limit,
            player=RESPONDER,
            num_values=ks[-1],
            gadget="unsafe",
            method=method,
            iterations=iters,
            weaken=_WEAKEN.value,
        ),
    )
    curve = []
    for k in ks:
        leaves = leaves_lib.MultiValuedLeaves(
            limit=limit, player=RESPONDER, values=values.values[:, :k], labels=values.labels[:k]
        )
        dl, moved = timed(
            f"solve_K{k}",
            lambda leaves=leaves: off_tree_solving.depth_limited_response(
                off,
                blueprint,
                cut,
                abstract_leaves=leaves,
                method=method,
                iterations=iters,
                gadget=_GADGET.value,
            ),
        )
        row = {"num_values": k, "depth_limited": expl(dl)}
        for below in off_tree_solving.GADGETS:
            resolved = timed(
                f"{below}_K{k}",
                lambda below=below, dl=dl, moved=moved: off_tree_solving.resolve_below(
                    off,
                    dl,
                    cut,
                    leaves=moved,
                    method=method,
                    iterations=iters,
                    gadget=below,
                    targets=_TARGETS.value,
                ),
            )
            row[f"then_{below}"] = expl(resolved)
        row["best_continuation"] = timed(f"bound_K{k}", lambda dl=dl: bound(dl))
        curve.append(row)
    print(f"\nexploitability of player 1 (chips per game; x500 = mbb/g), RPAT p(0.5x) = {p:.4f}\n")
    print(
        format_table(
            ["strategy after the 0.75x bet", "exploitability"],
            [[k, _fmt(v)] for k, v in rows.items()],
        )
    )
    print()
    columns = ["depth_limited", "then_resolving", "then_max_margin", "best_continuation"]
    print(
        format_table(
            ["K", "DL, translation beyond", "then resolving", "then max-margin", "best beyond"],
            [[r["num_values"], *(_fmt(r[c]) for c in columns)] for r in curve],
        )
    )
    total = round(time.perf_counter() - wall, 1)
    print(f"\n{total} s; stages: {timed.seconds}")
    result = {
        "game": str(game),
        "abstraction_nodes": abstract.tree.num_nodes,
        "game_nodes": full.tree.num_nodes,
        "game_value": value,
        "game_value_error": error,
        "abstraction_value": value_abs,
        "abstraction_value_error": error_abs,
        "value_iterations": _VALUE_ITERATIONS.value,
        "rpat_probability_low": p,
        "method": method,
        "weaken": _WEAKEN.value,
        "gadget": _GADGET.value,
        "targets": _TARGETS.value,
        "iterations": _ITERATIONS.value,
        "bound_iterations": _BOUND_ITERATIONS.value,
        **rows,
        "curve": curve,
        "seconds": total,
        "stage_seconds": timed.seconds,
    }
    cli_output.write_json(_OUTPUT_JSON.value, result)
    if _PLOTS_DIR.value:
        plot(result, os.path.join(_PLOTS_DIR.value, "depth_limited_off_tree.png"))


def _fmt(v):
    return "-" if v is None else f"{v:.4g}"


def plot(result, path):
    plt = cli_output.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    ks = [r["num_values"] for r in result["curve"]]
    mbb = 500.0
    series = [
        ("then_resolving", "o-", "depth-limited, then resolving gadgets beyond"),
        ("then_max_margin", "s-", "depth-limited, then max-margin gadgets beyond"),
        ("best_continuation", "^:", "depth-limited, best continuation beyond (bound)"),
        ("depth_limited", "x--", "depth-limited, translation beyond"),
    ]
    for key, style, label in series:
        ys = [r[key] for r in result["curve"]]
        if all(y is not None for y in ys):
            ax.plot(ks, [mbb * y for y in ys], style, label=label)
    ax.axhline(mbb * result["rpat"], color="C3", label="action translation (RPAT)")
    ax.axhline(mbb * result["bet_in_abstraction"], color="C2", label="0.75x bet in the abstraction")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("number of values per leaf state K")
    ax.set_ylabel("exploitability of player 1 (mbb/g)")
    ax.set_title("Figure 2 analogue: no-limit, off-tree 0.75x pot bet")
    ax.legend(fontsize=7)
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=120)
    print("wrote", path)


if __name__ == "__main__":
    cli.main(main)
