"""Nested depth-limited solving in games too large to compile.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 8.1 (nested depth-limited subgame solving with each
gadget x prior in imperfect-information Goofspiel 7 and Liar's dice 2,4), on Brown, Sandholm &
Amos (2018), "Depth-Limited Solving for Imperfect-Information Games", Sections 4-5 (multi-valued
states, nested solving, Monte Carlo leaf values).

`compiled.bot.NestedSolvingBot` reads everything off a compiled game. Here nothing is compiled
beyond the current public state and the depth limit below it; at each of its decisions after
new opponent actions, `LargeNestedSolvingBot`:

1. `public_belief.PublicBelief.advance`: follows the actual history from the previous public
   state, keeping every history whose public observation (a public key) matched the actual
   one, with its reach P_0, P_1, P_c; with `NestedSettings.max_histories` > 0 and more
   histories than that, the solve of steps 2-4 works on `public_belief.sample_histories` of
   them (the bot's own information set and up to max_histories others, priority-sampled by
   reach with importance weights that keep the reaches unbiased); with
   `NestedSettings.max_belief_histories` > 0, the belief carried to the next decision is
   such a sample as well, so the next decision's histories grow from at most that many;
2. `public_belief.local_game`: compiles the histories' subtrees down to `depth` player moves;
   the subgame is its public state;
3. estimates by Monte Carlo rollouts (`rollouts.rollout_values`) the K continuation values at
   the depth limit, v(h, n) = value of <blueprint for the bot, sigma_o^n for the opponent>
   (Section 4's bias set: the blueprint and K - 1 biased copies), and the opponent's
   alternative values at the roots: its best of the same K continuations of the whole rest of
   the game, per root information set - a rollout estimate of v_bar(s_o), where the compiled
   bot has the exact best response (Libratus' nested solving likewise took "alternative
   payoffs ... based on the expected value from the previously-solved subgame", Brown et al.
   2018, App.);
4. builds the depth-limited gadget game (`leaves.depth_limited_game`: 'unsafe' at the first
   public state, the configured gadget below) with the GGSE prior and solves it
   (`ggse.solve`), then plays the solution in the solved information sets and the blueprint
   elsewhere.

Late in the game the rest below a leaf state can be small enough to compile: with
`NestedSettings.exact_leaf_nodes` > 0, states whose continuation has at most that many
nodes get exact values (`continuation.continuation_values`, standard error 0) and only the
others rollouts. The rollouts ask the blueprint and its biased copies once per information
state for the bot's lifetime (`rollouts.CachedPolicy`; the same draws as asking at every step).
Values are cached per leaf history, so a bot gets faster as it sees more games; the CPU
seconds of each phase of its decisions add up in `seconds` (`PHASES`).

Its blueprint can be any OpenSpiel policy (`subgames.blueprints.mccfr_blueprint` trains
OpenSpiel's external-sampling Monte Carlo CFR). `from_states.bias_set` is the opponent's K
continuations of step 3.
"""

from __future__ import annotations

import contextlib
import functools
import time
import zlib
from collections.abc import Callable, Iterator, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, policies, tree_values
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import leaves as leaves_lib
from ospiel_ext.algorithms.depth_limited import rollouts
from ospiel_ext.algorithms.depth_limited.sampled import continuation
from ospiel_ext.algorithms.depth_limited.sampled.from_states import DepthLimitedPolicy, bias_set
from ospiel_ext.algorithms.depth_limited.sampled.public_belief import (
    LocalGame,
    PublicBelief,
    local_game,
    make_public_key,
    sample_histories,
)
from ospiel_ext.algorithms.depth_limited.settings import NestedSettings
from ospiel_ext.algorithms.subgames import ggse, priors
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.arrays import FloatArray
from ospiel_ext.loading import check_two_player_zero_sum
from ospiel_ext.runtime import interrupts

