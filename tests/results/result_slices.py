"""The quick slices of `make results-check`: for every results JSON a doc cites, a command
that reruns part of it in seconds and how its records are matched (`result_compare`).

A slice's command is a benchmark or script of this checkout with flags that select a subset of
the committed run (fewer games, blueprints, pairs; a node budget that ends a trace early); "{out}"
in its arguments is the fresh JSON's path and "{dir}" a scratch directory. JSONs that no slice
covers are listed in `NOT_COVERED` with the reason.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping

from result_compare import Rounding

PI6 = "sequential_goofspiel(num_cards=6,info=perfect)"
II6 = "sequential_goofspiel(num_cards=6)"
RANDOM5 = "sequential_goofspiel(num_cards=5,points_order=random)"
LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"
RHODE_ISLAND_3X2 = "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"
SMALL_CERTIFICATE_GAMES = (
    "search_game",
    "sequential_goofspiel(num_cards=4,info=perfect)",
    "sequential_goofspiel(num_cards=4)",
    "sequential_goofspiel(num_cards=3,points_order=random)",
)


CURVE_LISTS = ("iterations", "traversals", "value", "nash_conv", "exploitability")
"""The lists of a `solver.ConvergenceCurve.as_dict()` that a slice compares."""


@dataclasses.dataclass(frozen=True)
class Slice:
    """One quick rerun (module docstring).

    Attributes:
      name: the test's id.
      json: the committed JSON, relative to the checkout.
      argv: the script (relative to the checkout) and its flags.
      fresh: where the command writes its JSON ("{out}" or a file in "{dir}").
      keys, tables, drop_last, ignore, vertex, atol, rtol, rounding: as
        `result_compare.compare`.
      guards: the documented figures this slice keeps true.
    """

    name: str
    json: str
    argv: tuple[str, ...]
    guards: str
    fresh: str = "{out}"
    keys: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    tables: Mapping[str, str] = dataclasses.field(default_factory=dict)
    drop_last: Mapping[str, int] = dataclasses.field(default_factory=dict)
    ignore: tuple[str, ...] = ()
    vertex: Callable[[str], bool] | None = None
    atol: float = 1e-9
    rtol: float = 1e-6
    rounding: Rounding | None = None


def _games(*games: str, flag: str = "--games") -> tuple[str, ...]:
    return tuple(f"{flag}={g}" for g in games)


def _lp_record(path: str) -> bool:
    """A record solved by an LP (its vertex may differ between HiGHS builds)."""
    return "solver=lp" in path


def _highs_path(path: str) -> bool:
    """Every figure of a certificate search or a HiGHS run: the trunk grows where the LP's
    optimistic profile points and the simplex iterations are HiGHS's own, so another HiGHS build
    may give others (certificates.md)."""
    return True


def _lifted_lossy(path: str) -> bool:
    """The exploitability of an abstraction's LP solution lifted to the game: when the
    abstraction is lossy it depends on which optimal solution the LP returned."""
    return path.endswith("lifted_exploitability")


def _costs(name: str, json: str, game: str, max_trunk_nodes: int, *flags: str) -> Slice:
    """A certificate_costs run cut by a trunk node budget (a few seconds): its trace is a prefix
    of the committed one (the iterations the budget cut short left out)."""
    return Slice(
        name,
        f"docs/results/{json}",
        (
            "benchmarks/perf/certificate_costs.py",
            f"--game={game}",
            f"--max_trunk_nodes={max_trunk_nodes}",
            *flags,
            "--output_json={out}",
        ),
        "certificates.md and engineering.md: the trunk sizes per iteration behind the cost plots",
        drop_last={"trace": 2},  # the budget cuts the last expansion short
        # settings (older files lack them; the command in the provenance has them)
        ignore=(
            "iterations",
            "stopped",
            "epsilon",
            "time_limit",
            "max_nodes",
            "expand_below",
            "lp_method",
            "expand_pessimistic",
            "live_lp",
            "parts",  # each iteration's LP parts (trunk_lps), newer than these files
            "parts_reused",
        ),
    )


SLICES: tuple[Slice, ...] = (
    Slice(
        "certificates_warm",
        "docs/results/certificates.json",
        (
            "benchmarks/papers/certificates.py",
            *_games(*SMALL_CERTIFICATE_GAMES),
            "--output_json={out}",
        ),
        "certificates.md: the warm-start table (trunks, minimal certificates, simplex "
        "iterations) of the four smallest games",
        keys={"rows": ("game",)},
        vertex=_highs_path,
    ),
    Slice(
        "certificates_cold",
        "docs/results/certificates_cold.json",
        (
            "benchmarks/papers/certificates.py",
            *_games(*SMALL_CERTIFICATE_GAMES),
            "--nowarm_start",
            "--output_json={out}",
        ),
        "certificates.md: Table 1 (cold LPs) on the four smallest games",
        keys={"rows": ("game",)},
        vertex=_highs_path,
    ),
    Slice(
        "certificate_lp_methods",
        "docs/results/certificate_lp_methods.json",
        (
            "benchmarks/perf/certificate_lp_methods.py",
            "--runs=search_game@1",
            "--runs=sequential_goofspiel(num_cards=5,info=perfect)@1",
            "--output_json={out}",
        ),
        "certificates.md: the LP methods table (iterations, trunks, epsilon per variant)",
        keys={"runs": ("game", "expand_below", "variant")},
        ignore=("parts", "parts_reused"),  # each iteration's LP parts, newer than the file
    ),
    Slice(
        "certificate_lp_starts",
        "docs/results/certificate_lp_starts.json",
        (
            "benchmarks/perf/certificate_lp_starts.py",
            "--trunk_nodes=20000",
            "--cfr_iterations=100",
            "--output_json={out}",
        ),
        "engineering.md: 'Simplex, interior point, or a CFR+ start' (simplex iterations and "
        "objectives per start)",
        keys={"trunks": ("trunk_nodes",), "runs": ("start",)},
        vertex=_highs_path,
    ),
    Slice(
        "certificate_parts",
        "docs/results/certificate_parts.json",
        (
            "benchmarks/perf/certificate_parts.py",
            "--trunk_nodes=3000,10000",
            "--rounds=1",
            "--output_json={out}",
        ),
        "certificates.md: the trunk LPs split into parts (trunk sizes, parts, the value "
        "interval every way)",
        keys={"trunks": ("trunk_nodes",), "runs": ("method", "way")},
        vertex=_highs_path,
        ignore=("seconds", "highs_seconds", "whole_over_this", "rounds"),
    ),
    Slice(
        "highs_model_changes",
        "docs/results/highs_model_changes.json",
        (
            "benchmarks/perf/highs_model_changes.py",
            *_games(
                "leduc_poker",
                "sequential_goofspiel(num_cards=5)",
                "sequential_goofspiel(num_cards=5,info=perfect)",
            ),
            "--rounds=1",
            "--output_json={out}",
        ),
        "engineering.md: 'Why the trunk LP is rebuilt each iteration' (simplex iterations per "
        "model change)",
        keys={"runs": ("game",)},
        vertex=_highs_path,
        ignore=("rounds",),
    ),
    _costs("certificate_costs_6rank_pi", "certificate_costs_6rank_pi.json", PI6, 2_000),
    _costs(
        "certificate_costs_6rank_pi_expand3",
        "certificate_costs_6rank_pi_expand3.json",
        PI6,
        8_000,
        "--expand_below=3",
    ),
    _costs(
        "certificate_costs_6rank_ii_ipm_expand1",
        "certificate_costs_6rank_ii_ipm_expand1.json",
        II6,
        8_000,
        "--expand_below=1",
        "--lp_method=ipm",
    ),
    Slice(
        "efpe",
        "docs/results/efpe.json",
        (
            "benchmarks/papers/efpe.py",
            "--games=sequential_goofspiel(num_cards=4)",
            "--games=leduc_poker",
            "--output_json={out}",
        ),
        "efpe.md: the Goofspiel 4 and Leduc rows and curves (Figures 2-3)",
        atol=1e-9,
        rtol=1e-6,
        # EGT's curves part from their 11th point on another CPU; measured at their last
        # point: exploitability 8.9e-4, NashConv 1.8e-3, value 1.2e-4, traversals 4 apart;
        # the max infoset regret up to 4x apart (0.85 against 3.47), so it is not compared
        # past the first points. The CFR+ curves replay to 3e-17 and are compared whole.
        rounding=Rounding(
            paths="/EGT",
            exact_points=10,
            loose={
                "exploitability": (2e-3, 0.0),
                "nash_conv": (4e-3, 0.0),
                "value": (2.5e-4, 0.0),
                "traversals": (8.0, 0.0),
            },
        ),
    ),
    Slice(
        "egt_stepping",
        "docs/results/egt_stepping.json",
        (
            "benchmarks/papers/egt_stepping.py",
            f"--games={LIARS_DICE}",
            "--rounding_perturbations=",
            "--regret_game=",
            f"--refine_games={LIARS_DICE}",
            "--tight_targets=1e-4",
            "--output_json={out}",
        ),
        "efpe.md: traversals to 1e-3 / 1e-4 and the refinement table on Liar's dice 1,4",
        ignore=("traversals_rounding_perturbed", "targets"),
        # EGT's step sizes amplify rounding: on another CPU the traversals to a target moved
        # by up to 25 % (the perturbed theory run: 3,182 against 4,232), the refinement runs'
        # max infoset regret by 1.8 %, their NashConv by 0.27 %, "EGT aggressive"'s
        # traversals to the tight target by 0.2 %; the restarted run replays to 1e-7.
        rounding=Rounding(
            paths="",
            exact_points=0,
            loose={
                "traversals": (0.0, 0.5),
                "max_infoset_regret": (0.0, 0.04),
                "nash_conv": (0.0, 6e-3),
                "EGT aggressive": (0.0, 4e-3),
            },
        ),
    ),
    Slice(
        "ggse",
        "docs/results/ggse.json",
        (
            "benchmarks/papers/ggse.py",
            "--games=liars_dice",
            "--cfr_blueprints=1",
            "--dirichlet_blueprints=0",
            "--convergence_iterations=",
            "--lp_vertices=simplex",
            "--scheduler=local",
            "--output_json={out}",
        ),
        "ggse.md: the grid's records on Liar's dice 1,4 for the first CFR checkpoint",
        keys={
            "records": (
                "game",
                "cut",
                "blueprint",
                "technique",
                "solver",
                "iterations",
                "lp_vertex",
            )
        },
        tables={"records": "columns", "t_tests": "t_test_columns"},
        ignore=("tasks", "completed", "t_tests"),
        vertex=_lp_record,
        rtol=1e-5,  # the JSON keeps 6 significant digits
    ),
    _costs(
        "certificate_costs_6rank_pi_expand2",
        "certificate_costs_6rank_pi_expand2.json",
        PI6,
        8_000,
        "--expand_below=2",
    ),
    _costs("certificate_costs_6rank_ii", "certificate_costs_6rank_ii.json", II6, 8_000),
    _costs(
        "certificate_costs_6rank_ii_expand1",
        "certificate_costs_6rank_ii_expand1.json",
        II6,
        20_000,
        "--expand_below=1",
    ),
    _costs(
        "certificate_costs_5rank_random",
        "certificate_costs_5rank_random.json",
        RANDOM5,
        20_000,
        "--expand_below=2",
        "--lp_method=ipm",
    ),
    Slice(
        "depth_limited",
        "docs/results/depth_limited.json",
        (
            "benchmarks/papers/depth_limited.py",
            "--games=rps_plus,leduc",
            "--blueprints=300",
            "--num_values=1,2,4",
            "--output_json={out}",
        ),
        "depth_limited.md: the RPS+ table and Leduc's rows for the 300-iteration blueprint "
        "(both limits, LP and CFR+, every set, K = 1, 2, 4)",
        keys={
            "rps_plus_rows": ("solver", "set", "K"),
            "records": ("game", "cut", "blueprint", "solver", "set", "K"),
            "references": ("game", "cut", "blueprint", "solver"),
        },
        tables={"records": "columns", "references": "reference_columns"},
        ignore=("settings", "games", "distinct_values"),  # distinct_values: over the Ks run
        vertex=_lp_record,
        rtol=1e-5,  # the JSON keeps 6 significant digits
    ),
    Slice(
        "off_tree_small",
        "docs/results/depth_limited_off_tree_small.json",
        (
            "benchmarks/papers/depth_limited_off_tree.py",
            "--num_ranks=3",
            "--stack=20",
            "--value_iterations=0",
            "--num_values=1,2",
            "--output_json={out}",
        ),
        "depth_limited.md: the off-tree bet table on the 3-rank game (K = 1, 2)",
        keys={"curve": ("num_values",)},
        ignore=("command",),
        vertex=lambda path: path.startswith("curve"),  # LP solutions of the depth-limited games
    ),
    Slice(
        "h2h_liars_dice",
        "docs/results/depth_limited_ggse81_liars_dice.json",
        (
            "scripts/head_to_head.py",
            f"--game={LIARS_DICE}",
            "--blueprint=cfr:100",
            "--bots=nested/resolving/blueprint,nested/unsafe",
            "--num_games=2000",
            "--chunk=2000",
            "--depth=2",
            "--num_values=4",
            "--iterations=300",
            "--scheduler=local",
            "--output_json={out}",
        ),
        "depth_limited.md: the GGSE Section 8.1 round robin on Liar's dice 1,4 (the first 2,000 "
        "games of one pair: their total return)",
        keys={"pairs": ("a", "b")},
        # the aggregates of 2,000 games, not the run's 20,000, and of every pair
        ignore=("games", "mean", "ci95", "ci95_deals", "win_rate", "worst_matchups"),
    ),
    Slice(
        "nested_liars_dice_2_4",
        "docs/results/depth_limited_nested_liars_dice_2_4.json",
        (
            "benchmarks/papers/nested_solving_round_robin.py",
            "--game=liars_dice(numdice=2,dice_sides=4)",
            "--public_key=actions",
            "--bots=nested/resolving/none,nested/resolving/uniform",
            "--num_games=10",
            "--chunk=50",
            "--scheduler=local",
            "--output_json={out}",
        ),
        "depth_limited.md: the nested round robin on Liar's dice 2,4, not compiled (the first 10 "
        "games of its first pair, each game's return: the first games of a chunk are the "
        "games of a shorter chunk with the same seed)",
        keys={"pairs": ("a", "b")},
        # the aggregates of 10 games, not the run's 500, and of every pair
        ignore=(
            "games",
            "mean",
            "ci95",
            "ci95_deals",
            "win_rate",
            "worst_matchups",
            "games_asked",
            "games_per_pair",
            "workers",
            "projection",
        ),
    ),
    Slice(
        "gameshrink",
        "docs/results/gameshrink.json",
        (
            "benchmarks/papers/gameshrink.py",
            "--rhode_island=",
            "--lossless_games=kuhn_poker",
            "--lossless_games=leduc_poker",
            "--lossless_games=limit_leduc_poker(num_ranks=3)",
            f"--lossless_games={RHODE_ISLAND_3X2}",
            "--thresholds=0,0.35,inf",
            "--output_json={out}",
        ),
        "gameshrink.md: the lossless table's small games and the knob table's 0, 0.35, inf rows",
        keys={"lossless": ("game",), "knob": ("threshold",)},
        ignore=("rhode_island",),
        vertex=_lifted_lossy,
    ),
    Slice(
        "gameshrink_filters",
        "docs/results/gameshrink_filters.json",
        (
            "benchmarks/papers/gameshrink_filters.py",
            "--games=kuhn_poker",
            "--games=leduc_poker",
            "--games=limit_leduc_poker(num_ranks=5)",
            "--output_json={out}",
        ),
        "gameshrink.md: the filters table's small games and the Rhode Island sizes",
        keys={"rows": ("game", "filter")},
        vertex=_lifted_lossy,
    ),
    Slice(
        "gameshrink_published",
        "docs/results/gameshrink_published.json",
        ("benchmarks/papers/gameshrink_filters.py", "--published", "--output_json={out}"),
        "gameshrink.md: the published Rhode Island abstraction reproduced (1,237,238 rows) "
        "beside the other showdown rules",
        keys={"rows": ("game",)},
    ),
    Slice(
        "gameshrink_full_scale",
        "docs/results/gameshrink_full_scale.json",
        (
            "benchmarks/papers/gameshrink_full_scale.py",
            "--filters=paper",
            "--checkpoints=30",
            "--output_json={out}",
        ),
        "gameshrink.md section 7: the published abstraction's CFR+ strategy lifted into the "
        "52-card game (the first checkpoint)",
    ),
    Slice(
        "gameshrink_lossless",
        "docs/results/gameshrink_lossless.json",
        (
            "benchmarks/papers/gameshrink_lossless.py",
            "--games=leduc_poker",
            "--merges_games=leduc_poker",
            "--output_json={out}",
        ),
        "gameshrink.md: the paper's abstraction is not lossless (Leduc's lifts and single merges)",
        keys={"lifted": ("game", "filter"), "single_merges": ("game", "join")},
        vertex=_lifted_lossy,
    ),
    Slice(
        "gameshrink_dominance",
        "docs/results/gameshrink_dominance.json",
        (
            "benchmarks/papers/gameshrink_dominance.py",
            "--games=leduc_poker",
            f"--games={RHODE_ISLAND_3X2}",
            "--games=limit_leduc_poker(num_ranks=13)",
            "--rhode_island=",
            "--output_json={out}",
        ),
        "gameshrink.md: the dominance table's compiled games",
    ),
    Slice(
        "gameshrink_dominance_paper",
        "docs/results/gameshrink_dominance_paper.json",
        (
            "benchmarks/papers/gameshrink_dominance.py",
            "--games=leduc_poker",
            "--filter=paper",
            "--rhode_island=",
            "--output_json={out}",
        ),
        "gameshrink.md: dominance after the paper's transformation on Leduc",
    ),
    Slice(
        "nlfh_sizes",
        "docs/results/nlfh_sizes.json",
        (
            "benchmarks/papers/nlfh_sizes.py",
            "--decks=3x4",
            "--stacks_bb=5,20",
            "--output_json={out}",
        ),
        "depth_limited.md: the sizes of no-limit flop hold'em's layouts, the 12-card rows",
        keys={"rows": ("num_ranks", "num_suits", "stack_bb")},
    ),
    *(
        Slice(
            f"rhode_island_{run}",
            f"docs/results/rhode_island_{run}.json",
            (
                "benchmarks/perf/range_cfr_run.py",
                f"--solver={solver}",
                f"--dtype={dtype}",
                "--threads=2",  # as the runs (the iterates do not depend on it)
                "--iterations=10",  # a fixed amount of work, whatever the machine's load
                "--time_limit=600",
                "--output_json={out}",
            ),
            "poker_scale.md: the first 10 iterations of the Rhode Island runs (the curve at fixed "
            "iteration counts)",
            # the measurement where the budget stopped is off the grid of iteration counts
            drop_last=dict.fromkeys(CURVE_LISTS, 1),
            ignore=("final", "at_600_seconds", "stop_reason"),
            # float32 iterates take other BLAS / SIMD kernels' rounding on another CPU and
            # part from the 4th point; measured at the last point: NashConv 1.2 %, value 0.044
            # chips apart
            rounding=Rounding(
                paths="",
                exact_points=3,
                loose={
                    "exploitability": (0.0, 0.025),
                    "nash_conv": (0.0, 0.025),
                    "value": (0.1, 0.0),
                    "iterations": (0.0, 0.0),
                    "traversals": (0.0, 0.0),
                },
            ),
        )
        for run, solver, dtype in (
            ("cfr_plus_fast", "cfr_plus", "float32"),
            ("dcfr_fast", "dcfr", "float32"),
        )
    ),
)

_PER_HAND_LAYOUT = (
    "measured with the per-hand range layout, before the hand orbits (b69d5d7): one pass of "
    "the current layout equals it to 7e-16, but CFR's iterations part at rounding-level ties "
    "from the third on (regret matching jumps where a regret is 0 in one summation order and "
    "1e-17 in the other), so no rerun repeats this curve; the current runs are "
    "rhode_island_cfr_plus_fast.json and rhode_island_dcfr_fast.json, whose slices rerun "
    "their first iterations"
)

NOT_COVERED: Mapping[str, str] = {
    **{
        f"docs/results/rhode_island_{run}.json": _PER_HAND_LAYOUT
        for run in ("cfr_plus", "dcfr", "dcfr_alone", "dcfr_float32")
    },
    "docs/results/rhode_island_solve_dcfr.json": "8 minutes of `ospiel-ext solve --suits`; "
    "its figures equal rhode_island_dcfr_fast.json's at 6,791 iterations to the last bit (the "
    "same solver), and that file's slice reruns the first iterations",
    "docs/results/holdem_limit_flop.json": "52-card limit flop hold'em: the layout takes about "
    "6 GB and an exact evaluation 15 GB at its peak and half a minute, beyond a test; its code is "
    "checked against the compiled form on small hold'em games (test_holdem_ranges.py)",
    "docs/results/holdem_nolimit_flop.json": "52-card no-limit flop hold'em: an iteration takes "
    "about 15 s and an exact evaluation half a minute in 8.6 GB, beyond a test; its code is "
    "checked against the compiled form on small no-limit hold'em (test_holdem_ranges.py)",
    "docs/results/holdem_agent_52.json": "an agent that is not suit-symmetric asked 1.5 M times "
    "on 52-card limit flop hold'em, about 8 minutes; the batched evaluation is checked against "
    "OpenSpiel's per-state walk in tests/algorithms/poker/test_agents.py, the benchmark's agent "
    "there too",
    "docs/results/range_cfr_variants.json": "six CFR variants x 200 iterations on 16-card "
    "no-limit hold'em with exact evaluations, about 3 minutes, beyond a test; the variants' "
    "update rules are tested against the explicit form (test_cfr_ties.py, test_range_cfr.py)",
    "docs/results/range_cfr_sampling.json": "runs of fixed wall-clock seconds (their "
    "iterations depend on the machine and its load), about 9 minutes; the sampling is tested "
    "against the full walk (test_range_sampling.py: unbiased values, the discounts of skipped "
    "iterations)",
    "docs/results/holdem_nolimit_flop_sampled.json": "20 minutes of 52-card no-limit flop "
    "hold'em with public chance sampling, its iterations fixed by wall-clock time; the "
    "sampling is tested against the full walk (test_range_sampling.py)",
    "docs/results/nlfh_figure2.json": "three solves of thousands of CFR+ iterations on "
    "no-limit flop hold'em's range layout, the depth-limited rows and the flop's safe "
    "solving (about 1.5 hours on 12 cards), beyond a test; the layouts under an action "
    "abstraction, their RPAT, the multi-valued leaves, the gadget games and the promised "
    "values are checked against the compiled game (test_action_abstractions.py, "
    "depth_limited/ranges/test_off_tree.py, test_solving.py)",
    "docs/results/nlfh_figure2_16cards.json": "the 16-card run of nlfh_figure2.json's "
    "pipeline, about 4.5 hours of 2 cores, beyond a test; the same code as that file's",
    **{
        f"docs/results/nlfh_figure2_12cards_2000{suffix}.json": "nlfh_figure2.json's pipeline "
        "with solves of 2,000 CFR+ iterations (about 50 minutes of 2 cores), beyond a test; the "
        "same code as that file's"
        for suffix in ("", "_sub2000")
    },
    **{
        f"docs/results/nlfh_figure2_12cards_2000_{leaves}_leaves.json": "nlfh_figure2.json's "
        "pipeline with solves of 2,000 CFR+ iterations and the leaf values from another source "
        "(--leaves; the solves about 45 minutes of 2 cores, the values 2-4 more), beyond a "
        "test; the translation, the profile played beneath the bet and the solves' bookkeeping "
        "are tested (depth_limited/ranges/test_off_tree.py, cli/test_scripts.py)"
        for leaves in ("translated", "game_rpat", "game_bound")
    },
    **{
        f"docs/results/nlfh_figure2_16cards_{leaves}_leaves.json": "the 16-card run of "
        "nlfh_figure2.json's pipeline (about 4.5 hours of 2 cores) with the leaf values from "
        "another source (--leaves, 13-18 minutes more), beyond a test; the same code as the "
        "12-card files'"
        for leaves in ("translated", "game_rpat", "game_bound")
    },
    "docs/results/holdem_fchpa_32.json": "32-card no-limit flop hold'em with half-pot bets: "
    "its arrays take about 14 GB and a run 15 minutes, beyond a test; the same code as "
    "holdem_nolimit_flop.json's",
    **{
        f"docs/results/holdem_agent_evaluation{suffix}.json": "Deep CFR's training needs PyTorch, "
        "which the test set-up does not install, and takes minutes; the exact evaluation of "
        "networks on batched tensors is checked against OpenSpiel's per-state walk of the same "
        "network in tests/algorithms/poker/test_agents.py"
        for suffix in ("", "_24")
    },
    "docs/results/cfr_rounding.json": "its figures are the iterations at which floating-point "
    "rounding parts two runs, which move with the CPU's kernels; the layouts' agreement before "
    "them is tested to 1e-9 (test_cfr_ties.py)",
    "docs/results/openspiel_lp_dropins.json": "OpenSpiel's side needs cvxpy, which the test "
    "set-up does not install, and the figures are timings; the drop-ins' values are checked "
    "by OpenSpiel's own test files in tests/openspiel_compat",
    "docs/results/certificates_cold_leduc13.json": "one 6-minute search; its 5- and 9-rank "
    "siblings are certificates_cold.json rows",
    "docs/results/certificates_6rank.json": "its runs end at a 900 s time limit (no trace)",
    "docs/results/certificates_5rank_random.json": "one hour of `ospiel-ext certify` with its "
    "auto steps (which follow measured seconds); its certificate is verified from the game "
    "before it is written",
    "docs/results/certificates_auto.json": "the search's auto steps follow measured seconds, so "
    "its trunks depend on the machine and its load; the same games with Algorithm 6.7's step "
    "are certificates.json's slice",
    **{
        f"docs/results/certify_6rank_{info}.json": "1-11 minutes of `ospiel-ext certify` with "
        "its auto steps, which follow measured seconds (trunks depend on the machine); the "
        "certificate is verified from the game before it is written"
        for info in ("ii", "pi")
    },
    "docs/results/certificate_ab.json": "an A/B against an old commit (timings); its trunks "
    "are certificate_lp_methods' and certificates' rows",
    "docs/results/certificate_costs_6rank_pi_expand3_lean_highs.json": "the same command as "
    "certificate_costs_6rank_pi_expand3.json after a change of the HiGHS wrapper, with the same "
    "trace; that file's slice covers it",
    "docs/results/depth_limited_off_tree.json": "6-9 minutes; "
    "depth_limited_off_tree_small.json runs the same code on the 3-rank game",
    "docs/results/depth_limited_h2h_leduc.json": "each pair of bots plays 100,000 games (over a "
    "minute); depth_limited_ggse81_liars_dice.json's slice plays the same nested bots",
    "docs/results/depth_limited_ggse81_goofspiel5.json": "each pair of bots plays 10,000 games "
    "(over a minute)",
    "docs/results/depth_limited_nested_goofspiel7.json": "a game of nested solving on Goofspiel 7 "
    "takes minutes",
    "docs/results/depth_limited_goofspiel7_round_robin.json": "its 630 games took 1.9 hours on "
    "2 workers (a game of nested solving on Goofspiel 7 about 20 worker-seconds); "
    "nested_solving_round_robin.py's scripts test plays a round robin on Liar's dice",
    "docs/results/nested_sampling.json": "each row replays a nested bot at every information "
    "state of the compiled game for several seeds (minutes per row)",
    "docs/results/nested_sampling_goofspiel5.json": "the same as nested_sampling.json on "
    "Goofspiel 5 (minutes per seed)",
    "docs/results/nested_sampling_carried_goofspiel5.json": "the same as "
    "nested_sampling_goofspiel5.json, with a carried belief (minutes per seed)",
    "docs/results/nested_speed.json": "timings only (its games' moves are in no other JSON; "
    "a Goofspiel 7 game of nested solving takes a minute per path)",
    "docs/results/nested_speed_rerun.json": "nested_speed.json's command run again for its "
    "timings (timings only, as that file)",
    "docs/results/poker_scale.json": "timings and memory only: its other figures (sizes, the "
    "forms' equal strategies) are tests/algorithms/poker's equality tests, and its curves end at "
    "a time budget, so their iterations depend on the machine's speed",
    "docs/results/poker_scale_rerun.json": "poker_scale.json's command run again for its "
    "timings; its other figures are that file's (part 4's LP check to the last digit)",
    "docs/results/range_dtype.json": "timings side by side; its two exploitabilities after 100 "
    "iterations of the 52-card game were measured with the per-hand range layout, whose "
    "iterations the current one does not repeat (rhode_island_dcfr.json's reason); float32 "
    "passes are tested against the explicit form (tests/algorithms/poker/test_range_cfr.py)",
    "benchmarks/speed.json": "timings and memory only",
    "benchmarks/speed_larger.json": "timings and memory only",
}
