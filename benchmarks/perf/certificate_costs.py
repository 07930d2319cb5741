r"""Where certificate search spends its time, iteration by iteration, against the trunk's size
(the aim: a per-iteration cost that grows with what changed, not with the trunk).

  python benchmarks/perf/certificate_costs.py \
      --game="sequential_goofspiel(num_cards=6,info=perfect)" --time_limit=600 \
      --output_json=docs/results/certificate_costs.json \
      --plot=docs/results/certificate_costs.png

Runs Algorithm 6.7 of Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
Black-Box Extensive-Form Games" (AAAI 2021) through `certificates.search` for --time_limit
seconds and records each iteration's `IterationCost`: rebuilding the trunk's arrays and
sequence form, HiGHS, expanding pyspiel states, the rest (the LPs' matrices, the certificate,
the support). Prints the
seconds per iteration in bins of trunk size (powers of two) and writes a log-log plot of each
part against the trunk's node count.
"""

import collections
import math

from absl import flags

from ospiel_ext import highs
from ospiel_ext.algorithms import certificates
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string(
    "game", "sequential_goofspiel(num_cards=6,info=perfect)", "A load_game string."
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", 600.0, "Seconds of search.")
_EXPAND_BELOW = flags.DEFINE_integer(
    "expand_below", 0, "Also expand new children this many levels deeper per iteration."
)
_LP_METHOD = flags.DEFINE_enum(
    "lp_method", "simplex", list(highs.METHODS), "HiGHS's algorithm for the trunk LPs."
)
_EXPAND_PESSIMISTIC = flags.DEFINE_boolean(
    "expand_pessimistic",
    False,
    "Also expand the pessimistic profile's support (the search's default; off: Algorithm "
    "6.7's nodes, as the committed figures).",
)
_MAX_TRUNK_NODES = flags.DEFINE_integer(
    "max_trunk_nodes",
    None,
    "Stop before the trunk passes this many nodes (a machine-independent "
    "prefix of the run; default: certificates' cap).",
)
cli_flags.rename("max_nodes", "max_trunk_nodes")
_PLOT = flags.DEFINE_string("plot", None, "Write a log-log PNG here (needs matplotlib).")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the trace here as JSON.")

_PARTS = ("build_seconds", "lp_seconds", "expand_seconds", "other_seconds")


def _bins(trace):
    """Per power-of-two bin of trunk nodes: iterations and mean seconds of each part."""
    groups = collections.defaultdict(list)
    for t in trace:
        groups[2 ** int(math.log2(max(t.nodes, 1)))].append(t)
    rows = []
    for low in sorted(groups):
        ts = groups[low]
        means = [sum(getattr(t, k) for t in ts) / len(ts) for k in _PARTS]
        total = sum(means)
        rows.append(
            [f"{low:,}-{2 * low - 1:,}", len(ts), *(f"{m:.4f}" for m in means), f"{total:.4f}",
             f"{means[0] / total:.0%}" if total else "-"]
        )  # fmt: skip
    return rows


def _plot(path, trace, title):
    plt = cli_output.pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    nodes = [t.nodes for t in trace]
    labels = ("rebuild arrays + sequence form", "HiGHS", "expand pyspiel states", "other")
    for key, label in zip(_PARTS, labels):
        ax.loglog(nodes, [max(getattr(t, key), 1e-6) for t in trace], ".", ms=3, label=label)
    ax.set_xlabel("trunk nodes")
    ax.set_ylabel("seconds in the iteration")
    ax.set_title(title, fontsize=9)
    cli_output.save_plot(fig, ax, path)
    plt.close(fig)


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.positive(_TIME_LIMIT)
    cli_flags.positive(_MAX_TRUNK_NODES)
    cli_flags.non_negative(_EXPAND_BELOW)
    cli_flags.output_path(_OUTPUT_JSON)
    cli_flags.output_path(_PLOT)
    cli_flags.distinct_files([_OUTPUT_JSON, _PLOT])
    if _PLOT.value:
        cli_output.pyplot()  # matplotlib is there before the work
    game = cli.load_game(_GAME.value)
    # Ctrl-C ends the search; the trace so far is reported
    with cli_flags.refuse(ValueError):
        result = certificates.search(
            game,
            time_limit=_TIME_LIMIT.value,
            max_nodes=_MAX_TRUNK_NODES.value,
            expand_below=_EXPAND_BELOW.value,
            lp_method=_LP_METHOD.value,
            expand_pessimistic=_EXPAND_PESSIMISTIC.value,
        )
    settings = f"expand_below={_EXPAND_BELOW.value}, lp_method={_LP_METHOD.value}"
    trace = result.trace
    print(
        f"{game} ({settings}): "
        f"{result.iterations} iterations in {result.seconds:.1f} s, stopped: "
        f"{result.stop_reason}, epsilon {result.certificate.epsilon:.3g}, last trunk "
        f"{trace[-1].nodes:,} nodes"
    )
    totals = [sum(getattr(t, k) for t in trace) for k in _PARTS]
    print(
        "seconds: rebuild {:.1f}, HiGHS {:.1f}, expand {:.1f}, other {:.1f} (of {:.1f})".format(
            *totals, result.seconds
        )
    )
    print(
        format_table(
            ["trunk nodes", "iterations", "rebuild s", "HiGHS s", "expand s", "other s",
             "s/iteration", "rebuild share"],
            _bins(trace),
        )
    )  # fmt: skip
    if _PLOT.value:
        _plot(
            _PLOT.value,
            trace,
            f"{game}\nseconds per iteration of certificate search ({settings})",
        )
    cli_output.write_json(
        _OUTPUT_JSON.value,
        {
            "game": str(game),
            "time_limit": _TIME_LIMIT.value,
            "expand_below": _EXPAND_BELOW.value,
            "lp_method": _LP_METHOD.value,
            "expand_pessimistic": _EXPAND_PESSIMISTIC.value,
            "iterations": result.iterations,
            "seconds": result.seconds,
            "stopped": result.stop_reason,
            "epsilon": result.certificate.epsilon,
            "trace": [
                {k: round(v, 6) if isinstance(v, float) else v for k, v in vars(t).items()}
                for t in trace
            ],
        },
    )


if __name__ == "__main__":
    cli.main(main)
