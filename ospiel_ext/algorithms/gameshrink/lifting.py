"""Strategies of the abstracted game Γ_f played in the original game (Theorem 2), and saved.

Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect Information",
ACM EC 2006, Theorem 2: an equilibrium of Γ_f lifts to one of the original game by playing,
at each information set, Γ_f's strategy at the class of the acting player's view.

* `LiftedPolicy`: that strategy as an OpenSpiel policy of the original game;
* `lift_to_finer`: the same strategy as one of Γ of a finer filter (with the identity filter,
  the original game without compiling it);
* `save_lifted_policy` / `load_lifted_policy`: the abstract strategy as a small .npz file,
  read back by recomputing and checking the abstraction.
"""

from __future__ import annotations

import functools
import hashlib
import os

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms.gameshrink import descriptions, shrink, stage_games
from ospiel_ext.algorithms.gameshrink.abstract_game import AbstractGame, info_key
from ospiel_ext.runtime import files
from ospiel_ext.sequence_form import SequenceForm


def lift_to_finer(
    game: AbstractGame, behavioural: policies.Behavioural, finer: AbstractGame
) -> policies.Behavioural:
    """Theorem 2's lifted strategy as a strategy of Γ of a finer filter of the same game.

    At the finer game's information set (round j, class c', betting) each player plays Γ_f's
    strategy at (round j, f^j of c''s views, betting). With `finer` the Γ of
    `shrink.identity_filter` (the original game, its sequence form counted from the signal
    tree) this is `LiftedPolicy` without compiling the original game.

    Raises:
      ValueError: the games differ, or `finer`'s filter does not refine `game`'s.
    """
    coarse, fine = game.abstraction, finer.abstraction
    if coarse.og.name != fine.og.name or coarse.signal_tree.num_views != fine.signal_tree.num_views:
        raise ValueError(f"{finer.name} is not a filter of the game of {game.name}")
    to_coarse = []
    for fc, cc, k in zip(fine.classes, coarse.classes, fine.num_classes):
        up = np.zeros(k, dtype=np.int64)
        up[fc] = cc
        if np.any(up[fc] != cc):
            raise ValueError(f"the filter of {finer.name} does not refine that of {game.name}")
        to_coarse.append(up)
    table = policies.behavioural_to_table(game.sequence_form, behavioural)
    tables: policies.Tables = ({}, {})
    for p in (0, 1):
        for key in finer.sequence_form.infoset_keys(p):
            r, c, betting = key.split(" ", 2)  # info_key's layout
            round_ = int(r[1:])
            coarse_key = info_key(round_, int(to_coarse[round_][int(c[1:])]), betting[1:])
            tables[p][key] = table[p][coarse_key]
    return policies.behavioural_from_table(finer.sequence_form, tables)


class LiftedPolicy(policy_lib.Policy):
    """An abstract strategy played in the original game (Theorem 2's construction σ')."""  # noqa: RUF002

    def __init__(self, game: AbstractGame, behavioural: policies.Behavioural):
        self.abstract = game
        self.behavioural = behavioural
        super().__init__(game.abstraction.og.game, [0, 1])

    @functools.cached_property
    def _table(self) -> policies.Tables:
        return policies.behavioural_to_table(self.abstract.sequence_form, self.behavioural)

    def action_probabilities(
        self, state: pyspiel.State, player_id: int | None = None
    ) -> dict[int, float]:
        """Γ_f's strategy at the class of the acting player's view (`Policy` API)."""
        a = self.abstract.abstraction
        player = state.current_player()
        round_, betting = stage_games.betting_key(state)
        deal = a.og.deal_from_chance(stage_games.chance_actions_of(state))
        cls = a.class_of(deal, player, round_)
        return dict(self._table[player][info_key(round_, cls, betting)])

    def to_tabular(self, max_nodes: int | None = None) -> policy_lib.TabularPolicy:
        """The lifted policy as a TabularPolicy of the original game (compiles the game)."""
        layout = policies.layout(sf_lib.for_game(self.game, max_nodes))
        return layout.to_tabular(layout.from_policy(self))


def _keys_digest(sf: SequenceForm) -> str:
    keys = "\n".join(k for p in (0, 1) for k in sf.infoset_keys(p))
    return hashlib.sha256(keys.encode()).hexdigest()


def save_lifted_policy(lifted: LiftedPolicy, path: str | os.PathLike) -> None:
    """Writes the abstract strategy behind `lifted` as .npz to `path` exactly.

    Never pickle; by `files.output`. The file holds the game, the threshold, the
    transformation, the classes per round, a digest of Γ_f's infoset keys in treeplex order
    and each player's behavioural array. Small for any game (Rhode Island: 2 x 3.9 M
    floats), unlike a policy file of the original game.

    Raises:
      ValueError: the abstraction was stopped before it was complete: `load_lifted_policy`
        recomputes the complete one, so the strategy could not be read back.
    """
    a = lifted.abstract.abstraction
    if a.stopped_early:
        raise ValueError(
            f"{lifted.abstract.name}: a strategy of a filter stopped before it was complete "
            "cannot be saved (loading recomputes the complete filter)"
        )
    with files.output(path, binary=True) as f:
        np.savez_compressed(
            f,
            game=str(a.og.game),
            threshold=a.threshold,
            transformation=a.transformation,
            classes_per_round=np.array(a.num_classes),
            keys_digest=_keys_digest(lifted.abstract.sequence_form),
            behavioural_0=lifted.behavioural[0],
            behavioural_1=lifted.behavioural[1],
        )


def load_lifted_policy(path: str | os.PathLike) -> LiftedPolicy:
    """Reads `save_lifted_policy`'s file back as a LiftedPolicy.

    It checks that the saved game string still loads as that game (a file written before a
    game gained a parameter, e.g. rhode_island_holdem's ace_low, names the game without it,
    and the default may now be another game), recomputes the abstraction of the saved game,
    threshold and transformation (deterministic; files without one: "coarsest") and checks
    that it has the same classes and infoset keys.

    Raises:
      ValueError: the file is not such a file, its game string loads as another game, or the
        abstraction computed here differs.
    """
    data = files.read_npz(path, "lifted-policy file")
    missing = {"game", "threshold", "keys_digest", "behavioural_0", "behavioural_1"} - set(data)
    if missing:
        raise ValueError(f"{path} is not a lifted-policy file (missing {sorted(missing)})")
    saved = str(data["game"])
    loaded = str(descriptions.describe(saved).game)
    if loaded != saved:
        raise ValueError(
            f"{path} was saved for {saved}, which now loads as {loaded} (a parameter was added "
            "or its default changed): the strategy may be one of another game"
        )
    transformation = str(data["transformation"]) if "transformation" in data else "coarsest"
    a = shrink.gameshrink(saved, float(data["threshold"]), transformation=transformation)
    game = AbstractGame.of(a)
    if a.num_classes != data["classes_per_round"].tolist() or _keys_digest(
        game.sequence_form
    ) != str(data["keys_digest"]):
        raise ValueError(
            f"{path}: the abstraction of {data['game']} computed here differs from the saved one"
        )
    return LiftedPolicy(game, (data["behavioural_0"], data["behavioural_1"]))
