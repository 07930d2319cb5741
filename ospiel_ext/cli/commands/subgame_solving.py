r"""Safe subgame solving with gadget games and GGSE (Kubíček, Lisý & Sandholm 2025).

The paper: "Equilibrium Refinements Improve Subgame Solving in Imperfect-Information Games".

  ospiel-ext subgame --game=leduc_poker --cut=public_chance \
      --blueprint=cfr:100 --gadget=resolving --prior=blueprint --solver=cfr_plus \
      --iterations=5000 --epsilon=1e-3 --policy_out=/tmp/resolved.json

Resolves every subgame of the cut for both players (the unsafe subgame: jointly) and splices
the solutions into the blueprint. Prints, per subgame, the exploitability of the blueprint and
of the blueprint with only that subgame resolved, and the root value improvements Delta(s_o)
of Theorem 1 (smallest and W-weighted mean per player); then the exploitability of the profile
with every subgame resolved (written by --policy_out).

--cut: after_moves=K, public_chance, after_chance_events=K or module:function (a predicate on
pyspiel states; the cut is at the first states where it holds). --blueprint: a policy file
(policy_files.save_policy), cfr:N (N vanilla CFR iterations) or dirichlet:SEED (Dirichlet(1)
strategies). Each player's guaranteed value u_i(pi_i, BR) is reported; with --game_value the
game's LP is solved too and E(pi_i) = u_i^* - u_i(pi_i, BR) is reported.

--time_limit, Ctrl-C and SIGTERM stop the resolving within moments: the gadget under way keeps
its solution so far (CFR+ / EGT), the subgames not begun keep the blueprint, and the result so
far is printed and written with its stop_reason and the iterations that ran (exit code 130
after Ctrl-C or SIGTERM).

JSON keys: game, cut, blueprint, gadget, prior, solver, iterations (the most any gadget's solve
ran), iterations_asked, stop_reason ('solved', 'interrupted', 'time_limit'), epsilon,
blueprint_exploitability, exploitability, guaranteed_values, blueprint_guaranteed_values,
player_exploitability and blueprint_player_exploitability (null without --game_value),
game_value, seconds, subgames (list: index, roots, resolved, iterations,
blueprint_exploitability, exploitability, min_delta, mean_delta per player).
"""

import time
from typing import Any, cast

import numpy as np
from absl import flags, logging

