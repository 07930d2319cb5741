"""The public state of a game too large to compile: its histories, their reach, their local game.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 8.1, on Brown, Sandholm & Amos (2018), "Depth-Limited
Solving for Imperfect-Information Games", Sections 4-5: steps 1 and 2 of the nested solving of
`sampled.bot.LargeNestedSolvingBot`.

* public keys (`make_public_key`: OpenSpiel's public observer, the players' actions, or the
  lines both players' information states share, `CommonLinesKey`): the public observation of
  a pyspiel state;
* `PublicBelief.advance`: follows the actual history from the previous public state, keeping
  every history whose public observation (`PublicKey`) matched the actual one at every step,
  with its reach P_0, P_1, P_c (the bot's own as it played, the opponent's under the
  blueprint, chance's) - the histories H(s0) of Section 2.1;
* `sample_histories`: above a budget, an importance-weighted sample of those histories (the
  bot's own information set always kept) for the solve of one decision;
* `local_game`: compiles the histories' subtrees down to `depth` player moves under a chance
  node over them (a `GameTree` with no pyspiel game behind it, built by the core's
  `walk.expand_below`); the subgame is its public state (`cuts.root_set`).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel
from numpy.typing import NDArray
from open_spiel.python import observation
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, policies, walk
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.subgames import cuts
from ospiel_ext.loading import DEFAULT_MAX_NODES
from ospiel_ext.runtime import interrupts
from ospiel_ext.sequence_form import TreeSequenceForm
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import TreeBuilder

PublicKey = Callable[[pyspiel.State], str]


def player_actions_key(state: pyspiel.State) -> str:
    """Public observation when every player action is public and chance is private.

    For poker and Liar's dice: the player to move and the players' actions so far.
    """
    moves = ",".join(str(h.action) for h in state.full_history() if h.player >= 0)
    return f"{state.current_player()}|{moves}"


def common_lines_key(
    state: pyspiel.State, infoset_key: Callable[[pyspiel.State, int], str] = loading.infoset_key
) -> str:
    """Public observation as the lines both players' information states share.

    In Goofspiel: the point cards, the win sequence and the points, but neither hand.
    `infoset_key`: `loading.key_function(game)` in loops over one game's states.
    """
    if state.is_terminal():
        return "terminal"
    theirs = set(infoset_key(state, 1).splitlines())
    return "\n".join([x for x in infoset_key(state, 0).splitlines() if x in theirs])


class CommonLinesKey:
    """`common_lines_key` with the lines of each information-state string kept.

    The histories of a public state share the players' information states many times over
    (every history of an information set has its string), so each string is split once: a
    key then costs the two strings and one pass over player 0's lines. The kept lines are
    dropped wholesale when a table reaches `capacity` strings.

    Args:
      infoset_key: `loading.key_function(game)`.
      capacity: the most strings kept per player.
    """

    def __init__(self, infoset_key: Callable[[pyspiel.State, int], str], capacity: int = 1 << 16):
        self._key, self._capacity = infoset_key, capacity
        self._lines: dict[str, tuple[str, ...]] = {}
        self._sets: dict[str, frozenset[str]] = {}

    def __call__(self, state: pyspiel.State) -> str:
        """The lines both players' information states share (`common_lines_key`)."""
        if state.is_terminal():
            return "terminal"
        mine, theirs = self._key(state, 0), self._key(state, 1)
        lines = self._lines.get(mine)
        if lines is None:
            if len(self._lines) >= self._capacity:
                self._lines.clear()
            lines = self._lines[mine] = tuple(mine.splitlines())
        shared = self._sets.get(theirs)
        if shared is None:
            if len(self._sets) >= self._capacity:
                self._sets.clear()
            shared = self._sets[theirs] = frozenset(theirs.splitlines())
        return "\n".join([x for x in lines if x in shared])


