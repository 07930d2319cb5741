"""Depth-limited solving with multi-valued states (Brown, Sandholm & Amos 2018,
"Depth-Limited Solving for Imperfect-Information Games", Section 4).

  ospiel-ext depth-limited --game=leduc_poker --blueprint=cfr:100 \
      --limit=public_chance --num_values=4 --strategy_set=bias --solver=lp \
      --policy_out=/tmp/dl.json --output_json=/tmp/dl_results.json

For each player, solves the depth-limited game rooted at the start of the game (or at every
public state of --root with the --gadget, Proposition 1's safe version) in which the opponent
picks one of K continuation values at each leaf information set; the full-game strategy plays
the solution above the limit and the blueprint beyond. Prints the exploitability of that
profile next to the blueprint's and full-depth solving's (the same solver and roots without a
depth limit), with the sizes of the depth-limited and full games.

--limit: after_moves=K, public_chance, after_chance_events=K or module:function (default:
after_moves=--depth, counted from the start of the game). --blueprint: a policy file, cfr:N or
dirichlet:SEED. --strategy_set: bias (blueprint + biased copies; poker: fold / check-call /
bet-raise), self_generative, blueprint (K = 1, naive) or pure (every pure continuation,
Proposition 1; K is then the largest count). --values=exact or rollouts:N (N Monte Carlo
playouts per leaf state and strategy, --seed). JSON keys: game, blueprint, limit, root,
strategy_set, num_values, solver, iterations, values, blueprint_exploitability, exploitability,
full_depth_exploitability, player_exploitability, leaf_states, depth_limited_nodes,
full_game_nodes, max_rollout_stderr, seconds.
"""

import time

from absl import app, flags

from ospiel_ext import cli, evaluate, policies
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.subgames import combine, experiment

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "cfr:100", "FILE, cfr:N or dirichlet:SEED.")
_DEPTH = flags.DEFINE_integer("depth", 2, "Depth limit: player moves from the start.")
_LIMIT = flags.DEFINE_string("limit", None, "A cut spec for the depth limit (overrides --depth).")
_ROOT = flags.DEFINE_string("root", "start", "'start' or a cut spec: the subgames' roots.")
_NUM_VALUES = flags.DEFINE_integer("num_values", 4, "K continuation values per leaf state.")
_SET = flags.DEFINE_enum("strategy_set", "bias", list(dl.SET_KINDS), "Continuation strategies.")
_GADGET = flags.DEFINE_enum(
    "gadget", "resolving", ["resolving", "max_margin", "reach_max_margin", "unsafe"],
    "Gadget below the start of the game (--root other than start).",
)  # fmt: skip
_PRIOR = flags.DEFINE_enum("prior", "none", ["none", "uniform", "blueprint"], "GGSE prior.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", ["cfr_plus", "lp", "egt"], "Solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ / EGT iterations.")
_VALUES = flags.DEFINE_string("values", "exact", "exact or rollouts:N.")
_SEED = flags.DEFINE_integer("seed", 0, "Rollout seed.")
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the depth-limited profile here.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")

METHODS = {"cfr_plus": "cfr", "lp": "lp", "egt": "egt"}


def _rollout_samples(spec):
    if spec == "exact":
        return None
    kind, _, n = spec.partition(":")
    if kind != "rollouts" or not n.isdigit() or int(n) < 2:
        raise app.UsageError(f"--values={spec}: expected exact or rollouts:N with N >= 2")
    return int(n)


