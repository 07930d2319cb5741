"""Head-to-head matches (Brown, Sandholm & Amos 2018, "Depth-Limited Solving for
Imperfect-Information Games", Table 1): bot specs, seat swapping, chunks, confidence intervals."""

import dataclasses
import math
import os
import signal
import time

import numpy as np
import pyspiel
import pytest

from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms.depth_limited import match_report, matches
from ospiel_ext.algorithms.subgames import blueprints

SETTINGS = dl.NestedSettings(depth=1, num_values=2, iterations=20)


def test_parse_bot():
    assert matches.parse_bot("blueprint") == ("blueprint", "resolving", "none")
    assert matches.parse_bot("nested/max_margin/uniform") == ("nested", "max_margin", "uniform")
    for bad, message in [
        ("foo", "unknown bot"),
        ("blueprint/resolving", "takes no gadget"),
        ("nested/nope", "unknown gadget"),
        ("naive/resolving/nope", "unknown prior"),
        ("nested/unsafe/blueprint", "takes no prior"),
        ("nested/a/b/c", "unknown bot"),
    ]:
        with pytest.raises(ValueError, match=message):
            matches.parse_bot(bad)


def test_chunks_cover_the_games_with_consecutive_seeds():
    tasks = matches.chunks(
        "kuhn_poker",
        "cfr:3",
        "nested",
        b="blueprint",
        settings=SETTINGS,
        games=9,
        seed=100,
        chunk=4,
    )
    assert [(t.games, t.seed) for t in tasks] == [(4, 100), (4, 104), (1, 108)]
    with pytest.raises(ValueError, match="even"):
        matches.chunks(
            "kuhn_poker",
            "cfr:3",
            "nested",
            b="blueprint",
            settings=SETTINGS,
            games=9,
            seed=0,
            chunk=3,
        )
    with pytest.raises(ValueError, match="bias set"):
        matches.chunks(
            "kuhn_poker",
            "cfr:3",
            "nested",
            b="blueprint",
            settings=dl.NestedSettings(num_values=5),
            games=4,
            seed=0,
            chunk=2,
        )


def test_play_is_deterministic():
    (task,) = matches.chunks(
        "kuhn_poker", "cfr:3", "naive", b="blueprint", settings=SETTINGS, games=6, seed=5, chunk=6
    )
    a = matches.play(task)
    assert len(a) == 6 and a == matches.play(task)
    assert all(r in (-2.0, -1.0, 1.0, 2.0) for r in a)  # Kuhn's returns


def _swapped(r):
    """Bot b's returns in a's games after swapping a and b: game 2k of the swapped match is
    game 2k + 1 of the original (same deal, same seating), and the games are zero-sum."""
    return [-x for k in range(0, len(r), 2) for x in (r[k + 1], r[k])]


def test_swapping_the_bots_replays_the_games():
    """Bots are seeded by name (`matches.bot_seed`), not by slot: which bot is listed first
    changes nothing (seeds by slot gave bot A the same luck in every pair of a round robin)."""
    (ab,) = matches.chunks(
        "leduc_poker",
        "cfr:3",
        "nested",
        b="blueprint",
        settings=SETTINGS,
        games=24,
        seed=3,
        chunk=24,
    )
    ba = dataclasses.replace(ab, a=ab.b, b=ab.a)
    assert matches.play(ba) == _swapped(matches.play(ab))
    settings = dl.NestedSettings(public_key="actions", blueprint_iterations=50, iterations=10)
    ab_large = matches.LargeMatch(
        game="liars_dice(numdice=1,dice_sides=3)",
        a="nested/unsafe",
        b="blueprint",
        settings=settings,
        games=20,
        seed=11,
    )
    ba_large = dataclasses.replace(ab_large, a=ab_large.b, b=ab_large.a)
    assert matches.play_large(ba_large) == _swapped(matches.play_large(ab_large))


def test_bot_seeds_differ_by_pair_and_player():
    seeds = {
        matches.bot_seed(s, p, own, other)
        for s in (0, 1)
        for p in (0, 1)
        for own, other in [("nested", "naive"), ("nested", "blueprint"), ("naive", "nested")]
    }
    assert len(seeds) == 12


def test_duplicate_deals(monkeypatch):
    """Games 2k and 2k + 1 get the same chance seed with the seats swapped, and pyspiel deals
    the same cards for the same seed (what makes the duplicate format cancel card luck)."""
    calls = []
    real = pyspiel.evaluate_bots

    def recording(state, bots, seed):
        calls.append((seed, [b.player for b in bots]))
        return real(state, bots, seed)

    monkeypatch.setattr(matches.pyspiel, "evaluate_bots", recording)
    (task,) = matches.chunks(
        "kuhn_poker", "cfr:3", "blueprint", b="naive", settings=SETTINGS, games=6, seed=10, chunk=6
    )
    matches.play(task)
    assert [seed for seed, _ in calls] == [10, 10, 12, 12, 14, 14]
    monkeypatch.undo()
    game = pyspiel.load_game("kuhn_poker")
    sf = blueprints.full_game(game)
    b = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    deals = set()
    for seats_seed in (1, 2):
        bots = [dl.ProfileBot(sf, b, p, seats_seed + p) for p in (0, 1)]

        class Record(pyspiel.Bot):
            def __init__(self, bot):
                pyspiel.Bot.__init__(self)
                self.bot = bot

            def restart_at(self, state):
                pass

            def step(self, state):
                deals.add(tuple(state.history()[:2]))
                return self.bot.step(state)

        pyspiel.evaluate_bots(game.new_initial_state(), [Record(bots[0]), bots[1]], 7)
    assert len(deals) == 1


