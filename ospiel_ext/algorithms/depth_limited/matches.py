"""Head-to-head matches between bots, as independent tasks for a sweep executor.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games", Table 1
(the nested bot against the blueprint and the naive single-valued bot, 95 % confidence
intervals), and Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame
Solving in Imperfect-Information Games", Section 8.1 (round robin of nested bots with each
gadget x prior).

A bot is named by a spec string: 'blueprint' (samples the blueprint), 'naive' (nested solving
with K = 1 blueprint values) or 'nested' (K values from the configured strategy set), each of
the last two optionally followed by '/GADGET' and '/PRIOR' (e.g. 'nested/resolving/uniform'). A
`Match` (bots of a compiled game: `compiled.bot`) or a `LargeMatch` (bots of a game too large to
compile, `sampled.bot`, on an MCCFR blueprint) plays `games` games with the bots swapping seats
every game (bot A is player 0 in even games) through `pyspiel.evaluate_bots`, in duplicate:
games 2k and 2k + 1 share the chance seed seed + 2k, so each deal is played from both seats and
the luck of the cards cancels (the usual variance reduction of poker competitions; the paper
used AIVAT). The bots' own random streams (action sampling, rollouts) are seeded from their
names, their opponent's and the chunk's seed (`bot_seed`), never from which of the two is listed
first: a match with a and b swapped replays the same games, and the pairs of a round robin do
not share one draw of luck (seeded by slot, bot A had the same streams in every pair, which made
a whole round robin look as if being listed first cost a bot; docs/results/depth_limited.md
section 5). Each match is one task (`play`, `play_large`), so a long head to head is split into
chunks with consecutive seeds and run on local processes or a Dask cluster (`sweeps.map_tasks`).
The nested bots of a match share one `settings.NestedSettings`.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import functools
import math
import zlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.bots import policy as policy_bot

from ospiel_ext import policies
from ospiel_ext.algorithms.depth_limited.compiled.bot import NestedSolvingBot, ProfileBot
from ospiel_ext.algorithms.depth_limited.sampled.bot import LargeNestedSolvingBot
from ospiel_ext.algorithms.depth_limited.settings import NestedSettings
from ospiel_ext.algorithms.subgames import blueprints, priors
from ospiel_ext.algorithms.subgames.gadgets import GadgetKind
from ospiel_ext.runtime import interrupts, sweeps
from ospiel_ext.sequence_form import TreeSequenceForm

GADGETS = ("resolving", "max_margin", "reach_max_margin", "unsafe")


def parse_bot(spec: str) -> tuple[str, GadgetKind, priors.PriorKind]:
    """(kind, gadget, prior) of a bot spec (module docstring); ValueError if malformed."""
    kind, *rest = spec.split("/")
    if kind not in ("blueprint", "naive", "nested") or len(rest) > 2:
        raise ValueError(
            f"unknown bot {spec!r}; bots: blueprint, naive[/GADGET[/PRIOR]], "
            "nested[/GADGET[/PRIOR]]"
        )
    if kind == "blueprint" and rest:
        raise ValueError(f"bot {spec!r}: the blueprint bot takes no gadget or prior")
    gadget = rest[0] if rest else "resolving"
    prior = rest[1] if len(rest) > 1 else "none"
    if gadget not in GADGETS:
        raise ValueError(f"bot {spec!r}: unknown gadget {gadget!r}; gadgets: {GADGETS}")
    if prior not in priors.PRIOR_KINDS:
        raise ValueError(f"bot {spec!r}: unknown prior {prior!r}; priors: {priors.PRIOR_KINDS}")
    if gadget == "unsafe" and prior != "none":
        raise ValueError(f"bot {spec!r}: the unsafe subgame takes no prior")
    return kind, gadget, prior  # type: ignore[return-value]


def bot_seed(seed: int, player: int, own: str, other: str) -> int:
    """The seed of bot `own` as `player` against bot `other` in the match (chunk) of seed `seed`.

    `seed` is the chance seed. The bot's seed is a function of the two names, not of their
    order in the match, and different for every pair (the module docstring says why).
    """
    entropy = [seed & 0xFFFFFFFF, player, zlib.crc32(own.encode()), zlib.crc32(other.encode())]
    return int(np.random.SeedSequence(entropy).generate_state(1)[0])


def seats(
    make: Callable[[str, int, int], pyspiel.Bot], a: str, b: str, seed: int
) -> tuple[tuple[pyspiel.Bot, pyspiel.Bot], tuple[pyspiel.Bot, pyspiel.Bot]]:
    """(a's bots, b's bots) for seats 0 and 1, `make(spec, player, seed)` seeded by `bot_seed`."""

    def pair(own: str, other: str) -> tuple[pyspiel.Bot, pyspiel.Bot]:
        seat0, seat1 = (make(own, p, bot_seed(seed, p, own, other)) for p in (0, 1))
        return seat0, seat1

    return pair(a, b), pair(b, a)


def make_bot(
    spec: str,
    sf: TreeSequenceForm,
    blueprint: policies.Behavioural,
    *,
    player: int,
    settings: NestedSettings,
    seed: int,
) -> pyspiel.Bot:
    """The bot of `spec` for `player`."""
    kind, gadget, prior = parse_bot(spec)
    if kind == "blueprint":
        return ProfileBot(sf, blueprint, player, seed)
    return NestedSolvingBot(
        sf,
        blueprint,
        player,
        settings=settings.bot_settings(kind),
        gadget=gadget,
        prior=prior,
        seed=seed,
    )


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Match:
    """`games` games of bot `a` against bot `b` (module docstring)."""

    game: str
    blueprint_label: str
    blueprint: policies.Behavioural
    a: str
    b: str
    settings: NestedSettings
    games: int
    seed: int

    def __repr__(self) -> str:
        return (
            f"Match({self.game}, {self.blueprint_label}, {self.a} vs {self.b}, "
            f"{self.games} games from seed {self.seed})"
        )


def play(match: Match) -> list[float]:
    """Bot a's return in each game of `match` (module-level: any executor can run it)."""
    sf = blueprints.full_game(match.game)
    assert sf.tree.game is not None
    a, b = seats(
        lambda spec, p, seed: make_bot(
            spec, sf, match.blueprint, player=p, settings=match.settings, seed=seed
        ),
        match.a,
        match.b,
        match.seed,
    )
    return play_duplicate(sf.tree.game, a, b, games=match.games, seed=match.seed)


