"""EGT's step-size rules against CFR+: tree traversals to a target exploitability, and the
maximum infoset regret of perturbed EGT at a fixed number of traversals.

  python benchmarks/papers/egt_stepping.py --output_json=docs/results/egt_stepping.json

Part 1, for each game: how many tree traversals (bottom-up treeplex passes of one player; a
CFR+ iteration makes 2, a theory EGT step 3, an aggressive EGT step 4 per attempt, plus its
start-up search for the initial smoothing) CFR+, EGT as in Kroer, Farina & Sandholm, IJCAI 2017
(Algorithms 1-2, DGF weight tuned on 20 steps, Section 4) and EGT with the aggressive step-size
rule of Kroer, Farina & Sandholm, "Solving Large Sequential Games with the Excessive Gap
Technique", NeurIPS 2018 (`egt.EGTSolver(stepping="aggressive")`), also restarted as in
Gilpin, Pena & Sandholm, Math. Programming 2012 (`stepping="restarted"`), need until the
exploitability of their strategies first falls to --target_exploitability, measured after
every iteration.
The target: EGT within 2x CFR+. EGT's crossing is sensitive to rounding (its iterates
drift apart at 1e-6 within about 50 steps after a last-bit change), so each EGT run is
repeated with its DGF weight (theory) or first tau (aggressive) multiplied by 1 + r for each
--rounding_perturbations r, and the range of the crossings is printed beside it.

Part 2, on --regret_game: the IJCAI 2017 paper's Figure 3 measure (maximum infoset regret)
after --traversals traversals, for CFR+, EGT with xi = 0 and perturbed EGT at each --xis, with
each step-size rule, and the factor CFR+ / perturbed EGT (paper: about 100).

Part 3, the refinement solvers side by side: on each --refine_games game with
xi = --refine_xi, tree traversals until the saddle-point gap *in the perturbed game* (best
responses within the perturbed strategy sets) first falls to --refine_target_gap, for CFR+ with
behavioural lower bounds and perturbed EGT (each rule), and the maximum infoset regret and
unperturbed NashConv there (checked every --refine_every iterations).

Part 4, tighter targets: on each --games game, the traversals CFR+, aggressive EGT and
restarted EGT (`stepping="restarted"`, the outer loop of Gilpin, Pena & Sandholm, Math.
Programming 2012, whose rate is linear) need until the exploitability first falls to each of
--tight_targets (at most --tight_max_traversals).

Prints tables; --output_json writes every figure.
"""

import time

from absl import flags

from ospiel_ext import evaluate, sequence_form
from ospiel_ext.algorithms import cfr, dilated_entropy, egt
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

LEDUC_5 = "limit_leduc_poker(num_ranks=5,max_raises=2)"

