"""Blueprints and the blueprint quantities every gadget game needs.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games". A blueprint is a profile pi_bar of the full game (Section 1;
Section 8 uses CFR checkpoints and Dirichlet(alpha) random strategies, `make_blueprints`; the
commands name one by a spec, 'cfr:N', 'dirichlet:SEED' or a policy file, `blueprint_from_spec`;
a game too large to compile takes OpenSpiel's external-sampling Monte Carlo CFR as an OpenSpiel
policy, `mccfr_blueprint`, the blueprint of the depth-limited package's sampled stack).
For a subgame with roots h in H(s0), a resolving player i and its opponent o, the gadget games
of Section 2.1 need

* the reaches P_0(h), P_1(h), P_c(h) of every root under pi_bar;
* w_i(h) = P_i(h) P_c(h), the opponent-free weight of a root (the gadget's chance node is
  proportional to it, Section 3), and W(s_o) = sum_{h in s_o} w_i(h) per opponent root
  information set s_o;
* the counterfactual best-response value (Section 2, normalised; Theorem 1)
  v_bar(s_o) = sum_{h in s_o} w_i(h) u(h) / W(s_o)   (0 if W = 0),
  u(h) the value of h under (pi_bar_i, BR_o), BR_o a best response to pi_bar_i;
* P_o(s_o), the opponent's own reach of s_o (the blueprint prior of Section 5).

BR_o is the treeplex best response of the full game (`Treeplex.best_response`): its segment
max is taken at every opponent information set, reached or not, so below the roots it is a
counterfactual best response, and weighting by w_i makes sum_h w_i u the counterfactual
best-response value. All values are player 0's utility; the games are zero-sum.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import arrays, policies, policy_files, tree_values
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr_variants
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.subgames.cuts import Subgame
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.sequence_form import SequenceForm, TreeSequenceForm

BlueprintSource: TypeAlias = policy_lib.TabularPolicy | str | os.PathLike | policies.Behavioural
REACH_TOLERANCE = 1e-12  # the opponent's reach must be equal on all histories of s_o


def full_game(game: pyspiel.Game | str | SequenceForm) -> TreeSequenceForm:
    """The compiled full game; ValueError unless it is a two-player zero-sum pyspiel game.

    The game must be compiled from pyspiel: the only kind the gadget games of Section 2.1 are
    built from.
    """
    sf = game if isinstance(game, SequenceForm) else sf_lib.for_game(game)
    if not isinstance(sf, TreeSequenceForm) or sf.tree.game is None:
        raise ValueError(f"{sf.name}: subgame solving needs a game tree compiled from pyspiel")
    if sf.utility_sum != 0:
        raise ValueError(
            f"game {sf.name} is constant-sum (utility sum {sf.utility_sum}), not zero-sum"
        )
    return sf


def load_blueprint(
    game: pyspiel.Game | str | SequenceForm, blueprint: BlueprintSource
) -> policies.Behavioural:
    """Behavioural arrays of a blueprint given as a policy, a policy file or behavioural arrays.

    The policy is a TabularPolicy of the game; the policy file is read by
    `policy_files.load_policy`, which checks the game it names.

    Raises:
      ValueError: the game is not two-player zero-sum, or the blueprint is not a profile of it.
    """
    sf = full_game(game)
    if isinstance(blueprint, (str, os.PathLike)):
        blueprint = policy_files.load_policy(sf.tree.game, blueprint)
    if isinstance(blueprint, policy_lib.TabularPolicy):
        layout = policies.layout(sf)
        if blueprint.state_lookup.keys() != layout.template.state_lookup.keys():
            raise ValueError(
                f"the blueprint is not a policy of game {sf.name}: its information states "
                "differ from the game's"
            )
        blueprint = layout.behavioural(blueprint)
    if not isinstance(blueprint, tuple) or len(blueprint) != 2:
        raise ValueError(
            f"game {sf.name}: a blueprint is a TabularPolicy, a policy file or a pair of "
            f"behavioural arrays, got {type(blueprint).__name__}"
        )
    b = (np.asarray(blueprint[0], dtype=np.float64), np.asarray(blueprint[1], dtype=np.float64))
    tree_values.check_profile(sf.tree, sf.tree_profile(b))
    return b


def cfr_checkpoints(
    game: pyspiel.Game | str,
    iterations: Sequence[int],
    config: cfr_variants.CFRConfig = cfr_variants.CFR,
) -> list[policy_lib.TabularPolicy]:
    """Average policies of one CFR run at the given (strictly increasing) iteration counts.

    Section 8: blueprints from checkpoints of CFR.
    """
    sf = full_game(game)
    counts = [int(k) for k in iterations]
    if not counts or counts[0] < 1 or any(b <= a for a, b in itertools.pairwise(counts)):
        raise ValueError(
            f"game {sf.name}: checkpoint iterations must be positive and strictly "
            f"increasing, got {list(iterations)}"
        )
    solver = cfr_variants.CFRVariantSolver(sf, config)
    out = []
    for k in counts:
        solver_lib.run(solver, k - solver.iteration)
        out.append(solver.average_policy())
    return out


def dirichlet_blueprints(
    game: pyspiel.Game | str, seeds: Sequence[int], alpha: float = 1.0
) -> list[policy_lib.TabularPolicy]:
    """One blueprint per seed, each information set's distribution drawn from a Dirichlet.

    The Dirichlet(alpha) is symmetric (Section 8).
    """
    sf = full_game(game)
    if not alpha > 0:
        raise ValueError(f"game {sf.name}: the Dirichlet alpha must be positive, got {alpha}")
    return [policies.random_policy(sf.tree.game, int(s), alpha) for s in seeds]


def make_blueprints(
    game: str | SequenceForm, checkpoints: Sequence[int], seeds: Sequence[int]
) -> list[tuple[str, policies.Behavioural]]:
    """(label, behavioural arrays) of the CFR checkpoints and of the Dirichlet blueprints.

    The CFR checkpoints are at the iteration counts `checkpoints` (one vanilla CFR run;
    Section 8 does not name the variant); the Dirichlet(1) blueprints are those of the given
    seeds (Section 8).
    """
    sf = full_game(game)
    layout = policies.layout(sf)
    game_obj = sf.tree.game
    cfr_pols = cfr_checkpoints(game_obj, checkpoints) if checkpoints else []
    out = [(f"cfr:{k}", layout.behavioural(p)) for k, p in zip(checkpoints, cfr_pols)]
    random_pols = dirichlet_blueprints(game_obj, seeds)
    out += [(f"dirichlet:{s}", layout.behavioural(p)) for s, p in zip(seeds, random_pols)]
    return out


class MCCFRPolicy(policy_lib.Policy):
    """An OpenSpiel C++ policy (e.g. a Monte Carlo CFR average policy) as a Python policy.

    Information states it never visited play uniformly.
    """

    def __init__(self, game: pyspiel.Game, cpp_policy: Any, owner: Any = None):
        super().__init__(game, [0, 1])
        self.cpp_policy = cpp_policy
        self._owner = owner  # what the C++ policy points into (an MCCFR solver's tables)

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """OpenSpiel's `Policy.action_probabilities`: {action: probability} at `state`."""
        try:
            probs = dict(self.cpp_policy.action_probabilities(state))
        except Exception:  # pyspiel raises a bare RuntimeError when unvisited
            probs = {}
        total = sum(probs.values())
        if not probs or not total > 0:
            legal = state.legal_actions()
            return {a: 1.0 / len(legal) for a in legal}
        return {a: p / total for a, p in probs.items()}