LARGE_GADGETS = ("resolving", "max_margin", "unsafe")
SAMPLED_SETS = ("bias", "blueprint")  # the sets of OpenSpiel policies (`from_states.bias_set`)
PHASES = ("beliefs", "local_game", "values", "quantities", "gadget", "solve")
"""The phases of a decision whose CPU seconds `LargeNestedSolvingBot.seconds` adds up: steps 1-4
of the module docstring, with step 3's leaf and root values (rollouts or exact) apart."""


class LargeNestedSolvingBot(pyspiel.Bot):
    """Nested depth-limited solving without compiling the game (module docstring).

    Args:
      game: the game (two players, zero-sum, sequential).
      blueprint: any OpenSpiel policy of both players (e.g. `blueprints.mccfr_blueprint`).
      player: the bot's player.
      settings: the public key, depth, K ('bias' set, or 'blueprint' with K = 1), solver,
        iterations, time limit, GGSE tremble, rollout samples, largest local game and history
        budgets (`settings.NestedSettings`; its defaults if None).
      gadget: 'resolving', 'max_margin' or 'unsafe' below the first public state.
      prior: the GGSE prior ('none', 'uniform', 'blueprint').
      seed: seeds the rollouts, the bot's action sampling and (with the public state) the
        samples of histories (`solve_belief`).
    """

    def __init__(
        self,
        game: pyspiel.Game,
        blueprint: policy_lib.Policy,
        player: int,
        *,
        settings: NestedSettings | None = None,
        gadget: GadgetKind = "resolving",
        prior: priors.PriorKind = "none",
        seed: int = 0,
    ):
        pyspiel.Bot.__init__(self)
        s = NestedSettings() if settings is None else settings
        depth, num_values, samples = s.depth, s.num_values, s.samples
        check_two_player_zero_sum(game)
        if game.get_type().dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise ValueError(
                f"game {game}: not sequential (wrap it in turn_based_simultaneous_game)"
            )
        if player not in (0, 1):
            raise ValueError(f"game {game}: a bot's player must be 0 or 1, got {player}")
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"game {game}: the depth must be an int >= 1, got {depth}")
        if gadget not in LARGE_GADGETS:
            raise ValueError(f"game {game}: unknown gadget {gadget!r}; gadgets: {LARGE_GADGETS}")
        if prior not in priors.PRIOR_KINDS or (gadget == "unsafe" and prior != "none"):
            raise ValueError(f"game {game}: prior {prior!r} with gadget {gadget!r}")
        if samples < 2 or num_values < 1:
            raise ValueError(f"game {game}: need samples >= 2 and K >= 1")
        single = s.strategy_set == "blueprint"
        if s.strategy_set not in SAMPLED_SETS or (single and num_values != 1):
            raise ValueError(
                f"game {game}: the strategy set of a game too large to compile is 'bias' or "
                f"'blueprint' (K = 1), got {s.strategy_set!r} with K = {num_values}"
            )
        for name in ("exact_leaf_nodes", "max_histories", "max_belief_histories"):
            value = getattr(s, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"game {game}: {name} must be an int >= 0 (0: off), got {value!r}")
        public_key = make_public_key(game, s.public_key)
        self.game, self.blueprint, self.player, self.settings = game, blueprint, player, s
        self.depth, self.gadget, self.prior, self.method = depth, gadget, prior, s.method
        self.iterations, self.samples, self.eps, self.max_nodes = (
            s.iterations,
            samples,
            s.eps,
            s.max_nodes,
        )
        self.continuations, self.labels = bias_set(blueprint, 1 - player, num_values, game)
        # The blueprint and its biased copies never change: their answers are kept for good.
        self._cached_blueprint = rollouts.CachedPolicy(blueprint, game)
        self._cached = [rollouts.CachedPolicy(c, game) for c in self.continuations]
        self.public_key = public_key
        self._infoset_key = loading.key_function(game)
        self.seed, self.solves = seed, 0
        self.histories_at_solve = 0  # the public state's histories at the last solve, all of them
        self._rng = np.random.default_rng(seed)
        self._values: dict[tuple[tuple[int, ...], bool], tuple[FloatArray, FloatArray]] = {}
        self.seconds = dict.fromkeys(PHASES, 0.0)
        self.valued = {"exact": 0, "rollouts": 0}  # states valued each way (cache misses)
        self.restart_at(None)

    @contextlib.contextmanager
    def _timed(self, phase: str) -> Iterator[None]:
        """Adds the block's CPU seconds to `seconds[phase]` (`values` inside others is its own).

        CPU time (`time.process_time`), not wall time: the phases of a bot sharing a machine.
        """
        start, values = time.process_time(), self.seconds["values"]
        try:
            yield
        finally:
            inner = self.seconds["values"] - values if phase != "values" else 0.0
            self.seconds[phase] += time.process_time() - start - inner

    def restart(self) -> None:
        """A new game (`pyspiel.evaluate_bots` calls `restart`, not `restart_at`)."""
        self.restart_at(None)

    def restart_at(self, state: pyspiel.State | None) -> None:
        """The pyspiel `Bot.restart_at` API: no overrides, the belief back at the root."""
        self.overrides: dict[str, dict[int, float]] = {}
        self.running = DepthLimitedPolicy(self._cached_blueprint, {self.player: self.overrides})
        self.belief = PublicBelief(self.game, self.public_key, self.player)
        self._opponent_moves = -1

    def player_id(self) -> int:
        """The pyspiel `Bot.player_id` API: the bot's player."""
        return self.player

    def _policy_of(self) -> list[policy_lib.Policy]:
        out: list[policy_lib.Policy] = [self._cached_blueprint, self._cached_blueprint]
        out[self.player] = self.running
        return out

    def values(
        self, states: Sequence[pyspiel.State], own: policy_lib.Policy
    ) -> tuple[FloatArray, FloatArray]:
        """(mean, stderr) arrays (states, K) of the K continuations from `states`.

        Under <`own` for the bot, continuation n for the opponent>, cached per history.
        """
        key_own = own is self.blueprint
        todo = [s for s in states if (tuple(s.history()), key_own) not in self._values]
        if todo:
            with self._timed("values"):
                self._estimate(todo, own, key_own)
        rows = [self._values[tuple(s.history()), key_own] for s in states]
        return np.array([m for m, _ in rows]), np.array([e for _, e in rows])

    def _estimate(
        self, todo: Sequence[pyspiel.State], own: policy_lib.Policy, key_own: bool
    ) -> None:
        """Fills the cache of `values` at the states `todo`.

        Exact values where the rest of the game is at most `exact_leaf_nodes` nodes,
        rollouts elsewhere (one rollout seed per call either way).
        """
        seed = int(self._rng.integers(2**31))
        pol = self._cached_blueprint if key_own else own
        mean = np.full((len(todo), len(self._cached)), np.nan)
        stderr = np.zeros_like(mean)
        rest = np.arange(len(todo))
        if self.settings.exact_leaf_nodes:
            exact = continuation.continuation_values(
                self.game,
                todo,
                pol,
                player=self.player,
                strategies=self._cached,
                max_nodes=self.settings.exact_leaf_nodes,
            )
            mean[exact.exact] = exact.values[exact.exact]
            rest = np.flatnonzero(~exact.exact)
        if len(rest):
            est = rollouts.rollout_values(
                self.game,
                [todo[k].history() for k in rest.tolist()],
                pol,
                player=self.player,
                strategies=self._cached,
                samples=self.samples,
                seed=seed,
            )
            mean[rest], stderr[rest] = est.mean, est.stderr
        for s, m, e in zip(todo, mean, stderr):
            self._values[tuple(s.history()), key_own] = (m, e)
        self.valued["exact"] += len(todo) - len(rest)
        self.valued["rollouts"] += len(rest)

    def quantities(self, local: LocalGame) -> ss.BlueprintQuantities:
        """`BlueprintQuantities` of the local game (step 3).

        The belief's reaches at the roots (scaled down the subtrees), the running profile, and
        at the roots the value under <running, the opponent's best of the K continuations per
        root information set>.
        """
        tree, belief, i = local.tree, local.belief, self.player
        b = local.behavioural(self._policy_of())
        inner = tree_values.reaches(tree, local.sf.tree_profile(b))
        row = np.full(tree.num_nodes, -1, dtype=np.int64)
        row[local.roots] = np.arange(len(local.roots))
        owner = tree.top_down(
            np.int64(-1), lambda nodes, up: np.where(row[nodes] >= 0, row[nodes], up)
        )
        below = owner >= 0
        scale = [np.ones(tree.num_nodes) for _ in range(3)]
        for k in range(3):
            scale[k][below] = belief.reach[k][owner[below]]
        chance = inner.chance.copy()
        chance[below] = inner.chance[below] / inner.chance[local.roots][owner[below]]
        reaches = tree_values.Reaches(
            inner.player0 * scale[0], inner.player1 * scale[1], chance * scale[2]
        )
        v, _ = self.values(belief.states, self.running)
        sign = 1.0 if i == 0 else -1.0
        w = belief.reach[i] * belief.reach[2]
        keys = [self._infoset_key(s, 1 - i) for s in belief.states]
        groups: dict[str, list[int]] = {}
        for k, key in enumerate(keys):
            groups.setdefault(key, []).append(k)
        root_value = np.empty(len(keys))
        for members in groups.values():
            opp = -sign * (w[members] @ v[members])  # the opponent's value of each continuation
            root_value[members] = v[members, int(np.argmax(opp))]
        values = [np.zeros(tree.num_nodes), np.zeros(tree.num_nodes)]  # the other: unused
        values[i][local.roots] = root_value
        unknown = np.empty(0)  # no best response is computed (only safety reports read it)
        return ss.BlueprintQuantities(
            sf=local.sf,
            blueprint=b,
            reaches=reaches,
            values=(values[0], values[1]),
            best_responses=(unknown, unknown),
        )

    def leaves(self, local: LocalGame) -> leaves_lib.MultiValuedLeaves:
        """The K values at the local game's depth limit (blueprint beyond it, Section 4)."""
        keys0 = tuple(self._infoset_key(s, 0) for s in local.leaf_states)
        keys1 = tuple(self._infoset_key(s, 1) for s in local.leaf_states)
        cut = ss.Cut.after_moves(self.depth)  # below the public state; descriptive only
        limit = leaves_lib.DepthLimit(local.tree, cut, local.leaf_nodes, (keys0, keys1))
        mean, stderr = self.values(local.leaf_states, self.blueprint)
        return leaves_lib.MultiValuedLeaves(
            limit=limit, player=self.player, values=mean, stderr=stderr, labels=tuple(self.labels)
        )

    def solve(self, state: pyspiel.State) -> ggse.GadgetSolution:
        """Steps 1-4 of the module docstring at `state`.

        The solution's strategy joins the running policy.
        """
        with self._timed("beliefs"):
            self.belief.advance(state, self._policy_of())
            self.histories_at_solve = len(self.belief.states)
            own = self._own_information_set(state)
            belief = self._sample(state, self.settings.max_histories, (), own)  # solve_belief
            # the belief carried to the next decision (max_belief_histories), which keeps the
            # bot's own information set and so the actual history; another stream of priorities
            self.belief = self._sample(state, self.settings.max_belief_histories, (1,), own)
        with self._timed("local_game"):
            local = local_game(belief, state, self.depth, self.max_nodes)
        with self._timed("quantities"):
            q = self.quantities(local)
        first = not any(h.player >= 0 for h in state.full_history())
        gadget: GadgetKind = "unsafe" if first else self.gadget
        prior = "none" if gadget == "unsafe" else self.prior
        with self._timed("gadget"):
            if len(local.leaf_nodes):
                game = leaves_lib.depth_limited_game(q, local.subgame, self.leaves(local), gadget)
            else:
                game = ss.gadget_game(gadget, q, local.subgame, player=self.player)
            pi = priors.gadget_prior(game, prior)
        with self._timed("solve"):
            solution = ggse.solve(
                game,
                pi,
                self.method,
                eps=self.eps,
                iterations=self.iterations,
                time_limit=self.settings.time_limit,
            )
        self._adopt(solution)
        self.solves += 1
        return solution

    def solve_belief(self, state: pyspiel.State) -> PublicBelief:
        """The histories the solve at `state` uses: all, or a sample above `max_histories`.

        The sample (`public_belief.sample_histories`) keeps every history of the bot's own
        information set at `state`. Its priorities are drawn from a generator seeded by the
        bot's seed and the public state (its public key), not from the bot's running stream:
        at every one of its information sets in a public state the bot draws the same
        priorities, so the strategies it plays there come from nearly the same sample, as in
        the exact solve they come from one belief. (Either way a sample costs exploitability
        where it could be measured: docs/results/depth_limited.md, "Sampling the public
        state's histories".) At or below the budget: the belief itself.
        """
        own = self._own_information_set(state)
        return self._sample(state, self.settings.max_histories, (), own)

    def _own_information_set(self, state: pyspiel.State) -> Callable[[], NDArray[np.bool_]]:
        """Which of the belief's histories are in the bot's information set at `state`.

        Computed when first asked, once (a late belief holds 10^5 histories).
        """
        states, key, i = self.belief.states, self._infoset_key, self.player

        @functools.cache
        def mask() -> NDArray[np.bool_]:
            own = key(state, i)
            return np.array([key(s, i) == own for s in states])

        return mask

    def _sample(
        self,
        state: pyspiel.State,
        budget: int,
        stream: tuple[int, ...],
        own: Callable[[], NDArray[np.bool_]],
    ) -> PublicBelief:
        """`self.belief`, or its sample of `budget` (`sample_histories`, keeping `own()`).

        The priorities are seeded by the bot's seed, the public state and `stream`.
        """
        belief = self.belief
        if not budget or len(belief.states) <= budget:
            return belief
        public = zlib.crc32(self.public_key(state).encode())
        rng = np.random.default_rng([self.seed, public, *stream])
        return sample_histories(belief, budget, rng, own())

    def _adopt(self, solution: ggse.GadgetSolution) -> None:
        sf, i = solution.gadget.sf, self.player
        table, keys = policies.behavioural_to_table(sf, solution.behavioural)[i], sf.infoset_keys(i)
        for local in np.flatnonzero(solution.gadget.original_infosets(i)).tolist():
            self.overrides[keys[local]] = table[keys[local]]

    def step(self, state: pyspiel.State) -> int:
        """The pyspiel `Bot.step` API: solves if needed (module docstring), then samples."""
        if state.current_player() != self.player:
            raise ValueError(
                f"game {self.game}: player {self.player}'s bot asked to move for "
                f"player {state.current_player()}"
            )
        opponent_moves = sum(1 for h in state.full_history() if h.player == 1 - self.player)
        key = self._infoset_key(state, self.player)
        if opponent_moves != self._opponent_moves or key not in self.overrides:
            self.solve(state)
            interrupts.check()  # a solve cut short by Ctrl-C ends the game, unplayed
            self._opponent_moves = opponent_moves
        probs = self.running.action_probabilities(state, self.player)
        actions = list(probs)
        p = np.clip(np.array([probs[a] for a in actions]), 0.0, None)
        return int(actions[self._rng.choice(len(actions), p=p / p.sum())])