_GAMES = flags.DEFINE_multi_string(
    "games",
    ["leduc_poker", LEDUC_5, "liars_dice(numdice=1,dice_sides=4)"],
    "A game of part 1; repeat the flag for more.",
)
_TARGET = flags.DEFINE_float("target_exploitability", 1e-3, "Exploitability to reach (part 1).")
cli_flags.rename("target", "target_exploitability")
_MAX_TRAVERSALS = flags.DEFINE_integer(
    "max_traversals", 60_000, "Give up on a solver after this many traversals (part 1)."
)
_ROUNDING = flags.DEFINE_list(
    "rounding_perturbations",
    ["1e-12", "-1e-12"],
    "Relative changes of EGT's weight / first tau whose crossings give part 1's range.",
)
_REGRET_GAME = flags.DEFINE_string("regret_game", LEDUC_5, "The game of part 2 ('' skips it).")
_XIS = flags.DEFINE_list("xis", ["0.005", "0.01"], "Perturbations of part 2.")
_TRAVERSALS = flags.DEFINE_integer("traversals", 9000, "Traversals per solver (part 2).")
_REFINE_GAMES = flags.DEFINE_multi_string(
    "refine_games",
    [
        "leduc_poker",
        "liars_dice(numdice=1,dice_sides=4)",
        "turn_based_simultaneous_game(game=goofspiel(num_cards=5,imp_info=True,"
        "points_order=descending))",
    ],
    "A game of part 3; repeat the flag for more.",
)
_REFINE_XI = flags.DEFINE_float("refine_xi", 0.005, "Perturbation of part 3.")
_REFINE_TARGET = flags.DEFINE_float(
    "refine_target_gap", 1e-3, "Perturbed saddle-point gap to reach (part 3)."
)
cli_flags.rename("refine_target", "refine_target_gap")
_REFINE_EVERY = flags.DEFINE_integer("refine_every", 10, "Check every this many iterations.")
_TIGHT_TARGETS = flags.DEFINE_list(
    "tight_targets", ["1e-4", "1e-5", "1e-6"], "Decreasing exploitabilities of part 4 ('' skips)."
)
_TIGHT_MAX = flags.DEFINE_integer(
    "tight_max_traversals", 100_000, "Give up on a solver after this many traversals (part 4)."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def _egt_solvers(sf, weight, xi=0.0, rel=0.0):
    """name -> solver: EGT (theory, DGF weight `weight`), EGT (aggressive), EGT (restarted);
    the weight and the first tau multiplied by 1 + rel."""
    tau = 0.5 * (1 + rel)
    return {
        f"EGT theory (weight {weight:g})": egt.EGTSolver(sf, xi=xi, dgf_weight=weight * (1 + rel)),
        "EGT aggressive": egt.EGTSolver(sf, xi=xi, stepping="aggressive", tau=tau),
        "EGT restarted": egt.EGTSolver(sf, xi=xi, stepping="restarted", tau=tau),
    }


def _solvers(sf, weight, xi=0.0):
    """name -> solver: CFR+ and `_egt_solvers`."""
    return {"CFR+": cfr.CFRPlusSolver(sf, xi=xi), **_egt_solvers(sf, weight, xi)}


def _crossing(solver, target, max_traversals):
    """(iterations, traversals, seconds) when the exploitability first is <= target; None if
    max_traversals passed first. Evaluation time is not counted."""
    return _crossings(solver, [target], max_traversals)[0]


def _crossings(solver, targets, max_traversals):
    """`_crossing` of each of the decreasing `targets`, in one run."""
    seconds, hits = 0.0, []
    for target in targets:
        while solver.exploitability() > target:
            if solver.traversals >= max_traversals:
                return hits + [None] * (len(targets) - len(hits))
            start = time.perf_counter()
            solver.evaluate_and_update_policy()
            seconds += time.perf_counter() - start
        hits.append((solver.iteration, solver.traversals, seconds))
    return hits


def part1(rounding):
    rows, out = [], {}
    for name in _GAMES.value:
        sf = sequence_form.for_game(cli.load_game(name))
        weight = egt.tune_dgf_weight(sf)
        found = {}
        for algo, solver in _solvers(sf, weight).items():
            found[algo] = _crossing(solver, _TARGET.value, _MAX_TRAVERSALS.value)
        spread: dict[str, list] = {algo: [] for algo in found if algo != "CFR+"}
        for rel in rounding:
            for algo, solver in _egt_solvers(sf, weight, rel=rel).items():
                hit = _crossing(solver, _TARGET.value, _MAX_TRAVERSALS.value)
                spread[algo].append(None if hit is None else hit[1])
        base = found["CFR+"]
        for algo, hit in found.items():
            others = [t for t in spread.get(algo, []) if t is not None]
            span = f"{min(others)}-{max(others)}" if others else "-"
            if hit is None:
                rows.append((name, algo, "-", f"> {_MAX_TRAVERSALS.value}", span, "-", "-", "-"))
            else:
                ratio = hit[1] / base[1] if base else float("nan")
                per = hit[2] / hit[1] / (base[2] / base[1]) if base else float("nan")
                rows.append(
                    (
                        name,
                        algo,
                        hit[0],
                        hit[1],
                        span,
                        f"{ratio:.2f}",
                        f"{hit[2]:.2f}",
                        f"{per:.2f}",
                    )
                )
        out[name] = {
            a: (None if h is None else dict(zip(("iterations", "traversals", "seconds"), h)))
            for a, h in found.items()
        }
        for algo, traversals in spread.items():
            if out[name][algo] is not None:
                out[name][algo]["traversals_rounding_perturbed"] = traversals
    print(f"\nPart 1: tree traversals until exploitability <= {_TARGET.value}\n")
    print(
        format_table(
            [
                "game",
                "solver",
                "iterations",
                "traversals",
                "same, weight / tau x (1 + r)",
                "x CFR+",
                "seconds",
                "s/traversal x CFR+",
            ],
            rows,
        )
    )
    return out


def part2(xis):
    sf = sequence_form.for_game(cli.load_game(_REGRET_GAME.value))
    rows, out = [], {}
    weight = egt.tune_dgf_weight(sf)
    for xi in [0.0, *xis]:
        for algo, solver in _solvers(sf, weight, xi).items():
            if algo == "CFR+" and xi:
                algo = "CFR+ (lower bounds)"
            while solver.traversals < _TRAVERSALS.value:
                solver.evaluate_and_update_policy()
            behavioural = solver.average_behavioural()
            regret = evaluate.max_infoset_regret(sf, behavioural)
            nash_conv = evaluate.evaluate_profile(sf, behavioural).nash_conv
            out[f"{algo} xi={xi}"] = {
                "traversals": solver.traversals,
                "max_infoset_regret": regret,
                "nash_conv": nash_conv,
            }
            rows.append((xi, algo, solver.traversals, f"{nash_conv:.3g}", f"{regret:.3g}"))
    print(f"\nPart 2: {_REGRET_GAME.value}, about {_TRAVERSALS.value} traversals each\n")
    print(
        format_table(["xi", "solver", "traversals", "sum of regrets", "max infoset regret"], rows)
    )
    return out


def part3():
    xi, rows, out = _REFINE_XI.value, [], {}
    for name in _REFINE_GAMES.value:
        sf = sequence_form.for_game(cli.load_game(name))
        dgfs = [dilated_entropy.DilatedEntropy(tp, xi) for tp in sf.treeplexes]
        out[name] = {}
        for algo, solver in _solvers(sf, egt.tune_dgf_weight(sf), xi).items():
            algo = "CFR+ (lower bounds)" if algo == "CFR+" else f"perturbed {algo}"
            seconds, hit = 0.0, None
            while solver.traversals < _MAX_TRAVERSALS.value:
                behavioural = solver.average_behavioural()
                plans = (tp.realization_plan(b) for tp, b in zip(sf.treeplexes, behavioural))
                if dilated_entropy.perturbed_saddle_gap(sf, dgfs, *plans) <= _REFINE_TARGET.value:
                    hit = behavioural
                    break
                start = time.perf_counter()
                for _ in range(_REFINE_EVERY.value):
                    solver.evaluate_and_update_policy()
                seconds += time.perf_counter() - start
            if hit is None:
                out[name][algo] = None
                rows.append((name, algo, f"> {_MAX_TRAVERSALS.value}", "-", "-", "-"))
                continue
            regret = evaluate.max_infoset_regret(sf, hit)
            nash_conv = evaluate.evaluate_profile(sf, hit).nash_conv
            out[name][algo] = {
                "iterations": solver.iteration, "traversals": solver.traversals,
                "seconds": seconds, "max_infoset_regret": regret, "nash_conv": nash_conv,
            }  # fmt: skip
            rows.append(
                (
                    name,
                    algo,
                    solver.traversals,
                    f"{seconds:.2f}",
                    f"{nash_conv:.3g}",
                    f"{regret:.3g}",
                )
            )
    print(f"\nPart 3: xi = {xi}, traversals until the perturbed gap <= {_REFINE_TARGET.value}\n")
    print(
        format_table(
            ["game", "solver", "traversals", "seconds", "sum of regrets", "max infoset regret"],
            rows,
        )
    )
    return out


def part4(targets):
    rows, out = [], {}
    for name in _GAMES.value:
        sf = sequence_form.for_game(cli.load_game(name))
        solvers = {
            "CFR+": cfr.CFRPlusSolver(sf),
            "EGT aggressive": egt.EGTSolver(sf, stepping="aggressive"),
            "EGT restarted": egt.EGTSolver(sf, stepping="restarted"),
        }
        out[name] = {}
        for algo, solver in solvers.items():
            hits = _crossings(solver, targets, _TIGHT_MAX.value)
            out[name][algo] = [None if h is None else h[1] for h in hits]
        base = out[name]["CFR+"]
        for algo, traversals in out[name].items():
            cells = [
                f"> {_TIGHT_MAX.value}"
                if t is None
                else (f"{t}" if b is None or algo == "CFR+" else f"{t} ({t / b:.2f}x)")
                for t, b in zip(traversals, base)
            ]
            rows.append((name, algo, *cells))
    print("\nPart 4: tree traversals until exploitability <= each target (x CFR+)\n")
    print(format_table(["game", "solver", *map(str, targets)], rows))
    return out


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TARGET)
    cli_flags.positive(_MAX_TRAVERSALS)
    cli_flags.positive(_TRAVERSALS)
    cli_flags.positive(_REFINE_TARGET)
    cli_flags.positive(_REFINE_EVERY)
    cli_flags.require(
        0 < _REFINE_XI.value < 0.5, f"--refine_xi must lie in (0, 0.5), got {_REFINE_XI.value}"
    )
    cli_flags.output_path(_OUTPUT_JSON)
    xis = cli_flags.float_list(_XIS)
    cli_flags.require(
        all(0 < x < 0.5 for x in xis), f"--xis must lie in (0, 0.5), got {_XIS.value}"
    )
    tight = cli_flags.float_list(_TIGHT_TARGETS)
    cli_flags.require(
        all(t > 0 for t in tight) and tight == sorted(tight, reverse=True),
        f"--tight_targets must be positive and decreasing, got {_TIGHT_TARGETS.value}",
    )
    cli_flags.positive(_TIGHT_MAX)
    rounding = cli_flags.float_list(_ROUNDING)
    cli_flags.require(
        all(-1 < r < 1 for r in rounding),
        f"--rounding_perturbations must lie in (-1, 1), got {_ROUNDING.value}",
    )
    for name in (
        _GAMES.value + _REFINE_GAMES.value + [_REGRET_GAME.value] * bool(_REGRET_GAME.value)
    ):
        cli.load_game(name)  # every game, before the work
    results = {"target": _TARGET.value, "crossings": part1(rounding)}
    if _REGRET_GAME.value:
        results["regrets"] = {"game": _REGRET_GAME.value, "runs": part2(xis)}
    results["refinement"] = {
        "xi": _REFINE_XI.value,
        "target": _REFINE_TARGET.value,
        "runs": part3(),
    }
    if tight:
        results["tight_targets"] = {"targets": tight, "traversals": part4(tight)}
    cli_output.write_json(_OUTPUT_JSON.value, results)


if __name__ == "__main__":
    cli.main(main)
