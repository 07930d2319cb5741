"""Re-verify a saved certificate against the game alone.

  python scripts/verify_certificate.py --game="sequential_goofspiel(num_cards=4)" \
      --certificate=/tmp/g4.cert.json

Replays the trunk in the game, takes every utility bound from the game's oracle, and
recomputes epsilon with the saved strategy. Exits non-zero with the reason if the
certificate does not verify.

JSON keys: ok, reason, epsilon, value_lower, value_upper.
"""

import sys

from absl import app, flags

from ospiel_ext import cli
from ospiel_ext.algorithms.certificates import io as certificate_io

_GAME = flags.DEFINE_string("game", None, "The pyspiel.load_game string of the game.")
_CERTIFICATE = flags.DEFINE_string("certificate", None, "The certificate's JSON path.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the outcome here as JSON.")


def main(argv):
    cli.require(len(argv) == 1, f"unexpected arguments {argv[1:]}")
    cli.require(_GAME.value is not None, "--game is required")
    cli.require(_CERTIFICATE.value is not None, "--certificate is required")
    game = cli.load_game(_GAME.value)
    outcome = certificate_io.verify_saved(game, _CERTIFICATE.value)
    print(cli.format_table(["quantity", "value"], vars(outcome).items()))
    cli.write_json(_OUTPUT_JSON.value, vars(outcome))
    if not outcome.ok:
        sys.exit(f"certificate rejected: {outcome.reason}")


if __name__ == "__main__":
    app.run(main)
