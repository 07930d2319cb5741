"""Monte Carlo rollouts of pyspiel states: continuation values with standard errors.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 4: when the rest of the game below a leaf state h is too large to compile, its K
continuation values

    v(h, n) = the value of <sigma_hat_i*, sigma_o^n> from h

are estimated by "Monte Carlo simulations": `rollout_values` plays `samples` playouts from h
under each continuation profile and reports their mean and standard error.

A playout step costs a policy query; the policies of OpenSpiel games are functions of the
acting player's information state, so `CachedPolicy` answers each information state once
(a table from `loading.infoset_key` to its actions and cumulative weights) and every later
visit - by another playout, history or decision - is a dictionary look-up. The cache does not
change a single draw: a step draws one uniform number u and the action whose cumulative
weight interval holds u times the total (`_draw`), from the same weights as the policy's;
the uniform numbers come in blocks (`_uniforms`), the same sequence as one call per step.
"""

from __future__ import annotations

import dataclasses
import itertools
from bisect import bisect_right
from collections.abc import Callable, Iterator, Mapping, Sequence

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading
from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import interrupts

Row = tuple[tuple[int, ...], tuple[float, ...], list[float]]
"""A policy's actions at an information state, their weights and the weights' running sums."""

CACHE_POLICIES = True
"""False: `CachedPolicy` asks its policy at every visit and keeps nothing (the old rollouts, for
side-by-side timing: `benchmarks/papers/nested_solving_speed.py`); the draws are the same either
way."""

UNIFORM_BLOCK = 4096
"""Uniform numbers drawn per `numpy.random.Generator.random` call in a rollout batch."""

_TERMINAL, _CHANCE = int(pyspiel.PlayerId.TERMINAL), int(pyspiel.PlayerId.CHANCE)


class CachedPolicy(policy_lib.Policy):
    """`policy` with its answer at each information state kept (module docstring).

    Valid when `policy` is a function of the acting player's information state (as every
    OpenSpiel policy of a game with information states is), and does not change while the
    cache lives: the blueprint and its biased copies, not a bot's running policy between
    decisions (`rollout_values` caches that one per call).

    Args:
      policy: any OpenSpiel policy.
      game: its game (the information state keys are `loading.key_function(game)`'s).
    """

    def __init__(self, policy: policy_lib.Policy, game: pyspiel.Game):
        super().__init__(game, list(range(game.num_players())))
        self.policy = policy
        self._key = loading.key_function(game)
        self._rows: list[dict[str, Row]] = [{} for _ in range(game.num_players())]

    def __len__(self) -> int:
        """The number of information states answered so far."""
        return sum(len(rows) for rows in self._rows)

    def row(self, state: pyspiel.State, player: int) -> Row:
        """(actions, weights, cumulative weights) of `policy` at `state` for `player`."""
        if not CACHE_POLICIES:
            return _row(self.policy.action_probabilities(state, player))
        rows = self._rows[player]
        key = self._key(state, player)
        row = rows.get(key)
        if row is None:
            row = rows[key] = _row(self.policy.action_probabilities(state, player))
        return row

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """OpenSpiel's `Policy.action_probabilities`: {action: probability} at `state`."""
        player = state.current_player() if player_id is None else player_id
        actions, weights, _ = self.row(state, player)
        return dict(zip(actions, weights))


def _row(table: dict[int, float]) -> Row:
    """(actions, weights, cumulative weights) of a policy's {action: probability}."""
    weights = tuple(table.values())
    return tuple(int(a) for a in table), weights, list(itertools.accumulate(weights))


@dataclasses.dataclass(frozen=True)
class RolloutEstimate:
    """Monte Carlo values of leaf states: mean and standard error per (state, strategy)."""

    mean: FloatArray
    stderr: FloatArray
    samples: int