def observer_key(game: pyspiel.Game) -> PublicKey:
    """Public observation by OpenSpiel's public-information observer.

    Perfect recall, no private information: Kuhn, Leduc - with the public card; ValueError
    if the game has none.
    """
    kind = pyspiel.IIGObservationType(
        perfect_recall=True, public_info=True, private_info=pyspiel.PrivateInfoType.NONE
    )
    try:
        observer = observation.make_observation(game, kind)
        observer.string_from(game.new_initial_state(), 0)
    except Exception as e:  # pyspiel raises several kinds here
        raise ValueError(
            f"game {game}: OpenSpiel has no public observer for it; choose the public key "
            "'actions' (every player action public, chance private) or 'lines' (the lines both "
            "players' information states share), or pass a function of the state"
        ) from e
    return lambda state: f"{state.current_player()}|{observer.string_from(state, 0)}"


PUBLIC_KEYS = ("observer", "actions", "lines")


def make_public_key(game: pyspiel.Game, spec: str | PublicKey) -> PublicKey:
    """The public key named `spec` ('observer', 'actions' or 'lines'), or `spec` itself."""
    if callable(spec):
        return spec
    if spec == "observer":
        return observer_key(game)
    if spec == "actions":
        return player_actions_key
    if spec == "lines":
        return CommonLinesKey(loading.key_function(game))
    raise ValueError(f"game {game}: unknown public key {spec!r}; keys: {PUBLIC_KEYS}")


class PublicBelief:
    """The histories of the current public state and their reach (module docstring).

    Attributes:
      states: the histories (pyspiel states), the actual one among them.
      reach: (3, histories): P_0, P_1, P_c.
      length: their common history length.
    """

    def __init__(self, game: pyspiel.Game, public_key: PublicKey, player: int):
        self.game, self.public_key, self.player = game, public_key, player
        self._infoset_key = loading.key_function(game)
        self._reset()

    def _reset(self) -> None:
        """Back to the root: one history, reach 1 for everyone."""
        self.states = [self.game.new_initial_state()]
        self.reach = np.ones((3, 1))
        self.path: list[int] = []

    @property
    def length(self) -> int:
        """The histories' common length (actions from the root)."""
        return len(self.path)

    def advance(self, target: pyspiel.State, policy_of: Sequence[policy_lib.Policy]) -> None:
        """Follows `target`'s history from where the belief stands.

        Restarts if it is not a continuation; histories the bot itself never reaches
        (P_i P_c = 0) are dropped.

        Raises:
          interrupts.Interrupted: from `_step`; the belief then stands after the last step
            taken (its `path` and histories agree), and a later call goes on from there.
        """
        history = [int(a) for a in target.history()]
        if history[: len(self.path)] != self.path:
            self._reset()
        actual = self.game.new_initial_state()
        for a in self.path:
            actual.apply_action(a)
        for a in history[len(self.path) :]:
            actual.apply_action(a)
            self._step(a, actual, policy_of)
            self.path.append(a)
        if not any(_same(s, actual) for s in self.states):
            raise ValueError(
                f"game {self.game}: the public key does not match the actual history's own "
                "public observation (is it a function of public information only?)"
            )

    def _step(self, a: int, actual: pyspiel.State, policy_of: Sequence[policy_lib.Policy]) -> None:
        """One action of every history: the children whose public key is the actual one's.

        A child is live when its P_i P_c > 0, computed as the product of its updated reaches
        (P_who times the move's probability): a dead child is not built unless it is the
        actual one. The kept children's reaches are their parents' with the mover's factor,
        in one numpy product per step.

        Raises:
          interrupts.Interrupted: Ctrl-C, SIGTERM or a deadline (checked per history: a step
            of the last decisions walks 10^5 of them); the step is not taken.
        """
        want, i, public_key = self.public_key(actual), self.player, self.public_key
        kept: list[tuple[pyspiel.State, int, int, float]] = []  # child, parent, mover, factor
        own, chance = self.reach[i].tolist(), self.reach[2].tolist()
        moves_of = _Moves(self._infoset_key, policy_of)
        for k, s in enumerate(self.states):
            interrupts.check()
            who, moves = moves_of(s)
            ri, rc = own[k], chance[k]
            for a2, prob in moves:
                # P_i P_c of the child, multiplied as the reaches are
                live = (ri * prob if who == i else ri) * (rc * prob if who == 2 else rc) > 0
                if not live and a2 != a:
                    continue  # dropped whatever its public observation: no child built
                child = s.child(a2)
                if public_key(child) == want and (live or _same(child, actual)):
                    kept.append((child, k, who, prob))
        states, parents, movers, factors = (
            (list(x) for x in zip(*kept)) if kept else ([], [], [], [])
        )
        reach = self.reach[:, parents]
        columns = np.arange(len(parents))
        reach[movers, columns] = reach[movers, columns] * np.array(factors, dtype=np.float64)
        self.states, self.reach = states, reach


