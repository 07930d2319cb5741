"""Safe subgame solving with gadget games and GGSE (Kubíček, Lisý & Sandholm 2025,
"Equilibrium Refinements Improve Subgame Solving in Imperfect-Information Games").

  ospiel-ext subgame --game=leduc_poker --cut=public_chance \
      --blueprint=cfr:100 --gadget=resolving --prior=blueprint --solver=cfr_plus \
      --iterations=5000 --epsilon=1e-3 --policy_out=/tmp/resolved.json

Resolves every subgame of the cut for both players (the unsafe subgame: jointly) and splices
the solutions into the blueprint. Prints, per subgame, the exploitability of the blueprint and
of the blueprint with only that subgame resolved, and the root value improvements Delta(s_o)
of Theorem 1 (smallest and W-weighted mean per player); then the exploitability of the profile
with every subgame resolved (written by --policy_out).

--cut: after_moves=K, public_chance, after_chance_events=K, or module:function (a predicate on
pyspiel states; the cut is at the first states where it holds). --blueprint: a policy file
(policies.save_policy), cfr:N (N vanilla CFR iterations) or dirichlet:SEED (Dirichlet(1)
strategies). JSON keys: game, cut, blueprint, gadget, prior, solver, iterations, epsilon,
blueprint_exploitability, exploitability, player_exploitability, blueprint_player_exploitability,
seconds, subgames (list: index, roots, blueprint_exploitability, exploitability,
min_delta, mean_delta per player).
"""

import time

import numpy as np
from absl import app, flags

from ospiel_ext import cli, evaluate, policies
from ospiel_ext.algorithms.subgames import blueprints, combine, cuts, experiment

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_CUT = flags.DEFINE_string(
    "cut", "after_moves=1", "after_moves=K, public_chance, after_chance_events=K or module:fn."
)
_BLUEPRINT = flags.DEFINE_string("blueprint", "cfr:100", "FILE, cfr:N or dirichlet:SEED.")
_GADGET = flags.DEFINE_enum(
    "gadget", "resolving", ["resolving", "max_margin", "reach_max_margin", "unsafe"], "Gadget."
)
_PRIOR = flags.DEFINE_enum("prior", "none", ["none", "uniform", "blueprint"], "GGSE prior.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["cfr_plus", "lp", "egt"], "Gadget solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 5000, "CFR+ / EGT iterations.")
_EPSILON = flags.DEFINE_float("epsilon", 1e-3, "GGSE tremble size, in (0, 1).")
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the resolved profile here.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")

METHODS = {"cfr_plus": "cfr", "lp": "lp", "egt": "egt"}


def _run(sf):
    subs = cuts.subgames(sf.tree, experiment.parse_cut(_CUT.value))
    blueprint = experiment.blueprint_from_spec(sf, _BLUEPRINT.value)[1]
    before = blueprints.BlueprintQuantities.compute(sf, blueprint)
    start = time.perf_counter()
    method = METHODS[_SOLVER.value]
    resolution = combine.resolve(
        before,
        subs,
        _GADGET.value,
        _PRIOR.value,
        method,
        eps=_EPSILON.value,
        iterations=_ITERATIONS.value,
        batch=method == "cfr",
    )
    seconds = time.perf_counter() - start
    after = blueprints.BlueprintQuantities.compute(sf, resolution.behavioural)
    value0 = combine.game_value(sf)
    e_bp = evaluate.evaluate_profile(sf, blueprint).exploitability
    rows, per_subgame = [], []
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
        rows.append([sub.index, sub.num_roots, e_bp, e_sub, *min_d, *mean_d])
        per_subgame.append(
            {
                "index": sub.index,
                "roots": sub.num_roots,
                "blueprint_exploitability": e_bp,
                "exploitability": e_sub,
                "min_delta": min_d,
                "mean_delta": mean_d,
            }
        )
    players = [combine.player_exploitability(sf, after.blueprint[p], p, value0) for p in (0, 1)]
    bp_players = [combine.player_exploitability(sf, blueprint[p], p, value0) for p in (0, 1)]
    e_all = evaluate.evaluate_profile(sf, resolution.behavioural).exploitability
    header = ["subgame", "roots", "E(blueprint)", "E(this resolved)", "min D_0", "min D_1"]
    header += ["mean D_0", "mean D_1"]
    print(cli.format_table(header, rows))
    print(
        f"\nall {len(subs)} subgames resolved ({_GADGET.value}, prior {_PRIOR.value}, "
        f"{_SOLVER.value}, {seconds:.2f} s): exploitability {e_bp:.6g} -> {e_all:.6g}; "
        f"E(pi_0) {bp_players[0]:.6g} -> {players[0]:.6g}, "
        f"E(pi_1) {bp_players[1]:.6g} -> {players[1]:.6g}"
    )
    if _POLICY_OUT.value:
        policies.save_policy(resolution.policy(), _POLICY_OUT.value, sf.tree.game)
    cli.write_json(
        _OUTPUT_JSON.value,
        {
            "game": _GAME.value,
            "cut": _CUT.value,
            "blueprint": _BLUEPRINT.value,
            "gadget": _GADGET.value,
            "prior": _PRIOR.value,
            "solver": _SOLVER.value,
            "iterations": _ITERATIONS.value,
            "epsilon": _EPSILON.value,
            "blueprint_exploitability": e_bp,
            "exploitability": e_all,
            "blueprint_player_exploitability": bp_players,
            "player_exploitability": players,
            "seconds": seconds,
            "subgames": per_subgame,
        },
    )


def main(argv):
    cli.no_arguments(argv)
    cli.require(
        bool(np.isfinite(_EPSILON.value)) and 0 < _EPSILON.value < 1,
        f"--epsilon must be in (0, 1), got {_EPSILON.value}",
    )
    cli.positive(_ITERATIONS)
    cli.positive(_MAX_NODES)
    for holder in (_OUTPUT_JSON, _POLICY_OUT):
        cli.output_path(holder)
    cli.distinct_outputs(_OUTPUT_JSON, _POLICY_OUT)
    sf = cli.compile_game(cli.load_game(_GAME.value), _MAX_NODES.value)
    try:
        _run(sf)
    except ValueError as e:
        raise app.UsageError(str(e).strip().splitlines()[0]) from None


if __name__ == "__main__":
    cli.main(main)