def play_duplicate(
    game: pyspiel.Game,
    a: Sequence[pyspiel.Bot],
    b: Sequence[pyspiel.Bot],
    *,
    games: int,
    seed: int,
) -> list[float]:
    """Bot a's return in each of `games` games of `pyspiel.evaluate_bots`, in duplicate.

    a[p], b[p] are the bots for seat p. In duplicate: a sits in seat g % 2 in game g, and
    games 2k and 2k + 1 share the chance seed seed + 2k, so every deal is played from both
    seats.

    Ctrl-C or SIGTERM (`ospiel_ext.runtime.interrupts`) ends the match: the deals finished before it
    are returned, both games of each; the game it fell in is not (its bots may have played
    interrupted solves, and a nested bot stops it at once by raising `interrupts.Interrupted`),
    nor the other game of its deal (one seat of a deal would bias the mean).
    """
    out: list[float] = []
    with interrupts.graceful():
        for g in range(games):
            if interrupts.requested():
                break
            a_seat = g % 2
            seats = [a[0], b[1]] if a_seat == 0 else [b[0], a[1]]
            try:
                returns = pyspiel.evaluate_bots(game.new_initial_state(), seats, seed + g - a_seat)
            except interrupts.Interrupted:
                break
            if interrupts.requested():
                break
            out.append(float(returns[a_seat]))
    if len(out) < games:
        del out[len(out) // 2 * 2 :]
    return out


MAX_TASKS_PER_PAIR = 1000
"""`chunks` makes at most this many tasks per pair (larger chunks for longer matches), so that
a long head to head is a short list of tasks, not one per deal."""


def chunk_size(games: int, chunk: int, max_tasks: int = MAX_TASKS_PER_PAIR) -> int:
    """`chunk`, or a larger even chunk if `chunk` would make more than `max_tasks` tasks.

    The larger chunk is the smallest even chunk that splits `games` into at most `max_tasks`
    tasks.
    """
    if math.ceil(games / chunk) <= max_tasks:
        return chunk
    needed = math.ceil(games / max_tasks)
    return needed + needed % 2


def chunks(
    game: str,
    blueprint_spec: str,
    a: str,
    *,
    b: str,
    settings: NestedSettings,
    games: int,
    seed: int,
    chunk: int,
) -> list[Match]:
    """The matches of one head to head of `games` games, `chunk` games per task.

    `chunk` is even, so that every task swaps seats evenly; `chunk_size` raises it for very
    long matches.
    """
    parse_bot(a), parse_bot(b)
    if games < 1 or chunk < 2 or chunk % 2:
        raise ValueError(f"games must be >= 1 and the chunk an even number >= 2, got {chunk}")
    chunk = chunk_size(games, chunk)
    label, behavioural = blueprints.blueprint_from_spec(game, blueprint_spec)
    sf = blueprints.full_game(game)
    for spec in (a, b):
        for p in (0, 1):
            make_bot(spec, sf, behavioural, player=p, settings=settings, seed=0)  # checks them
    return [
        Match(
            game=game,
            blueprint_label=label,
            blueprint=behavioural,
            a=a,
            b=b,
            settings=settings,
            games=min(chunk, games - start),
            seed=seed + start,
        )
        for start in range(0, games, chunk)
    ]


def play_pairs(
    fn: Callable[[Any], list[float]],
    pairs: Sequence[tuple[str, str]],
    tasks: Sequence[Any],
    executor: cf.Executor,
    *,
    stop: Callable[[], bool] | None = None,
) -> tuple[dict[tuple[str, str], list[float]], sweeps.SweepResult]:
    """Runs the match `tasks` through `sweeps.map_tasks` and gathers each pair's returns.

    Each task has bots `a`, `b` (chunks of a pair in game order); each pair's returns of bot
    a are gathered from the finished tasks (all of them unless interrupted, or `stop`, polled
    as by `sweeps.map_tasks`, ended the sweep early).
    """
    result = sweeps.map_tasks(fn, tasks, executor, stop=stop)
    returns: dict[tuple[str, str], list[float]] = {p: [] for p in pairs}
    for index, r in zip(result.task_indices, result.results):
        returns[tasks[index].a, tasks[index].b].extend(r)
    return returns, result


@dataclasses.dataclass(frozen=True, kw_only=True)
class LargeMatch:
    """`games` games of bot `a` against bot `b` in a game too large to compile, in duplicate.

    The bots are specs as in `Match` ('blueprint' samples the MCCFR blueprint of
    `settings.blueprint_iterations` and `blueprint_seed`); duplicate as in `play_duplicate`.
    """

    game: str
    a: str
    b: str
    settings: NestedSettings
    games: int
    seed: int


@functools.lru_cache(maxsize=2)
def large_blueprint(game_string: str, iterations: int, seed: int) -> blueprints.MCCFRPolicy:
    """The MCCFR blueprint, computed once per process (deterministic for the seed)."""
    return blueprints.mccfr_blueprint(pyspiel.load_game(game_string), iterations, seed)


def make_large_bot(
    spec: str, game_string: str, player: int, *, settings: NestedSettings, seed: int
) -> pyspiel.Bot:
    """The bot of `spec` ('blueprint' samples the MCCFR blueprint) for `player`."""
    kind, gadget, prior = parse_bot(spec)
    game = pyspiel.load_game(game_string)
    blueprint = large_blueprint(game_string, settings.blueprint_iterations, settings.blueprint_seed)
    if kind == "blueprint":
        return policy_bot.PolicyBot(player, np.random.RandomState(seed), blueprint)
    return LargeNestedSolvingBot(
        game,
        blueprint,
        player,
        settings=settings.bot_settings(kind),
        gadget=gadget,
        prior=prior,
        seed=seed,
    )


def play_large(match: LargeMatch) -> list[float]:
    """Bot a's return in each game of `match` (module-level: any executor can run it)."""
    a, b = seats(
        lambda spec, p, seed: make_large_bot(
            spec, match.game, p, settings=match.settings, seed=seed
        ),
        match.a,
        match.b,
        match.seed,
    )
    return play_duplicate(pyspiel.load_game(match.game), a, b, games=match.games, seed=match.seed)