class _Moves:
    """(mover, [(action, probability)]) at a state, asked once per information state.

    An OpenSpiel policy is a function of the acting player's information state (as
    `rollouts.CachedPolicy` relies on too), and so are its legal actions; chance's outcomes
    are read at every state.
    """

    def __init__(
        self,
        infoset_key: Callable[[pyspiel.State, int], str],
        policy_of: Sequence[policy_lib.Policy],
    ):
        self._key, self._policy_of = infoset_key, policy_of
        self._at: dict[tuple[int, str], list[tuple[int, float]]] = {}

    def __call__(self, s: pyspiel.State) -> tuple[int, list[tuple[int, float]]]:
        """The mover at `s` (2: chance) and its actions with their probabilities."""
        if s.is_chance_node():
            return 2, s.chance_outcomes()
        who = s.current_player()
        key = (who, self._key(s, who))
        moves = self._at.get(key)
        if moves is None:
            probs = self._policy_of[who].action_probabilities(s, who)
            moves = self._at[key] = [(a2, probs.get(a2, 0.0)) for a2 in s.legal_actions()]
        return who, moves


def _same(a: pyspiel.State, b: pyspiel.State) -> bool:
    return bool(a.history() == b.history())


def sample_histories(
    belief: PublicBelief, budget: int, rng: np.random.Generator, keep: NDArray[np.bool_]
) -> PublicBelief:
    """At most `budget` of `belief`'s histories with importance weights (a new belief).

    The solve of a decision in a public state of many histories (late in imperfect-information
    Goofspiel 7, ~10^5) works on a sample of them: Monte Carlo estimation of the public belief,
    as Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
    Section 5, estimate leaf values by sampling, and in the spirit of the knowledge-limited
    subgame solving that Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve
    Subgame Solving in Imperfect-Information Games", Section 2.1, contrast with the
    common-knowledge public state they solve.

    Estimator: priority sampling (Duffield, Lund & Thorup (2007), "Priority sampling for
    estimation of arbitrary subset sums", J. ACM 54(6), Section 2). The histories with `keep`
    (the bot's own information set: it must play there) are kept with weight 1. Of the others,
    with reach w_h = P_0(h) P_1(h) P_c(h) > 0, each gets the priority q_h = w_h / u_h,
    u_h ~ U(0, 1] from `rng`; the k = budget - #keep of highest priority are kept, and with tau
    the (k + 1)-th highest priority, a kept history's chance reach is scaled so that its reach
    becomes max(w_h, tau):
        P_c^(h) = P_c(h) max(1, tau / w_h),   E[P_c^(h)] = P_c(h)   (0 if not kept),
    (Duffield et al., Theorem 1). Every sum over histories linear in the reach - the belief's
    total and its weight on an information set, the gadget's P_i P_c weights and counterfactual
    values - is then an unbiased estimate of the exact one over the histories of positive
    reach. Without replacement, histories of reach above tau are kept exactly and only the tail
    is sampled: near the budget almost nothing changes, where draws with replacement
    (multinomial, p_h = w_h / W) leave out a third of the histories even at m = n.

    Histories of zero reach (the opponent's blueprint never goes there: P_o = 0 while
    P_i P_c > 0) are dropped: they add nothing to the reach-weighted sums, but a safe gadget
    (resolving, max-margin) loses the opponent's information sets that only they and unsampled
    histories make up, with their alternative values - the sample trades safety against
    deviations the blueprint deems unlikely for fewer histories. If the kept histories alone
    exceed the budget, only they are used. P_0 and P_1 are left as they are, so the strategies
    the solve reads and writes are unchanged.

    Args:
      belief: the exact public belief.
      budget: the most histories to keep, if `keep` has no more (>= 1).
      rng: the generator of the priorities (the bot's seeded one); not touched unless the
        histories of positive reach outside `keep` exceed the room left.
      keep: (histories,) the histories to keep for certain.

    Returns:
      `belief` itself when it has at most `budget` histories; otherwise a new `PublicBelief`
      on the same path with the kept and the sampled histories (belief order) and their reaches.
    """
    if len(belief.states) <= budget:
        return belief
    weights = np.where(keep, 0.0, np.prod(belief.reach, axis=0))
    others = np.flatnonzero(weights > 0)
    room = max(budget - int(keep.sum()), 0)
    scale = keep.astype(np.float64)
    if len(others) <= room:
        scale[others] = 1.0
    elif room > 0:
        priority = weights[others] / (1.0 - rng.random(len(others)))  # u in (0, 1]
        order = np.argsort(-priority, kind="stable")
        top, tau = others[order[:room]], priority[order[room]]
        scale[top] = np.maximum(1.0, tau / weights[top])
    chosen = np.flatnonzero(scale > 0)
    out = copy.copy(belief)
    out.states = [belief.states[k] for k in chosen.tolist()]
    out.reach = belief.reach[:, chosen].copy()
    out.reach[2] *= scale[chosen]
    out.path = list(belief.path)
    return out


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class LocalGame:
    """A public state's histories compiled down to the depth limit (module docstring).

    Attributes:
      tree: a chance node over the histories, then their subtrees to the limit.
      sf: its sequence form.
      subgame: the public state containing the actual history.
      roots: the local node of each history (`PublicBelief.states` order).
      leaf_nodes: the local nodes of the states at the depth limit (placeholder leaves).
      leaf_states: those states.
      infoset_states: one pyspiel state per local information set key.
      belief: the histories and reaches it was compiled from (the public state's, or a
        `sample_histories` of them).
    """

    tree: GameTree
    sf: TreeSequenceForm
    subgame: ss.Subgame
    roots: NDArray[np.int64]
    leaf_nodes: NDArray[np.int64]
    leaf_states: list[pyspiel.State]
    infoset_states: dict[str, pyspiel.State]
    belief: PublicBelief

    def behavioural(self, policy_of: Sequence[policy_lib.Policy]) -> policies.Behavioural:
        """Both players' strategies of `policy_of` on the local sequence form."""
        table = {}
        for key, state in self.infoset_states.items():
            p = state.current_player()
            table[key] = policy_of[p].action_probabilities(state, p)
        return policies.behavioural_from_table(self.sf, table)


