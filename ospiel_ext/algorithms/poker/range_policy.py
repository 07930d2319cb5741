"""A range-layout strategy as an OpenSpiel policy, and its file.

The range solver (`range_cfr.RangeCFRSolver`) solves games whose information sets no tabular
policy can list (Rhode Island Hold'em: 52 M; with suit isomorphism 9.8 M array entries).
`RangePolicy` is the solver's strategy as an ordinary `open_spiel.python.policy.Policy`: at a
state it reads the entry (betting decision, board, hand) of the acting player - through the
canonical board and relabelled hand with suit isomorphism (`deals.canonical_of`; Johanson,
Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in Large Extensive
Games", IJCAI 2011, Section 3, for the public tree x hand vectors) - so OpenSpiel's
evaluators, bots and `expected_game_score` take it as they take any policy, and
`to_tabular` lists it where the game compiles.

`save_range_policy` writes the arrays as .npz (never pickle); `load_range_policy` lays the
same tree out again and checks the shapes.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import loading, policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms.gameshrink import stage_games
from ospiel_ext.algorithms.poker import structure
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.runtime import files

_FORMAT = "ospiel_ext range policy 1"


class RangePolicy(policy_lib.Policy):
    """Behavioural strategies on a `RangeTree` as an OpenSpiel policy of both players.

    Args:
      tree: the laid-out public tree.
      strategy: per round and decision group, arrays (n, A, n_B, T) of action probabilities
        (`range_cfr.RangeCFRSolver.average_strategy`).

    Raises:
      ValueError: the arrays do not have the tree's shapes.
    """

    def __init__(self, tree: RangeTree, strategy: Arrays):
        super().__init__(tree.structure.game, [0, 1])
        _check_shapes(tree, strategy)
        self.tree, self.strategy = tree, strategy
        self._locate = EntryLocator(tree)

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """`Policy.action_probabilities`: the acting player's entry at `state`."""
        r, k, i, board, hand = self._locate(state)
        probs = self.strategy[r][k][i, :, board, hand]
        node = self.tree.rounds[r].groups[k].betting[i]
        return dict(zip(node.actions, probs.tolist()))

    def to_tabular(self, max_nodes: int | None = None) -> policy_lib.TabularPolicy:
        """The policy as a TabularPolicy (compiles the game: small games only)."""
        layout = policies.layout(sf_lib.for_game(self.game, max_nodes))
        return layout.to_tabular(layout.from_policy(self))


def arrays_from_tabular(tree: RangeTree, pol: policy_lib.TabularPolicy) -> Arrays:
    """A TabularPolicy of the tree's game as per-hand arrays (n, A, n_B, H) of the tree.

    Every decision state the policy lists writes its action probabilities at its entry
    (`EntryLocator`); entries no state names (hands a board excludes) are uniform.

    Raises:
      ValueError: with suit isomorphism, two information sets of one entry (suit-isomorphic
        ones) are played differently: the tree evaluates suit-symmetric profiles only (lay the
        tree out without suits to evaluate this policy).
    """
    arrays = [[np.full(shape, np.nan) for shape in per_round] for per_round in tree.per_hand_shapes]
    locate = EntryLocator(tree)
    for row, state in enumerate(pol.states):
        r, k, i, b, h = locate(state)
        actions = list(tree.rounds[r].groups[k].betting[i].actions)
        probs = pol.action_probability_array[row, actions]
        here = arrays[r][k][i, :, b, h]
        if not np.isnan(here[0]) and np.abs(here - probs).max() > 1e-9:
            raise ValueError(
                f"game {tree.name}: the policy plays suit-isomorphic information sets "
                f"differently (at {state.information_state_string()!r}); lay the tree out "
                "without suit isomorphism to evaluate it"
            )
        arrays[r][k][i, :, b, h] = probs
    for per_round in arrays:
        for a in per_round:
            np.copyto(a, 1.0 / a.shape[1], where=np.isnan(a))
    check_suit_symmetric(tree, arrays)
    return arrays


def check_suit_symmetric(tree: RangeTree, strategy: Arrays) -> None:
    """Refuses per-hand arrays of a suit-isomorphic tree that differ over a hand orbit.

    Raises:
      ValueError: with suit isomorphism, a policy's arrays (n, A, n_B, H) play hands of one
        orbit of a board differently (`suit_symmetric`): the tree evaluates suit-symmetric
        profiles only.
    """
    if not tree.suits:
        return
    for lay, per_round in zip(tree.rounds, strategy):
        if not all(suit_symmetric(a, lay.deals.hand_orbit) for a in per_round):
            raise asymmetric(tree)


def asymmetric(tree: RangeTree) -> ValueError:
    """The refusal of a policy that is not suit-symmetric on a suit-isomorphic tree."""
    return ValueError(
        f"game {tree.name}: the policy plays suit-isomorphic hands of a board "
        "differently; lay the tree out without suit isomorphism to evaluate it"
    )


def suit_symmetric(strategy: np.ndarray, orbit: np.ndarray) -> bool:
    """Whether per-hand arrays (n, A, n_B, H) agree to 1e-9 over each hand orbit of a board.

    `orbit` (n_B, H) is `deals.RoundDeals.hand_orbit`.
    """
    boards = np.arange(orbit.shape[0])[:, None]
    return not strategy.size or np.abs(strategy - strategy[:, :, boards, orbit]).max() <= 1e-9


