"""Exploitability against K on compiled games (benchmarks/papers/depth_limited.py, item 2 of its
docstring; the compiled-game analogue of Brown, Sandholm & Amos 2018, Section 6.1): per (game,
cut, blueprint, solver), depth-limited solving for each player with K values from each
continuation set (`Record`, one per set and K) beside the blueprint, full-depth solving and the
fixed-below bound (`Reference`)."""

import dataclasses
import time

import numpy as np
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, lp, policies
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.subgames import ggse
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
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
SHORT = {GOOFSPIEL_5: "goofspiel5", LIARS_DICE: "liars_dice_1_4", "leduc_poker": "leduc"}
SETS = ("self_generative", "self_generative_unweakened", "bias", "pure")
SELF_GENERATIVE = {"self_generative": True, "self_generative_unweakened": False}  # weaken?
SOLVERS = ("lp", "cfr_plus")  # of ggse.SOLVER_METHODS
PROPOSITION1_TOLERANCE = 1e-7


@dataclasses.dataclass(frozen=True, kw_only=True)
class Settings:
    """What a run of benchmarks/papers/depth_limited.py computes (its flags, checked).

    Attributes:
      num_values: the K of the self-generative sets, increasing.
      blueprints: the vanilla CFR checkpoints (iterations) used as blueprints, increasing.
      solvers: of SOLVERS; sets: of SETS.
      iterations: CFR+ iterations per solve.
      lp_vertex: the LP's optimal solution where there are many (ggse.LP_VERTICES).
    """

    num_values: tuple[int, ...]
    blueprints: tuple[int, ...]
    solvers: tuple[str, ...]
    sets: tuple[str, ...]
    iterations: int
    lp_vertex: str

    def as_json(self):
        """The "settings" of the results file."""
        return {
            "num_values": list(self.num_values),
            "blueprints": list(self.blueprints),
            "solvers": list(self.solvers),
            "sets": list(self.sets),
            "cfr_plus_iterations": self.iterations,
            "lp_vertex": self.lp_vertex,
        }


@dataclasses.dataclass(frozen=True, kw_only=True)
class Record:
    """Depth-limited solving of one (game, cut, blueprint, solver) with one set and K.

    Attributes:
      game: the game's short name (SHORT); cut: the depth limit (`dl.parse_limit`);
      blueprint: CFR iterations of the blueprint; solver: of SOLVERS; set: of SETS.
      K: the K asked; K0, K1: the K each player's depth-limited game got (at most its set's
        size).
      E0, E1: each player's exploitability (E_i); exploitability: the profile's, (E0 + E1) / 2.
      blueprint_exploitability, full_depth_exploitability, fixed_below_bound: the profile
        exploitabilities of the case's `Reference`, for the plots.
      seconds: the two solves and their evaluation.
    """

    game: str
    cut: str
    blueprint: int
    solver: str
    set: str
    K: int
    K0: int
    K1: int
    E0: float
    E1: float
    exploitability: float
    blueprint_exploitability: float
    full_depth_exploitability: float
    fixed_below_bound: float
    seconds: float

    @property
    def key(self):
        """(game, cut, blueprint, solver): the case of the record."""
        return self.game, self.cut, self.blueprint, self.solver

    @property
    def k_label(self):
        """K of the record: one number, or K0/K1 where the players' sets differ in size."""
        return str(self.K0) if self.K0 == self.K1 else f"{self.K0}/{self.K1}"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Reference:
    """What depth-limited solving of one (game, cut, blueprint, solver) is compared with.

    Attributes:
      game, cut, blueprint, solver: as `Record`.
      blueprint_E0, blueprint_E1, blueprint_exploitability: the blueprint's E_i and E.
      full_depth_E0, full_depth_E1, full_depth_exploitability: the same solver on the whole
        game's.
      bound_E0, bound_E1, fixed_below_bound: `fixed_below_bound` per player, and their mean.
      generation_seconds: {set: seconds to generate both players' largest sets}.
      distinct_values: {set: [distinct value columns solving player 0, player 1]}.
      seconds: the case's wall time.
    """

    game: str
    cut: str
    blueprint: int
    solver: str
    blueprint_E0: float
    blueprint_E1: float
    blueprint_exploitability: float
    full_depth_E0: float
    full_depth_E1: float
    full_depth_exploitability: float
    bound_E0: float
    bound_E1: float
    fixed_below_bound: float
    generation_seconds: dict
    distinct_values: dict
    seconds: float

    @property
    def key(self):
        """(game, cut, blueprint, solver), as `Record.key`."""
        return self.game, self.cut, self.blueprint, self.solver