def _run(sf, samples):
    blueprint = experiment.blueprint_from_spec(sf, _BLUEPRINT.value)[1]
    limit_spec = _LIMIT.value or f"after_moves={_DEPTH.value}"
    limit = dl.depth_limit(sf.tree, experiment.parse_cut(limit_spec))
    at_start = _ROOT.value == "start"
    subs = (
        dl.start_subgames(sf.tree)
        if at_start
        else ss.subgames(sf.tree, experiment.parse_cut(_ROOT.value))
    )
    gadget = "unsafe" if at_start else _GADGET.value
    prior = "none" if gadget == "unsafe" else _PRIOR.value
    method = METHODS[_SOLVER.value]
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    start = time.perf_counter()
    profile, sizes, stderr, k = list(blueprint), [], 0.0, 0
    for i in (0, 1):
        leaves = dl.continuation_leaves(
            q, subs, limit, i, _SET.value, _NUM_VALUES.value, gadget, method, _ITERATIONS.value
        )
        if samples is not None:
            leaves = dl.estimate_by_rollouts(sf, leaves, blueprint, samples, _SEED.value + i)
            if _SET.value == "self_generative":
                leaves = dl.weaken(leaves, dl.leaf_beliefs(sf, limit, blueprint, i))
            assert leaves.stderr is not None
            stderr = max(stderr, float(leaves.stderr.max(initial=0.0)))
        solution = dl.solve(q, subs, leaves, gadget, prior, method, _ITERATIONS.value)
        profile[i] = solution.behavioural[i]
        sizes += [s.gadget.tree.num_nodes for s in solution.solutions]
        k = max(k, leaves.num_values)
        print(
            f"player {i}: {len(leaves.nodes)} leaf states, K = {leaves.num_values} "
            f"({', '.join(leaves.labels)}), depth-limited games of "
            f"{sum(s.gadget.tree.num_nodes for s in solution.solutions)} nodes"
        )
    seconds = time.perf_counter() - start
    full = combine.resolve(q, subs, gadget, prior, method, iterations=_ITERATIONS.value)
    value0 = combine.game_value(sf)
    behavioural = (profile[0], profile[1])
    e_bp = evaluate.evaluate_profile(sf, blueprint).exploitability
    e_dl = evaluate.evaluate_profile(sf, behavioural).exploitability
    e_full = evaluate.evaluate_profile(sf, full.behavioural).exploitability
    players = [combine.player_exploitability(sf, profile[p], p, value0) for p in (0, 1)]
    print(
        cli.format_table(
            ["profile", "exploitability", "E(pi_0)", "E(pi_1)"],
            [
                ["blueprint", e_bp]
                + [combine.player_exploitability(sf, blueprint[p], p, value0) for p in (0, 1)],
                [f"depth-limited, K = {k} ({_SET.value})", e_dl, *players],
                ["full-depth solving", e_full]
                + [
                    combine.player_exploitability(sf, full.behavioural[p], p, value0)
                    for p in (0, 1)
                ],
            ],
        )
    )
    print(
        f"{sf.tree.num_nodes} full-game nodes; largest depth-limited game {max(sizes)} nodes; "
        f"{seconds:.2f} s"
    )
    if _POLICY_OUT.value:
        policies.save_policy(
            policies.layout(sf).to_tabular(behavioural), _POLICY_OUT.value, _GAME.value
        )
    cli.write_json(
        _OUTPUT_JSON.value,
        {
            "game": _GAME.value,
            "blueprint": _BLUEPRINT.value,
            "limit": limit_spec,
            "root": _ROOT.value,
            "strategy_set": _SET.value,
            "num_values": k,
            "solver": _SOLVER.value,
            "iterations": _ITERATIONS.value,
            "values": _VALUES.value,
            "blueprint_exploitability": e_bp,
            "exploitability": e_dl,
            "full_depth_exploitability": e_full,
            "player_exploitability": players,
            "leaf_states": len(limit.nodes),
            "depth_limited_nodes": sizes,
            "full_game_nodes": sf.tree.num_nodes,
            "max_rollout_stderr": stderr,
            "seconds": seconds,
        },
    )


def main(argv):
    cli.no_arguments(argv)
    for holder in (_ITERATIONS, _NUM_VALUES, _DEPTH, _MAX_NODES):
        cli.positive(holder)
    for holder in (_OUTPUT_JSON, _POLICY_OUT):
        cli.output_path(holder)
    cli.distinct_outputs(_OUTPUT_JSON, _POLICY_OUT)
    samples = _rollout_samples(_VALUES.value)
    sf = cli.compile_game(cli.load_game(_GAME.value), _MAX_NODES.value)
    try:
        _run(sf, samples)
    except ValueError as e:
        raise app.UsageError(str(e).strip().splitlines()[0]) from None


if __name__ == "__main__":
    cli.main(main)
