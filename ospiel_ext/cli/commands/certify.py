r"""Find an epsilon-certificate of a black-box game (certificates paper, Algorithm 6.7).

  ospiel-ext certify --game="sequential_goofspiel(num_cards=4)" --target_epsilon=0 \
      --certificate_out=/tmp/g4.cert.json --policy_out=/tmp/g4.policy.json

The game is explored through pyspiel states and the bound oracle (trunks.utility_bounds) only;
the whole game is never expanded, but every trunk is checked for what the algorithm assumes (two
players, zero-sum, perfect recall on the part expanded), as the other commands check the
whole game. A progress bar shows the iterations (--verbose: a line per iteration and per
HiGHS run). --max_trunk_nodes, --max_memory_gb, --time_limit (HiGHS included),
Ctrl-C and SIGTERM stop the search within moments, also inside a trunk's expansion and its
LPs, with the best certificate so far: it is printed and written, and after Ctrl-C / SIGTERM
the command exits with code 130.

Before anything is written, the certificate is verified as `ospiel-ext verify` will verify
it, from the game alone; one that fails is reported (exit code 1), not written.

--certificate_out=PATH writes two files, PATH (JSON: game, claimed epsilon and value bounds,
trunk counts, the strategy; format version 2) and PATH.npz (the trunk's arrays); keep them
together: `ospiel-ext verify --certificate=PATH` reads both.

Large trunks: --expand_below=K expands K levels deeper per iteration (fewer, larger steps)
and --lp_method=ipm solves the trunk LPs by HiGHS's interior point method. Both default to
auto: the search chooses them from what its iterations measure (how much each grows the trunk,
how long the LPs take; `certificates.steps`) and prints what it chose. Where nature's first
moves are public (Goofspiel with a random prize order), a trunk of 50,000 nodes or more
(`trunk_lps.SPLIT_MIN_NODES`) is solved as independent LPs, one per subgame below them, on
--threads threads (`tree_parts`); a part that an iteration did not grow keeps its solution.
By default each iteration expands the pseudoterminal nodes in the support of the pessimistic
profile (the certificate) as well as the optimistic one's (fewer iterations to the same
0-certificate); --expand_below=0 --lp_method=simplex --noexpand_pessimistic is Algorithm 6.7's
own step. With the defaults:

  ospiel-ext certify --game="sequential_goofspiel(num_cards=6)" \
      --certificate_out=/tmp/g6.cert.json

--policy_out needs a finite game (it writes a policy for every information state); it is
refused, before the search, for an infinite game such as limit_leduc_poker(max_raises=-1).

JSON keys: game, epsilon (>= 0; rounding errors above -1e-9 are written as 0), zero_certificate
(epsilon <= 1e-12 x the trunk's payoff range, `certificates.ZERO_TOLERANCE`: an exact equilibrium up
to floating point), value_lower, value_upper, trunk_nodes and trunk_infosets (the certificate's
trunk), minimal_nodes, minimal_infosets, explored_nodes (the trunk the search grew, which may be
larger than the certificate's: a run that never beats its first certificate keeps that one),
iterations, seconds, lp_seconds (HiGHS's, summed over the threads), lp_parts (the independent parts
the last trunk's LPs split into), stop_reason ('epsilon', 'no pseudoterminal node in support',
'max_nodes', 'max_memory', 'time_limit', 'interrupted'), stopped_early (true for the last four),
verified (true: the certificate was verified from the game before it was written; false with
--nature_epsilon, whose sampled trunk the game cannot reproduce), expand_below and lp_method (those
of the last iteration), expand_pessimistic, choices (what auto chose, in order: iteration,
expand_below, lp_method, reason); with --nature_epsilon (chance sampled, Section 5) also
true_game_epsilon_bound, bound_probability, nature_samples_per_chance_node.
"""

import dataclasses
from typing import Any

import pyspiel
from absl import flags, logging

