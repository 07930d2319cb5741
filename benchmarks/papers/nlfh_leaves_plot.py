r"""Where depth-limited solving's leaf values come from, in no-limit flop hold'em: the plot of
depth_limited.md's NLFH section, from `nlfh_figure2.py`'s JSONs.
Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games"
(NeurIPS), Section 6.1 and Figure 2.

  python benchmarks/papers/nlfh_leaves_plot.py --plot=docs/results/nlfh_leaves_16cards.png

Per K, the responder's exploitability (mbb/g) after depth-limited solving, one panel per
gadget, one curve per source of the K values and play beyond the limit (`--leaves` of each
JSON, the row's 'flop'): the paper's values transferred from the abstraction (RPAT beyond the
limit, or the flop solved safely), the abstraction's continuations valued exactly after the
bet ('translated'), and self-generative values made in the game with the bet ('game_rpat',
'game_bound'); beside RPAT, the 0.75x bet in the abstraction and the floor (the least
exploitability of a response that plays the blueprint outside the bet). Every figure is a best
response minus the same value, so the curves' differences are exact.
Reads JSONs only; runs nothing.
"""

import json

from absl import flags

from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

_JSONS = flags.DEFINE_list(
    "jsons",
    [
        "docs/results/nlfh_figure2_16cards.json",
        *(
            f"docs/results/nlfh_figure2_16cards_{leaves}_leaves.json"
            for leaves in ("translated", "game_rpat", "game_bound")
        ),
    ],
    "nlfh_figure2.py JSONs of one game and blueprint, one per --leaves.",
)
_PLOT = flags.DEFINE_string("plot", "docs/results/nlfh_leaves_16cards.png", "The PNG to write.")

CURVES = {
    ("abstraction", "resolved"): ("the paper's: transferred, flop solved safely", "C0", "-"),
    ("abstraction", "rpat"): ("the paper's: transferred, RPAT beyond", "C0", ":"),
    ("translated", "rpat"): ("continuations valued after the bet, RPAT beyond", "C2", ":"),
    ("game_rpat", "rpat"): ("made in the game from RPAT's profile, RPAT beyond", "C1", ":"),
    ("game_bound", "bound"): ("made in the game from the bound's, the bound's beyond", "C1", "--"),
}
"""(--leaves, row's flop) -> (label, colour, line style)."""

SAME = ("game", "iterations", "value_mbb", "rpat_mbb", "lower_bound_mbb")
"""What the JSONs must share: one game, blueprint and value."""


def _load(path: str) -> dict:
    with cli_flags.refuse(OSError, ValueError), open(path, encoding="utf-8") as f:
        return json.load(f)


def _checked(results: list[dict]) -> None:
    """One line and exit 2 unless the JSONs are of one run's settings, each with its rows."""
    for path, r in zip(_JSONS.value, results):
        missing = [k for k in (*SAME, "depth_limited") if k not in r]
        cli_flags.require(not missing, f"--jsons: {path} has no {', '.join(missing)}")
        for k in SAME:
            cli_flags.require(
                r[k] == results[0][k], f"--jsons: {path} has another {k} than {_JSONS.value[0]}"
            )


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_PLOT)
    cli_flags.distinct_files([_PLOT], inputs=[(f"--jsons ({p})", p) for p in _JSONS.value])
    results = [_load(p) for p in _JSONS.value]
    _checked(results)
    first = results[0]
    plt = cli_output.pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(11, 5.2), sharey=True)
    for ax, gadget in zip(axes, ("max_margin", "resolving")):
        for r in results:
            leaves = r.get("leaves", "abstraction")
            for (source, flop), (label, color, line) in CURVES.items():
                rows = [
                    row
                    for row in r["depth_limited"]
                    if source == leaves and (row["gadget"], row["flop"]) == (gadget, flop)
                ]
                if rows:
                    ax.plot(
                        [row["num_values"] for row in rows],
                        [row["exploitability_mbb"] for row in rows],
                        "o" + line,
                        color=color,
                        label=label,
                    )
        ax.axhline(first["rpat_mbb"], color="C3", label="action translation (RPAT)")
        ax.axhline(first["lower_bound_mbb"], color="k", label="0.75x bet in the abstraction")
        if "floor_mbb" in first:
            floor = "floor: the blueprint outside the bet"
            ax.axhline(first["floor_mbb"], color="0.5", ls=":", label=floor)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ks = sorted({row["num_values"] for r in results for row in r["depth_limited"]})
        ax.set_xticks(ks, [str(k) for k in ks])
        ax.set_xlabel("number of values per leaf state K")
        ax.set_title(f"{gadget.replace('_', '-')} gadget", fontsize=10)
    axes[0].set_ylabel("exploitability of the responder (mbb/g)")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.suptitle(
        f"NLFH, {first['deck_cards']} cards, {first['stack_bb']} BB, blueprint CFR+ "
        f"{first['iterations']}: where the leaf values come from "
        f"(± {first['value_error_mbb']:.1f} common to all)",
        fontsize=10,
    )
    fig.tight_layout(rect=(0, 0.14, 1, 1))
    cli_output.save_figure(fig, _PLOT.value, dpi=110)


if __name__ == "__main__":
    cli.main(main)
