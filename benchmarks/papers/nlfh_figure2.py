r"""Figure 2 in no-limit flop hold'em on the range layout, exactly evaluated: the blueprint,
randomized pseudo-harmonic action translation (RPAT), depth-limited solving with K values and
the 0.75x bet in the abstraction.
Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games"
(NeurIPS), Section 6.1.

  python benchmarks/papers/nlfh_figure2.py --num_ranks=3 --iterations=1000 \
      --value_iterations=2000 --output_json=docs/results/nlfh_figure2.json \
      --plots_dir=docs/results

The game is the paper's no-limit flop hold'em (NLFH): two hole cards, a three-card flop, two
betting rounds, blinds 100 / 50, stacks of --stack_bb big blinds, as `universal_poker` deals
it with every bet size (`bettingAbstraction=fullgame`), on a deck of --num_ranks x --num_suits
cards (`nlfh_sizes.py` counts what a deck takes: at 200 big blinds 5.6 million regret entries
for 12 cards, 29.9 million for 16, 17.4 billion for the paper's 52, whose solver would hold at
least 388 GiB). Every tree is a range layout (`poker.range_tree`, one board per suit orbit with
--suits) of the game under an action abstraction (`structure.detect(game, actions=...)`):

* the abstraction: fold, call, bets of 0.5x and 1x the pot, all-in
  (`games.poker_actions.PotFractionAbstraction`); the blueprint is --iterations of CFR+ in it
  (`poker.range_cfr`), its exploitability measured in it;
* the game in which the responder's exploitability is measured: the abstraction plus the
  first player's (the small blind's, the paper's P1) 0.75x pot bet at the start;
* RPAT: the responder reads the 0.75x bet as 0.5x with probability f(0.75) = 3/7 and as 1x
  otherwise (Ganzfried & Sandholm 2013) and plays the blueprint accordingly
  (`depth_limited.ranges.off_tree.rpat_strategy`);
* depth-limited solving (`depth_limited.ranges`): K = --num_values self-generative values
  for the responder at the end of the abstraction's first round (`solving.self_generative`,
  unweakened unless --weaken, as the compiled stand-ins' SG-u; each depth-limited solve
  --dl_iterations of CFR+), transferred to the leaves after the 0.75x bet, the first round
  below the bet solved with a resolving or max-margin gadget (--gadgets) whose alternatives
  are the bettor's best in-abstraction values (`off_tree_solving.depth_limited_response`);
  beyond the limit RPAT (rows with flop 'rpat') or, as the paper, safe subgame solving of
  every flop subgame after the bet (rows with flop 'resolved': a resolving gadget per board
  whose alternatives are the values the depth-limited game promised the bettor, from the
  unweakened continuations, --flop_iterations of CFR+; `beyond_limit.resolve_below`);
* the lower bound: --iterations of CFR+ on the game with the 0.75x bet in the abstraction.

--leaves other than 'abstraction' measures what the paper's transfer of the values costs, each
with the same depth-limited solves and no flop solving: 'translated' values the abstraction's
continuations exactly at the leaves after the bet, the bettor's carried there by RPAT's rule
(`off_tree.translated`) and the responder playing RPAT; 'game_rpat' makes the self-generative
values in the game with the bet itself, from RPAT's profile (`off_tree_solving.solved_after`
takes them as they are); 'game_bound' makes them from the lower bound's strategy, which the
responder then plays beyond the limit after the bet (`off_tree.played_beneath`; rows with flop
'bound'), beside two references: RPAT's first round with the bound's strategy beyond
(`rpat_bound_beyond_mbb`) and the bound's strategy everywhere after the bet
(`bound_after_bet_mbb`), the blueprint elsewhere in both.

Exploitability is the responder's: what the best-responding bettor gains over its value in
the game with the bet, in milli-big-blinds per game (mbb/g). That value is bracketed by the
lower-bound solve's average profile (both best responses); each figure carries the bracket's
half-width (`value_error_mbb`). `floor_mbb` is the least exploitability of any response that
plays the blueprint outside the bet (RPAT and every depth-limited row do): the bettor's best
in-abstraction first actions against it, which it reaches when the bet never gains the bettor
more (what a resolving gadget asks).

Ctrl-C or SIGTERM stops the current solve after its iteration and writes the figures so far
with `stop_reason`. With --stages_dir the next run with the same settings goes on where the last
one stopped (`nlfh_stages`): each finished solve is kept there (.npz: the average strategies
and their figures), a solve in progress every 10 minutes and where it stops (the solver's
state: it goes on bit for bit), the self-generative values (and --leaves=translated's) as each
is added, and the depth-limited rows as they finish.

JSON keys: game, deck_cards, stack_bb, suits, iterations, value_iterations, abstraction_entries
and game_entries (regret entries of both players), blueprint_exploitability_mbb, value_mbb (the
bettor's, in the game with the bet), value_error_mbb, rpat_probability_low, rpat_mbb,
floor_mbb, lower_bound_mbb, depth_limited [{num_values, gadget, flop, exploitability_mbb}],
dl_iterations, weakened, leaves (with 'game_bound' also rpat_bound_beyond_mbb and
bound_after_bet_mbb), stage_seconds, seconds, peak_rss_bytes, stop_reason.
"""