from ospiel_ext import highs, policy_files
from ospiel_ext.algorithms import certificates
from ospiel_ext.algorithms.certificates import io as certificate_io
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime import budget, interrupts
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_TARGET_EPSILON = flags.DEFINE_float(
    "target_epsilon", 0.0, "Stop at a certificate this good (its epsilon at most this)."
)
cli_flags.rename("epsilon", "target_epsilon")
_MAX_TRUNK_NODES = flags.DEFINE_integer(
    "max_trunk_nodes",
    certificates.DEFAULT_MAX_TRUNK_NODES,
    "Stop before the trunk passes this many nodes.",
)
cli_flags.rename("max_nodes", "max_trunk_nodes")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Seconds (HiGHS included).")
_MAX_MEMORY_GB = flags.DEFINE_float(
    "max_memory_gb",
    cli.default_memory_gb(),
    "Stop the search when the process's resident memory passes this many GiB (default: "
    "three quarters of this machine's memory).",
)
_SHALLOWEST = flags.DEFINE_boolean(
    "expand_shallowest", False, "Also expand the shallowest pseudoterminal node (Section 6.3)."
)
_PESSIMISTIC = flags.DEFINE_boolean(
    "expand_pessimistic",
    True,
    "Also expand the pseudoterminal nodes in the pessimistic profile's support "
    "(--noexpand_pessimistic: the optimistic profile's only, as Algorithm 6.7).",
)
_NATURE_EPSILON = flags.DEFINE_float(
    "nature_epsilon", None, "Sample chance (Section 5) to this utility precision epsilon."
)
_NATURE_DELTA = flags.DEFINE_float("nature_delta", 0.01, "Failure probability of the sampling.")
_NATURE_SUPPORT = flags.DEFINE_integer(
    "nature_support", None, "D of Theorem 5.1 (terminals a pure profile can reach)."
)
_CERTIFICATE_OUT = flags.DEFINE_string(
    "certificate_out",
    None,
    "Write the certificate here: PATH (JSON) and PATH.npz (its trunk), both needed by verify.",
)
_POLICY_OUT = flags.DEFINE_string(
    "policy_out", None, "Write the certified policy of the full game (finite games only)."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")
_EXPAND_BELOW = flags.DEFINE_string(
    "expand_below",
    certificates.AUTO,
    "Per iteration, also expand the expanded nodes' new children this many levels deeper "
    "(fewer, larger steps), or auto: chosen from the trunk's growth per iteration.",
)
_LP_METHOD = flags.DEFINE_enum(
    "lp_method",
    certificates.AUTO,
    [certificates.AUTO, *highs.METHODS],
    "HiGHS's algorithm for the trunk LPs: simplex (warm-started), ipm (interior point with "
    "crossover; faster on large trunks whose warm starts help little, slower on small ones: "
    "docs/results/certificates.md), or auto: the faster per trunk node once LPs take seconds.",
)
_WARM_START = flags.DEFINE_boolean(
    "warm_start", True, "Start every LP from the previous trunk's basis (--nowarm_start: cold)."
)
_THREADS = flags.DEFINE_integer(
    "threads",
    None,
    "Threads on which the trunk LPs' independent parts (below public chance at the top of the "
    "trunk) are solved side by side (default: the usable cores).",
    lower_bound=1,
)


def _row(
    game: pyspiel.Game,
    result: certificates.SearchResult,
    minimal: certificates.Certificate,
    nature: certificates.NatureSampling | None,
) -> dict[str, Any]:
    cert = result.certificate
    row = {
        "game": str(game),
        "epsilon": cli_output.clip_rounding(cert.epsilon),
        "zero_certificate": cert.is_zero,
        "value_lower": cert.value_lower,
        "value_upper": cert.value_upper,
        "trunk_nodes": cert.trunk.num_nodes,
        "trunk_infosets": cert.trunk.num_infosets,
        "minimal_nodes": minimal.trunk.num_nodes,
        "minimal_infosets": minimal.trunk.num_infosets,
        "explored_nodes": result.explored_nodes,
        "iterations": result.iterations,
        "seconds": result.seconds,
        "lp_seconds": result.lp_seconds,
        "lp_parts": result.trace[-1].parts if result.trace else 1,
        "stop_reason": result.stop_reason,
        "stopped_early": result.stopped_early,
        "verified": nature is None,
        "expand_below": result.expand_below,
        "lp_method": result.lp_method,
        "expand_pessimistic": _PESSIMISTIC.value,
        "choices": [dataclasses.asdict(c) for c in result.choices],
    }
    if nature is not None:
        # Corollary 5.2: an (epsilon + 2 epsilon_nature)-equilibrium, probability 1 - 4 delta
        row["true_game_epsilon_bound"] = cert.epsilon + 2 * nature.epsilon
        row["bound_probability"] = 1 - 4 * nature.delta
        row["nature_samples_per_chance_node"] = nature.samples
    return row


def _verify(game: pyspiel.Game, cert: certificates.Certificate) -> None:
    """Checks the certificate as it will be written, from the game alone (as `verify` will).

    A certificate that fails its own verification is a bug, reported instead of written.
    """
    with cli.stage("verifying the certificate"):
        outcome = certificates.verify_data(game, *certificate_io.to_data(cert, game))
    if not outcome.ok:
        cli.fail(
            f"the certificate found fails its own verification ({outcome.reason}); nothing was "
            "written - please report this",
            exit_code=1,
        )


def main(argv: list[str]) -> None:
    """Searches --game for an epsilon-certificate; prints its figures and writes the files asked."""
    cli_flags.no_arguments(argv)
    for holder in (_MAX_TRUNK_NODES, _TIME_LIMIT, _NATURE_EPSILON, _NATURE_SUPPORT, _MAX_MEMORY_GB):
        cli_flags.positive(holder)
    cli_flags.non_negative(_TARGET_EPSILON)
    cli_flags.require(
        _EXPAND_BELOW.value == certificates.AUTO or _EXPAND_BELOW.value.isdigit(),
        f"--expand_below must be a non-negative integer or {certificates.AUTO}, "
        f"got {_EXPAND_BELOW.value!r}",
    )
    cli_flags.fraction(_NATURE_DELTA)
    cli_flags.output_path(_OUTPUT_JSON)
    cli_flags.output_path(_CERTIFICATE_OUT, suffixes=("", ".npz"))
    cli_flags.output_path(_POLICY_OUT)
    npz = None if _CERTIFICATE_OUT.value is None else f"{_CERTIFICATE_OUT.value}.npz"
    cli_flags.distinct_files(
        [_OUTPUT_JSON, _CERTIFICATE_OUT, ("--certificate_out (.npz)", npz), _POLICY_OUT]
    )
    game = cli.load_game(_GAME.value)
    cli_flags.require(
        not (_POLICY_OUT.value and cli.is_infinite(game)),
        f"--policy_out needs a finite game; {game} has no maximum length (search without "
        "--policy_out, or save the certificate with --certificate_out)",
    )
    nature = None
    if _NATURE_EPSILON.value is not None:
        cli_flags.require(
            _NATURE_SUPPORT.value is not None,
            "--nature_epsilon needs --nature_support (D of Theorem 5.1; N is --max_trunk_nodes)",
        )
        assert _NATURE_SUPPORT.value is not None  # required just above
        cli_flags.require(
            _CERTIFICATE_OUT.value is None,
            "a certificate of a sampled trunk cannot be re-verified from the game; "
            "omit --certificate_out",
        )
        with cli_flags.refuse(ValueError):
            nature = certificates.NatureSampling(
                _NATURE_EPSILON.value,
                _NATURE_DELTA.value,
                _NATURE_SUPPORT.value,
                max_nodes=_MAX_TRUNK_NODES.value,
            )
    with cli_flags.refuse(ValueError), interrupts.graceful():
        result = certificates.search(
            game,
            epsilon=_TARGET_EPSILON.value,
            max_nodes=_MAX_TRUNK_NODES.value,
            time_limit=_TIME_LIMIT.value,
            max_memory=int(_MAX_MEMORY_GB.value * budget.GIB),
            expand_shallowest=_SHALLOWEST.value,
            expand_pessimistic=_PESSIMISTIC.value,
            black_box=certificates.BlackBox(nature=nature),
            warm_start=_WARM_START.value,
            expand_below=(
                _EXPAND_BELOW.value
                if _EXPAND_BELOW.value == certificates.AUTO
                else int(_EXPAND_BELOW.value)
            ),
            lp_method=_LP_METHOD.value,
            threads=_THREADS.value,
        )
        # a Ctrl-C once the search is done lets the certificate be checked and written
        cert = result.certificate
        if nature is None:
            _verify(game, cert)
        minimal = certificates.minimal_certificate(cert)
    row = _row(game, result, minimal, nature)
    print(format_table(["quantity", "value"], [(k, v) for k, v in row.items() if k != "choices"]))
    for c in result.choices:
        print(f"chose at iteration {c.iteration}: {c.reason}")
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)
        if _CERTIFICATE_OUT.value:
            certificate_io.save(cert, _CERTIFICATE_OUT.value, game)
        if _POLICY_OUT.value:
            logging.info("writing the certified policy of every information state of %s", game)
            with cli.stage(f"writing the policy of {game}"):
                pol = certificates.CertificatePolicy(game, cert.strategy_table()).to_tabular()
                policy_files.save_policy(pol, _POLICY_OUT.value, game)


if __name__ == "__main__":
    cli.main(main)
