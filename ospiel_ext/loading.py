"""Loading a pyspiel game for the array core, and everything checked before it is walked.

A game reaches a `tree.GameTree` through `walk.game_tree`; before the walk, this module

* loads it (`load`: a `pyspiel.Game` or a `load_game` string; simultaneous-move games are
  made turn-based) and checks what the solvers need (`check_two_player_zero_sum`; zero-sum
  returns at every terminal, `check_zero_sum_returns`); perfect recall is checked on the
  compiled tree, and refused with `imperfect_recall_message`;
* names information sets (`infoset_key`, `key_function`): the `information_state_string`, or
  the history in a perfect-information game without one (`keyed_by_history`);
* bounds the size of the walk: the node cap (`node_cap`): None means `DEFAULT_MAX_NODES`;
  `NO_NODE_CAP` (`math.inf`) removes the cap and must be asked for explicitly. Before
  walking, Knuth's estimator (`estimate_num_nodes`) refuses games far over the cap at once
  (`refuse_by_estimate`, `GameTooLargeError`).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import os
import random
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel

# A game whose declared maximum length exceeds this is treated as infinite.
INFINITE_GAME_LENGTH = 2**30

# Default node cap of `walk.game_tree`. Peak memory of the walk + SequenceForm (with its
# payoff matrices), measured with ru_maxrss: 212-224 bytes per node on liars_dice (295k
# nodes) and turn-based goofspiel(num_cards=6) (970k), 404 on tic_tac_toe (550k, one
# information set per decision node: keys, interning dict and legal-action tuples dominate).
# 20 million nodes are therefore 4-8 GB, a third of a 24 GB machine at worst.
DEFAULT_MAX_NODES = 20_000_000
# `max_nodes=NO_NODE_CAP` compiles a finite game of any size.
NO_NODE_CAP = math.inf
PROGRESS_STEP = 50_000  # nodes between updates of a walk's progress bar
# Knuth's estimator before a capped walk: playouts, steps per playout, and the refinement of
# an estimate within ESTIMATE_REFINE_FACTOR of the cap (more playouts, up to a time budget).
ESTIMATE_PLAYOUTS = 64
ESTIMATE_MAX_STEPS = 10_000
ESTIMATE_REFINE_FACTOR = 10
ESTIMATE_REFINED_PLAYOUTS = 4096
ESTIMATE_REFINE_SECONDS = 2.0


class GameTooLargeError(ValueError):
    """The game has more nodes than the `max_nodes` cap allows."""


CAP_HINT = (
    "raise it with max_nodes=... in Python or --max_nodes=... in scripts; "
    "max_nodes=ospiel_ext.loading.NO_NODE_CAP removes it"
)


def load(game: pyspiel.Game | str) -> pyspiel.Game:
    """Returns a sequential pyspiel game from a game or a `load_game` string.

    Simultaneous-move games are converted with `pyspiel.convert_to_turn_based`.

    Raises:
      ValueError: the string names no registered game or has bad parameters.
    """
    if isinstance(game, str):
        name = game.split("(", 1)[0].strip()
        if name not in pyspiel.registered_names():
            raise ValueError(
                f"unknown game {name!r} in {game!r} (pyspiel.registered_names() lists "
                "the games; ours register on `import ospiel_ext.games`)"
            )
        try:
            if name == "universal_poker":  # parses the string: pyspiel may refuse it here
                _check_acpc_definition(game)
            game = pyspiel.load_game(game)
        except pyspiel.SpielError as e:
            first_line = str(e).strip().splitlines()[0] if str(e).strip() else "bad parameters"
            raise ValueError(f"cannot load game {game!r}: {first_line}") from None
    if not isinstance(game, pyspiel.Game):
        raise TypeError(f"expected a pyspiel.Game or a load_game string, got {type(game)}")
    if game.get_type().dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
        game = pyspiel.convert_to_turn_based(game)
    return game


# The limits of the ACPC game definition that universal_poker writes (the ACPC server's
# game.h); `readGame` rejects a definition beyond them, and pyspiel then crashes the process.
ACPC_LIMITS = {"numRounds": 4, "numPlayers": 10, "numSuits": 4, "numRanks": 13, "numHoleCards": 3}
ACPC_MAX_BOARD_CARDS = 7


def _check_acpc_definition(game_string: str) -> None:
    """Raises ValueError where universal_poker's game definition breaks the ACPC rules.

    The ACPC parser (`readGame`) rejects such a definition with a line on stderr, and pyspiel
    then dereferences the missing game: a segmentation fault instead of an exception. The
    rules, checked on the parameters with universal_poker's defaults:

    * numRounds, numPlayers, numSuits, numRanks and numHoleCards from 1 (players 2) to
      `ACPC_LIMITS`;
    * in no-limit betting, a stack and a blind per player, no blind above its stack, and not
      every blind its player's whole stack (no one could act: the engine's search for the next
      player never ends, and no signal can stop it);
    * in limit betting, a raise size per round;
    * a first player per round among the players;
    * a board-card count per round, at most `ACPC_MAX_BOARD_CARDS` in all, and a deck
      (ranks x suits) holding every player's hole cards and the board.

    A parameter of the wrong type is left to pyspiel, which raises.
    """
    params = {**_universal_poker_defaults(), **pyspiel.game_parameters_from_string(game_string)}
    problem = _acpc_counts(params) or _acpc_betting(params) or _acpc_cards(params)
    if problem:
        raise ValueError(f"cannot load game {game_string!r}: {problem}")


@functools.cache
def _universal_poker_defaults() -> dict[str, Any]:
    """universal_poker's parameters as registered, with their defaults."""
    (spec,) = (g for g in pyspiel.registered_games() if g.short_name == "universal_poker")
    return dict(spec.parameter_specification)


