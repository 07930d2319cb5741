r"""Depth-limited solving with multi-valued states (Brown, Sandholm & Amos 2018, Section 4).

The paper: "Depth-Limited Solving for Imperfect-Information Games".

  ospiel-ext depth-limited --game=leduc_poker --blueprint=cfr:100 \
      --limit=round_end --num_values=4 --strategy_set=bias --solver=lp \
      --policy_out=/tmp/dl.json --output_json=/tmp/dl_results.json

For each player, solves the depth-limited game rooted at the start of the game (or at every
public state of --root with the --gadget, Proposition 1's safe version) in which the opponent
picks one of K continuation values at each leaf information set; the full-game strategy plays
the solution above the limit and the blueprint beyond. Prints the exploitability of that
profile next to the blueprint's and full-depth solving's (the same solver and roots without a
depth limit), with the sizes of the depth-limited and full games.

--limit: round_end (leaves at the chance node that deals the next public card: the end of a betting
round, where the opponent picks its continuation before the deal, as in the paper's Section 6),
after_moves=K, public_chance (leaves after that deal: one choice per public card),
after_chance_events=K or module:function (default: after_moves=--depth, counted from the start of
the game; in a game that ends before --depth moves, after_moves=1). --blueprint: a policy file,
cfr:N or dirichlet:SEED. --strategy_set: bias (blueprint + biased copies; poker: fold / check-call
/ bet-raise), self_generative, blueprint (K = 1, naive) or pure (every pure continuation,
Proposition 1; K is then the largest count). --num_values: K (default: 4, or fewer where the set
has fewer strategies, as Kuhn poker's bias set has 3). --values=exact or rollouts:N (N Monte Carlo
playouts per leaf state and strategy, --seed). Each player's guaranteed value (u_i(pi_i, BR)) is
reported; with --game_value the game's LP is solved too and each player's exploitability E(pi_i) =
u_i^* - u_i(pi_i, BR) is reported.

--time_limit (the solving: both players and full-depth solving), Ctrl-C and SIGTERM stop the
solving within moments: the solve under way keeps its result so far, later solves are skipped,
and the result so far (the players solved, the rest at the blueprint) is evaluated, printed and
written with its stop_reason (exit code 130 after Ctrl-C or SIGTERM).

JSON keys: game, blueprint, limit, root, strategy_set, num_values, solver, iterations, values,
stop_reason ('solved', 'interrupted', 'time_limit'), players_solved, iterations_run (per
player solved, the most iterations one of its solves ran: fewer than --iterations for the
solve a stop cut short; 0 for the LP), blueprint_exploitability,
exploitability (of the profile with the players solved), full_depth_exploitability (null if
stopped before), guaranteed_values, blueprint_guaranteed_values, player_exploitability and
blueprint_player_exploitability (null without --game_value), game_value, leaf_states,
depth_limited_nodes, full_game_nodes, max_rollout_stderr, seconds.
"""

import time
from typing import cast

from absl import app, flags, logging

from ospiel_ext import evaluate, policies, policy_files
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
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

_GAME = flags.DEFINE_string("game", "leduc_poker", "A pyspiel.load_game string.")
_BLUEPRINT = flags.DEFINE_string("blueprint", "cfr:100", "FILE, cfr:N or dirichlet:SEED.")
_DEPTH = flags.DEFINE_integer("depth", 2, "Depth limit: player moves from the start.")
_LIMIT = flags.DEFINE_string(
    "limit", None, "round_end or a cut spec for the depth limit (overrides --depth)."
)
_ROOT = flags.DEFINE_string("root", "start", "'start' or a cut spec: the subgames' roots.")
_NUM_VALUES = flags.DEFINE_integer(
    "num_values", None, "K continuation values per leaf state (default: 4, or the set's size)."
)
_SET = flags.DEFINE_enum("strategy_set", "bias", list(dl.SET_KINDS), "Continuation strategies.")
_GADGET = flags.DEFINE_enum(
    "gadget", "resolving", ["resolving", "max_margin", "reach_max_margin", "unsafe"],
    "Gadget below the start of the game (--root other than start).",
)  # fmt: skip
_PRIOR = flags.DEFINE_enum("prior", "none", ["none", "uniform", "blueprint"], "GGSE prior.")
_SOLVER = flags.DEFINE_enum("solver", "cfr_plus", list(ggse.SOLVER_METHODS), "Solver.")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ / EGT iterations.")
_VALUES = flags.DEFINE_string("values", "exact", "exact or rollouts:N.")
_SEED = flags.DEFINE_integer("seed", 0, "Rollout seed.")
_TIME_LIMIT = flags.DEFINE_float(
    "time_limit", None, "Stop the solving after this many seconds (the evaluation follows)."
)
_GAME_VALUE = flags.DEFINE_bool(
    "game_value", False, "Also solve the game's LP for its value and E(pi_i) per player."
)
_POLICY_OUT = flags.DEFINE_string("policy_out", None, "Write the depth-limited profile here.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Refuse games with more nodes.")


