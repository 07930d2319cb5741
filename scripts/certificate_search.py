"""Find an epsilon-certificate of a black-box game (certificates paper, Algorithm 6.7).

  python scripts/certificate_search.py --game="sequential_goofspiel(num_cards=4)" --epsilon=0 \
      --certificate_out=/tmp/g4.cert.json --policy_out=/tmp/g4.policy.json

The game is explored through pyspiel states and ospiel_ext.games.utility_bounds only; the
whole game is never expanded. Progress is logged per iteration; --max_nodes, --time_limit and
Ctrl-C stop the search with the best certificate so far.

JSON keys: game, epsilon, value_lower, value_upper, trunk_nodes, trunk_infosets,
minimal_nodes, minimal_infosets, iterations, seconds, lp_seconds, stopped; with
--nature_epsilon (chance sampled, Section 5) also true_game_epsilon_bound, bound_probability,
nature_samples_per_chance_node.
"""

from absl import app, flags

from ospiel_ext import cli, policies
from ospiel_ext.algorithms import certificates
from ospiel_ext.algorithms.certificates import io as certificate_io

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_EPSILON = flags.DEFINE_float("epsilon", 0.0, "Stop at a certificate this good.")
_MAX_NODES = flags.DEFINE_integer("max_nodes", None, "Trunk node budget.")
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Seconds.")
_SHALLOWEST = flags.DEFINE_boolean(
    "expand_shallowest", False, "Also expand the shallowest pseudoterminal node (Section 6.3)."
)
_NATURE_EPSILON = flags.DEFINE_float(
    "nature_epsilon", None, "Sample chance (Section 5) to this utility precision epsilon."
)
_NATURE_DELTA = flags.DEFINE_float("nature_delta", 0.01, "Failure probability of the sampling.")
_NATURE_SUPPORT = flags.DEFINE_integer(
    "nature_support", None, "D of Theorem 5.1 (terminals a pure profile can reach)."
)
_CERTIFICATE_OUT = flags.DEFINE_string(
    "certificate_out", None, "Write the certificate here (JSON, plus PATH.npz)."
)
_POLICY_OUT = flags.DEFINE_string(
    "policy_out", None, "Write the certified policy of the full game (finite games only)."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


def main(argv):
    cli.require(len(argv) == 1, f"unexpected arguments {argv[1:]}")
    cli.require(_EPSILON.value >= 0, "--epsilon must be non-negative")
    cli.require(_MAX_NODES.value is None or _MAX_NODES.value > 0, "--max_nodes must be positive")
    cli.require(_TIME_LIMIT.value is None or _TIME_LIMIT.value > 0, "--time_limit must be > 0")
    game = cli.load_game(_GAME.value)
    nature = None
    if _NATURE_EPSILON.value is not None:
        cli.require(
            _MAX_NODES.value is not None and _NATURE_SUPPORT.value is not None,
            "--nature_epsilon needs --max_nodes (N) and --nature_support (D) of Theorem 5.1",
        )
        cli.require(
            _CERTIFICATE_OUT.value is None,
            "a certificate of a sampled trunk cannot be re-verified from the game; "
            "omit --certificate_out",
        )
        try:
            nature = certificates.NatureSampling(
                _NATURE_EPSILON.value,
                _NATURE_DELTA.value,
                _NATURE_SUPPORT.value,
                _MAX_NODES.value,
            )
        except ValueError as e:
            raise app.UsageError(str(e)) from None
    try:
        with cli.StopFlag() as stop:
            result = certificates.search(
                game,
                epsilon=_EPSILON.value,
                max_nodes=_MAX_NODES.value,
                time_limit=_TIME_LIMIT.value,
                expand_shallowest=_SHALLOWEST.value,
                stop=lambda: stop.stopped,
                nature=nature,
            )
    except ValueError as e:
        raise app.UsageError(str(e)) from None
    cert = result.certificate
    minimal = certificates.minimal_certificate(cert)
    row = {
        "game": str(game),
        "epsilon": cert.epsilon,
        "value_lower": cert.value_lower,
        "value_upper": cert.value_upper,
        "trunk_nodes": cert.trunk.num_nodes,
        "trunk_infosets": cert.trunk.num_infosets,
        "minimal_nodes": minimal.trunk.num_nodes,
        "minimal_infosets": minimal.trunk.num_infosets,
        "iterations": result.iterations,
        "seconds": result.seconds,
        "lp_seconds": result.lp_seconds,
        "stopped": result.stopped,
    }
    if nature is not None:
        # Corollary 5.2: an (epsilon + 2 epsilon_nature)-equilibrium, probability 1 - 4 delta
        row["true_game_epsilon_bound"] = cert.epsilon + 2 * nature.epsilon
        row["bound_probability"] = 1 - 4 * nature.delta
        row["nature_samples_per_chance_node"] = nature.samples
    print(cli.format_table(["quantity", "value"], row.items()))
    cli.write_json(_OUTPUT_JSON.value, row)
    if _CERTIFICATE_OUT.value:
        certificate_io.save(cert, _CERTIFICATE_OUT.value, game)
    if _POLICY_OUT.value:
        pol = certificates.CertificatePolicy(game, cert.strategy_table()).to_tabular()
        policies.save_policy(pol, _POLICY_OUT.value, game)


if __name__ == "__main__":
    app.run(main)