def columns(row_type):
    """The field names of `Record` or `Reference`: the columns of the results file's rows."""
    return [f.name for f in dataclasses.fields(row_type)]


def as_row(row):
    """A `Record` or `Reference` as the results file's row: its fields in `columns` order."""
    return [getattr(row, name) for name in columns(type(row))]


def fixed_below_bound(sf, limit, blueprint, *, player, value0):
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
    solution = lp.solve(
        sf, player=player, constraints=lp.LPConstraints(own=sequence_lower_bounds(tp, lower))
    )
    sign = 1.0 if player == 0 else -1.0
    return sign * value0 - sign * solution.value, solution.behavioural[player]


def _distinct(leaves):
    """How many of the leaves' K value columns differ (to 1e-9): a self-generative set stops
    growing when a best response repeats one already in it."""
    return len({tuple(np.round(c, 9)) for c in leaves.values.T})


def _k_points(size, num_values):
    """The K of `num_values` a set of `size` strategies has, and the whole set."""
    return sorted({k for k in num_values if k < size} | {size})


def _leaf_sets(settings, sf, q, *, limit, subs, player, solver):
    """{set: (leaves of the largest K, generation seconds)} for solving `player`."""
    bp, opponent = q.blueprint, 1 - player
    out = {}
    for name, weaken in SELF_GENERATIVE.items():
        if name in settings.sets:
            start = time.perf_counter()
            leaves = dl.self_generative(
                q,
                subs,
                limit,
                player=player,
                num_values=max(settings.num_values),
                gadget="unsafe",
                method=ggse.SOLVER_METHODS[solver],
                iterations=settings.iterations,
                weaken=weaken,
                lp_vertex=settings.lp_vertex,
            )
            out[name] = (leaves, time.perf_counter() - start)
    if "bias" in settings.sets:
        start = time.perf_counter()
        strategies, labels = dl.bias_strategies(sf, bp, opponent)
        leaves = dl.exact_values(sf, limit, bp, player=player, strategies=strategies, labels=labels)
        out["bias"] = (leaves, time.perf_counter() - start)
    if "pure" in settings.sets:
        start = time.perf_counter()
        try:
            pure = dl.pure_continuations(sf, limit, bp[opponent], player=opponent)
        except ValueError:  # too many pure continuations below a leaf information set
            pure = None
        if pure is not None:
            leaves = dl.exact_values(sf, limit, bp, player=player, strategies=pure)
            out["pure"] = (leaves, time.perf_counter() - start)
    return out


def _points(settings, name, leaves):
    """The K at which the set `name` is measured, given each player's `leaves` of it: every
    --num_values for a self-generative set, `_k_points` for the bias set, the whole set else."""
    sizes = [leaves[i].num_values for i in (0, 1)]
    if name in SELF_GENERATIVE:
        return list(settings.num_values)
    if name == "bias":
        return _k_points(max(sizes), settings.num_values)
    return [max(sizes)]


def _depth_limited_profile(settings, q, subs, *, blueprint, leaves, k, method):
    """(profile, [K0, K1]): player i's strategy is its depth-limited solution with the first K
    of `leaves[i]`'s values (at most its set's size); `blueprint` is the profile's template."""
    profile, ks = list(blueprint), []
    for i in (0, 1):
        ki = min(k, leaves[i].num_values)
        sol = dl.solve_depth_limited(
            q,
            subs,
            leaves[i].select(range(ki)),
            method=method,
            iterations=settings.iterations,
            lp_vertex=settings.lp_vertex,
        )
        profile[i] = sol.behavioural[i]
        ks.append(ki)
    return profile, ks


def _check_record(checks, record, bound):
    """Appends to `checks` what `record` fails: E = (E0 + E1) / 2, and for the pure set with
    the LP, Proposition 1 against the fixed-below `bound` per player."""
    e, total = (record.E0, record.E1), record.exploitability
    if abs(total - (e[0] + e[1]) / 2) > 1e-9:
        checks.append(f"{record.game} {record.cut}: E != (E0 + E1) / 2 ({total})")
    # Proposition 1: with every pure continuation the depth-limited game is the full game with
    # the blueprint fixed below the limit, so the LP solution meets the fixed-below bound
    # (computed without this module).
    if record.set == "pure" and record.solver == "lp":
        for i in (0, 1):
            if abs(e[i] - bound[i]) > PROPOSITION1_TOLERANCE:
                checks.append(
                    f"{record.game} {record.cut} CFR {record.blueprint}: pure-set E{i} {e[i]} != "
                    f"fixed-below bound {bound[i]}"
                )


