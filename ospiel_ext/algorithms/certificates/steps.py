"""How large a step each iteration of Algorithm 6.7 takes, and which LP method solves the trunk.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games", AAAI 2021, Algorithm 6.7 expands the pseudoterminal nodes in the optimistic profile's
support (Section 6.3 allows expanding others too, e.g. the shallowest); every iteration then
rebuilds and re-solves the whole trunk, so where an iteration adds few nodes to a large trunk,
the search spends its time re-solving nearly the same LPs. Two choices decide that cost, and
`Steps` makes them from what the search measures, iteration by iteration ("auto", the default
of `search` and `ospiel-ext certify`), or keeps them fixed:

* `expand_below`: each expanded node's new pseudoterminal children are expanded that many
  levels deeper in the same iteration. An iteration of c seconds that grows the trunk by a
  fraction g doubles it in c ln 2 / ln(1 + g) seconds of iterations; where that is long (a
  large trunk re-solved for a few new nodes: 6-rank perfect-information Goofspiel, 0.1 s
  iterations adding 0.1 % each, about a minute per doubling), larger steps pay, and where it
  is short (limit Leduc's searches, seconds) the paper's step is as fast and its trunk the
  smaller. So "auto" goes deeper while the trunk's doubling time exceeds `DOUBLING_SECONDS`,
  and one level shallower while an iteration grows it by more than `GROWTH_CEILING` (nodes
  beyond the certificate's needs only enlarge the LPs), judging by the medians of the `WINDOW`
  iterations since the last change. How much deeper: the growth g* = 2^(c / D) - 1 (at most
  `GROWTH_CEILING`) would double the trunk in D = `DOUBLING_SECONDS` of iterations of c
  seconds, and each level at least doubles an iteration's growth g (a node has two children
  or more), so "auto" adds floor(log2(g* / g)) levels, at least one, up to `MAX_BELOW`. Where
  an iteration costs minutes on a trunk it grows by a fraction of a percent (the last
  iterations of 5-rank random Goofspiel: about 200 s, under 0.5 %), that expands the support
  leaves' subtrees to the game's end within a few iterations; `room` keeps any such iteration
  from growing the trunk by more than `GROWTH_CEILING` below the support leaves.
* `lp_method`: HiGHS's warm-started dual simplex (`"simplex"`) or its interior point method
  with crossover (`"ipm"`). A warm start helps while an iteration changes little of the LP; an
  iteration that expands many nodes leaves the simplex many pivots to repair, and there the
  interior point method wins (6-rank Goofspiel, `docs/results/certificates.md`). "auto" starts
  with the simplex; once a solve takes `IPM_TRIAL_SECONDS`, the next iteration tries the
  interior point method, and the method with the fewer LP seconds per trunk node is kept
  (a trial the interior point method lost is repeated once the trunk has doubled; once it
  wins it stays).

Every change is recorded (`Choice`) and logged, so a run says what it chose and why. The
choices follow measured seconds, so on another machine or under another load they may come at
other iterations and grow another (equally verified) certificate; fixed values replay exactly.
"""

from __future__ import annotations

import dataclasses
import math
import statistics

from absl import logging

from ospiel_ext import highs

AUTO = "auto"
"""The value of `expand_below` or `lp_method` that lets `Steps` choose."""
DOUBLING_SECONDS = 10.0
"""Above this time for the iterations to double the trunk, "auto" expands deeper
(`_levels_deeper`)."""
GROWTH_CEILING = 0.5
"""Above this growth of the trunk per iteration, "auto" expands one level shallower."""
MAX_BELOW = 16
"""The deepest `expand_below` "auto" chooses (deeper than most games' trunks: expanding to the
game's end)."""
WINDOW = 3
"""Iterations at one depth whose median growth and seconds "auto" judges by."""
IPM_TRIAL_SECONDS = 5.0
"""A simplex solve of the trunk this long makes "auto" try the interior point method."""


@dataclasses.dataclass(frozen=True)
class Choice:
    """A choice of `Steps`: from `iteration` on, `expand_below` and `lp_method`, and why."""

    iteration: int
    expand_below: int
    lp_method: str
    reason: str


