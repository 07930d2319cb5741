"""One round's rows on a block of its entries: the kernels of the range layout's passes.

A block is a slice of whole boards of one round (`range_tree.RoundLayout`), its arrays
(nodes, w) views of a round's arrays or a chunk's own buffers (`range_walker`): a player's
reaches top down (`reach_rows`), values bottom up with the instantaneous regrets
(`value_rows`), the opponent-and-chance reach of information sets (`opponent_reach`), and
strategies from regrets or accumulated weights (`regret_matching`, `normalise`). Every
function does the same operations on an entry whichever block holds it, so the passes do not
depend on how a round is cut (Johanson, Bowling, Waugh & Zinkevich, "Accelerating Best
Response Calculation in Large Extensive Games", IJCAI 2011, Section 3; Johanson et al.,
"Efficient Nash Equilibrium Approximation through Monte Carlo Counterfactual Regret
Minimization", AAMAS 2012, Section 3).
"""

from __future__ import annotations

import functools

import numpy as np

from ospiel_ext.algorithms.cfr_rules import positive_regrets
from ospiel_ext.algorithms.poker import range_tree
from ospiel_ext.algorithms.poker.range_tree import Arrays
from ospiel_ext.arrays import FloatArray


def regret_matching(
    regrets: FloatArray,
    out: FloatArray | None = None,
    *,
    nonnegative: bool = False,
    tol: FloatArray | float = 0.0,
) -> FloatArray:
    """Strategies proportional to positive regrets over axis 1, uniform where none is.

    Args:
      regrets: (n, A, ...) cumulative regrets.
      out: where to write the strategies (a new array if None).
      nonnegative: the regrets are known to be >= 0 (RM+), so with no tolerance none is
        clipped.
      tol: the tie tolerance, a number or an array broadcast against the regrets
        (`cfr_rules.tie_tolerance`): a regret at or below it counts as none
        (`cfr_rules.positive_regrets`).
    """
    if out is None:
        out = np.empty_like(regrets)
    if nonnegative and np.ndim(tol) == 0 and tol == 0:
        positive = regrets
    else:
        positive = positive_regrets(regrets, tol, out, nonnegative=nonnegative)
    total = positive.sum(axis=1)
    none = total <= 0
    np.divide(1.0, total, out=total, where=~none)
    np.multiply(positive, total[:, None], out=out)
    np.copyto(out, 1.0 / out.shape[1], where=none[:, None])
    return out


def normalise(weights: Arrays) -> Arrays:
    """Behavioural strategies from accumulated realization weights (uniform where none)."""
    return [[regret_matching(w) for w in per_round] for per_round in weights]


def reach_rows(
    lay: range_tree.RoundLayout,
    player: int,
    *,
    strategy: list[FloatArray],
    reach: FloatArray,
    first: FloatArray | None,
) -> None:
    """`player`'s reaches at a round's nodes on a block of its entries, top down.

    Args:
      lay: the round.
      player: whose reaches.
      strategy: the round's strategies on the block, per group (n, A, w).
      reach: (nodes, w) written in place.
      first: (rows, w) the reaches of the round's first rows (`RangeWalker.first_rows` taken
        at the block's entries); None in the first round (the root's reach is 1).
    """
    if first is None:
        reach[0] = 1.0
    else:
        reach[: len(first)] = first
    for g, s in zip(lay.groups, strategy):
        here = reach[g.rows]
        for a in range(g.num_actions):
            rows = reach[g.child_rows(a)]
            if g.player == player:
                np.multiply(here, s[:, a], out=rows)
            else:
                rows[...] = here


