r"""The Rhode Island convergence plot of poker_scale.md, from the runs' JSONs.

  python benchmarks/perf/rhode_island_plot.py --plot=docs/results/rhode_island.png

Exploitability (chips per hand, exact best responses) against solving seconds and against
iterations: CFR+ and DCFR on the whole game's range layout with suit isomorphism
(`range_cfr_run.py`'s JSONs, --run_jsons; float64 on one thread where a JSON predates the dtype
and threads keys; the label gives the entries iterated: 16.7 M in the per-hand layout, 9.8 M
with hand orbits) beside CFR+ on GameShrink's lossless abstraction with
the explicit sequence form (the `rhode_island` curve of `gameshrink.py`'s JSON,
--explicit_json).
Reads JSONs only; runs nothing.
"""

import json

from absl import flags

from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

_RUN_JSONS = flags.DEFINE_list(
    "run_jsons",
    [
        "docs/results/rhode_island_cfr_plus.json",
        "docs/results/rhode_island_dcfr.json",
        "docs/results/rhode_island_cfr_plus_fast.json",
        "docs/results/rhode_island_dcfr_fast.json",
    ],
    "range_cfr_run.py JSONs.",
)
cli_flags.rename("runs", "run_jsons")
_EXPLICIT_JSON = flags.DEFINE_string(
    "explicit_json",
    "docs/results/gameshrink.json",
    "gameshrink.py's JSON (its rhode_island curve).",
)
cli_flags.rename("explicit", "explicit_json")
_PLOT = flags.DEFINE_string("plot", "docs/results/rhode_island.png", "The PNG to write.")
cli_flags.rename("output", "plot")


KEYS = ("iterations", "seconds", "exploitability")


def _load(path):
    with cli_flags.refuse(OSError, ValueError), open(path, encoding="utf-8") as f:
        return json.load(f)


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_PLOT)
    cli_flags.distinct_files(
        [_PLOT],
        inputs=[*((f"--run_jsons ({p})", p) for p in _RUN_JSONS.value), _EXPLICIT_JSON],
    )
    runs = [_load(p) for p in _RUN_JSONS.value]
    explicit = _load(_EXPLICIT_JSON.value)["rhode_island"]["cfr_plus"]
    curves = [
        (
            f"{r['solver'].replace('_plus', '+').upper()}, range layout (suits, "
            f"{r['entries'] / 1e6:.1f} M entries), {r.get('dtype', 'float64')}, "
            f"{r.get('threads', 1)} thread(s)",
            [
                {"iterations": i, "seconds": t, "exploitability": e}
                for i, t, e in zip(*(r["curve"][k] for k in KEYS))
            ],
        )
        for r in runs
    ]
    curves.append(("CFR+, explicit Γ_f (GameShrink lossless)", explicit))
    plt = cli_output.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
    for label, curve in curves:
        for ax, x in zip(axes, ("seconds", "iterations")):
            ax.loglog([p[x] for p in curve], [p["exploitability"] for p in curve], label=label)
    for ax, x in zip(axes, ("solving seconds", "iterations")):
        ax.set_xlabel(x)
        ax.set_ylabel("exploitability (chips per hand)")
        for target in (1e-3, 1e-4):
            ax.axhline(target, color="grey", lw=0.6, ls="--")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=8)
    axes[0].axvline(600, color="grey", lw=0.6, ls=":")
    axes[0].axvline(3600, color="grey", lw=0.6, ls=":")
    fig.suptitle("Rhode Island Hold'em (52 cards): exact exploitability of the average strategy")
    fig.tight_layout()
    cli_output.save_figure(fig, _PLOT.value)


if __name__ == "__main__":
    cli.main(main)