class Steps:
    """The step sizes and LP method of a certificate search (module docstring).

    Args:
      expand_below: levels below the expanded nodes also expanded per iteration, or "auto".
      lp_method: HiGHS's algorithm for the trunk LPs (`highs.METHODS`), or "auto".

    Raises:
      ValueError: a negative `expand_below` or an unknown method.
    """

    def __init__(self, expand_below: int | str = AUTO, lp_method: str = AUTO):
        if expand_below != AUTO and (not isinstance(expand_below, int) or expand_below < 0):
            raise ValueError(
                f"expand_below must be a non-negative integer or 'auto', got {expand_below!r}"
            )
        if lp_method != AUTO and lp_method not in highs.METHODS:
            raise ValueError(
                f"lp_method must be one of {', '.join(highs.METHODS)} or 'auto', got {lp_method!r}"
            )
        self.auto_below, self.auto_method = expand_below == AUTO, lp_method == AUTO
        self.expand_below = 0 if expand_below == AUTO else int(expand_below)
        self.lp_method = "simplex" if lp_method == AUTO else lp_method
        self.choices: list[Choice] = []
        self._window: list[tuple[float, float]] = []  # (growth, seconds) since the last change
        self._simplex_rate = 0.0  # LP seconds per trunk node of the last simplex solve
        self._trial = False  # this iteration tries ipm
        self._ipm_tried_at = 0  # trunk nodes when a trial of ipm lost (tried again at twice)

    def observe(
        self, iteration: int, *, nodes: int, nodes_after: int, seconds: float, lp_seconds: float
    ) -> None:
        """Chooses the next iteration's steps from what iteration `iteration` measured.

        Its trunk grew from `nodes` to `nodes_after` nodes; it cost `seconds` (build, LPs,
        certificate; expansion excluded), `lp_seconds` of them HiGHS's.
        """
        if self.auto_method and nodes:
            self._choose_method(iteration + 1, nodes, lp_seconds)
        if self.auto_below and nodes:
            self._choose_below(iteration + 1, (nodes_after - nodes) / nodes, seconds)

    def _choose_method(self, nxt: int, nodes: int, lp_seconds: float) -> None:
        rate = lp_seconds / nodes
        if self.lp_method == "ipm":
            if self._trial:  # the trial's verdict; a kept ipm stays
                self._trial = False
                than = f"{1e6 * rate:.3g} us of LP per trunk node against the simplex's "
                than += f"{1e6 * self._simplex_rate:.3g}"
                if rate < self._simplex_rate:
                    self._choose(nxt, lp_method="ipm", reason=f"ipm kept: {than}")
                else:
                    self._ipm_tried_at = nodes
                    self._choose(nxt, lp_method="simplex", reason=f"simplex again: ipm {than}")
            return
        self._simplex_rate = rate
        if lp_seconds >= IPM_TRIAL_SECONDS and nodes >= 2 * self._ipm_tried_at:
            self._trial = True
            self._choose(
                nxt, lp_method="ipm", reason=f"trying ipm: a simplex solve took {lp_seconds:.3g} s"
            )

    def _choose_below(self, nxt: int, growth: float, seconds: float) -> None:
        self._window.append((growth, seconds))
        if len(self._window) < WINDOW:
            return
        growth = statistics.median(g for g, _ in self._window[-WINDOW:])
        seconds = statistics.median(s for _, s in self._window[-WINDOW:])
        growth = max(growth, 1e-12)
        doubling = seconds * math.log(2) / math.log1p(growth)
        below = self.expand_below
        if doubling > DOUBLING_SECONDS and below < MAX_BELOW:
            below = min(below + _levels_deeper(growth, seconds), MAX_BELOW)
        elif growth > GROWTH_CEILING and below > 0:
            below -= 1
        if below != self.expand_below:
            self._choose(
                nxt,
                expand_below=below,
                reason=f"expand_below {below}: at {self.expand_below} an iteration of "
                f"{seconds:.3g} s grew the trunk {100 * growth:.3g} % (doubling it in "
                f"{doubling:.3g} s)",
            )

    def room(self, nodes: int) -> float:
        """The trunk size past which an iteration on a trunk of `nodes` expands no deeper level.

        `nodes` times 1 + `GROWTH_CEILING` when "auto" chooses `expand_below`; no limit when
        it is given (a given step is taken as given).
        """
        return nodes * (1.0 + GROWTH_CEILING) if self.auto_below else math.inf

    def _choose(
        self, iteration: int, *, reason: str, expand_below: int | None = None,
        lp_method: str | None = None,
    ) -> None:  # fmt: skip
        if expand_below is not None:
            self.expand_below, self._window = expand_below, []
        if lp_method is not None:
            self.lp_method = lp_method
        self.choices.append(Choice(iteration, self.expand_below, self.lp_method, reason))
        logging.info("certificate search, iteration %d: %s", iteration, reason)

    def describe(self) -> str:
        """What was chosen: "expand_below K, lp_method M" and whether each was chosen."""
        how = ("chosen" if self.auto_below else "given", "chosen" if self.auto_method else "given")
        return f"expand_below {self.expand_below} ({how[0]}), lp_method {self.lp_method} ({how[1]})"


def _levels_deeper(growth: float, seconds: float) -> int:
    """How many levels deeper "auto" goes: floor(log2(g* / g)), at least 1.

    The levels that take an iteration of `seconds` from `growth` g to the growth g* that
    doubles the trunk in `DOUBLING_SECONDS` (module docstring), each level at least doubling it.
    """
    if seconds >= DOUBLING_SECONDS * math.log2(1.0 + GROWTH_CEILING):
        wanted = GROWTH_CEILING
    else:
        wanted = 2.0 ** (seconds / DOUBLING_SECONDS) - 1.0
    return max(1, math.floor(math.log2(wanted / growth)))