def local_game(
    belief: PublicBelief, actual: pyspiel.State, depth: int, max_nodes: int = DEFAULT_MAX_NODES
) -> LocalGame:
    """The local game of `belief` (module docstring).

    `depth` player moves below its histories; terminal states keep their returns, states at
    the limit are placeholder leaves.
    """
    n = len(belief.states)
    name = f"public state of {belief.game} after {belief.length} actions"
    builder = TreeBuilder(name=name, game=None)
    pc = belief.reach[2]
    first = builder.expand_chance(builder.add_root(), range(n), pc / pc.sum())
    starts = [(first + k, s) for k, s in enumerate(belief.states)]
    leaf_nodes, leaf_states, infoset_states = walk.expand_below(
        builder, starts, depth, max_nodes=max_nodes
    )
    for node in leaf_nodes:
        builder.set_leaf(node, 0.0, 0.0)  # placeholders: the gadget copy stops here
    tree = builder.freeze()
    tree.check_perfect_recall()
    roots = first + np.arange(n, dtype=np.int64)
    infoset_key = loading.key_function(belief.game)
    keys = tuple([infoset_key(s, p) for s in belief.states] for p in (0, 1))
    rs = cuts.root_set(tree, ss.Cut.after_chance_events(1), roots, (keys[0], keys[1]))
    actual_history = actual.history()
    k = next(k for k, s in enumerate(belief.states) if s.history() == actual_history)
    subgame = next(sub for sub in cuts.public_states(rs) if np.any(sub.roots == roots[k]))
    order = np.argsort(leaf_nodes, kind="stable")
    return LocalGame(
        tree=tree,
        sf=TreeSequenceForm(tree),
        subgame=subgame,
        roots=roots,
        leaf_nodes=np.asarray(leaf_nodes, dtype=np.int64)[order],
        leaf_states=[leaf_states[j] for j in order],
        infoset_states=infoset_states,
        belief=belief,
    )
