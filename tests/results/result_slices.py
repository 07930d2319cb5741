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

PI6 = "sequential_goofspiel(num_cards=6,info=perfect)"
II6 = "sequential_goofspiel(num_cards=6)"
RANDOM5 = "sequential_goofspiel(num_cards=5,points_order=random)"
LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"
SMALL_CERTIFICATE_GAMES = (
    "search_game",
    "sequential_goofspiel(num_cards=4,info=perfect)",
    "sequential_goofspiel(num_cards=4)",
    "sequential_goofspiel(num_cards=3,points_order=random)",
)


@dataclasses.dataclass(frozen=True)
class Slice:
    """One quick rerun (module docstring).

    Attributes:
      name: the test's id.
      json: the committed JSON, relative to the checkout.
      argv: the script (relative to the checkout) and its flags.
      fresh: where the command writes its JSON ("{out}" or a file in "{dir}").
      keys, tables, drop_last, ignore, vertex, atol, rtol: as `result_compare.compare`.
      guards: the documented figures this slice keeps true.
    """

    name: str
    json: str
    argv: tuple[str, ...]
    guards: str
    fresh: str = "{out}"
    keys: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)
    tables: Mapping[str, str] = dataclasses.field(default_factory=dict)
    drop_last: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()
    vertex: Callable[[str], bool] | None = None
    atol: float = 1e-9
    rtol: float = 1e-6


def _games(*games: str, flag: str = "--games") -> tuple[str, ...]:
    return tuple(f"{flag}={g}" for g in games)


def _lp_record(path: str) -> bool:
    """A record solved by an LP (its vertex may differ between HiGHS builds)."""
    return "solver=lp" in path


def _costs(name: str, json: str, game: str, max_nodes: int, *flags: str) -> Slice:
    """A certificate_costs run cut by a trunk node budget: its trace is a prefix of the
    committed one (the last, interrupted iteration left out)."""
    return Slice(
        name,
        f"docs/results/{json}",
        (
            "benchmarks/certificate_costs.py",
            f"--game={game}",
            f"--max_nodes={max_nodes}",
            *flags,
            "--output_json={out}",
        ),  # fmt: skip
        "certificates.md: the trunk sizes per iteration behind the cost tables",
        drop_last=("trace",),
        ignore=("iterations", "stopped", "epsilon", "time_limit", "max_nodes"),
    )


SLICES: tuple[Slice, ...] = (
    Slice(
        "certificates_warm",
        "docs/results/certificates.json",
        ("benchmarks/certificates.py", *_games(*SMALL_CERTIFICATE_GAMES), "--output_json={out}"),
        "certificates.md: the warm-start table (trunks, minimal certificates, simplex "
        "iterations) of the four smallest games",
        keys={"rows": ("game",)},
    ),
    Slice(
        "certificates_cold",
        "docs/results/certificates_cold.json",
        (
            "benchmarks/certificates.py",
            *_games(*SMALL_CERTIFICATE_GAMES),
            "--nowarm_start",
            "--output_json={out}",
        ),  # fmt: skip
        "certificates.md: Table 1 (cold LPs) on the four smallest games",
        keys={"rows": ("game",)},
    ),
    Slice(
        "certificate_lp_methods",
        "docs/results/certificate_lp_methods.json",
        (
            "benchmarks/certificate_lp_methods.py",
            "--runs=search_game@1",
            "--runs=sequential_goofspiel(num_cards=5,info=perfect)@1",
            "--output_json={out}",
        ),  # fmt: skip
        "certificates.md: the LP methods table (iterations, trunks, epsilon per variant)",
        keys={"runs": ("game", "expand_below", "variant")},
    ),
    Slice(
        "certificate_lp_starts",
        "docs/results/certificate_lp_starts.json",
        (
            "benchmarks/certificate_lp_starts.py",
            "--trunk_nodes=60000",
            "--cfr_iterations=100",
            "--output_json={out}",
        ),  # fmt: skip
        "certificates.md: 'A CFR+ start' (simplex iterations and objectives per start)",
        keys={"trunks": ("trunk_nodes",), "runs": ("start",)},
    ),
    Slice(
        "highs_model_changes",
        "docs/results/highs_model_changes.json",
        (
            "benchmarks/highs_model_changes.py",
            *_games(
                "leduc_poker",
                "sequential_goofspiel(num_cards=5)",
                "sequential_goofspiel(num_cards=5,info=perfect)",
            ),
            "--rounds=1",
            "--output_json={out}",
        ),  # fmt: skip
        "certificates.md: 'What a model change costs HiGHS' (simplex iterations)",
        keys={"runs": ("game",)},
        ignore=("rounds",),
    ),
    _costs("certificate_costs_6rank_pi", "certificate_costs_6rank_pi.json", PI6, 20_000),
    _costs(
        "certificate_costs_6rank_pi_expand3",
        "certificate_costs_6rank_pi_expand3.json",
        PI6,
        20_000,
        "--expand_below=3",
    ),
    _costs(
        "certificate_costs_6rank_pi_expand3_live",
        "certificate_costs_6rank_pi_expand3_live.json",
        PI6,
        20_000,
        "--expand_below=3",
        "--live_lp",
    ),
    _costs(
        "certificate_costs_6rank_ii_ipm_expand1",
        "certificate_costs_6rank_ii_ipm_expand1.json",
        II6,
        20_000,
        "--expand_below=1",
        "--lp_method=ipm",
    ),
    Slice(
        "efpe",
        "docs/results/efpe.json",
        (
            "benchmarks/efpe.py",
            "--games=sequential_goofspiel(num_cards=4)",
            "--games=leduc_poker",
            "--out_dir={dir}",
            "--noplots",
        ),  # fmt: skip
        "efpe.md: the Goofspiel 4 and Leduc tables and curves (Figures 2-3)",
        fresh="{dir}/efpe.json",
        atol=1e-9,
        rtol=1e-6,
    ),
    Slice(
        "egt_stepping",
        "docs/results/egt_stepping.json",
        (
            "benchmarks/egt_stepping.py",
            f"--games={LIARS_DICE}",
            "--rounding_perturbations=",
            "--regret_game=",
            f"--refine_games={LIARS_DICE}",
            "--tight_targets=1e-4",
            "--output_json={out}",
        ),  # fmt: skip
        "efpe.md: traversals to 1e-3 / 1e-4 and the refinement table on Liar's dice 1,4",
        ignore=("traversals_rounding_perturbed", "targets"),
    ),
    Slice(
        "ggse",
        "docs/results/ggse.json",
        (
            "benchmarks/ggse.py",
            "--games=liars_dice",
            "--cfr_blueprints=1",
            "--dirichlet_blueprints=0",
            "--convergence_iterations=",
            "--lp_vertices=simplex",
            "--workers=1",
            "--output_json={out}",
        ),  # fmt: skip
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
        },  # fmt: skip
        tables={"records": "columns", "t_tests": "t_test_columns"},
        ignore=("tasks", "completed", "t_tests"),
        vertex=_lp_record,
        rtol=1e-5,  # the JSON keeps 6 significant digits
    ),
)

NOT_COVERED: Mapping[str, str] = {
    "docs/results/certificates_cold_leduc13.json": "one 6-minute search; its 5- and 9-rank "
    "siblings are certificates_cold.json rows",
    "docs/results/certificates_6rank.json": "its runs end at a 900 s time limit (no trace)",
    "docs/results/certificate_ab.json": "an A/B against an old commit (timings); its trunks "
    "are certificate_lp_methods' and certificates' rows",
    "benchmarks/speed.json": "timings and memory only",
    "benchmarks/speed_larger.json": "timings and memory only",
}
