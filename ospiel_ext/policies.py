"""Behavioural arrays <-> OpenSpiel `TabularPolicy` and <-> tables; tabular policies of a game.

A behavioural strategy of player p is a float array over p's sequences (see
`treeplex.Treeplex`): entry s is the probability of the sequence's last action at its
infoset; entry 0 (the empty sequence) is 1. `PolicyLayout` maps those entries to rows and
columns of `TabularPolicy.action_probability_array` once per game, so conversion in either
direction is one fancy-indexing operation. A table ({information state: {action:
probability}}, one per player: `Tables`) is the form of a strategy without a pyspiel game
behind it (certificate trunks, depth-limited games, abstractions): `behavioural_to_table` and
`behavioural_from_table` are the only conversions between it and the arrays, and
`policy_to_dict` the only one from an OpenSpiel policy to the table of a policy file
(`policy_files`).
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel
from numpy.typing import NDArray
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import get_all_states

from ospiel_ext import loading
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.sequence_form import SequenceForm
from ospiel_ext.tree import GameTree

Behavioural = tuple[NDArray[np.float64], NDArray[np.float64]]
Table = dict[str, dict[int, float]]
"""One player's strategy as {information state key: {action id: probability}}."""
Tables = tuple[Table, Table]
"""One `Table` per player: both players may have an information state of the same string
(phantom_ttt), where they play differently."""


def _decision_states(game: pyspiel.Game) -> dict[str, pyspiel.State]:
    """Every decision state of `game` by history, as `TabularPolicy(game)` walks them.

    Empty for a game in which no player ever decides (its outcome is chance's alone, or the
    start is terminal: checkers(rows=4,columns=4)), which OpenSpiel's walk refuses.
    """
    try:
        states: dict[str, pyspiel.State] = get_all_states.get_all_states(
            game,
            depth_limit=-1,
            include_terminals=False,
            include_chance_states=False,
            include_mean_field_states=False,
            to_string=lambda s: s.history_str(),
        )
    except ValueError as e:  # "GetSubgameStates returned 0 states!"
        if "0 states" not in str(e):
            raise
        return {}
    return states


def _first_states(tree: GameTree) -> dict[str, pyspiel.State]:
    """One decision state per information set of a compiled game, as `TabularPolicy` keeps.

    The state of each information set whose history string sorts first: OpenSpiel's
    constructor sorts every decision state by its history string and gives an information
    set its row at the first, so given these states alone it builds the same rows in the
    same order, without walking the game again.
    """
    parent, action = tree.parent.tolist(), tree.action.tolist()
    history = [""] * tree.num_nodes  # parents come before their children
    for node in range(1, tree.num_nodes):
        p = parent[node]
        history[node] = f"{history[p]}, {action[node]}" if p else str(action[node])
    nodes, offsets = tree.infoset_nodes
    states = {}
    for g in range(tree.num_infosets):
        first = min(nodes[offsets[g] : offsets[g + 1]].tolist(), key=history.__getitem__)
        states[history[first]] = tree.state(first)
    return states


def _empty_policy(game: pyspiel.Game) -> policy_lib.TabularPolicy:
    """The TabularPolicy, with no rows, of a game in which no player ever decides.

    OpenSpiel's constructor walks the game again when given no states (and refuses such a
    game); given the start alone, a state where nobody decides, it keeps no row, and its
    arrays get their usual two dimensions here.
    """
    root = game.new_initial_state()
    pol = policy_lib.TabularPolicy(game, states={root.history_str(): root})
    shape = (0, game.num_distinct_actions())
    pol.legal_actions_mask = np.zeros(shape, dtype=np.int64)
    pol.action_probability_array = np.zeros(shape, dtype=np.float64)
    return pol


def shared_key(player: int, key: str) -> str:
    """The policy key of `player`'s information state `key` where both players share the string.

    In a game where the other player has an information state of the same string
    (phantom_ttt's empty boards).
    """
    return f"player {player}: {key}"


