"""Trunks of black-box games, grown on demand, and nature sampling.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021, Defs 3.1 and 3.3, Section 5.

A trunk is a GameTree grown from the root by expanding nodes on demand; a leaf that is not
terminal is pseudoterminal and carries the bound oracle's interval [lo, hi] on player 0's
utility (`utility_bounds`, the black-box oracle of Section 5). The game is only touched through
pyspiel states: current_player, legal_actions, chance_outcomes (or samples of them), child,
is_terminal, returns, information_state_string, and the oracle.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np
import pyspiel

from ospiel_ext import loading
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder

Bounds = Callable[[pyspiel.State], tuple[float, float]]


def utility_bounds(state: pyspiel.State) -> tuple[float, float]:
    """(lo, hi) with lo <= u_0(z) <= hi for every terminal z below `state`: the bound oracle.

    A state that defines `utility_bounds()` gives its own, game-specific bound (our games of
    `ospiel_ext.games` do, e.g. Goofspiel: points won so far plus or minus the prizes left,
    exact in the last round; limit Leduc: a fold settles the money, unlimited raises make the
    bound infinite); any other game gives `game.min_utility(), game.max_utility()`, and a
    terminal state its return.
    """
    own = getattr(state, "utility_bounds", None)
    if callable(own):
        lo, hi = own()
        return float(lo), float(hi)
    if state.is_terminal():
        r = state.returns()[0]
        return r, r
    game = state.get_game()
    return game.min_utility(), game.max_utility()


class Trunk:
    """A trunk of a black-box game, grown node by node (Def. 3.3).

    Nodes keep the ids `TreeBuilder` gives them; `frontier` maps every pseudoterminal leaf
    (lo < hi) to its pyspiel state so it can be expanded later. A non-terminal leaf whose
    bounds coincide is as good as terminal and is never expanded.
    """

    def __init__(
        self,
        game: pyspiel.Game | str,
        bounds: Bounds | None = None,
        nature: NatureSampling | None = None,
    ):
        self.game = loading.load(game)
        self.nature = nature
        loading.check_two_player_zero_sum(self.game)
        self.bounds = bounds or utility_bounds
        self.builder = TreeBuilder(
            name=f"trunk of {self.game}", game=self.game, utility_sum=self.game.utility_sum()
        )
        self.frontier: dict[int, pyspiel.State] = {}
        self._add_leaf(self.builder.add_root(), self.game.new_initial_state())

    @property
    def num_nodes(self) -> int:
        """Number of nodes of the trunk so far."""
        return self.builder.num_nodes

    def _add_leaf(self, node: int, state: pyspiel.State) -> bool:
        """Makes `node` a leaf of `state`; True if it joined the frontier."""
        if state.is_terminal():
            returns = state.returns()
            loading.check_zero_sum_returns(self.game, state, returns, self.builder.utility_sum)
            self.builder.set_leaf(node, returns[0], returns[0])
            return False
        lo, hi = self.bounds(state)
        self.builder.set_leaf(node, lo, hi)
        if lo < hi:
            self.frontier[node] = state
        return lo < hi

    def expand(self, node: int) -> list[int]:
        """Replaces pseudoterminal leaf `node` by its children (each a leaf).

        Returns the children that are pseudoterminal (now in `frontier`).
        """
        state = self.frontier.pop(node)
        first, actions = self.builder.expand_from_state(
            node, state, self.nature.outcomes if self.nature else None
        )
        return [
            first + k for k, a in enumerate(actions) if self._add_leaf(first + k, state.child(a))
        ]

    def depth(self, node: int) -> int:
        """Depth of `node` in the trunk (the root's is 0)."""
        return self.builder.depth(node)

    def tree(self) -> GameTree:
        """The trunk as it stands, frozen into a GameTree."""
        return self.builder.freeze()


class NatureSampling:
    """Nature's distributions estimated from samples (Section 5, Theorem 5.1).

    At every chance node the black box is asked for `samples` sampled outcomes, with
    samples = ceil(D^2 / (2 epsilon^2) log(2 N / delta)), N the trunk-node budget and D the
    largest number of terminals a pure strategy profile reaches (the user's bound; e.g. the
    product of the chance branching factors along a path). Then with probability 1 - delta
    every profile's utility in the sampled game is within epsilon of the true one, and an
    epsilon'-certificate of the sampled trunk is an (epsilon' + 2 epsilon)-equilibrium of the
    true game's trunk with probability at least 1 - 4 delta (Corollary 5.2, two players).
    Outcomes never sampled are absent from the trunk, as in the black-box model.
    """

    def __init__(
        self, epsilon: float, delta: float, support: int, *, max_nodes: int, seed: int = 0
    ):
        if epsilon <= 0 or not 0 < delta < 1 or support < 1 or max_nodes < 1:
            raise ValueError("nature sampling needs epsilon > 0, 0 < delta < 1, D >= 1, N >= 1")
        self.epsilon, self.delta = epsilon, delta
        self.samples = int(np.ceil(support**2 / (2 * epsilon**2) * np.log(2 * max_nodes / delta)))
        self._rng = np.random.default_rng(seed)

    def outcomes(self, state: pyspiel.State) -> list[tuple[int, float]]:
        """Empirical distribution of `samples` draws from the black box at `state`."""
        actions, probs = zip(*state.chance_outcomes())
        counts = self._rng.multinomial(self.samples, probs)
        return [(a, c / self.samples) for a, c in zip(actions, counts) if c > 0]


@dataclasses.dataclass(frozen=True)
class BlackBox:
    """How a certificate search queries the black-box game (Section 5).

    Attributes:
      bounds: the bound oracle, (lo, hi) on player 0's utility below a state (None:
        `utility_bounds`).
      nature: chance replaced by sampled empirical distributions (None: chance's own
        distributions).
    """

    bounds: Bounds | None = None
    nature: NatureSampling | None = None