def _rollout_samples(spec: str) -> int | None:
    if spec == "exact":
        return None
    kind, _, n = spec.partition(":")
    if kind != "rollouts" or not n.isdigit() or int(n) < 2:
        raise app.UsageError(f"--values={spec}: expected exact or rollouts:N with N >= 2")
    return int(n)


def _limit(sf: TreeSequenceForm) -> tuple[str, dl.DepthLimit]:
    """The depth limit of --limit / --depth.

    A game that ends before --depth moves (a one-shot game) gets after_moves=1 when neither
    flag was set.
    """
    spec = _LIMIT.value or f"after_moves={_DEPTH.value}"
    try:
        return spec, dl.depth_limit(sf.tree, dl.parse_limit(spec))
    except ValueError:
        if _LIMIT.value or _DEPTH.present or _DEPTH.value == 1:
            raise
    spec = "after_moves=1"
    try:
        return spec, dl.depth_limit(sf.tree, dl.parse_limit(spec))
    except ValueError as e:
        raise ValueError(
            f"{e}; depth-limited solving needs moves after the limit: set --limit=... or "
            "--depth=..."
        ) from None


def _solve_players(
    sf: TreeSequenceForm,
    q: ss.BlueprintQuantities,
    blueprint: policies.Behavioural,
    *,
    subs: tuple[ss.Subgame, ...],
    limit: dl.DepthLimit,
    samples: int | None,
    k: int,
) -> tuple[
    policies.Behavioural,
    dict[int, int],
    dict[int, dl.MultiValuedLeaves],
    list[int],
    float,
    combine.Resolution | None,
    str | None,
]:
    """Solves each player in turn and returns what was solved, so far when stopped.

    Returns:
      (the profile, {player solved: the most iterations one of its solves ran}, {player: its
      leaves}, the depth-limited games' sizes, the largest rollout standard error, full-depth
      solving's resolution or None, the stop reason or None).
    """
    at_start = _ROOT.value == "start"
    # DEFINE_enum checked the names
    gadget: gadgets.GadgetKind = "unsafe" if at_start else cast(gadgets.GadgetKind, _GADGET.value)
    prior: priors.PriorKind = "none" if gadget == "unsafe" else cast(priors.PriorKind, _PRIOR.value)
    kind = cast(dl.SetKind, _SET.value)
    method = ggse.SOLVER_METHODS[_SOLVER.value]
    profile, solved, sizes, stderr, leaves_of = list(blueprint), {}, [], 0.0, {}
    full = None
    with cli.stoppable(_TIME_LIMIT.value) as stop:
        for i in (0, 1):
            if interrupts.requested():
                break
            leaves = dl.continuation_leaves(
                q,
                subs,
                limit,
                player=i,
                kind=kind,
                num_values=k,
                gadget=gadget,
                method=method,
                iterations=_ITERATIONS.value,
            )
            if samples is not None:
                leaves = dl.estimate_by_rollouts(
                    sf, leaves, blueprint, samples=samples, seed=_SEED.value + i
                )
                if _SET.value == "self_generative":
                    leaves = dl.weaken(leaves, dl.leaf_beliefs(sf, limit, blueprint, i))
                assert leaves.stderr is not None
                stderr = max(stderr, float(leaves.stderr.max(initial=0.0)))
            solution = dl.solve_depth_limited(
                q,
                subs,
                leaves,
                gadget=gadget,
                prior=prior,
                method=method,
                iterations=_ITERATIONS.value,
            )
            if not solution.solutions:  # stopped before its first solve
                break
            profile[i] = solution.behavioural[i]
            solved[i] = max((s.iterations for s in solution.solutions), default=0)
            leaves_of[i] = leaves
            sizes += [s.gadget.tree.num_nodes for s in solution.solutions]
            print(
                f"player {i}: {len(leaves.nodes)} leaf states, K = {leaves.num_values} "
                f"({', '.join(leaves.labels)}), depth-limited games of "
                f"{sum(s.gadget.tree.num_nodes for s in solution.solutions)} nodes"
            )
        if not interrupts.requested():
            full = combine.resolve(
                q, subs, gadget, prior=prior, method=method, iterations=_ITERATIONS.value
            )
            if full.stop_reason != "solved":
                full = None
    return (profile[0], profile[1]), solved, leaves_of, sizes, stderr, full, stop.reason