def _number(params: dict[str, Any], key: str) -> int | None:
    """An integer parameter, None if of another type (pyspiel refuses it)."""
    return params[key] if type(params[key]) is int else None


def _numbers(params: dict[str, Any], key: str) -> list[int] | None:
    """A parameter of space-separated integers, None if not one (pyspiel refuses it)."""
    value = params[key]
    if not isinstance(value, str) or not all(v.isdigit() for v in value.split()):
        return None
    return [int(v) for v in value.split()]


def _acpc_counts(params: dict[str, Any]) -> str | None:
    """The first count outside `ACPC_LIMITS`, as a message."""
    for key, most in ACPC_LIMITS.items():
        least, count = (2 if key == "numPlayers" else 1), _number(params, key)
        if count is not None and not least <= count <= most:
            return f"{key}={count}: universal_poker allows {least} to {most}"
    return None


def _acpc_betting(params: dict[str, Any]) -> str | None:
    """Stacks, blinds, raise sizes and first players that break the ACPC rules, as a message."""
    rounds, players = _number(params, "numRounds"), _number(params, "numPlayers")
    stack, blind = _numbers(params, "stack"), _numbers(params, "blind")
    raises, first = _numbers(params, "raiseSize"), _numbers(params, "firstPlayer")
    if rounds is None or players is None:
        return None
    if params["betting"] == "nolimit" and stack is not None and blind is not None:
        if min(len(stack), len(blind)) < players:
            return f"a stack and a blind for each of the {players} players"
        if any(b > s for b, s in zip(blind, stack)):
            return f"a blind above its stack (blind={params['blind']!r}, stack={params['stack']!r})"
        if all(b == s for b, s in zip(blind[:players], stack[:players])):
            # the engine's search for the next player to act would never end
            return (
                f"every blind is its player's whole stack (stack={params['stack']!r}): no one acts"
            )
    if params["betting"] == "limit" and raises is not None and len(raises) < rounds:
        return f"raiseSize needs one size for each of the {rounds} rounds"
    if first is not None and not all(1 <= f <= players for f in first[:rounds]):
        return f"firstPlayer={params['firstPlayer']!r}: players are 1 to {players}"
    return None


def _acpc_cards(params: dict[str, Any]) -> str | None:
    """Board cards beyond the rounds or the limit, or a deck too small to deal, as a message."""
    rounds, board = _number(params, "numRounds"), _numbers(params, "numBoardCards")
    if rounds is None or board is None:
        return None
    if len(board) < rounds or sum(board[:rounds]) > ACPC_MAX_BOARD_CARDS:
        return (f"numBoardCards={params['numBoardCards']!r}: one count for each of the "
                f"{rounds} rounds, at most {ACPC_MAX_BOARD_CARDS} cards in all")  # fmt: skip
    suits, ranks, hole, players = (
        _number(params, k) for k in ("numSuits", "numRanks", "numHoleCards", "numPlayers")
    )
    if suits is None or ranks is None or hole is None or players is None:
        return None
    dealt = hole * players + sum(board[:rounds])
    if dealt > suits * ranks:
        deck = f"{suits * ranks} (numRanks={ranks} x numSuits={suits})"
        return f"it deals {dealt} cards from a deck of {deck}"
    return None


