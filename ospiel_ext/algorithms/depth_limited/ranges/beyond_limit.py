"""Safe subgame solving beyond the depth limit after the off-tree action, on the range layout.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games",
Section 6.1: after the depth-limited solve of the first round below the off-tree action
(`off_tree_solving.depth_limited_response`), "when the end of the first betting round was
reached and the board cards were dealt, the remaining game was solved using safe subgame
solving". On the range layout a subgame is the last round below one end e of the first round
after the off-tree action and one board: its root is a row that starts the last round, and
the bettor o's root information sets are that row's entries (board, hand orbit). Each is
resolved for the responder i with a resolving gadget (`gadgets.RootGadgets`; Brown &
Sandholm (2017), "Safe and Nested Subgame Solving for Imperfect-Information Games", nested
solving: the alternatives are what the previous subgame's solution gives o there).

The alternatives (`promised_values`) are the values the depth-limited game promised o: at
its leaf information set (e, h), o picks the continuation k* that is best for it against i's
depth-limited solution (Section 4; the pick the solved depth-limited game's values assume),
and on each board the alternative is continuation k*'s value there, o's counterfactual value
at the row's entry when both players play continuation k* below the limit. As for the leaf
values (`off_tree.transferred_leaves`, "the average of those two corresponding value
vectors"), a continuation's values after the off-tree action are the mean of its values at
the counterparts of e under the in-abstraction replacements, each found by one pass of the
abstraction's last round with i's reach at e placed at the counterpart
(`RangeWalker.first_row_values`).

All subgames are solved at once by one CFR+ run (`poker.range_cfr.RangeCFRSolver` with a
`range_cfr.Subgame`) on the layout of the game below the off-tree action alone (`subtree`):
the first round plays i's depth-limited solution, o's reach at each root entry is its
gadget's. Resolving gadgets decompose per information set, so this is every subgame
resolved on its own, in one walk of the last round per player and iteration.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence

import numpy as np
import pyspiel

from ospiel_ext import evaluate
from ospiel_ext.algorithms import solver as solver_lib
from ospiel_ext.algorithms.cfr_rules import CFR_PLUS
from ospiel_ext.algorithms.depth_limited.ranges.gadgets import RootGadgets
from ospiel_ext.algorithms.depth_limited.ranges.off_tree import OffTree
from ospiel_ext.algorithms.depth_limited.ranges.solving import first_decision
from ospiel_ext.algorithms.poker import range_tree, structure
from ospiel_ext.algorithms.poker.range_cfr import RangeCFRSolver
from ospiel_ext.algorithms.poker.range_parts import Closing
from ospiel_ext.algorithms.poker.range_tree import Arrays, RangeTree
from ospiel_ext.algorithms.poker.range_walker import RangeWalker
from ospiel_ext.arrays import FloatArray, IntArray


def subtree(off: OffTree) -> RangeTree:
    """The layout of `off.game` with only the off-tree action at its decision.

    The game below the off-tree action, with the same betting keys and entries as `off.game`.

    Raises:
      ValueError: the off-tree action is not the game's first action, or the game has not
        two rounds (naming the game).
    """
    game = off.game
    first = first_decision(game)
    keys = [child.key for child in first.node.children]
    if len(off.roots) != 1 or off.roots[0] not in keys or len(game.rounds) != 2:
        raise ValueError(
            f"game {game.name}: safe subgame solving beyond the limit needs two rounds and one "
            "off-tree action, the game's first"
        )
    action = first.node.actions[keys.index(off.roots[0])]
    kept = game.structure.actions

    def only(state: pyspiel.State) -> Sequence[int]:
        """`kept`'s actions (every legal one if None), only `action` at the first decision."""
        if not any(m.player >= 0 for m in state.full_history()):
            return [action]
        return list(state.legal_actions()) if kept is None else kept(state)

    return RangeTree(structure.detect(game.structure.game, actions=only), suits=game.suits)