def _run(sf: TreeSequenceForm, samples: int | None) -> None:
    blueprint = blueprints.blueprint_from_spec(sf, _BLUEPRINT.value)[1]
    limit_spec, limit = _limit(sf)
    subs = (
        dl.start_subgames(sf.tree)
        if _ROOT.value == "start"
        else ss.subgames(sf.tree, cuts.parse_cut(_ROOT.value))
    )
    k = _NUM_VALUES.value or dl.default_num_values(sf, _SET.value)
    q = ss.BlueprintQuantities.compute(sf, blueprint)
    logging.info(
        "depth-limited solving of %s, K = %d (%s), %s", sf.tree.game, k, _SET.value, limit_spec
    )
    start = time.perf_counter()
    behavioural, solved, leaves, sizes, stderr, full, stopped = _solve_players(
        sf, q, blueprint, subs=subs, limit=limit, samples=samples, k=k
    )
    seconds = time.perf_counter() - start
    stop_reason = stopped or "solved"
    value0 = cli_solving.run_lp(sf, None)[1] if _GAME_VALUE.value else None  # None if stopped
    profiles = {"blueprint": blueprint, "depth-limited": behavioural}
    if full is not None:
        profiles["full-depth solving"] = full.behavioural
    rows, figures = [], {}
    for name, b in profiles.items():
        guaranteed, exploitability = evaluate.player_figures(sf, b, value0)
        e = evaluate.evaluate_profile(sf, b).exploitability
        figures[name] = (e, guaranteed, exploitability)
        label = name
        if name == "depth-limited":
            label = f"depth-limited, K = {k} ({_SET.value})"
            if list(solved) != [0, 1]:
                label += f"; players solved: {list(solved)}"
        rows.append([label, e, *guaranteed, *(exploitability or [])])
    header = ["profile", "exploitability", "u_0(pi_0, BR)", "u_1(pi_1, BR)"]
    header += [] if value0 is None else ["E(pi_0)", "E(pi_1)"]
    print(format_table(header, rows))
    print(
        f"{sf.tree.num_nodes} full-game nodes; largest depth-limited game "
        f"{max(sizes, default=0)} nodes; {seconds:.2f} s"
        + ("" if stop_reason == "solved" else f"; stopped ({stop_reason})")
    )
    row = {
        "game": str(sf.tree.game),
        "blueprint": _BLUEPRINT.value,
        "limit": limit_spec,
        "root": _ROOT.value,
        "strategy_set": _SET.value,
        "num_values": max((v.num_values for v in leaves.values()), default=k),
        "solver": _SOLVER.value,
        "iterations": _ITERATIONS.value,
        "values": _VALUES.value,
        "stop_reason": stop_reason,
        "players_solved": list(solved),
        "iterations_run": list(solved.values()),
        "blueprint_exploitability": figures["blueprint"][0],
        "exploitability": figures["depth-limited"][0],
        "full_depth_exploitability": None if full is None else figures["full-depth solving"][0],
        "guaranteed_values": figures["depth-limited"][1],
        "blueprint_guaranteed_values": figures["blueprint"][1],
        "player_exploitability": figures["depth-limited"][2],
        "blueprint_player_exploitability": figures["blueprint"][2],
        "game_value": value0,
        "leaf_states": len(limit.nodes),
        "depth_limited_nodes": sizes,
        "full_game_nodes": sf.tree.num_nodes,
        "max_rollout_stderr": stderr,
        "seconds": seconds,
    }
    with cli.outputs():
        if _POLICY_OUT.value:
            policy = policies.layout(sf).to_tabular(behavioural)
            policy_files.save_policy(policy, _POLICY_OUT.value, sf.tree.game)
        cli_output.write_json(_OUTPUT_JSON.value, row)


def main(argv: list[str]) -> None:
    """Solves --game depth-limited for each player; prints and writes the profiles' figures."""
    cli_flags.no_arguments(argv)
    for holder in (_ITERATIONS, _NUM_VALUES, _DEPTH, _MAX_NODES, _TIME_LIMIT):
        cli_flags.positive(holder)
    for output in (_OUTPUT_JSON, _POLICY_OUT):
        cli_flags.output_path(output)
    blueprint_file = blueprints.blueprint_file(_BLUEPRINT.value)
    cli_flags.distinct_files([_OUTPUT_JSON, _POLICY_OUT], inputs=[("--blueprint", blueprint_file)])
    samples = _rollout_samples(_VALUES.value)
    sf = cli.compile_game(cli.load_game(_GAME.value), _MAX_NODES.value)
    with cli_flags.refuse(ValueError), interrupts.graceful():  # a Ctrl-C lets the result be written
        _run(sf, samples)


if __name__ == "__main__":
    cli.main(main)