class EntryLocator:
    """Where a decision state's entry is in a `RangeTree`'s per-hand arrays.

    Called on a state of the tree's game, returns (round, group, node, board, hand) of the
    acting player's entry; with suit isomorphism the board and hand are the canonical ones
    (`RangeTree.canonical`).
    """

    def __init__(self, tree: RangeTree):
        self.tree = tree
        self._boards = [
            {tuple(row): b for b, row in enumerate(dl.types.tolist())} for dl in tree.actual_deals
        ]

    def __call__(self, state: pyspiel.State) -> tuple[int, int, int, int, int]:
        """(round, group, node, board, hand) of the acting player's entry at `state`."""
        ps, player = self.tree.structure, state.current_player()
        r, key = stage_games.betting_key(state)
        entry = self.tree.decisions.get(key)
        if entry is None:
            raise ValueError(
                f"game {self.tree.name}: the betting {key!r} of state "
                f"{state.history()} is not in the range layout's betting tree (an action "
                "outside its action abstraction)"
            )
        k, i = entry.group, entry.index
        chance = stage_games.chance_actions_of(state)
        size = ps.hole_cards
        if ps.joint_private_deal:
            private, public = list(divmod(chance[0], ps.num_types)), chance[1:]
        else:
            private, public = chance[: 2 * size], chance[2 * size :]
        own = np.asarray(private[player * size : (player + 1) * size])
        canonical, relabel = self.tree.canonical[r]
        b = self._boards[r][_board_key(ps.public_cards, public)]
        return r, k, i, int(canonical[b]), int(ps.hands.index(relabel[b][own][None])[0])


def _board_key(public_cards: tuple[int, ...], dealt: list[int]) -> tuple[int, ...]:
    """The board of the public cards `dealt` so far: each round's cards ascending (`deals`)."""
    key: list[int] = []
    for count in public_cards:
        key += sorted(dealt[len(key) : len(key) + count])
        if len(key) >= len(dealt):
            break
    return tuple(key)


def _check_shapes(tree: RangeTree, strategy: Arrays) -> None:
    want = tree.per_hand_shapes
    got = [[tuple(np.shape(a)) for a in per_round] for per_round in strategy]
    if got != want:
        raise ValueError(f"game {tree.name}: strategy arrays of shapes {got}, the tree's {want}")


def save_range_policy(policy: RangePolicy, path: str | os.PathLike) -> None:
    """Writes the policy's game, suit flag and arrays as .npz to `path` (by `files.output`).

    Uncompressed: a command stopped by Ctrl-C writes its policy within the second or two it
    has (Rhode Island Hold'em's, 133 MB, in about 0.1 s; compressed to 57 MB it took 2.3 s).
    """
    contents: dict[str, Any] = {"format": _FORMAT, "game": policy.tree.name}
    contents["suits"] = policy.tree.suits
    for r, per_round in enumerate(policy.strategy):
        for k, a in enumerate(per_round):
            contents[f"strategy_{r}_{k}"] = a
    with files.output(path, binary=True) as f:
        np.savez(f, **contents)


def load_range_policy(path: str | os.PathLike) -> RangePolicy:
    """Reads `save_range_policy`'s file back, laying the game's tree out again.

    Raises:
      ValueError: not such a file, its game string now loads as another game, its arrays
        do not fit the tree laid out here, or they are not a (suit-symmetric) behavioural
        strategy (`_check_distributions`).
    """
    data = files.read_npz(path, "range-policy file")
    if "format" not in data or str(data["format"]) != _FORMAT:
        raise ValueError(f"{path} is not a range-policy file")
    missing = [key for key in ("game", "suits") if key not in data]
    if missing:
        raise ValueError(f"{path}: a range-policy file without its {' and '.join(missing)}")
    saved = str(data["game"])
    game = loading.load(saved)
    if str(game) != saved:
        raise ValueError(f"{path} was saved for {saved}, which now loads as {game}")
    tree = RangeTree(structure.detect(game), suits=bool(data["suits"]))
    names = [
        [f"strategy_{r}_{k}" for k in range(len(lay.groups))] for r, lay in enumerate(tree.rounds)
    ]
    missing = [n for per_round in names for n in per_round if n not in data]
    if missing:
        raise ValueError(f"{path}: the tree of {saved} has arrays the file lacks: {missing}")
    policy = RangePolicy(tree, [[data[n] for n in per_round] for per_round in names])
    _check_distributions(tree, policy.strategy, path)  # shapes checked by RangePolicy
    return policy


def _check_distributions(tree: RangeTree, strategy: Arrays, path: str | os.PathLike) -> None:
    """Refuses arrays that are not a suit-symmetric behavioural strategy (load_range_policy).

    Every entry (also those of hands the board excludes, which the walker multiplies by zero)
    a distribution over the actions to 1e-6, as `policy_files.load_policy` asks; with suit
    isomorphism, equal to 1e-9 over each hand orbit of its board (`deals.RoundDeals`
    hand_orbit), the profiles whose values the range walker computes exactly.
    """
    for r, (lay, per_round) in enumerate(zip(tree.rounds, strategy)):
        for k, a in enumerate(per_round):
            where = f"{path}: round {r}, decision group {k}"
            if not np.issubdtype(a.dtype, np.floating) or not np.isfinite(a).all():
                raise ValueError(f"{where}: probabilities that are not finite numbers")
            if a.size and (a.min() < 0 or np.abs(a.sum(axis=1) - 1).max() > 1e-6):
                raise ValueError(f"{where}: an entry that is not a distribution over its actions")
            if tree.suits and not suit_symmetric(a, lay.deals.hand_orbit):
                raise ValueError(
                    f"{where}: hands of one orbit under the board's suit permutations have "
                    "different strategies (the range walker evaluates suit-symmetric ones)"
                )