def test_summary_confidence_interval():
    r = [1.0, -1.0, 2.0, 0.0, 1.0]
    s = match_report.Summary.of("a", "b", r)
    sd = math.sqrt(sum((x - 0.6) ** 2 for x in r) / 4)
    assert s.games == 5 and s.mean == pytest.approx(0.6)
    assert s.ci95 == pytest.approx(1.959963984540054 * sd / math.sqrt(5))
    assert np.isinf(match_report.Summary.of("a", "b", [1.0]).ci95)


def test_win_rates_and_worst_matchups_by_hand():
    returns = {("x", "y"): [1, -1, 1, 1], ("x", "z"): [0, 0, -1, 1], ("y", "z"): [-1, -1, -1, 1]}
    pairs = [match_report.Summary.of(a, b, r) for (a, b), r in returns.items()]
    rates = match_report.win_rates(pairs, returns)
    assert rates["x", "y"] == 0.75 and rates["y", "x"] == 0.25
    assert rates["x", "z"] == 0.5  # two draws count half each
    assert rates["y", "z"] == 0.25 and rates["z", "y"] == 0.75
    rows = match_report.worst_matchups(rates)
    # x: worst 0.5 (z), mean 0.625; z: worst 0.5 (x), mean 0.625; y: worst 0.25
    assert [r[0] for r in rows][-1] == "y"
    assert dict((r[0], (r[1], r[3])) for r in rows) == {
        "x": (0.5, 0.625), "z": (0.5, 0.625), "y": (0.25, 0.25),
    }  # fmt: skip


def test_report_fields():
    returns = {("x", "y"): [1, -1, 1, 1], ("x", "z"): [0, 0, -1, 1], ("y", "z"): []}
    pairs = list(returns)
    text, fields = match_report.report(pairs, returns, round_robin=True)
    # the unplayed pair (an interrupted run) is left out
    assert [(p["a"], p["b"], p["games"]) for p in fields["pairs"]] == [("x", "y", 4), ("x", "z", 4)]
    assert [p["win_rate"] for p in fields["pairs"]] == [0.75, 0.5]
    # deals (1, -1) and (1, 1): means 0 and 1, standard deviation 1/sqrt(2)
    assert fields["pairs"][0]["ci95_deals"] == pytest.approx(match_report.Z_95 * 0.5)
    assert {w["bot"] for w in fields["worst_matchups"]} == {"x", "y", "z"}
    assert "worst-matchup win rate" in text and text.endswith("8 games")
    text, fields = match_report.report(pairs, returns, round_robin=False)
    assert "worst_matchups" not in fields and "worst-matchup" not in text
    assert all("returns" not in p and "chunk_totals" not in p for p in fields["pairs"])
    _, fields = match_report.report(pairs, returns, round_robin=False, with_returns=True, chunk=3)
    assert [p["returns"] for p in fields["pairs"]] == [[1, -1, 1, 1], [0, 0, -1, 1]]
    assert [p["chunk_totals"] for p in fields["pairs"]] == [[1.0, 1.0], [-1.0, 1.0]]


def test_duplicate_interval_is_over_deals():
    # each deal won by its seat 0: the games vary, the deals' means are all 0
    assert match_report.duplicate_ci95([1, -1, -1, 1, 1, -1]) == 0.0
    deals = np.array([1.0, 0.0, 1.0])  # deal means of the games below
    expected = match_report.Z_95 * deals.std(ddof=1) / np.sqrt(3)
    assert np.isclose(match_report.duplicate_ci95([1, 1, 1, -1, 1, 1]), expected)


class _CtrlCInGame(pyspiel.Bot):
    """Plays uniformly at random and presses Ctrl-C in its `at`-th game."""

    def __init__(self, at: int):
        pyspiel.Bot.__init__(self)
        self.games, self.at = 0, at

    def restart(self):  # pyspiel.evaluate_bots restarts every bot before a game
        self.games += 1

    def restart_at(self, state):
        pass

    def step(self, state):
        if self.games == self.at:
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.01)
        return state.legal_actions()[0]


def test_a_stopped_match_keeps_whole_deals_only():
    """Games 2k and 2k + 1 are one deal from both seats: a stop in game 3 keeps games 0 and 1
    (game 3 was played under the stop, game 2 alone would bias the mean)."""
    game = pyspiel.load_game("kuhn_poker")
    ctrl_c = _CtrlCInGame(at=4)  # restarted before each game: the 4th restart is game 3
    others = [pyspiel.make_uniform_random_bot(p, p) for p in (0, 1)]
    returns = matches.play_duplicate(game, [ctrl_c, ctrl_c], others, games=6, seed=0)
    assert len(returns) == 2


def test_t_ci95_is_students_interval_over_a_few_values():
    """Two values 0 and 1: sd 1/sqrt(2), standard error 1/2, t(1)'s 97.5 % point 12.7062 (a
    table value); one value has no interval."""
    assert match_report.t_ci95([0.0, 1.0]) == pytest.approx(12.7062 / 2, rel=1e-5)
    assert match_report.t_ci95([3.0]) == 0.0