def _uniforms(rng: np.random.Generator) -> Iterator[float]:
    """The generator's uniform numbers in [0, 1) in order, drawn `UNIFORM_BLOCK` at a time.

    An iterator (`next` on it is one C call per number, not a Python method call).
    """
    return itertools.chain.from_iterable(
        rng.random(UNIFORM_BLOCK).tolist() for _ in itertools.repeat(None)
    )


def rollout_values(
    game: pyspiel.Game,
    histories: Sequence[Sequence[int]],
    blueprint: policy_lib.Policy,
    *,
    player: int,
    strategies: Sequence[policy_lib.Policy],
    samples: int,
    seed: int,
) -> RolloutEstimate:
    """v(h, n) estimated by `samples` playouts from each history.

    The playouts are under <blueprint for `player`, strategies[n] for the opponent>, chance
    by its outcome probabilities; the standard error is the sample standard deviation over
    sqrt(samples). Policies that are not `CachedPolicy`s are cached for this call only.

    Raises:
      interrupts.Interrupted: Ctrl-C, SIGTERM or a deadline (checked per history and
        strategy): estimates of part of the leaves are no result.
    """
    if samples < 2:
        raise ValueError(f"game {game}: rollouts need at least 2 samples, got {samples}")
    uniforms = _uniforms(np.random.default_rng(seed))
    cached: dict[int, CachedPolicy] = {}

    def cache(pol: policy_lib.Policy) -> CachedPolicy:
        if isinstance(pol, CachedPolicy):
            return pol
        return cached.setdefault(id(pol), CachedPolicy(pol, game))

    own = cache(blueprint)
    others = [cache(s) for s in strategies]
    returns = np.zeros((len(histories), len(strategies), samples))
    for r, history in enumerate(histories):
        root = game.new_initial_state()
        for a in history:
            root.apply_action(int(a))
        mover = root.current_player()
        first = own.row(root, mover) if mover == player else None  # the same for every n
        for n, strategy in enumerate(others):
            interrupts.check()
            row_of = {player: own.row, 1 - player: strategy.row}
            if mover == 1 - player:
                first = strategy.row(root, mover)
            for k in range(samples):
                returns[r, n, k] = _playout(root.clone(), row_of, uniforms, first)
    stderr = returns.std(axis=2, ddof=1) / np.sqrt(samples)
    return RolloutEstimate(returns.mean(axis=2), stderr, samples)


def _playout(
    state: pyspiel.State,
    row_of: Mapping[int, Callable[[pyspiel.State, int], Row]],
    uniforms: Iterator[float],
    first: Row | None = None,
) -> float:
    """Player 0's return of one playout from `state`.

    Each action is drawn in proportion to its probability by one uniform number (`_draw`).
    `row_of`: each player's `CachedPolicy.row`; `first`: the row at `state` if a player moves
    there.
    """
    while (p := state.current_player()) != _TERMINAL:  # one call: terminal, chance or player
        if p == _CHANCE:
            actions, weights = zip(*state.chance_outcomes())
            state.apply_action(int(actions[_draw(weights, next(uniforms))]))
            continue
        if first is None:
            actions, weights, cumulative = row_of[p](state, p)
        else:
            (actions, weights, cumulative), first = first, None
        state.apply_action(actions[_draw(weights, next(uniforms), cumulative)])
    return float(state.returns()[0])


def _draw(weights: Sequence[float], u: float, cumulative: Sequence[float] | None = None) -> int:
    """The index i with cumulative weight c_(i-1) <= u * total < c_i.

    Never an index of weight 0. Plain Python, since a playout step's few actions make
    numpy's per-call cost dominate; `cumulative` (the running sums of `weights`) when known.
    """
    if cumulative is None:
        cumulative = list(itertools.accumulate(weights))
    if not cumulative[-1] > 0:
        raise ValueError(f"a playout reached a state whose action weights {weights} sum to 0")
    i = bisect_right(cumulative, u * cumulative[-1])
    while i == len(cumulative) or weights[i] <= 0:  # u * total rounded up to the total
        i -= 1
    return i