def promised_values(
    off: OffTree,
    response: Arrays,
    continuations: list[Arrays],
    ends: list[int],
    *,
    threads: int = 1,
) -> FloatArray:
    """The bettor o's promised values at the rows that start the last round (module docstring).

    Args:
      off: the off-tree action.
      response: a profile of `off.game` (i's depth-limited solution matters).
      continuations: the abstraction's K continuation profiles (their last rounds matter).
      ends: indices of `off.game`'s first-round ends after the off-tree action.
      threads: threads of the abstraction's last-round passes (`RangeWalker`; the values do not
        depend on it).

    Returns:
      (len(ends), F'): o's counterfactual value at each row's entries (board, hand orbit).

    Raises:
      ValueError: an end has no counterpart in the abstraction (naming the game).
    """
    game, abstract = off.game, off.abstract
    first, last = game.rounds
    reach = RangeWalker(game).reaches(off.player, response, rounds=1)[0][first.ends]
    where = {abstract.keys[0][row]: e for e, row in enumerate(abstract.rounds[0].ends)}
    keys = [game.keys[0][first.ends[e]] for e in ends]
    values = np.zeros((len(continuations), len(ends), last.orbits.width))
    with RangeWalker(abstract, threads=threads) as walker:
        for m in off.maps:
            mine = [(n, where[m[key][0]]) for n, key in enumerate(keys) if key in m]
            for batch in _distinct(mine):
                at = np.zeros((len(abstract.rounds[0].ends), first.orbits.width))
                for n, c in batch:
                    at[c] = reach[ends[n]]
                for k, profile in enumerate(continuations):
                    roots = walker.first_row_values(1 - off.player, at, profile[-1])
                    for n, c in batch:
                        values[k, n] += roots[c]
    counts = np.array([sum(key in m for m in off.maps) for key in keys], dtype=np.float64)
    if np.any(counts == 0):
        missing = keys[int(np.argmin(counts))]
        raise ValueError(f"game {game.name}: the leaf {missing!r} has no counterpart")
    values /= counts[None, :, None]
    assert last.parent_entry is not None  # the second round's
    summed = np.stack([last.dealt(v) for v in values])  # (K, ends, F): o's leaf values
    pick = summed.argmax(axis=0)[:, last.parent_entry]  # o's continuation per row and entry
    out: FloatArray = np.take_along_axis(values, pick[None], axis=0)[0]
    return out