def check_two_player_zero_sum(game: pyspiel.Game) -> None:
    """Raises ValueError unless `game` is a sequential two-player zero/constant-sum game."""
    gtype = game.get_type()
    if game.num_players() != 2:
        raise ValueError(f"game {game} has {game.num_players()} players; two are required")
    if gtype.utility not in (
        pyspiel.GameType.Utility.ZERO_SUM,
        pyspiel.GameType.Utility.CONSTANT_SUM,
    ):
        raise ValueError(f"game {game} is not zero-sum or constant-sum (utility: {gtype.utility})")
    if gtype.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
        raise ValueError(f"game {game} is not sequential (dynamics: {gtype.dynamics})")
    if not gtype.provides_information_state_string and not keyed_by_history(game):
        converted = gtype.short_name == "turn_based_simultaneous_game"
        raise ValueError(
            f"game {game} has imperfect information but no information_state_string, so its "
            "information sets cannot be recovered"
            + (" (a simultaneous-move game is one once turn-based)" if converted else "")
        )


HISTORY_KEY = "history: "
"""Prefix of the information-set keys of games keyed by their histories (`infoset_key`)."""


def keyed_by_history(game: pyspiel.Game) -> bool:
    """True for a perfect-information game without `information_state_string`.

    E.g. backgammon, pig, breakthrough, ...: each decision node is its own information set,
    keyed by its history (`infoset_key`).
    """
    gtype = game.get_type()
    return (
        not gtype.provides_information_state_string
        and gtype.information == pyspiel.GameType.Information.PERFECT_INFORMATION
    )


def infoset_key(state: pyspiel.State, player: int) -> str:
    """The key of `player`'s information set at `state`.

    Its `information_state_string`, or in a game `keyed_by_history`, "history: " and the
    history (`State.history_str`). Policies and policy files of the pack use these keys.
    (`key_function(game)` is the same, faster in loops over one game's states.)
    """
    return key_function(state.get_game())(state, player)


def _history_key(state: pyspiel.State, player: int) -> str:
    del player  # every decision node is its own information set, for both players' views
    history: str = state.history_str()
    return HISTORY_KEY + history


def key_function(game: pyspiel.Game) -> Callable[[pyspiel.State, int], str]:
    """`infoset_key` for the states of `game`, with the game's kind of key chosen once.

    For a game with information-state strings, pyspiel's own unbound method: a Python
    wrapper around it costs 0.4 of its 1 microsecond (Goofspiel 7), and nested solving asks
    millions of keys per game.
    """
    if game.get_type().provides_information_state_string:
        key: Callable[[pyspiel.State, int], str] = pyspiel.State.information_state_string
        return key
    return _history_key


def check_zero_sum_returns(
    game: pyspiel.Game, state: pyspiel.State, returns: Sequence[float], utility_sum: float
) -> None:
    """Raises ValueError unless a terminal's returns sum to the game's `utility_sum`."""
    if abs(returns[0] + returns[1] - utility_sum) > 1e-9:
        raise ValueError(
            f"game {game} is not zero-sum: returns {list(returns)} at history {state.history()}"
        )


@dataclasses.dataclass(frozen=True, kw_only=True)
class NodeCountEstimate:
    """Knuth's estimate of the number of nodes (histories) of a game tree.

    Knuth 1975, "Estimating the efficiency of backtrack programs", Section 2: along a random
    root-to-leaf path choosing children uniformly, 1 + b_0 + b_0 b_1 + b_0 b_1 b_2 + ...
    (b_d the number of children at depth d) is an unbiased estimate of the number of nodes.

    Attributes:
      nodes: the mean over playouts (inf when it exceeds the float range).
      log10_nodes: log10 of the mean (finite even when `nodes` overflows).
      std_error: standard error of the mean (inf when the samples overflow floats).
      playouts: number of playouts.
      complete: every playout reached a terminal history; otherwise playouts were cut after
        `max_steps` steps and the estimate only counts the levels above the cut.
    """

    nodes: float
    log10_nodes: float
    std_error: float
    playouts: int
    complete: bool

    def describe(self) -> str:
        """E.g. 'about 3.1e+40 nodes, estimated from 64 random playouts'."""
        if self.log10_nodes < 15:
            count = f"{self.nodes:.3g}"
        else:
            exponent = math.floor(self.log10_nodes)
            count = f"{10 ** (self.log10_nodes - exponent):.1f}e+{exponent}"
        cut = "" if self.complete else " cut after a step limit (a lower estimate)"
        return f"about {count} nodes, estimated from {self.playouts} random playouts{cut}"


