"""Tables and plots of benchmarks/papers/depth_limited.py's compiled-game part
(`depth_limited_games`): the summary per solver, one table per case, one figure per game
(exploitability against K)."""

from depth_limited_games import SELF_GENERATIVE

from ospiel_ext.cli import output as cli_output

DISPLAY_ZERO = 1e-12  # tables print |E| below this (rounding of a true 0) as 0


def fmt(v):
    """4 significant digits; |v| below DISPLAY_ZERO as 0."""
    return "0" if abs(v) < DISPLAY_ZERO else f"{v:.4g}"


def markdown(header, rows):
    """A markdown table with `fmt`'s numbers."""
    return cli_output.markdown(header, rows, number=fmt)


def case_tables(records, references):
    """(title, table) per (game, cut, blueprint, solver): a row per (set, K)."""
    out = []
    for ref in references:
        rows = [
            [r.set, r.k_label, r.E0, r.E1, r.exploitability, r.seconds]
            for r in records
            if r.key == ref.key
        ]
        title = (
            f"{ref.game}, cut {ref.cut}, blueprint CFR {ref.blueprint} it., solver {ref.solver}: "
            f"E(blueprint) = {ref.blueprint_exploitability:.4g}, "
            f"E(full-depth {ref.solver}) = {fmt(ref.full_depth_exploitability)}, "
            f"fixed-below bound = {ref.fixed_below_bound:.4g} "
            f"(E0 {ref.bound_E0:.4g}, E1 {ref.bound_E1:.4g}); "
            f"set generation s: {ref.generation_seconds}; distinct value columns "
            f"(solving player 0, player 1) of the largest sets: {ref.distinct_values}"
        )
        out.append((title, markdown(["set", "K", "E0", "E1", "E", "s"], rows)))
    return out


def summary(settings, records, references, solver):
    """One row per (game, cut, blueprint) for `solver`: E of the naive K = 1, of each
    self-generative K (weakened, unweakened), of the whole bias and pure sets, beside the
    blueprint, the fixed-below bound and full-depth solving."""
    ks = [k for k in settings.num_values if k > 1]
    short = {"self_generative": "SG", "self_generative_unweakened": "SG-u"}
    sg_sets = [name for name in SELF_GENERATIVE if name in settings.sets]
    header = ["game", "cut", "blueprint", "E(blueprint)", "K=1 (naive)"]
    header += [f"{short[name]} K={k}" for name in sg_sets for k in ks]
    header += ["bias, whole set (K)", "pure, whole set (K)", "fixed-below bound", "full-depth"]
    rows = []
    for ref in references:
        if ref.solver != solver:
            continue
        mine = [r for r in records if r.key == ref.key]

        def e(name, k, mine=mine):
            return next((r.exploitability for r in mine if (r.set, r.K) == (name, k)), None)

        def whole(name, mine=mine):
            rs = [r for r in mine if r.set == name]
            return f"{fmt(rs[-1].exploitability)} ({rs[-1].k_label})" if rs else None

        naive = next(
            (e(name, 1) for name in (*SELF_GENERATIVE, "bias") if e(name, 1) is not None), None
        )
        rows.append(
            [
                ref.game,
                ref.cut,
                ref.blueprint,
                ref.blueprint_exploitability,
                naive,
                *[e(name, k) for name in sg_sets for k in ks],
                whole("bias"),
                whole("pure"),
                ref.fixed_below_bound,
                ref.full_depth_exploitability,
            ]
        )
    return markdown(header, rows)


COLORS = {
    "self_generative": "tab:blue",
    "self_generative_unweakened": "tab:purple",
    "bias": "tab:orange",
    "pure": "tab:green",
}
STYLES = {"lp": "-", "cfr_plus": "--"}


def _panel(ax, records, refs, solver):
    """One solver's curves in one (cut, blueprint) panel: E against K per set, the whole pure
    set and full-depth solving as lines."""
    style = STYLES[solver]
    for name in (*SELF_GENERATIVE, "bias"):
        pts = [(r.K, r.exploitability) for r in records if r.set == name]
        if pts:
            ax.plot(*zip(*pts), style, marker="o", ms=3, color=COLORS[name],
                    label=f"{name} ({solver})")  # fmt: skip
    pure = [r for r in records if r.set == "pure"]
    if pure:
        ax.axhline(pure[-1].exploitability, color=COLORS["pure"], ls=style, lw=1,
                   label=f"all pure, K={pure[-1].k_label} ({solver})")  # fmt: skip
    ref = next(r for r in refs if r.solver == solver)
    if ref.full_depth_exploitability > 1e-12:
        ax.axhline(ref.full_depth_exploitability, color="gray", ls=style, lw=1,
                   label=f"full-depth ({solver})")  # fmt: skip


def case_plot(settings, plt, path, *, short, records, references):
    """Exploitability against K of the game `short`: one panel per (cut, blueprint)."""
    refs = [r for r in references if r.game == short]
    cuts = list(dict.fromkeys(r.cut for r in refs))
    bps = list(dict.fromkeys(r.blueprint for r in refs))
    fig, axes = plt.subplots(
        len(cuts), len(bps), figsize=(4.2 * len(bps), 3.6 * len(cuts)), squeeze=False
    )
    for a, cut in enumerate(cuts):
        for b, bp in enumerate(bps):
            ax = axes[a][b]
            here = [r for r in refs if (r.cut, r.blueprint) == (cut, bp)]
            for solver in settings.solvers:
                mine = [r for r in records if r.key == (short, cut, bp, solver)]
                _panel(ax, mine, here, solver)
            ref = here[0]
            ax.axhline(ref.blueprint_exploitability, color="k", lw=1, label="blueprint")
            if ref.fixed_below_bound > 1e-12:
                ax.axhline(ref.fixed_below_bound, color="tab:red", ls=":", lw=1.2,
                           label="fixed-below bound (LP)")  # fmt: skip
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.set_xlabel("K (values per leaf state)")
            ax.set_ylabel("exploitability")
            ax.set_title(f"{short} {cut}, blueprint CFR {bp}", fontsize=8)
    legend = {}
    for ax in axes.flat:
        for handle, label in zip(*ax.get_legend_handles_labels()):
            legend.setdefault(label, handle)
    axes[0][0].legend(list(legend.values()), list(legend), fontsize=6)
    note = "\n(full-depth LP: exploitability 0, not drawn)" if "lp" in settings.solvers else ""
    fig.suptitle(f"{short}: exploitability of the depth-limited profile{note}", fontsize=9)
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=90)
    plt.close(fig)