def run_case(settings, game_string, cut_spec, *, checks, blueprint_cache):
    """Records and references of one (game, cut) over blueprints x solvers (the CFR
    checkpoints of a game are computed once, in `blueprint_cache`); a failed check is
    appended to `checks`."""
    game = cli.load_game(game_string)
    sf = cli.compile_game(game)
    with cli_flags.refuse():
        limit = dl.depth_limit(sf.tree, dl.parse_limit(cut_spec))
    subs = dl.start_subgames(sf.tree)
    v0 = lp.game_value(sf)
    short = SHORT.get(game_string, game_string)
    if game_string not in blueprint_cache:
        blueprint_cache[game_string] = ss.cfr_checkpoints(game, list(settings.blueprints))
    blueprints = blueprint_cache[game_string]
    records, references = [], []
    for iters, policy in zip(settings.blueprints, blueprints):
        bp = ss.load_blueprint(sf, policy)
        q = ss.BlueprintQuantities.compute(sf, bp)
        bp_e = [evaluate.player_exploitability(sf, bp[i], i, v0) for i in (0, 1)]
        bound = [fixed_below_bound(sf, limit, bp, player=i, value0=v0)[0] for i in (0, 1)]
        for solver in settings.solvers:
            case_start = time.perf_counter()
            method = ggse.SOLVER_METHODS[solver]
            full = ss.resolve(
                q, subs, "unsafe", method=method, iterations=settings.iterations
            ).behavioural
            full_e = [evaluate.player_exploitability(sf, full[i], i, v0) for i in (0, 1)]
            sets = [
                _leaf_sets(settings, sf, q, limit=limit, subs=subs, player=i, solver=solver)
                for i in (0, 1)
            ]
            generation = {
                name: sets[0][name][1] + sets[1][name][1] for name in sets[0] if name in sets[1]
            }
            distinct = {name: [_distinct(sets[i][name][0]) for i in (0, 1)] for name in generation}
            for name in generation:
                leaves = [sets[i][name][0] for i in (0, 1)]
                for k in _points(settings, name, leaves):
                    start = time.perf_counter()
                    profile, ks = _depth_limited_profile(
                        settings, q, subs, blueprint=bp, leaves=leaves, k=k, method=method
                    )
                    e = [evaluate.player_exploitability(sf, profile[i], i, v0) for i in (0, 1)]
                    total = evaluate.evaluate_profile(sf, (profile[0], profile[1])).exploitability
                    record = Record(
                        game=short,
                        cut=cut_spec,
                        blueprint=iters,
                        solver=solver,
                        set=name,
                        K=k,
                        K0=ks[0],
                        K1=ks[1],
                        E0=e[0],
                        E1=e[1],
                        exploitability=total,
                        blueprint_exploitability=float(np.mean(bp_e)),
                        full_depth_exploitability=float(np.mean(full_e)),
                        fixed_below_bound=float(np.mean(bound)),
                        seconds=time.perf_counter() - start,
                    )
                    _check_record(checks, record, bound)
                    records.append(record)
                    last_profile = (profile[0], profile[1])
            references.append(
                Reference(
                    game=short,
                    cut=cut_spec,
                    blueprint=iters,
                    solver=solver,
                    blueprint_E0=bp_e[0],
                    blueprint_E1=bp_e[1],
                    blueprint_exploitability=float(np.mean(bp_e)),
                    full_depth_E0=full_e[0],
                    full_depth_E1=full_e[1],
                    full_depth_exploitability=float(np.mean(full_e)),
                    bound_E0=bound[0],
                    bound_E1=bound[1],
                    fixed_below_bound=float(np.mean(bound)),
                    generation_seconds={k: round(v, 3) for k, v in generation.items()},
                    distinct_values=distinct,
                    seconds=time.perf_counter() - case_start,
                )
            )
    # OpenSpiel's own exploitability of the last profile, once per case (independent check).
    if records:
        ours = records[-1].exploitability
        theirs = os_exploitability.exploitability(
            game, policies.layout(sf).to_tabular(last_profile)
        )
        if abs(ours - theirs) > 1e-9:
            checks.append(f"{short} {cut_spec}: ours {ours} != OpenSpiel's {theirs}")
        print(f"{short} {cut_spec}: last profile E = {ours:.6g}, OpenSpiel's {theirs:.6g}")
    return records, references