class KeyedTabularPolicy(policy_lib.TabularPolicy):
    """OpenSpiel's TabularPolicy keyed so that every row is one information set of one player.

    For the games where OpenSpiel's own keys are not: a perfect-information game without
    information_state_string (rows keyed by `tree.infoset_key`, the history) and a game whose
    two players share an information-state string (phantom_ttt: such a string becomes
    `shared_key(player, key)` for each player; OpenSpiel's TabularPolicy gives both players
    one row there). It is a TabularPolicy: OpenSpiel's exploitability, expected game score and
    PolicyBot accept it. Build it with `tabular_policy(game)`.
    """

    def __init__(self, game: pyspiel.Game, states: dict[str, pyspiel.State], shared: frozenset):
        self.shared = shared
        self._key = loading.key_function(game)
        super().__init__(game, states=states)

    def _state_key(self, state: pyspiel.State, player: int | None) -> str:
        player = state.current_player() if player is None else player
        key = self._key(state, player)
        return shared_key(player, key) if key in self.shared else key

    def __copy__(self, copy_action_probability_array: bool = True) -> KeyedTabularPolicy:
        result: KeyedTabularPolicy = super().__copy__(copy_action_probability_array)
        result.__class__ = KeyedTabularPolicy
        result.shared, result._key = self.shared, self._key
        return result


def action_probabilities(pol: Any, state: pyspiel.State, player: int) -> dict[int, float]:
    """`player`'s action probabilities at `state` under an OpenSpiel policy.

    A Python `policy.Policy` is asked for the player explicitly (both players may share an
    information state string), a C++ `pyspiel.Policy` takes the state alone.
    """
    probs: dict[int, float]
    if isinstance(pol, policy_lib.Policy):
        probs = pol.action_probabilities(state, player)
    else:
        probs = pol.action_probabilities(state)
    return probs


def tabular_policy(game: pyspiel.Game | str) -> policy_lib.TabularPolicy:
    """A fresh uniform TabularPolicy of `game` with one row per information set of one player.

    OpenSpiel's own where its keys are that (almost every game), else a
    `KeyedTabularPolicy`. The game is walked once per process (the last few games are kept).
    """
    return _template(str(loading.load(game))).__copy__(copy_action_probability_array=True)


@functools.lru_cache(maxsize=4)
def _template(game_string: str) -> policy_lib.TabularPolicy:
    """`tabular_policy`'s policy, shared (never handed out: callers get copies).

    OpenSpiel's walk keeps every decision state: an infinite game, or one estimated above the
    default node cap, is refused first.
    """
    game = loading.load(game_string)
    loading.refuse_by_estimate(game, loading.node_cap(game, None))
    return _template_of(game, _decision_states(game))


def _template_of(game: pyspiel.Game, states: dict[str, pyspiel.State]) -> policy_lib.TabularPolicy:
    """The TabularPolicy of `game` on decision `states` (by history string).

    Keyed as `tabular_policy` says.
    """
    if not states:
        return _empty_policy(game)
    key = loading.key_function(game)
    keys: tuple[set[str], set[str]] = (set(), set())
    for state in states.values():
        player = state.current_player()
        if player in (0, 1):
            keys[player].add(key(state, player))
    shared = frozenset(keys[0] & keys[1])
    if not shared and game.get_type().provides_information_state_string:
        return policy_lib.TabularPolicy(game, states=states)
    return KeyedTabularPolicy(game, states, shared)


def row_key(pol: policy_lib.TabularPolicy, player: int, key: str) -> str:
    """The key of `player`'s information set `key` in `pol`'s `state_lookup`."""
    if isinstance(pol, KeyedTabularPolicy) and key in pol.shared:
        return shared_key(player, key)
    return key