def mccfr_blueprint(game: pyspiel.Game, iterations: int, seed: int = 0) -> MCCFRPolicy:
    """OpenSpiel's external-sampling Monte Carlo CFR (C++) run for `iterations`.

    The blueprint of a game too large to compile (Brown, Sandholm & Amos (2018), "Depth-Limited
    Solving for Imperfect-Information Games", Section 4, abstract and run MCCFR; Section 8.1
    trained value functions instead; any OpenSpiel policy will do).
    """
    if iterations < 1:
        raise ValueError(f"game {game}: MCCFR needs at least one iteration, got {iterations}")
    solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=seed)
    for _ in range(iterations):
        solver.run_iteration()
    return MCCFRPolicy(game, solver.average_policy(), owner=solver)


def blueprint_file(spec: str) -> str | None:
    """The policy file a blueprint spec names, or None for 'cfr:N' / 'dirichlet:SEED'."""
    kind, _, _ = spec.partition(":")
    return None if kind in ("cfr", "dirichlet") else spec


def blueprint_from_spec(game: str | SequenceForm, spec: str) -> tuple[str, policies.Behavioural]:
    """(label, behavioural arrays) of a blueprint spec.

    The spec is 'cfr:N' (N vanilla CFR iterations), 'dirichlet:SEED' or a policy file
    (`load_blueprint`), for a game string or an already compiled game.
    """
    kind, _, arg = spec.partition(":")
    if kind == "cfr" and arg.isdigit() and int(arg) >= 1:
        return make_blueprints(game, [int(arg)], [])[0]
    if kind == "dirichlet" and arg.isdigit():
        return make_blueprints(game, [], [int(arg)])[0]
    if kind in ("cfr", "dirichlet"):
        raise ValueError(f"blueprint {spec!r}: expected cfr:N (N >= 1) or dirichlet:SEED")
    return spec, load_blueprint(game, spec)


