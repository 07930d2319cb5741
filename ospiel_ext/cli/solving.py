"""What a command solves and reads beyond its game: --form's sequence form, the LP, policies.

Apart from `command` so that a command that needs none of it (`ospiel-ext stats`) imports no
LP, poker or GameShrink module: only the commands that import this module load them.
"""

from __future__ import annotations

import time

import pyspiel
from absl import flags
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, lp, policy_files
from ospiel_ext import policies as policies_lib
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import forms
from ospiel_ext.algorithms.poker import public_tree, range_policy
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli.command import compile_game, fail, stage
from ospiel_ext.runtime import interrupts


def define_form_flag() -> flags.FlagHolder[str]:
    """The --form flag of a command that runs on either sequence form (`sequence_form`)."""
    return flags.DEFINE_enum(
        "form",
        "explicit",
        list(forms.FORMS),
        "The sequence form: explicit (compiled game tree, any game) or public_tree (poker games).",
    )


def sequence_form(
    game: pyspiel.Game, max_nodes: int | None = None, *, form: str = "explicit"
) -> sf_lib.SequenceForm:
    """`compile_game` for a `--form` flag: the explicit form or the public-tree poker form.

    The public tree (`algorithms.forms`) compiles no game tree; a game without the poker
    structure is refused with app.UsageError on one line naming the property it lacks.
    """
    if form == "explicit":
        return compile_game(game, max_nodes)
    with stage(f"building the public tree of {game}"), cli_flags.refuse(ValueError):
        try:
            return forms.sequence_form(game, form=form)
        except public_tree.TooManyInfosetsError as e:  # the explicit form would not fit either
            raise ValueError(f"--form={form}: {e}") from None
        except ValueError as e:
            raise ValueError(f"--form={form}: {e}; --form=explicit takes any game") from None


def is_range_policy_file(path: str) -> bool:
    """A policy path that names a range policy (.npz, `poker.range_policy`), not a JSON file."""
    return path.endswith(".npz")


def load_policy_file(game: pyspiel.Game, path: str) -> policy_lib.Policy:
    """The policy file at `path` for `game`: JSON (`policy_files`) or a range policy (.npz).

    A range policy answers at any state without walking the game, so it plays and is
    evaluated in games too large for a TabularPolicy (Rhode Island Hold'em).

    Raises:
      ValueError (one line): not such a file, or a policy of another game.
    """
    if not is_range_policy_file(path):
        return policy_files.load_policy(game, path)
    policy = range_policy.load_range_policy(path)
    if not loading.same_game(policy.game, game):
        raise ValueError(f"{path} is a range policy of {policy.game}, not of {game}")
    return policy


def run_lp(
    sf: sf_lib.SequenceForm, time_limit: float | None
) -> tuple[policies_lib.Behavioural | None, float | None, float, str]:
    """Solves `sf`'s sequence-form LP for a script.

    Returns (behavioural or None, value or None, seconds, stop reason 'optimal' |
    'interrupted' | 'time_limit'). The strategy is None when HiGHS was stopped before its
    solution; any other LP failure ends the script (exit 1).
    """
    start = time.perf_counter()
    try:
        with stage(f"solving the LP of {sf.name}"):
            solution = lp.solve(sf, time_limit=time_limit)
    except interrupts.Interrupted:
        return None, None, time.perf_counter() - start, interrupts.stop_reason() or "interrupted"
    except lp.LPError as e:
        if e.status != "kTimeLimit":
            fail(f"the LP of {sf.name} was not solved: {e}", exit_code=1)
        return None, None, time.perf_counter() - start, "time_limit"
    return solution.behavioural, solution.value, solution.seconds, "optimal"