class PolicyLayout:
    """Where each sequence of each player lives in the game's `TabularPolicy` arrays.

    Built from any SequenceForm that names its pyspiel game (`SequenceForm.game`) and lists
    its infosets' keys (`infoset_keys`): the compiled game tree's, or the public-tree poker
    form's, which numbers the same sequences without a tree.
    """

    def __init__(self, sf: SequenceForm):
        if sf.game is None:
            raise ValueError(
                f"a TabularPolicy needs the pyspiel game; {sf.name} is a sequence form of none"
            )
        self.sf = sf
        self.cols = [tp.seq_action[1:] for tp in sf.treeplexes]

    @functools.cached_property
    def template(self) -> policy_lib.TabularPolicy:
        """The game's own TabularPolicy (`tabular_policy`), rows in OpenSpiel's order.

        Built when first needed (reading a TabularPolicy keyed like the sequence form needs
        only that policy's `state_lookup`: `from_tabular`); from the compiled tree where the
        sequence form is a whole sequential game's (`_first_states`), else by OpenSpiel's walk.
        """
        game = self.sf.game
        assert game is not None  # checked in __init__
        if self._whole_tree is not None:  # OpenSpiel's rows from the compiled tree's states
            return _template_of(game, _first_states(self._whole_tree))
        return tabular_policy(game)

    @functools.cached_property
    def _whole_tree(self) -> GameTree | None:
        """The compiled tree of a whole sequential game (`TreeSequenceForm.whole_game`).

        Its histories are the game's. None for any other form (a trunk, a gadget game, ...).
        """
        sf = self.sf
        if (
            isinstance(sf, sf_lib.TreeSequenceForm)
            and sf.whole_game
            and sf.tree.game is not None
            and sf.tree.game.get_type().dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
        ):
            return sf.tree
        return None

    @functools.cached_property
    def infoset_rows(self) -> list[NDArray[np.int64]]:
        """Per player, the template's row of each information set."""
        out = []
        for p in (0, 1):
            keys = [row_key(self.template, p, k) for k in self.sf.infoset_keys(p)]
            missing = [k for k in keys if k not in self.template.state_lookup]
            if missing:
                raise ValueError(
                    f"information state {missing[0]!r} of {self.sf.name} is not in "
                    "the game's TabularPolicy"
                )
            out.append(np.array([self.template.state_lookup[k] for k in keys], dtype=np.int64))
        return out

    @functools.cached_property
    def rows(self) -> list[NDArray[np.int64]]:
        """Per player, the template's row of each sequence but the empty one."""
        pairs = zip(self.infoset_rows, self.sf.treeplexes)
        return [np.repeat(r, tp.num_actions) for r, tp in pairs]

    def to_tabular(self, behavioural: Behavioural) -> policy_lib.TabularPolicy:
        """A fresh TabularPolicy playing the given behavioural strategies."""
        pol = self.template.__copy__(copy_action_probability_array=True)
        for p in (0, 1):
            pol.action_probability_array[self.rows[p], self.cols[p]] = behavioural[p][1:]
        return pol

    def from_tabular(
        self, pol: policy_lib.TabularPolicy, players: tuple[int, ...] = (0, 1)
    ) -> Behavioural:
        """Behavioural arrays of a TabularPolicy of the same game (keyed like ours).

        Another keying (e.g. a TabularPolicy of some players only) is asked state by state
        at the information sets of `players` (`from_policy`).
        """
        if "template" not in self.__dict__ and type(pol) is policy_lib.TabularPolicy:
            read = self._read_by_keys(pol, players)
            if read is not None:
                return read
        if (
            pol.state_lookup is not self.template.state_lookup
            and pol.state_lookup != self.template.state_lookup
        ):
            return self.from_policy(pol, players)
        table = pol.action_probability_array
        return (
            self._with_root(table[self.rows[0], self.cols[0]]),
            self._with_root(table[self.rows[1], self.cols[1]]),
        )

    def _read_by_keys(
        self, pol: policy_lib.TabularPolicy, players: tuple[int, ...]
    ) -> Behavioural | None:
        """`from_tabular` through `pol`'s own `state_lookup`, as OpenSpiel reads its rows.

        None if an information set of `players` is not a key there (e.g. a game keyed by
        history, which OpenSpiel's TabularPolicy keys otherwise); another player's array is
        read where the policy has all its keys, else uniform.
        """
        out = []
        for p, tp in enumerate(self.sf.treeplexes):
            rows = [pol.state_lookup.get(k) for k in self.sf.infoset_keys(p)]
            if None in rows:
                if p in players:
                    return None
                out.append(tp.uniform.copy())
                continue
            seq_rows = np.repeat(np.array(rows, dtype=np.int64), tp.num_actions)
            out.append(self._with_root(pol.action_probability_array[seq_rows, self.cols[p]]))
        return out[0], out[1]

    def from_policy(self, pol: policy_lib.Policy, players: tuple[int, ...] = (0, 1)) -> Behavioural:
        """Behavioural arrays of any OpenSpiel Policy, queried at one state per infoset.

        The state is one of the infoset's (`_states`). Only the information sets of
        `players` are queried (a policy of one player, e.g. OpenSpiel's BestResponsePolicy,
        covers no other); the other player's array is uniform.
        """
        tables: tuple[dict, dict] = ({}, {})
        for p in players:
            for key, state in zip(self.sf.infoset_keys(p), self._states(p)):
                try:
                    tables[p][key] = action_probabilities(pol, state, p)
                except (KeyError, IndexError):
                    raise ValueError(
                        f"the policy does not cover information state {key!r} of {self.sf.name}"
                    ) from None
        return behavioural_from_table(self.sf, tables, missing="uniform")

    def _states(self, player: int) -> Iterator[pyspiel.State]:
        """One state of each of `player`'s information sets, in the treeplex's order.

        Replayed from the compiled tree of a whole game (`_whole_tree`: no walk of the game by
        OpenSpiel), else the template's.
        """
        tree = self._whole_tree
        if tree is None:
            states = self.template.states
            yield from (states[row] for row in self.infoset_rows[player])
            return
        nodes, offsets = tree.infoset_nodes
        for g in self.sf.treeplexes[player].infoset_ids:
            yield tree.state(int(nodes[offsets[g]]))

    def from_table(self, table: Mapping[str, Any]) -> Behavioural:
        """Behavioural arrays from {info state: [(action, prob), ...] or {action: prob}}.

        E.g. `pyspiel.TabularPolicy.policy_table()`; see `behavioural_from_table`.
        """
        return behavioural_from_table(self.sf, table)

    def behavioural(self, pol: policy_lib.Policy, players: tuple[int, ...] = (0, 1)) -> Behavioural:
        """Behavioural arrays of `pol`, using the fast path for TabularPolicy.

        `players`: whose information sets `pol` is asked at (`from_policy`); a TabularPolicy
        of the whole game is read whole.
        """
        if isinstance(pol, policy_lib.TabularPolicy):
            return self.from_tabular(pol, players)
        return self.from_policy(pol, players)

    @staticmethod
    def _with_root(b: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.concatenate([[1.0], b])


def behavioural_from_table(
    sf: SequenceForm,
    table: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    missing: str = "raise",
) -> Behavioural:
    """Behavioural arrays of `sf` from a policy table; the inverse of `behavioural_to_table`.

    The table is {info state: {action: prob} or [(action, prob), ...]}, or one such table per
    player (`Tables`, needed where both players have an information state of the same string,
    as in phantom_ttt); actions missing from a row get probability 0. An information state
    missing from the table raises ValueError (`missing="raise"`) or plays uniformly
    (`missing="uniform"`).
    """
    tables = (table, table) if isinstance(table, Mapping) else tuple(table)
    out: list[NDArray[np.float64]] = []
    for p, tp in enumerate(sf.treeplexes):
        b = tp.uniform.copy()
        table = tables[p]
        for i, key in enumerate(sf.infoset_keys(p)):
            if key not in table:
                if missing == "raise":
                    raise ValueError(
                        f"the policy has no entry for information state {key!r} of {sf.name}"
                    )
                continue
            row = dict(table[key])
            s, n = int(tp.seq_start[i]), int(tp.num_actions[i])
            b[s : s + n] = [row.get(int(a), 0.0) for a in tp.seq_action[s : s + n]]
        out.append(b)
    return out[0], out[1]


def behavioural_to_table(sf: SequenceForm, behavioural: Behavioural) -> Tables:
    """Per player, {information state: {action: probability}} of behavioural arrays of `sf`.

    Every information set of the player, actions in the treeplex's order. The one conversion
    from arrays to tables: `Certificate.strategy_table` and `LargeGameSolution.table` read
    it; `behavioural_from_table` is its inverse.
    """
    tables: Tables = ({}, {})
    for p, (tp, b) in enumerate(zip(sf.treeplexes, behavioural)):
        actions = tp.seq_action.tolist()
        probs = np.asarray(b, dtype=np.float64).tolist()
        for i, key in enumerate(sf.infoset_keys(p)):
            s = int(tp.seq_start[i])
            e = s + int(tp.num_actions[i])
            tables[p][key] = dict(zip(actions[s:e], probs[s:e]))
    return tables


@functools.lru_cache(maxsize=8)
def layout(sf: SequenceForm) -> PolicyLayout:
    """The PolicyLayout of a SequenceForm, built once."""
    return PolicyLayout(sf)


def layout_for_game(game: pyspiel.Game | str) -> PolicyLayout:
    """The PolicyLayout of `game`'s sequence form (`layout(sequence_form.for_game(game))`)."""
    return layout(sf_lib.for_game(game))


def uniform_policy(game: pyspiel.Game | str) -> policy_lib.TabularPolicy:
    """The uniform random TabularPolicy of `game` (`tabular_policy`)."""
    return tabular_policy(game)


def tabular_from_policy(
    game: pyspiel.Game | str, pol: policy_lib.Policy
) -> policy_lib.TabularPolicy:
    """`pol` (any OpenSpiel Policy of `game`) as `game`'s `tabular_policy`."""
    out = tabular_policy(game)
    _check_policy_game(pol, out.game)
    out.action_probability_array = np.array(_rows_of(pol, out), dtype=np.float64)
    return out


def random_policy(
    game: pyspiel.Game | str, seed: int = 0, alpha: float = 1.0
) -> policy_lib.TabularPolicy:
    """A random TabularPolicy of `game`.

    Every information state draws its action distribution from a symmetric Dirichlet(alpha)
    over the legal actions.
    """
    pol = uniform_policy(game)
    rng = np.random.default_rng(seed)
    mask = pol.legal_actions_mask.astype(bool)
    gamma = rng.gamma(alpha, size=mask.shape) * mask
    pol.action_probability_array = gamma / gamma.sum(axis=1, keepdims=True)
    return pol


def _check_policy_game(pol: policy_lib.Policy, game: pyspiel.Game) -> None:
    """ValueError unless `pol` is a policy of `game` (a policy knows its game)."""
    own = getattr(pol, "game", None)
    if isinstance(own, pyspiel.Game) and not loading.same_game(loading.load(own), game):
        raise ValueError(f"the policy is a policy of {own}, not of {game}")


def policy_to_dict(pol: policy_lib.Policy, game: pyspiel.Game) -> dict[str, dict[str, float]]:
    """{policy key: {action id: probability}} for every information state of `game`.

    Keys as in `tabular_policy(game)` (the information_state_string almost always); action
    ids as decimal strings: the "policy" object of a policy file
    (`policy_files.save_policy`).

    Raises:
      ValueError: `pol` is a policy of another game, or a TabularPolicy without a row for an
        information state of `game`.
    """
    _check_policy_game(pol, game)
    template = _template(str(game))
    probs = _rows_of(pol, template)
    out = {}
    for key, row in template.state_lookup.items():
        legal = np.flatnonzero(template.legal_actions_mask[row])
        out[key] = {str(int(a)): float(probs[row, a]) for a in legal}
    return out


def _rows_of(pol: policy_lib.Policy, template: policy_lib.TabularPolicy) -> NDArray[np.float64]:
    """`pol`'s action probabilities in `template`'s rows.

    A TabularPolicy's rows are found by key (OpenSpiel's TabularPolicy of a game whose
    players share a key string gives both players its one row, as OpenSpiel plays it); any
    other policy is queried per row.
    """
    if isinstance(pol, policy_lib.TabularPolicy):
        table: NDArray[np.float64] = pol.action_probability_array
        if pol.state_lookup is template.state_lookup or pol.state_lookup == template.state_lookup:
            return table
        rows = []
        for key, state in zip(template.state_lookup, template.states):
            player = state.current_player()
            plain = loading.infoset_key(state, player)
            row = pol.state_lookup.get(key, pol.state_lookup.get(plain))
            if row is None:
                raise ValueError(f"the policy has no row for information state {key!r}")
            rows.append(row)
        picked: NDArray[np.float64] = table[rows]
        return picked
    probs: NDArray[np.float64] = np.zeros_like(template.action_probability_array)
    for row, state in enumerate(template.states):
        for a, p in action_probabilities(pol, state, state.current_player()).items():
            probs[row, a] = p
    return probs
