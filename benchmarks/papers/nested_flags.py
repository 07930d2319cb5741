"""The nested bots' flags that `nested_solving_round_robin.py`, `nested_solving_speed.py` and
`nested_solving_sampling.py` share.

Importing this module defines them (each script defines its own --game, --public_key, --bots
and --blueprint_iterations, whose defaults differ, and may change a default here with
`flags.set_default`); `check` validates them and `settings` makes the `NestedSettings`
of the bots.
"""

from absl import flags

from ospiel_ext.algorithms.depth_limited import NestedSettings
from ospiel_ext.cli import flags as cli_flags

DEPTH = flags.DEFINE_integer("depth", 1, "Player moves to the depth limit (paper: 1).")
NUM_VALUES = flags.DEFINE_integer("num_values", 4, "K values per leaf state (paper: 10).")
ITERATIONS = flags.DEFINE_integer("iterations", 300, "CFR+ iterations per solve (paper: 3000).")
SAMPLES = flags.DEFINE_integer("samples", 2, "Rollouts per leaf state and continuation.")
TREMBLE = flags.DEFINE_float("tremble", 2e-2, "GGSE tremble of the prior (paper: 2e-2).")
cli_flags.rename("eps", "tremble")
EXACT = flags.DEFINE_integer(
    "exact_leaf_nodes", 0, "Exact leaf values where the rest has at most this many nodes."
)
MAX_HISTORIES = flags.DEFINE_integer(
    "max_histories", 0, "Solve on a sample of a public state's histories above this (0: all)."
)
MAX_BELIEF = flags.DEFINE_integer(
    "max_belief_histories",
    0,
    "Carry a sample of the belief's histories above this to the next decision (0: all).",
)


def check() -> None:
    """UsageError for a bad value of the shared flags."""
    for holder in (DEPTH, NUM_VALUES, ITERATIONS):
        cli_flags.positive(holder)
    cli_flags.non_negative(EXACT)
    cli_flags.non_negative(MAX_HISTORIES)
    cli_flags.non_negative(MAX_BELIEF)
    cli_flags.require(0 < TREMBLE.value < 0.5, "--tremble must be in (0, 1/2)")
    cli_flags.require(SAMPLES.value >= 2, "--samples must be >= 2 (standard errors)")


def settings(public_key: str, blueprint_iterations: int) -> NestedSettings:
    """The bots' settings from the shared flags (MCCFR blueprint seed 0, CFR+)."""
    return NestedSettings(
        public_key=public_key,
        blueprint_iterations=blueprint_iterations,
        blueprint_seed=0,
        depth=DEPTH.value,
        num_values=NUM_VALUES.value,
        method="cfr",
        iterations=ITERATIONS.value,
        samples=SAMPLES.value,
        eps=TREMBLE.value,
        exact_leaf_nodes=EXACT.value,
        max_histories=MAX_HISTORIES.value,
        max_belief_histories=MAX_BELIEF.value,
    )