@dataclasses.dataclass(frozen=True, kw_only=True)
class RootValues:
    """The blueprint quantities of one subgame for resolving player i (module docstring).

    Attributes:
      player: the resolving player i (the opponent is o = 1 - i).
      roots: the subgame's roots (full-tree node ids).
      reach: (3, roots): P_0, P_1, P_c of each root.
      value: u(h) of each root under (pi_bar_i, BR_o), player 0's utility.
      keys: the opponent's root information sets s_o, in order of first appearance.
      root_infoset: for each root, its index in `keys`.
      weight: W(s_o).
      cfbr: v_bar(s_o), normalised, player 0's utility.
      opp_reach: P_o(s_o) under the blueprint.
    """

    player: int
    roots: IntArray
    reach: FloatArray
    value: FloatArray
    keys: tuple[str, ...]
    root_infoset: IntArray
    weight: FloatArray
    cfbr: FloatArray
    opp_reach: FloatArray

    @property
    def w(self) -> FloatArray:
        """w_i(h) = P_i(h) P_c(h) per root."""
        w: FloatArray = self.reach[self.player] * self.reach[2]
        return w

    @property
    def sign(self) -> float:
        """+1 for player 0, -1 for player 1: player i's utility is sign * player 0's."""
        return 1.0 if self.player == 0 else -1.0


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class BlueprintQuantities:
    """Node arrays of a blueprint, computed once per (game, blueprint).

    `root_values` reads any subgame's quantities off them.

    Attributes:
      sf: the full game.
      blueprint: the blueprint's behavioural arrays.
      reaches: P_0, P_1, P_c at every node.
      values: per resolving player i, u(h) at every node under (pi_bar_i, BR_o).
      best_responses: per resolving player i, the opponent's best response BR_o (behavioural).
    """

    sf: TreeSequenceForm
    blueprint: policies.Behavioural
    reaches: tree_values.Reaches
    values: tuple[FloatArray, FloatArray]
    best_responses: tuple[FloatArray, FloatArray]

    @classmethod
    def compute(
        cls, game: pyspiel.Game | str | SequenceForm, blueprint: BlueprintSource
    ) -> BlueprintQuantities:
        """Reaches, and per player i the opponent's best response and the node values.

        Reaches in one top-down pass; per player i, the opponent's best response and the node
        values under (pi_bar_i, BR_o) in one bottom-up pass each.
        """
        sf = full_game(game)
        b = load_blueprint(sf, blueprint)
        reaches = tree_values.reaches(sf.tree, sf.tree_profile(b))
        values, brs = [], []
        for i in (0, 1):
            o = 1 - i
            x_i = sf.treeplexes[i].realization_plan(b[i])
            _, br = sf.treeplexes[o].best_response(sf.sequence_values(o, x_i))
            profile = (b[0], br) if i == 0 else (br, b[1])
            values.append(tree_values.node_values(sf.tree, sf.tree_profile(profile)))
            brs.append(br)
        return cls(
            sf=sf,
            blueprint=b,
            reaches=reaches,
            values=(values[0], values[1]),
            best_responses=(brs[0], brs[1]),
        )

    def root_values(self, subgame: Subgame, player: int) -> RootValues:
        """The quantities of `subgame` for resolving `player`."""
        if subgame.tree is not self.sf.tree:
            raise ValueError(
                f"game {self.sf.name}: the subgame was cut from another compiled tree "
                f"({subgame.tree.name})"
            )
        if player not in (0, 1):
            raise ValueError(f"game {self.sf.name}: player must be 0 or 1, got {player}")
        o = 1 - player
        roots = subgame.roots
        r = self.reaches
        reach = np.stack([r.player0[roots], r.player1[roots], r.chance[roots]])
        keys, index = subgame.root_infosets(o)
        w = reach[player] * reach[2]
        value = self.values[player][roots]
        weight = arrays.weighted_bincount(index, w, len(keys))
        sums = arrays.weighted_bincount(index, w * value, len(keys))
        cfbr = np.divide(sums, weight, out=np.zeros(len(keys)), where=weight > 0)
        first = np.zeros(len(keys), dtype=np.int64)
        first[index[::-1]] = np.arange(len(index))[::-1]
        opp_reach = reach[o][first]
        spread = np.abs(reach[o] - opp_reach[index])
        if len(spread) and spread.max() > REACH_TOLERANCE:
            k = int(index[int(np.argmax(spread))])
            raise ValueError(
                f"game {self.sf.name}: player {o}'s reach differs between the histories of its "
                f"root information set {keys[k]!r} (imperfect recall at the cut?)"
            )
        return RootValues(
            player=player,
            roots=roots,
            reach=reach,
            value=value,
            keys=keys,
            root_infoset=index,
            weight=weight,
            cfbr=cfbr,
            opp_reach=opp_reach,
        )
