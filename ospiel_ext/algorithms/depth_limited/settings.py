"""The settings of a nested depth-limited solving bot: one class for both stacks.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Sections 4-5: a nested bot solves, at each of its decisions after an opponent action, the
depth-limited subgame `depth` player moves deep with K continuation values per leaf state from
a strategy set. Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame
Solving in Imperfect-Information Games", App. B.4 Table 1, gives the nested-solving
hyperparameters of their Section 8.1: depth limit 1, 3,000 CFR iterations, prior eps 2e-2, 10
values.

`NestedSettings` is read by the nested bot of a compiled game (`compiled.bot.NestedSolvingBot`),
by the one of a game too large to compile (`sampled.bot.LargeNestedSolvingBot`) and by their
matches (`matches`, whose bots share one). The first seven fields mean the same in both stacks;
the others only the sampled stack reads (a compiled game needs no public key, rollouts, node
or history budgets, and its blueprint is given by a spec). `record` is what a results JSON
keeps of them.

The defaults are those of the documented runs (docs/results/depth_limited.md): depth 1 (App.
B.4's), CFR+ 300 iterations and 2 rollouts per leaf state and continuation (the nested
round robins); eps None is the subgame package's GGSE default (`ggse.DEFAULT_EPS`, 1e-3), which
every compiled head to head used; the nested benchmarks pass App. B.4's 2e-2.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal, get_args

import pyspiel

from ospiel_ext.algorithms.subgames import ggse
from ospiel_ext.loading import DEFAULT_MAX_NODES

SetKind = Literal["bias", "self_generative", "blueprint", "pure"]
"""The opponent's continuation strategies at the depth limit (`compiled.strategy_sets`)."""
SET_KINDS: tuple[str, ...] = get_args(SetKind)

DEFAULT_NUM_VALUES = 4  # the paper's K in its poker experiments (Section 5)

Stack = Literal["compiled", "sampled"]

COMPILED_FIELDS = ("depth", "num_values", "strategy_set", "method", "iterations", "time_limit",
                   "eps")  # fmt: skip
"""The fields both stacks read (a compiled game's bot reads only these)."""

SAMPLED_FIELDS = ("public_key", "blueprint_iterations", "blueprint_seed", *COMPILED_FIELDS,
                  "samples", "max_nodes", "exact_leaf_nodes", "max_histories",
                  "max_belief_histories")  # fmt: skip
"""The fields the sampled stack reads: its bot and its matches (the MCCFR blueprint)."""


@dataclasses.dataclass(frozen=True, kw_only=True)
class NestedSettings:
    """The settings of a nested depth-limited solving bot (module docstring).

    Attributes:
      depth: player moves from the current decision (public state) to the depth limit (>= 1).
      num_values: K continuation values per leaf state (1: naive single-valued solving).
      strategy_set: where the K continuations come from: 'bias' (Section 4's bias approach;
        compiled: the action classes of `compiled.strategy_sets.bias_strategies`, sampled: one
        class per legal-action rank, `sampled.from_states.bias_set`), 'self_generative' or
        'pure' (compiled only), or 'blueprint' (K = 1).
      method: 'cfr' (CFR+), 'lp' or 'egt'.
      iterations: CFR+ / EGT iterations per solve.
      time_limit: seconds per solve of the depth-limited game (CFR+ / EGT; the continuation
        values of a self-generative set are not bounded); play then depends on the machine.
      eps: the GGSE tremble of the solve (None: `ggse.DEFAULT_EPS`).
      public_key: sampled: the public observation of a state ('observer', 'actions', 'lines'
        or a function; `sampled.public_belief.make_public_key`).
      samples: sampled: rollouts per leaf state and continuation (>= 2).
      max_nodes: sampled: the largest local game.
      exact_leaf_nodes: sampled: leaf states whose rest of the game has at most this many
        nodes get exact values from a compiled continuation
        (`sampled.continuation.continuation_values`; 0: rollouts everywhere).
      max_histories: sampled: the most histories of a public state a solve uses (0: all of
        them). Above it the solve works on `sampled.public_belief.sample_histories`: the
        histories of the bot's own information set (always, even if they alone exceed the
        budget) and max_histories - |own| kept by priority sampling on reach P_0 P_1 P_c,
        importance-weighted, seeded by the bot's seed and the public state
        (`LargeNestedSolvingBot.solve_belief`). Only the solve samples: with
        max_belief_histories 0, the belief carried from decision to decision
        (`PublicBelief.advance`) stays exact, so the errors of one decision's sample do not
        compound over the game, at the cost of the beliefs phase, which walks every history.
      max_belief_histories: sampled: the most histories the belief carries to the next
        decision (0: all of them). Above it, after each solve, the belief itself is replaced
        by a `sample_histories` of it (the bot's own information set kept, the others
        priority-sampled from a stream of the same seed and public state apart from the
        solve's sample: `LargeNestedSolvingBot.solve`), and the next decision's belief grows
        from that sample: the beliefs phase walks at most this many histories times the moves
        to the next decision, and the sampling errors compound over the decisions of a game.
      blueprint_iterations: sampled matches: iterations of the MCCFR blueprint
        (`subgames.blueprints.mccfr_blueprint`; a compiled match names its blueprint by a
        spec).
      blueprint_seed: sampled matches: the MCCFR blueprint's seed.
    """

    depth: int = 1
    num_values: int = DEFAULT_NUM_VALUES
    strategy_set: SetKind = "bias"
    method: ggse.Method = "cfr"
    iterations: int = 300
    time_limit: float | None = None
    eps: float | None = None
    public_key: str | Callable[[pyspiel.State], str] = "observer"
    samples: int = 2
    max_nodes: int = DEFAULT_MAX_NODES
    exact_leaf_nodes: int = 0
    max_histories: int = 0
    max_belief_histories: int = 0
    blueprint_iterations: int = 10_000
    blueprint_seed: int = 0

    def bot_settings(self, kind: str = "nested") -> NestedSettings:
        """The settings of a bot of `kind`: 'nested' these, 'naive' K = 1 from the blueprint.

        Naive depth-limited solving (Table 1): every leaf state has the single value of the
        blueprint's own continuation.
        """
        if kind == "naive":
            return dataclasses.replace(self, num_values=1, strategy_set="blueprint")
        return self

    def record(self, stack: Stack) -> dict[str, Any]:
        """{field: value} of the fields `stack` reads, for a results JSON.

        A public key given as a function is recorded by its name.
        """
        fields = COMPILED_FIELDS if stack == "compiled" else SAMPLED_FIELDS
        out = {name: getattr(self, name) for name in fields}
        if "public_key" in out and not isinstance(out["public_key"], str):
            key = out["public_key"]
            out["public_key"] = getattr(key, "__name__", type(key).__name__)
        return out
