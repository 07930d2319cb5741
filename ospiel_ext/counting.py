"""Counting the size of any finite sequential game, without the assumptions of `GameTree`.

`walk.game_tree` compiles two-player zero-sum games with perfect recall for the solvers;
`count_game` only counts, so it takes any number of players, general-sum payoffs and
imperfect recall (which it reports): histories, terminals, chance and decision nodes,
information sets and sequences per player, the largest depth, and whether each player has
perfect recall. It walks the game once, depth first, behind the same node cap and size
estimate as `walk.game_tree` (`loading.DEFAULT_MAX_NODES`, `loading.estimate_num_nodes`).
"""

from __future__ import annotations

from collections.abc import Callable

import pyspiel

from ospiel_ext import loading
from ospiel_ext.runtime import progress


def _key_function(game: pyspiel.Game) -> Callable[[pyspiel.State, int], str] | None:
    """The information-set key of a decision state, or None where the game gives none."""
    gtype = game.get_type()
    if gtype.provides_information_state_string or loading.keyed_by_history(game):
        return loading.key_function(game)
    return None


def count_game(game: pyspiel.Game | str, max_nodes: int | float | None = None) -> dict:
    """The size of a finite sequential game (simultaneous games converted to turn-based).

    Returns:
      {"histories", "terminals", "chance_nodes", "decision_nodes", "max_depth", "players",
      "infosets": [per player], "sequences": [per player, the empty sequence included],
      "perfect_recall": [per player]}; the last three are None where the game has no
      information-state string (and is not perfect information).

    Raises:
      ValueError: the game is infinite (with no finite cap) or larger than the cap
        (`loading.GameTooLargeError`).
    """
    game = loading.load(game)
    cap = loading.node_cap(game, max_nodes)
    estimate = loading.refuse_by_estimate(game, cap)
    players = game.num_players()
    key_of = _key_function(game)
    # per player: information-set key -> (hash of the own sequence into it, number of actions)
    infosets: list[dict[str, tuple[int, int]]] = [{} for _ in range(players)]
    recall = [True] * players
    counts = {"histories": 0, "terminals": 0, "chance_nodes": 0, "decision_nodes": 0}
    max_depth = 0
    # (state, depth, per-player hash of the own sequence of (key, action) pairs so far)
    stack = [(game.new_initial_state(), 0, (0,) * players)]
    total = None if estimate is None else estimate.nodes
    with progress.Counter(f"counting {game}", total, unit="node") as counter:
        while stack:
            state, depth, own = stack.pop()
            counts["histories"] += 1
            if counts["histories"] > cap:
                raise loading.GameTooLargeError(
                    f"game {game} has more nodes than the cap max_nodes={cap}: the walk "
                    f"reached {counts['histories']} nodes ({loading.CAP_HINT})"
                )
            if counts["histories"] % loading.PROGRESS_STEP == 0:
                counter.update_to(counts["histories"])
            max_depth = max(max_depth, depth)
            if state.is_terminal():
                counts["terminals"] += 1
                continue
            if state.is_chance_node():
                counts["chance_nodes"] += 1
                for action, _ in state.chance_outcomes():
                    stack.append((state.child(action), depth + 1, own))
                continue
            counts["decision_nodes"] += 1
            player = state.current_player()
            legal = state.legal_actions()
            key = None if key_of is None else key_of(state, player)
            if key is not None:
                seen, _ = infosets[player].setdefault(key, (own[player], len(legal)))
                recall[player] = recall[player] and seen == own[player]
            for action in legal:
                mine = own
                if key is not None:
                    mine = (*own[:player], hash((own[player], key, action)), *own[player + 1 :])
                stack.append((state.child(action), depth + 1, mine))
    known = key_of is not None
    return {
        **counts,
        "max_depth": max_depth,
        "players": players,
        "infosets": [len(i) for i in infosets] if known else None,
        "sequences": [1 + sum(n for _, n in i.values()) for i in infosets] if known else None,
        "perfect_recall": recall if known else None,
    }