def estimate_num_nodes(
    game: pyspiel.Game | str,
    playouts: int = ESTIMATE_PLAYOUTS,
    seed: int = 0,
    *,
    max_steps: int = ESTIMATE_MAX_STEPS,
    time_budget: float | None = None,
) -> NodeCountEstimate:
    """Knuth's (1975) estimator of the number of histories of `game` from random playouts.

    Each playout picks children uniformly at random (chance outcomes too) and stops at a
    terminal history or after `max_steps` steps; products are exact Python integers, so
    games of 1e1000 nodes give a finite `log10_nodes`. With `time_budget`, playouts stop
    after that many seconds (at least two are made).

    Raises:
      ValueError: a non-terminal state without legal actions or chance outcomes.
    """
    if playouts < 2 or max_steps < 1:
        raise ValueError(f"need playouts >= 2 and max_steps >= 1, got {playouts}, {max_steps}")
    game = load(game)
    rng = random.Random(seed)
    samples: list[int] = []
    complete = True
    deadline = None if time_budget is None else time.perf_counter() + time_budget
    for _ in range(playouts):
        if deadline is not None and len(samples) >= 2 and time.perf_counter() > deadline:
            break
        state = game.new_initial_state()
        total = weight = 1
        for _ in range(max_steps):
            if state.is_terminal():
                break
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
            else:
                actions = state.legal_actions()
            if not actions:
                raise ValueError(
                    f"game {game} has a non-terminal state without "
                    f"{'outcomes' if state.is_chance_node() else 'legal actions'} "
                    f"(history {state.history()})"
                )
            weight *= len(actions)
            total += weight
            state.apply_action(actions[rng.randrange(len(actions))])
        else:
            complete = complete and state.is_terminal()
        samples.append(total)
    n = len(samples)
    total_sum = sum(samples)
    log10_nodes = math.log10(total_sum) - math.log10(n)
    nodes = total_sum / n if log10_nodes < 300 else math.inf
    if max(samples) < 10**150:  # squares stay finite
        std_error = float(np.std(np.array(samples, dtype=np.float64), ddof=1) / n**0.5)
    else:
        std_error = math.inf
    return NodeCountEstimate(
        nodes=nodes, log10_nodes=log10_nodes, std_error=std_error, playouts=n, complete=complete
    )


def refuse_by_estimate(game: pyspiel.Game, cap: int | float) -> NodeCountEstimate | None:
    """Refuses, in about a second, a game whose walk would pass the node cap `cap`.

    Knuth's estimate from `ESTIMATE_PLAYOUTS` seeded playouts; one within a factor
    `ESTIMATE_REFINE_FACTOR` of the cap is refined with up to `ESTIMATE_REFINED_PLAYOUTS`
    playouts (at most `ESTIMATE_REFINE_SECONDS`). The game is refused when the estimate
    exceeds the cap: the estimate is unbiased but, in the heavy-tailed trees of games, far
    more often below the true count than above it (liars_dice: 2.2e5 for 2.9e5 nodes), so an
    estimate above the cap rarely wrongs a game that fits.

    Returns:
      The estimate (None for an infinite cap), for a progress display's total.

    Raises:
      GameTooLargeError: the estimate exceeds the cap.
    """
    if cap == NO_NODE_CAP:
        return None
    estimate = estimate_num_nodes(game)
    distance = abs(estimate.log10_nodes - math.log10(cap))
    if distance < math.log10(ESTIMATE_REFINE_FACTOR):  # near the cap: refine
        estimate = estimate_num_nodes(
            game, ESTIMATE_REFINED_PLAYOUTS, time_budget=ESTIMATE_REFINE_SECONDS
        )
    if estimate.log10_nodes > math.log10(cap):
        raise GameTooLargeError(
            f"game {game} has {estimate.describe()}: more than the cap max_nodes={cap} ({CAP_HINT})"
        )
    return estimate