from ospiel_ext import evaluate, policies, policy_files
from ospiel_ext.algorithms.subgames import (
    blueprints,
    combine,
    cuts,
    gadgets,
    ggse,
    priors,
)
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.cli import solving as cli_solving
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.tables import format_table
from ospiel_ext.sequence_form import TreeSequenceForm

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_CUT = flags.DEFINE_string(
    "cut", "after_moves=1", "after_moves=K, public_chance, after_chance_events=K or module:fn."
)
_BLUEPRINT = flags.DEFINE_string("blueprint", "cfr:100", "FILE, cfr:N or dirichlet:SEED.")
_GADGET = flags.DEFINE_enum(
    "gadget", "resolving", ["resolving", "max_margin", "reach_max_margin", "unsafe"], "Gadget."
)
_PRIOR = flags.DEFINE_enum("prior", "none", ["none", "uniform", "blueprint"], "GGSE prior.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", list(ggse.SOLVER_METHODS), "Gadget solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 5000, "CFR+ / EGT iterations.")
_EPSILON = flags.DEFINE_float("epsilon", 1e-3, "GGSE tremble size, in (0, 1).")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Stop the resolving after this many s.")
_GAME_VALUE = flags.DEFINE_bool(
    "game_value", False, "Also solve the game's LP for its value and E(pi_i) per player."
)
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the resolved profile here.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")


def _per_subgame(
    sf: TreeSequenceForm,
    blueprint: policies.Behavioural,
    subs: tuple[cuts.Subgame, ...],
    *,
    resolution: combine.Resolution,
    before: blueprints.BlueprintQuantities,
    after: blueprints.BlueprintQuantities,
    e_bp: float,
) -> tuple[list[list[Any]], list[dict[str, Any]]]:
    """Per subgame: the exploitability with only it resolved and Theorem 1's Delta(s_o)."""
    rows, out = [], []
    for sub in subs:
        mine = [s for s in resolution.solutions if s.gadget.subgame.index == sub.index]
        alone = combine.splice(sf, blueprint, mine)
        e_sub = evaluate.evaluate_profile(sf, alone).exploitability
        min_d, mean_d = [], []
        for p in (0, 1):
            imp = combine.root_improvements(before, after, sub, p)
            reached = imp.weight > 0
            d = imp.delta[reached]
            min_d.append(float(d.min()) if len(d) else 0.0)
            total = imp.weight[reached].sum()
            mean_d.append(float((imp.weight[reached] * d).sum() / total) if total > 0 else 0.0)
        iterations = max((s.iterations for s in mine), default=0)
        rows.append([sub.index, sub.num_roots, bool(mine), e_bp, e_sub, *min_d, *mean_d])
        out.append(
            {
                "index": sub.index,
                "roots": sub.num_roots,
                "resolved": bool(mine),
                "iterations": iterations,
                "blueprint_exploitability": e_bp,
                "exploitability": e_sub,
                "min_delta": min_d,
                "mean_delta": mean_d,
            }
        )
    return rows, out


def _run(sf: TreeSequenceForm) -> None:
    subs = cuts.subgames(sf.tree, cuts.parse_cut(_CUT.value))
    blueprint = blueprints.blueprint_from_spec(sf, _BLUEPRINT.value)[1]
    before = blueprints.BlueprintQuantities.compute(sf, blueprint)
    start = time.perf_counter()
    method = ggse.SOLVER_METHODS[_SOLVER.value]
    logging.info(
        "resolving %d subgames of %s (%s, prior %s, %s)",
        len(subs), sf.tree.game, _GADGET.value, _PRIOR.value, _SOLVER.value,
    )  # fmt: skip
    with cli.stoppable(_TIME_LIMIT.value):
        resolution = combine.resolve(
            before,
            subs,
            cast(gadgets.GadgetKind, _GADGET.value),  # DEFINE_enum checked the names
            prior=cast(priors.PriorKind, _PRIOR.value),
            method=method,
            eps=_EPSILON.value,
            iterations=_ITERATIONS.value,
            batch=method == "cfr",
        )
    seconds = time.perf_counter() - start
    after = blueprints.BlueprintQuantities.compute(sf, resolution.behavioural)
    e_bp = evaluate.evaluate_profile(sf, blueprint).exploitability
    rows, per_subgame = _per_subgame(
        sf, blueprint, subs, resolution=resolution, before=before, after=after, e_bp=e_bp
    )
    value0 = cli_solving.run_lp(sf, None)[1] if _GAME_VALUE.value else None  # None if stopped
    guaranteed, players = evaluate.player_figures(sf, after.blueprint, value0)
    bp_guaranteed, bp_players = evaluate.player_figures(sf, blueprint, value0)
    e_all = evaluate.evaluate_profile(sf, resolution.behavioural).exploitability
    header = ["subgame", "roots", "resolved", "E(blueprint)", "E(this resolved)"]
    header += ["min D_0", "min D_1", "mean D_0", "mean D_1"]
    print(format_table(header, rows))
    resolved = sum(r["resolved"] for r in per_subgame)
    iterations = max((s.iterations for s in resolution.solutions), default=0)
    done = (
        f"all {len(subs)} subgames resolved"
        if resolution.stop_reason == "solved"
        else f"stopped ({resolution.stop_reason}): {resolved} of {len(subs)} subgames resolved"
    )
    print(
        f"\n{done} ({_GADGET.value}, prior {_PRIOR.value}, {_SOLVER.value}, {iterations} "
        f"iterations, {seconds:.2f} s): exploitability {e_bp:.6g} -> {e_all:.6g}; "
        f"u_0(pi_0, BR) {bp_guaranteed[0]:.6g} -> {guaranteed[0]:.6g}, "
        f"u_1(pi_1, BR) {bp_guaranteed[1]:.6g} -> {guaranteed[1]:.6g}"
    )
    if players is not None and bp_players is not None:
        print(
            f"E(pi_0) {bp_players[0]:.6g} -> {players[0]:.6g}, "
            f"E(pi_1) {bp_players[1]:.6g} -> {players[1]:.6g} (game value {value0:.6g})"
        )
    row = {
        "game": str(sf.tree.game),
        "cut": _CUT.value,
        "blueprint": _BLUEPRINT.value,
        "gadget": _GADGET.value,
        "prior": _PRIOR.value,
        "solver": _SOLVER.value,
        "iterations": iterations,
        "iterations_asked": _ITERATIONS.value,
        "stop_reason": resolution.stop_reason,
        "epsilon": _EPSILON.value,
        "blueprint_exploitability": e_bp,
        "exploitability": e_all,
        "guaranteed_values": guaranteed,
        "blueprint_guaranteed_values": bp_guaranteed,
        "blueprint_player_exploitability": bp_players,
        "player_exploitability": players,
        "game_value": value0,
        "seconds": seconds,
        "subgames": per_subgame,
    }
    with cli.outputs():
        if _POLICY_OUT.value:
            policy_files.save_policy(resolution.policy(), _POLICY_OUT.value, sf.tree.game)
        cli_output.write_json(_OUTPUT_JSON.value, row)


def main(argv: list[str]) -> None:
    """Resolves every subgame of --cut in --game; prints and writes the exploitabilities."""
    cli_flags.no_arguments(argv)
    cli_flags.require(
        bool(np.isfinite(_EPSILON.value)) and 0 < _EPSILON.value < 1,
        f"--epsilon must be in (0, 1), got {_EPSILON.value}",
    )
    for holder in (_ITERATIONS, _MAX_NODES, _TIME_LIMIT):
        cli_flags.positive(holder)
    for output in (_OUTPUT_JSON, _POLICY_OUT):
        cli_flags.output_path(output)
    blueprint_file = blueprints.blueprint_file(_BLUEPRINT.value)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT], inputs=[("--blueprint", blueprint_file)])
    sf = cli.compile_game(cli.load_game(_GAME.value), _MAX_NODES.value)
    with cli_flags.refuse(ValueError), interrupts.graceful():  # a Ctrl-C lets the result be written
        _run(sf)


if __name__ == "__main__":
    cli.main(main)