import functools
import itertools
import json
import os
import resource
import time

import nlfh_stages
from absl import flags
from nlfh_game import BETTOR, BIG_BLIND, NEIGHBOURS, OFF_TREE, abstractions, game_string

from ospiel_ext.algorithms import cfr_rules
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.depth_limited.ranges import (
    beyond_limit,
    gadgets,
    off_tree,
    off_tree_solving,
    solving,
)
from ospiel_ext.algorithms.depth_limited.translation import pseudo_harmonic
from ospiel_ext.algorithms.poker import range_cfr, range_tree, range_walker, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.games import poker_actions as pa
from ospiel_ext.runtime import interrupts

RPAT_LOW = pseudo_harmonic(OFF_TREE[1], *NEIGHBOURS)  # f(0.75) = 3/7: read as the 0.5x bet
BEYOND = {
    "resolved": "flop solved safely",
    "rpat": "RPAT beyond",
    "bound": "the bound's strategy beyond",
}
"""The responder's play beyond the limit after the bet, per row's 'flop'."""
LEAVES = {
    "abstraction": "rpat",
    "translated": "rpat",
    "game_rpat": "rpat",
    "game_bound": "bound",
}
"""--leaves' choices, each with the responder's play beyond the limit (without flop solving)."""

_NUM_RANKS = flags.DEFINE_integer("num_ranks", 13, "Card ranks.", lower_bound=2)
_NUM_SUITS = flags.DEFINE_integer("num_suits", 4, "Card suits.", lower_bound=1)
_STACK_BB = flags.DEFINE_integer("stack_bb", 200, "Each player's stack in big blinds.")
_ITERATIONS = flags.DEFINE_integer("iterations", 1000, "CFR+ iterations of each solve.")
_VALUE_ITERATIONS = flags.DEFINE_integer(
    "value_iterations",
    None,
    "CFR+ iterations of the game with the bet for its value (the lower-bound solve continued; "
    "None: 4 x --iterations).",
)
_TIME_LIMIT = flags.DEFINE_float("time_limit", None, "Seconds of each solve (None: no limit).")
_SUITS = flags.DEFINE_bool("suits", True, "One board per suit orbit.")
_THREADS = flags.DEFINE_integer(
    "threads",
    1,
    "Threads of each last-round pass of the solves, the self-generative values and the "
    "figures' evaluations.",
    lower_bound=1,
)
_NUM_VALUES = flags.DEFINE_list(
    "num_values", ["1", "2", "4", "8", "16"], "K of the depth-limited rows (empty: none)."
)
_GADGETS = flags.DEFINE_multi_enum(
    "gadgets",
    ["resolving", "max_margin"],
    list(gadgets.GADGETS),
    "Gadgets of the depth-limited rows.",
)
_WEAKEN = flags.DEFINE_bool(
    "weaken", False, "Weaken the self-generative values (Section 4; off: SG-u, as the stand-ins)."
)
_LEAVES = flags.DEFINE_enum(
    "leaves",
    "abstraction",
    list(LEAVES),
    "The depth-limited solves' K values: 'abstraction', the paper's (the blueprint's "
    "self-generative values, each leaf after the bet taking the mean of its two counterparts'). "
    "The others measure what that transfer costs (no flop solving): 'translated', the same "
    "continuations valued exactly at the leaves after the bet, carried there by RPAT's rule; "
    "'game_rpat', self-generative values made in the game with the bet from RPAT's profile; "
    "'game_bound', made there from the lower bound's strategy, which the responder then plays "
    "beyond the limit after the bet.",
)
_DL_ITERATIONS = flags.DEFINE_integer(
    "dl_iterations", 1000, "CFR+ iterations of each depth-limited solve.", lower_bound=1
)
_FLOP_ITERATIONS = flags.DEFINE_integer(
    "flop_iterations",
    1000,
    "CFR+ iterations of the safe subgame solving of the flop after each depth-limited solve "
    "(0: RPAT beyond the limit only).",
    lower_bound=0,
)
_PLOTS_DIR = flags.DEFINE_string(
    "plots_dir", None, "Write nlfh_figure2_<deck>cards.png here (e.g. nlfh_figure2_12cards.png)."
)
_STAGES_DIR = flags.DEFINE_string(
    "stages_dir",
    None,
    "Keep the finished solves, the solve in progress and the rows done here (.npz); the next "
    "run with the same settings goes on from them.",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


def _solver(tree: range_tree.RangeTree) -> range_cfr.RangeCFRSolver:
    """A CFR+ solver of `tree` with --threads (close it: a context manager)."""
    return range_cfr.RangeCFRSolver(tree, cfr_rules.CFR_PLUS, threads=_THREADS.value)


def _solve(solver: range_cfr.RangeCFRSolver, until: int, partial: nlfh_stages.PartialSolve) -> str:
    """CFR+ iterations of `solver` until its iteration `until`, kept in progress by `partial`;
    returns the stop reason."""
    more = max(until - solver.iteration, 0)
    result = solver_lib.run(
        solver,
        more,
        time_limit=_TIME_LIMIT.value,
        log_every=max(1, more // 5),
        after_iteration=partial.every_while,
    )
    if result.stop_reason != "iterations":
        partial.keep(solver)  # stopped early: the next run goes on from here
    return result.stop_reason


def _blueprint(
    abstract: range_tree.RangeTree,
    iterations: int,
    timed: cli.StageTimer,
    partial: nlfh_stages.PartialSolve,
) -> tuple[list, list[float], str]:
    """CFR+ in the abstraction, from its solve in progress if kept: (its average per entry,
    [regret entries, exploitability in chips], the stop reason)."""
    with _solver(abstract) as solver:
        partial.restore(solver)
        stop_reason = timed("blueprint", lambda: _solve(solver, iterations, partial))
        return (
            abstract.contract(solver.average_strategy()),
            [solver.entries, solver.exploitability()],
            stop_reason,
        )


def _mbb(chips: float) -> float:
    """Chips per game in milli-big-blinds per game."""
    return 1000.0 * float(chips) / BIG_BLIND


def _bound(
    full: range_tree.RangeTree,
    iterations: tuple[int, int],
    timed: cli.StageTimer,
    partial: nlfh_stages.PartialSolve,
) -> tuple[list, list[float], str]:
    """CFR+ on the game with the bet, from its solve in progress if kept: the average after
    `iterations[0]` (the lower bound's strategy, kept with the solve in progress once reached),
    and the solve continued to `iterations[1]` for the bettor's value.

    Returns (that average per entry, [regret entries, value, its bracket's half-width], the
    stop reason).
    """
    with _solver(full) as solver:
        lower = nlfh_stages.read_strategy(partial.restore(solver), "extra_lower", full)
        stop_reason = "iterations"
        if lower is None:
            stop_reason = timed("lower_bound", lambda: _solve(solver, iterations[0], partial))
            lower = full.contract(solver.average_strategy())
            if stop_reason == "iterations":
                partial.extra = nlfh_stages.strategy_arrays(lower, "extra_lower")
        if stop_reason == "iterations" and iterations[1] > solver.iteration:
            stop_reason = timed("value", lambda: _solve(solver, iterations[1], partial))
        return lower, [solver.entries, *_value(solver)], stop_reason


def _value(solver: range_cfr.RangeCFRSolver) -> tuple[float, float]:
    """The bettor's value, bracketed by the average profile's best responses: (mid, half-width)."""
    ev = solver.evaluate_average()
    br_bettor, br_responder = ev.best_response_values[BETTOR], ev.best_response_values[1 - BETTOR]
    return (br_bettor - br_responder) / 2, (br_bettor + br_responder) / 2


def _walker(tree: range_tree.RangeTree) -> range_walker.RangeWalker:
    """A walker of `tree` with --threads (close it: a context manager)."""
    return range_walker.RangeWalker(tree, threads=_THREADS.value)


def _floor(off: off_tree.OffTree, translated: off_tree_solving.Translated) -> float:
    """The bettor's best response to any profile that plays the blueprint outside the bet and
    holds the bet to the bettor's best in-abstraction values: the least a response after the
    bet can leave it (chips)."""
    return float(translated.alternatives @ off.game.rounds[0].orbits.size)


def _exploitability(tree: range_tree.RangeTree, strategy: list, value: float) -> float:
    """The responder's exploitability: the bettor's best response to it minus its value."""
    with _walker(tree) as walker:
        return walker.evaluate(strategy).best_response_values[BETTOR] - value


def _depth_limited(
    off: off_tree.OffTree,
    strategies: tuple[list, list, list],
    translated: off_tree_solving.Translated,
    *,
    value: float,
    timed: cli.StageTimer,
    stages: nlfh_stages.Stages,
) -> list[dict]:
    """The responder's exploitability after depth-limited solving, per K (module docstring).

    `strategies`: the blueprint's, RPAT's and the lower bound's (--leaves=game_bound);
    `translated`: `off_tree_solving.Translated` of RPAT's profile. The rows of each (gadget,
    K) are kept in --stages_dir as they finish; a later run takes them and solves only the
    rest (the self-generative values only if any is left).
    """
    ks = sorted(set(cli_flags.int_list(_NUM_VALUES))) if _NUM_VALUES.value else []
    # the values depend on these settings too, the rows also on the flop's iterations
    generated = stages.tagged(_DL_ITERATIONS.value, _WEAKEN.value)
    leaves, beyond = _LEAVES.value, LEAVES[_LEAVES.value]
    flop_iterations = _FLOP_ITERATIONS.value if leaves == "abstraction" else 0
    kept_rows = generated.tagged(flop_iterations)
    if leaves != "abstraction":  # the rows in their own files
        kept_rows = kept_rows.prefixed(f"{leaves}_")
    kept, rows = kept_rows.rows(), []  # stopped (Ctrl-C, SIGTERM): the rows that finished
    per_pair = 2 if flop_iterations else 1
    solves = _Solves(
        off,
        strategies,
        translated,
        timed,
        most_values=max(ks, default=0),
        stages=generated,
        leaves=leaves,
    )
    for gadget, k in ((g, k) for g in _GADGETS.value for k in ks):
        done = [r for r in kept if (r["gadget"], r["num_values"]) == (gadget, k)]
        if len(done) == per_pair:
            rows += done
            print(f"{gadget}, K = {k}: kept", flush=True)
            continue
        try:
            enough = k <= solves.leaves.num_values
        except interrupts.Interrupted:  # the translated values stopped: the rows so far
            break
        if not enough or interrupts.requested():
            break
        response = solves.depth_limited(gadget, k)
        if interrupts.requested():
            break
        mbb = _mbb(_exploitability(off.game, response, value))
        row = {"num_values": k, "gadget": gadget, "flop": beyond, "exploitability_mbb": mbb}
        print(f"{gadget}, K = {k}, {BEYOND[beyond]}: {mbb:.2f} mbb/g", flush=True)
        pair = [row]
        if flop_iterations:
            resolved = solves.flop_resolved(gadget, k, response)
            if interrupts.requested():
                break
            mbb = _mbb(_exploitability(off.game, resolved, value))
            pair.append({**row, "flop": "resolved", "exploitability_mbb": mbb})
            print(f"{gadget}, K = {k}, flop resolved: {mbb:.2f} mbb/g", flush=True)
        rows += pair
        kept_rows.keep_rows(rows + [r for r in kept if r not in rows])  # others' too
    return rows


class _Solves:
    """The depth-limited solves of `_depth_limited`, with what they share made on first use:
    the self-generative values, the bettor's alternatives and the flop subtree.

    `strategies`: the blueprint's, RPAT's and the lower bound's; `translated`: RPAT's profile
    and the bettor's best in-abstraction values (the gadgets' alternatives); `leaves`: --leaves.
    """

    def __init__(
        self,
        off: off_tree.OffTree,
        strategies: tuple[list, list, list],
        translated: off_tree_solving.Translated,
        timed: cli.StageTimer,
        *,
        most_values: int,
        stages: nlfh_stages.Stages,
        leaves: str,
    ):
        self.off, self.translated, self.timed, self.kind = off, translated, timed, leaves
        self.blueprint, self.rpat, self.lower = strategies
        self.most_values = most_values  # K to generate
        # where the values are made, and from which strategy; where they are kept
        self.source, self.stages = (off.abstract, self.blueprint), stages
        if leaves.startswith("game_"):
            self.source = (off.game, self.rpat if leaves == "game_rpat" else self.lower)
            self.stages = stages.prefixed(f"{leaves}_")

    @functools.cached_property
    def _generated(self) -> tuple[solving.LeafValues, list]:
        tree, blueprint = self.source
        kept = self.stages.generated(self.most_values, tree)
        if kept is not None:
            return kept
        with _walker(tree) as walker:
            leaves, profiles = self.timed(
                "self_generative",
                lambda: solving.self_generative(
                    walker,
                    blueprint,
                    self.off.player,
                    self.most_values,
                    iterations=_DL_ITERATIONS.value,
                    weaken=_WEAKEN.value,
                    start=self.stages.generating(tree),
                    after_value=self.stages.keep_generating,
                ),
            )
        if leaves.num_values >= self.most_values:  # not stopped part way
            self.stages.keep_generated(leaves, profiles)
        return leaves, profiles

    @functools.cached_property
    def leaves(self) -> solving.LeafValues:
        """The self-generative leaf values (K up to the largest asked): of the abstraction, or
        with --leaves other than 'abstraction' of the game with the bet."""
        if self.kind != "translated":
            return self._generated[0]
        return self.timed("translated_values", self._translated_values)

    def _translated_values(self) -> solving.LeafValues:
        """The abstraction's continuations valued in the game with the bet: the bettor's
        carried below the bet by `off_tree.translated`, the responder playing RPAT. Kept in
        --stages_dir as each is added (a stopped run goes on from them)."""
        off, bettor = self.off, 1 - self.off.player
        values = self.stages.values("translated_values")
        with _walker(off.game) as walker:
            start = 0 if values is None else values.num_values
            for c in self._generated[1][start : self.most_values]:
                lifted = off_tree.lift(off, c)
                profile = range_walker.mix(
                    off.game, (self.rpat, lifted) if bettor == 1 else (lifted, self.rpat)
                )
                more = solving.LeafValues.compute(
                    walker, [off_tree.translated(off, profile, c, bettor)]
                )
                values = more if values is None else values.extend(more)
                self.stages.keep_values("translated_values", values)
            assert values is not None  # at least one continuation
            if not _WEAKEN.value:
                return values
            lay = off.game.rounds[0]
            beliefs = walker.reaches(off.player, self.rpat, rounds=1)[0][lay.ends]
            return values.weaken(walker, beliefs, off.player)

    @functools.cached_property
    def below(self) -> range_tree.RangeTree:
        """The flop subtree after the bet."""
        return beyond_limit.subtree(self.off)

    def depth_limited(self, gadget: str, k: int) -> list:
        """The responder's strategy after depth-limited solving with K = k and `gadget`."""
        return self.timed(f"depth_limited_{gadget}_{k}", lambda: self._depth_limited(gadget, k))

    def _depth_limited(self, gadget: str, k: int) -> list:
        if self.kind == "abstraction":
            return off_tree_solving.depth_limited_response(
                self.off,
                self.blueprint,
                self.leaves.first(k),
                iterations=_DL_ITERATIONS.value,
                gadget=gadget,
                translated=self.translated,
            )
        solved = off_tree_solving.solved_after(
            self.off,
            self.leaves.first(k),
            iterations=_DL_ITERATIONS.value,
            gadget=gadget,
            translated=self.translated,
        )
        if LEAVES[self.kind] == "bound":
            return off_tree.played_beneath(self.off, solved, self.lower, first_round=1)
        return solved

    def flop_resolved(self, gadget: str, k: int, response: list) -> list:
        """`response` with every flop subgame after the bet solved safely."""
        continuations = self._generated[1][:k]
        return self.timed(
            f"flop_{gadget}_{k}", lambda: _resolved(self.off, self.below, response, continuations)
        )


def _resolved(
    off: off_tree.OffTree, below: range_tree.RangeTree, response: list, continuations: list
) -> list:
    """`response` with the flop after the bet resolved safely (`beyond_limit`) on `below`."""
    with beyond_limit.resolve_below(
        off,
        response,
        continuations,
        iterations=_FLOP_ITERATIONS.value,
        tree=below,
        threads=_THREADS.value,
    ) as resolution:
        return beyond_limit.resolved_response(off, response, resolution)


def _checked_flags() -> tuple[int, int]:
    """Checks the flags; returns (iterations, value_iterations)."""
    cli_flags.positive(_STACK_BB)
    cli_flags.positive(_ITERATIONS)
    if _TIME_LIMIT.value is not None:
        cli_flags.positive(_TIME_LIMIT)
    cli_flags.output_path(_OUTPUT_JSON)
    if _STAGES_DIR.value:
        cli_flags.output_dir(_STAGES_DIR)
    if _PLOTS_DIR.value:
        cli_flags.output_dir(_PLOTS_DIR)
        cli_output.pyplot()  # matplotlib, before any work
    iterations = _ITERATIONS.value
    value_iterations = (
        4 * iterations if _VALUE_ITERATIONS.value is None else _VALUE_ITERATIONS.value
    )
    cli_flags.require(value_iterations >= iterations, "--value_iterations must be >= --iterations")
    if _NUM_VALUES.value:
        cli_flags.int_list(_NUM_VALUES)  # K >= 1, before any work
    return iterations, value_iterations


def main(argv):
    cli_flags.no_arguments(argv)
    iterations, value_iterations = _checked_flags()
    wall = time.perf_counter()
    game = cli.load_game(game_string(_NUM_RANKS.value, _NUM_SUITS.value, _STACK_BB.value))
    abstraction, with_bet = abstractions()
    timed = cli.StageTimer()
    result: dict = {
        "game": str(game),
        "deck_cards": _NUM_RANKS.value * _NUM_SUITS.value,
        "stack_bb": _STACK_BB.value,
        "suits": _SUITS.value,
        "iterations": iterations,
        "value_iterations": value_iterations,
    }

    def layout(actions):  # no result so far: a signal stops it at once
        with cli_flags.refuse(ValueError), interrupts.immediate():
            return range_tree.RangeTree(structure.detect(game, actions=actions), suits=_SUITS.value)

    stages = nlfh_stages.Stages(
        _STAGES_DIR.value, json.dumps([str(game), _SUITS.value, iterations, value_iterations])
    )
    stop_reason = None
    with cli.stoppable() as stop:
        abstract = timed("layout", lambda: layout(abstraction))
        full = timed("layout_with_bet", lambda: layout(with_bet))
        print(f"{game}: layouts in {sum(timed.seconds.values()):.1f} s", flush=True)
        with cli_flags.refuse(ValueError):  # e.g. stacks too short for a 0.75x bet
            off = off_tree.OffTree.find(
                full,
                abstract,
                replacements=lambda state: [
                    abstraction.labels(state)[pa.fraction_label(f)] for f in NEIGHBOURS
                ],
                weights=(RPAT_LOW, 1 - RPAT_LOW),
                translate=with_bet.translate,
            )
        blueprint, figures, stop_reason = stages.kept_or_solved(
            "blueprint",
            abstract,
            lambda: _blueprint(abstract, iterations, timed, stages.partial("blueprint")),
        )
        result["abstraction_entries"] = int(figures[0])
        result["blueprint_exploitability_mbb"] = _mbb(figures[1])
        if stop_reason == "iterations":
            lower, figures, stop_reason = stages.kept_or_solved(
                "lower_bound",
                full,
                lambda: _bound(
                    full, (iterations, value_iterations), timed, stages.partial("lower_bound")
                ),
            )
            result["game_entries"] = int(figures[0])
            value, error = float(figures[1]), float(figures[2])
            result["value_mbb"], result["value_error_mbb"] = _mbb(value), _mbb(error)
            result["lower_bound_mbb"] = _mbb(_exploitability(full, lower, value))
            rpat = timed("rpat", lambda: off_tree.rpat_strategy(off, blueprint))
            result["rpat_probability_low"] = RPAT_LOW
            result["rpat_mbb"] = _mbb(_exploitability(full, rpat, value))
            translated = timed(
                "alternatives", lambda: off_tree_solving.Translated.of(off, blueprint, rpat)
            )
            result["floor_mbb"] = _mbb(_floor(off, translated) - value)
            result["dl_iterations"], result["weakened"] = _DL_ITERATIONS.value, _WEAKEN.value
            result["leaves"] = _LEAVES.value
            if _LEAVES.value == "game_bound":  # what the depth-limited rows then aim at
                for key, first_round in (("rpat_bound_beyond_mbb", 1), ("bound_after_bet_mbb", 0)):
                    profile = off_tree.played_beneath(off, rpat, lower, first_round=first_round)
                    result[key] = _mbb(_exploitability(full, profile, value))
            result["depth_limited"] = _depth_limited(
                off, (blueprint, rpat, lower), translated, value=value, timed=timed, stages=stages
            )
    result["stage_seconds"] = timed.seconds
    result["seconds"] = round(time.perf_counter() - wall, 1)
    # the peak RSS (VmHWM): ru_maxrss counts KiB on Linux
    result["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    result["stop_reason"] = stop.reason or stop_reason
    for key in (
        "blueprint_exploitability_mbb",
        "lower_bound_mbb",
        "rpat_mbb",
        "floor_mbb",
        "value_error_mbb",
        "rpat_bound_beyond_mbb",
        "bound_after_bet_mbb",
    ):
        if key in result:
            print(f"{key}: {result[key]:.2f}")
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, result)
        if _PLOTS_DIR.value and result.get("depth_limited"):
            leaves = result.get("leaves", "abstraction")
            other = "" if leaves == "abstraction" else f"_{leaves}_leaves"
            name = f"nlfh_figure2_{result['deck_cards']}cards{other}.png"
            plot(result, os.path.join(_PLOTS_DIR.value, name))
    if interrupts.requested():
        raise KeyboardInterrupt


def plot(result: dict, path: str) -> None:
    """Figure 2's analogue: the responder's exploitability per K, RPAT and the bound.

    Every figure is a best response minus the same value, so the lines' differences are exact;
    the band is the value's bracket.
    """
    plt = cli_output.pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for (gadget, marker, color), (flop, line) in itertools.product(
        (("resolving", "o", "C0"), ("max_margin", "s", "C1")),
        (("resolved", "-"), ("rpat", ":"), ("bound", "--")),
    ):
        rows = [
            r for r in result["depth_limited"] if (r["gadget"], r.get("flop")) == (gadget, flop)
        ]
        if rows:
            ax.plot(
                [r["num_values"] for r in rows],
                [r["exploitability_mbb"] for r in rows],
                marker + line,
                color=color,
                label=f"depth-limited, {gadget.replace('_', '-')} gadget, {BEYOND[flop]}",
            )
    ax.axhline(result["rpat_mbb"], color="C3", label="action translation (RPAT)")
    ax.axhline(result["lower_bound_mbb"], color="k", label="0.75x bet in the abstraction")
    if "floor_mbb" in result:
        ax.axhline(result["floor_mbb"], color="0.5", ls=":", label="floor: the blueprint outside")
    if "bound_after_bet_mbb" in result:  # --leaves=game_bound: where its rows aim
        ax.axhline(
            result["rpat_bound_beyond_mbb"], color="C3", ls="--", label="RPAT, the bound's beyond"
        )
        ax.axhline(
            result["bound_after_bet_mbb"], color="k", ls="--", label="the bound's after the bet"
        )
    ks = sorted({r["num_values"] for r in result["depth_limited"]})
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(ks, [str(k) for k in ks])
    ax.set_xlabel("number of values per leaf state K")
    ax.set_ylabel("exploitability of the responder (mbb/g)")
    ax.set_title(
        f"NLFH, {result['deck_cards']} cards, {result['stack_bb']} BB: off-tree 0.75x pot bet "
        f"(± {result['value_error_mbb']:.1f} common to all)",
        fontsize=9,
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    cli_output.save_figure(fig, path, dpi=120)
    print("wrote", path)


if __name__ == "__main__":
    cli.main(main)
