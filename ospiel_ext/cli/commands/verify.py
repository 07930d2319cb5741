r"""Re-verify a saved certificate against the game alone.

  ospiel-ext verify --game="sequential_goofspiel(num_cards=4)" \
      --certificate=/tmp/g4.cert.json

A certificate is two files written together by `ospiel-ext certify --certificate_out=PATH`:
PATH (JSON) and PATH.npz (the trunk). Replays the trunk in the game, takes every utility
bound from the game's oracle, checks perfect recall on it, and recomputes every figure of the
file (epsilon, both value bounds, the trunk's counts) with the saved strategy. A certificate
that does not verify (corrupt, for another game, tampered bounds, epsilon or counts, NaN
probabilities, an unknown field or format version, a missing PATH.npz, ...) ends the command
with exit code 1 and one line "error: certificate rejected: <reason>" on stderr, after the
outcome (ok false) is printed and written; a missing --certificate file or a bad --game is a
usage error (exit code 2) and writes nothing.

JSON keys: game, ok, reason, epsilon, value_lower, value_upper.
"""

from absl import flags

from ospiel_ext.algorithms.certificates import io as certificate_io
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", None, "The pyspiel.load_game string of the game.")
_CERTIFICATE = flags.DEFINE_string("certificate", None, "The certificate's JSON path.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the outcome here as JSON.")


def main(argv: list[str]) -> None:
    """Re-verifies --certificate against --game alone; exits 1 if it is rejected."""
    cli_flags.no_arguments(argv)
    cli_flags.require(_GAME.value is not None, "--game is required")
    cli_flags.input_file(_CERTIFICATE)
    cli_flags.output_path(_OUTPUT_JSON)
    assert _GAME.value is not None and _CERTIFICATE.value is not None  # checked above
    trunk = certificate_io.trunk_path(_CERTIFICATE.value)
    cli_flags.distinct_files([_OUTPUT_JSON], inputs=[_CERTIFICATE, ("--certificate (.npz)", trunk)])
    game = cli.load_game(_GAME.value)
    with cli.stage(f"verifying {_CERTIFICATE.value}"):
        outcome = certificate_io.verify_saved(game, _CERTIFICATE.value)
    row = {"game": str(game), **vars(outcome)}
    print(format_table(["quantity", "value"], row.items()))
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)
    if not outcome.ok:
        cli.fail(f"certificate rejected: {outcome.reason}", exit_code=1)


if __name__ == "__main__":
    cli.main(main)