def _distinct(pairs: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """(row, counterpart) pairs in batches whose counterparts differ (one pass each)."""
    batches: list[list[tuple[int, int]]] = []
    for pair in pairs:
        home = next((b for b in batches if all(c != pair[1] for _, c in b)), None)
        if home is None:
            batches.append([pair])
        else:
            home.append(pair)
    return batches


@dataclasses.dataclass
class _Gadgets:
    """`range_cfr.Subgame`: the first round fixed, o's reach at the roots its gadgets'.

    `roots`: the last round's first rows that are roots (a decision follows); o's reach at
    the others (showdowns after an all-in) is 0.
    """

    strategies: Arrays
    opponent: int
    gadgets: RootGadgets
    roots: IntArray

    def first_rows(self, player: int, reach: FloatArray) -> FloatArray:
        """The reaches the first round gives i; o's, its gadgets'."""
        if player != self.opponent:
            return reach
        out = np.zeros_like(reach)
        out[self.roots] = self.gadgets.factor(self.gadgets.current)
        return out

    def update(self, player: int, values: FloatArray, iteration: int) -> None:
        """The gadgets follow o's values at the roots."""
        if player == self.opponent:
            self.gadgets.update(values[self.roots], iteration)


@dataclasses.dataclass
class SubgameResolution(Closing):
    """Every subgame beyond the limit after the off-tree action, resolved (`resolve_below`).

    The run loop's solver (`solver.SelfEvaluatingSolver`, pausable as the range solver): its
    iterations are the range solver's, its evaluation the gadget game's (`gadget_game`), so
    a run's progress shows the gadget game's NashConv. With more than one thread, `close()` it
    (or use it as a context manager) to shut the solver's thread pool down.

    Attributes:
      tree: the layout below the off-tree action (`subtree`).
      solver: the CFR+ run on its last round, the first round fixed.
      gadgets: o's gadgets at the roots.
      roots: the last round's first rows that are roots (a decision follows).
      responder: i.
    """

    tree: RangeTree
    solver: RangeCFRSolver
    gadgets: RootGadgets
    roots: IntArray
    responder: int

    @property
    def name(self) -> str:
        """The game's load_game string."""
        return self.solver.name

    def close(self) -> None:
        """Shuts the solver's thread pool down (`RangeCFRSolver.close`)."""
        self.solver.close()

    @property
    def iteration(self) -> int:
        """CFR+ iterations so far."""
        return self.solver.iteration

    @property
    def traversals(self) -> int:
        """Passes of the last round so far."""
        return self.solver.traversals

    @property
    def paused(self) -> bool:
        """An iteration stopped part way (`RangeCFRSolver.paused`)."""
        return self.solver.paused

    def iterate(self, stop: Callable[[], bool] | None = None) -> bool:
        """One iteration, or the rest of a paused one (`RangeCFRSolver.iterate`)."""
        return self.solver.iterate(stop)

    def evaluate_and_update_policy(self) -> None:
        """One iteration."""
        self.solver.evaluate_and_update_policy()

    def evaluate_average(self) -> evaluate.ProfileEvaluation:
        """The gadget game's evaluation (`gadget_game`)."""
        return self.gadget_game()

    def exploitability(self) -> float:
        """(br_0 + br_1) / 2 in the gadget game."""
        return self.gadget_game().exploitability

    def strategy(self) -> Arrays:
        """The average profile per entry on `tree` (the first round i's fixed solution)."""
        return self.tree.contract(self.solver.average_strategy())

    def gadget_game(self) -> evaluate.ProfileEvaluation:
        """The gadget game's values of the average profile and both best responses.

        The game of o's gadgets and the last round below them, the first round fixed: o's
        best response takes the better gadget action at every root information set, i's
        plays the last round only. Exact, in chips: an optimal solution's value for i lies
        between -best_response_values[o] and best_response_values[i].
        """
        i, o = self.responder, 1 - self.responder
        strategy = self.strategy()
        walker, (above, last) = self.solver.walker, self.tree.rounds
        parent = last.parent_entry
        assert parent is not None  # the second round's
        own = walker.reaches(i, strategy, rounds=1)[0][above.ends]  # i's, at the first rows
        choice, roots = self.gadgets.average_strategy(), self.roots
        gadget = np.zeros((len(own), last.orbits.width))  # o's, the gadgets' reach
        gadget[roots] = self.gadgets.factor(choice)

        def at_roots(p: int, opponent: FloatArray, *, best: bool) -> FloatArray:
            v = walker.first_row_values(p, opponent, strategy[-1], expanded=True, best=best)
            out: FloatArray = v[roots]
            return out

        def value_i(best: bool) -> float:
            v = last.dealt(at_roots(i, gadget, best=best))
            return float(((own[roots] * v) @ above.orbits.size).sum()) - self.gadgets.paid(choice)

        value, best_i = value_i(False), value_i(True)
        best_o = self.gadgets.opponent_value(
            at_roots(o, np.take(own, parent, axis=1), best=True), choice, best=True
        )
        values = (value, -value) if i == 0 else (-value, value)
        br = (best_i, best_o) if i == 0 else (best_o, best_i)
        return evaluate.ProfileEvaluation(values, br)


def resolve_below(
    off: OffTree,
    response: Arrays,
    continuations: list[Arrays],
    *,
    iterations: int = 1000,
    tree: RangeTree | None = None,
    threads: int = 1,
) -> SubgameResolution:
    """Every subgame beyond the limit after the off-tree action, resolved for i.

    `response`: the profile of `off.game` after depth-limited solving (i's first round below
    the off-tree action solved); `continuations`: the K continuation profiles of the
    abstraction whose values the depth-limited game used (unweakened), which give o's
    alternatives (`promised_values`). `iterations` of CFR+ on the subgames' union. `tree`:
    `subtree(off)`, laid out once for several resolutions; built here if None. `threads`: of
    each last-round pass (`RangeCFRSolver`; the iterates do not depend on it: `close()` the
    resolution after use). Ctrl-C or SIGTERM ends it with the average so far (the run loop).

    Raises:
      ValueError: as `subtree`.
    """
    tree = subtree(off) if tree is None else tree
    first, last = tree.rounds
    decisions = np.concatenate([g.nodes for g in last.groups])
    roots = np.flatnonzero(np.isin(np.arange(len(first.ends)), decisions))
    full = {off.game.keys[0][row]: e for e, row in enumerate(off.game.rounds[0].ends)}
    ends = [full[tree.keys[0][first.ends[r]]] for r in roots]
    deal = last.deal_matrix
    assert deal is not None
    gadgets = RootGadgets.of(
        last, promised_values(off, response, continuations, ends, threads=threads), "resolving",
        config=CFR_PLUS, name=off.game.name, weight=deal @ first.orbits.size,
    )  # fmt: skip
    upper = range_tree.by_key(off.game, response, tree)[:-1]
    subgame = _Gadgets(upper, 1 - off.player, gadgets, roots)
    resolution = SubgameResolution(
        tree=tree, solver=RangeCFRSolver(tree, CFR_PLUS, threads=threads, subgame=subgame),
        gadgets=gadgets, roots=roots, responder=off.player,
    )  # fmt: skip
    solver_lib.run(resolution, iterations)
    return resolution


def resolved_response(off: OffTree, response: Arrays, resolution: SubgameResolution) -> Arrays:
    """`response` with i's last-round decisions below the off-tree action the resolution's."""
    return range_tree.by_key(
        resolution.tree, resolution.strategy(), off.game, into=response, player=off.player
    )
