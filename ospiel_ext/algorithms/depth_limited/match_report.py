"""The figures of a head to head: mean returns, confidence intervals, win rates, worst matchups.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Section 8.1, Figure 4 (each technique's win rate against its
worst matchup), over the returns that `matches` gathers (bot A's return in each game, in game
order, each deal played from both seats).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ospiel_ext.runtime import tables

Z_95 = 1.959963984540054  # two-sided 95 % normal quantile


def t_ci95(values: Sequence[float]) -> float:
    """The 95 % half-width of the mean of a few independent values, by Student's t.

    With n - 1 degrees of freedom: e.g. a figure over 2 or 3 seeds, where the normal quantile
    is far too narrow (t = 12.706 for 2 values, 4.303 for 3). 0 for one value.
    """
    import scipy.stats  # 0.4 s: only where a table is reported (`play --help` needs none)

    r = np.asarray(values, dtype=np.float64)
    if len(r) < 2:
        return 0.0
    return float(scipy.stats.t.ppf(0.975, len(r) - 1)) * float(r.std(ddof=1)) / math.sqrt(len(r))


@dataclasses.dataclass(frozen=True, kw_only=True)
class Summary:
    """Bot a's mean return against bot b, with a 95 % normal confidence interval.

    Normal, not Student's t: over the hundreds to tens of thousands of games of a head to head
    the two differ in the third digit (t with 499 degrees of freedom: 1.965); the results
    pages say where a match has fewer (Goofspiel 7: 30 games, 15 deals).
    """

    a: str
    b: str
    games: int
    mean: float
    ci95: float

    @classmethod
    def of(cls, a: str, b: str, returns: Sequence[float]) -> Summary:
        """The summary of bot a's `returns` against bot b."""
        r = np.asarray(returns, dtype=np.float64)
        sd = float(r.std(ddof=1)) if len(r) > 1 else math.inf
        return cls(a=a, b=b, games=len(r), mean=float(r.mean()), ci95=Z_95 * sd / math.sqrt(len(r)))


def duplicate_ci95(returns: Sequence[float]) -> float:
    """The 95 % half-width of the mean return over deals rather than games.

    `play_duplicate` plays each deal twice (games 2k, 2k + 1, seats swapped), so the deal's
    mean is the independent unit; narrower than `Summary.ci95` when the deal decides most
    games.
    """
    r = np.asarray(returns, dtype=np.float64)
    deals = r[: len(r) // 2 * 2].reshape(-1, 2).mean(axis=1)
    if len(deals) < 2:
        return math.inf
    return Z_95 * float(deals.std(ddof=1)) / math.sqrt(len(deals))


def report(
    pairs: Sequence[tuple[str, str]],
    returns: dict[tuple[str, str], Sequence[float]],
    round_robin: bool,
    *,
    with_returns: bool = False,
    chunk: int | None = None,
) -> tuple[str, dict[str, Any]]:
    """The printed tables and the JSON fields of a head to head.

    Per pair, bot A's mean return with 95 % intervals over games and over deals
    (`duplicate_ci95`) and its win rate; with `with_returns` its return in every game in game
    order, and with `chunk` the total of its returns over each `chunk` consecutive games
    (`chunk_totals`; a match's tasks are such chunks), so that a rerun of a pair's first games
    can be checked against the run. For a round robin also Figure 4's worst-matchup table
    (`worst_matchups`).
    """
    summaries = [Summary.of(a, b, returns[a, b]) for a, b in pairs if returns[a, b]]
    rates = win_rates(summaries, returns)
    deals = {(s.a, s.b): duplicate_ci95(returns[s.a, s.b]) for s in summaries}
    text = tables.format_table(
        ["bot A", "bot B", "games", "A's mean return", "95 % CI", "95 % CI (deals)",
         "A's win rate"],
        [[s.a, s.b, s.games, s.mean, f"± {s.ci95:.4g}", f"± {deals[s.a, s.b]:.4g}",
          rates[s.a, s.b]] for s in summaries],
    )  # fmt: skip
    fields: dict[str, Any] = {
        "pairs": [
            {
                **dataclasses.asdict(s),
                "ci95_deals": deals[s.a, s.b],
                "win_rate": rates[s.a, s.b],
                **({"returns": list(returns[s.a, s.b])} if with_returns else {}),
                **({} if chunk is None else {"chunk_totals": _totals(returns[s.a, s.b], chunk)}),
            }
            for s in summaries
        ]
    }
    if round_robin and summaries:
        worst = worst_matchups(rates)
        text += "\n" + tables.format_table(
            ["bot", "worst-matchup win rate", "against", "mean win rate"],
            [list(row) for row in worst],
        )
        fields["worst_matchups"] = [
            dict(zip(("bot", "win_rate", "opponent", "mean_win_rate"), row)) for row in worst
        ]
    text += f"\n{sum(s.games for s in summaries)} games"
    return text, fields


def _totals(returns: Sequence[float], chunk: int) -> list[float]:
    """The sums of `returns` over consecutive runs of `chunk` (the last one may be shorter)."""
    return [float(sum(returns[i : i + chunk])) for i in range(0, len(returns), chunk)]


def win_rates(
    pairs: Sequence[Summary], returns: dict[tuple[str, str], Sequence[float]]
) -> dict[tuple[str, str], float]:
    """{(a, b): a's win rate against b (draws count half)} for both orders of every pair."""
    out = {}
    for s in pairs:
        r = np.asarray(returns[s.a, s.b], dtype=np.float64)
        rate = float(np.mean((r > 0) + 0.5 * (r == 0)))
        out[s.a, s.b], out[s.b, s.a] = rate, 1.0 - rate
    return out


def worst_matchups(rates: dict[tuple[str, str], float]) -> list[tuple[str, float, str, float]]:
    """Per bot (best first), its worst-matchup win rate, that opponent and its mean win rate.

    Kubíček, Lisý & Sandholm (2025), Figure 4: per bot (best first), its win rate against its
    worst matchup, that opponent, and its mean win rate over all opponents.
    """
    bots = sorted({a for a, _ in rates})
    rows = []
    for a in bots:
        theirs = {b: r for (x, b), r in rates.items() if x == a}
        worst = min(theirs, key=theirs.__getitem__)
        rows.append((a, theirs[worst], worst, float(np.mean(list(theirs.values())))))
    return sorted(rows, key=lambda row: -row[1])