def node_cap(
    game: pyspiel.Game,
    max_nodes: int | float | None,
    default: int = DEFAULT_MAX_NODES,
    walk_whole_game: bool = True,
) -> int | float:
    """The cap a walk runs under: `max_nodes`, `default` for None, none for `NO_NODE_CAP`.

    A walk of the whole game (`walk_whole_game`; not a certificate search's trunk) refuses an
    infinite game unless a finite cap is given.
    """
    if max_nodes is None:
        cap: int | float = default
    elif max_nodes == NO_NODE_CAP:
        cap = NO_NODE_CAP
    elif isinstance(max_nodes, (int, np.integer)) and not isinstance(max_nodes, bool):
        if max_nodes < 1:
            raise ValueError(f"max_nodes must be positive, got {max_nodes} (game {game})")
        return int(max_nodes)
    else:
        raise ValueError(
            f"max_nodes must be None (the default cap {default}), a positive int "
            f"or NO_NODE_CAP, got {max_nodes!r} (game {game})"
        )
    if walk_whole_game and game.max_game_length() >= INFINITE_GAME_LENGTH:
        raise ValueError(
            f"game {game} is infinite (max_game_length {game.max_game_length()}); "
            "it cannot be compiled in full (certificate search can explore it)"
        )
    return cap


# Registered games whose information states forget a player's own moves (found by a walk of
# every registered two-player zero-sum game), and what has perfect recall instead
# (`imperfect_recall_message`).
_RECALL_FIXES = {
    "goofspiel": "goofspiel(imp_info=True) keeps each player's own bids",
    "liars_dice_ir": "liars_dice is the perfect-recall game",
    "phantom_ttt_ir": "phantom_ttt is the perfect-recall game",
}


def short_name(game: pyspiel.Game | str) -> str:
    """The registered name of `game`, or of the game inside a turn-based conversion."""
    if isinstance(game, str):
        return game.split("(", 1)[0].strip()
    name: str = game.get_type().short_name
    inner = game.get_parameters().get("game") if name == "turn_based_simultaneous_game" else None
    short: str = inner["name"] if isinstance(inner, dict) and "name" in inner else name
    return short


def readable_key(key: str, limit: int = 200) -> str:
    """An information-state string on one line.

    Its lines joined by ' / ', cut to `limit` characters.
    """
    text = " / ".join(line.strip() for line in key.splitlines() if line.strip())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def imperfect_recall_message(
    game: pyspiel.Game | str, player: int, key: str, histories: tuple[list[int], list[int]]
) -> str:
    """The one-line refusal of a game without perfect recall.

    It names the information set, two histories in it after different own moves, and the fix
    where one is known.
    """
    fix = _RECALL_FIXES.get(short_name(game))
    return (
        f"game {game} does not have perfect recall: player {player} reaches information set "
        f"{readable_key(key)} after different own sequences of moves (histories "
        f"{histories[0]} and {histories[1]}); the algorithms here need perfect recall"
        + (f" ({fix})" if fix else "")
    )


def same_game(a: pyspiel.Game, b: pyspiel.Game) -> bool:
    """True when `a` and `b` are the same game.

    Same registered name and the same parameters with defaults filled in
    (`kuhn_poker(players=2)` is `kuhn_poker`).
    """
    return bool(
        a.get_type().short_name == b.get_type().short_name
        and a.get_parameters() == b.get_parameters()
    )


def check_game(path: str | os.PathLike, data: Any, game: pyspiel.Game, what: str) -> None:
    """Checks that the file `path`'s document `data` names `game`; ValueError in one line otherwise.

    `what` names the kind of file in the message ("policy", "certificate").
    """
    if not isinstance(data, dict) or not isinstance(data.get("game"), str):
        raise ValueError(f"{path} is not a {what} (needs a JSON object with a 'game' string)")
    try:
        saved = load(data["game"])
    except (ValueError, TypeError) as e:
        raise ValueError(f"{path} names a game that cannot be loaded: {e}") from None
    if not same_game(saved, game):
        raise ValueError(f"{path} holds a {what} for {data['game']}, not for {game}")