def value_rows(
    lay: range_tree.RoundLayout,
    player: int,
    *,
    v: FloatArray,
    rho: FloatArray,
    b: slice,
    ends: FloatArray | None,
    strategy: list[FloatArray] | None,
    regrets: list[FloatArray] | None,
    best: list[FloatArray] | None = None,
) -> None:
    """`player`'s values at a round's nodes on entries b, bottom up.

    Terminals, then the round's ends, then the decisions, deepest first.

    Args:
      lay: the round.
      player: whose values.
      v: (nodes, w) written in place.
      rho: (nodes, w) the opponent's reaches.
      b: the block's entries in the round (whole boards).
      ends: (ends, w) the values at the round's ends: the next round's dealt boards summed
        (`orbits.deal_matrix`: v_B(h) = sum_c v_canon(B + c)(pi_c(h))); None in the last round.
      strategy: the round's strategies on the block, per group; None for the maximum.
      regrets: if given, the player's regrets on the block, per group, receive the
        instantaneous regrets (added in place).
      best: with `strategy` None, if given, the player's groups on the block receive the
        maximising actions as pure strategies (n, A, w): a best response (at a tie the
        first action that attains the maximum).
    """
    sign = 1.0 if player == 0 else -1.0
    for rows, at in lay.fold_runs:
        range_tree.fold_values(lay, rho[rows], sign * lay.fold_payoff[at], b, out=v[rows])
    if len(lay.showdowns):
        v[lay.showdowns] = range_tree.showdown_values(lay, rho[lay.showdowns], b)
    if ends is not None:
        v[lay.ends] = ends.T
    for k in range(len(lay.groups) - 1, -1, -1):
        _group_values(
            lay.groups[k], player, v=v,
            strategy=None if strategy is None else strategy[k],
            regrets=None if regrets is None else regrets[k],
            best=None if best is None else best[k],
        )  # fmt: skip


def _group_values(
    g: range_tree.DecisionGroup,
    player: int,
    *,
    v: FloatArray,
    strategy: FloatArray | None,
    regrets: FloatArray | None,
    best: FloatArray | None,
) -> None:
    """`value_rows` at one decision group g: its children's values summed, mixed or maxed."""
    children = [v[g.child_rows(a)] for a in range(g.num_actions)]
    if g.player != player:
        v[g.rows] = functools.reduce(np.add, children)
    elif strategy is None:
        v[g.rows] = functools.reduce(np.maximum, children)
        if best is not None:
            pure(best, children)
    else:
        # in place where the rows are a view (`DecisionGroup.rows`)
        mixed = v[g.rows] if isinstance(g.rows, slice) else np.empty_like(children[0])
        np.multiply(children[0], strategy[:, 0], out=mixed)
        for a in range(1, g.num_actions):
            mixed += children[a] * strategy[:, a]
        if not isinstance(g.rows, slice):
            v[g.rows] = mixed
        if regrets is not None:
            add_regrets(regrets, children, mixed)


def pure(out: FloatArray, children: list[FloatArray]) -> None:
    """Writes into out (n, A, w) 1 at the first action whose child is largest, else 0."""
    out.fill(0.0)
    choice = np.argmax(np.stack(children, axis=1), axis=1)
    np.put_along_axis(out, choice[:, None], 1.0, axis=1)


def sliced(arrays: list[FloatArray], b: slice) -> list[FloatArray]:
    """A round's per-group arrays (n, A, F) on entries b: views."""
    return [a[:, :, b] for a in arrays]


def take(lay: range_tree.RoundLayout, first: FloatArray | None, b: slice) -> FloatArray | None:
    """The first rows' values (rows, F of the round before) at entries b of the round."""
    if first is None:
        return None
    assert lay.parent_entry is not None
    return np.take(first, lay.parent_entry[b], axis=1)


def opponent_reach(layout: range_tree.RoundLayout, rho: FloatArray, entries: slice) -> FloatArray:
    """(n, F') the opponent-and-chance reach of the information sets at n rows of a round.

    The sequence form's `opponent_reach` in the range layout: the fold rule against the
    opponent's reach rho (n, F') at payoff 1, on the round's `entries` (whole boards); in rho's
    floating-point type. The tie rule's reach (`cfr_rules.tie_tolerance`).
    """
    out = np.empty_like(rho)
    range_tree.fold_values(layout, rho, np.ones(len(rho)), entries, out=out)
    return out


def add_regrets(regrets: FloatArray, children: list[FloatArray], mixed: FloatArray) -> None:
    """regrets[:, a] += children[a] - mixed: the instantaneous regrets of a decision group."""
    for a, child in enumerate(children):
        regrets[:, a] += child
        regrets[:, a] -= mixed
