"""Reach max-margin: relaxing the max-margin targets by the opponent's earlier gifts.

Brown & Sandholm (2017), "Safe and Nested Subgame Solving for Imperfect-Information Games",
Section 5 (reach subgame solving); named by Kubíček, Lisý & Sandholm (2025), "Equilibrium
Refinements Improve Subgame Solving in Imperfect-Information Games", Section 2.1 ("the same
construction as max-margin, but uses different utility shifts") and left for future work in
their Section 9. Our construction, with i the resolving player and o the opponent:

1. against the blueprint pi_bar_i, the opponent's best-response value of every sequence,
   v(I', a) (one treeplex pass: sum over histories of pi_bar_i P_c u_o, best response below);
2. a gift at every opponent sequence (I', a') that has a root of the cut below it:
   G(I', a') = max(0, max_a v(I', a) - v(I', a')) over the alternatives a with no root below
   (their values do not change when subgames are resolved);
3. a gift may be spent once (Brown & Sandholm 2017, Theorem 2), so it is shared by all root
   information sets s_o below (I', a') in all subgames of the cut, in proportion to W(s_o):
   c(I', a') = G(I', a') / sum_{s_o below} W(s_o);
4. relax(s_o) = sum of c over the opponent's sequences leading to s_o.

The max-margin gadget then shifts leaves by v_bar(s_o) - relax(s_o) (player i's utility).
Safety: Theorem 1's argument with the regret decomposition of the opponent's trunk strategy
against pi_bar_i gives u_i(pi_i, BR) - u_i(pi_bar_i, BR_bar) >= sum_{s_o} P_o^{BR}(s_o) W(s_o)
Delta(s_o) + sum_{(I', a')} P_o^{BR}(I', a') G(I', a'); a gadget solution has Delta(s_o) >=
-relax(s_o), and sum_{s_o below (I', a')} P_o^{BR}(s_o) W(s_o) c(I', a') <= P_o^{BR}(I', a')
G(I', a'), so the sum is >= 0. The paper has no such construction; this one is ours.
"""

from __future__ import annotations

import numpy as np

from ospiel_ext.algorithms.subgames.blueprints import BlueprintQuantities
from ospiel_ext.algorithms.subgames.cuts import RootSet


def reach_gifts(q: BlueprintQuantities, root_set: RootSet, player: int) -> dict[str, float]:
    """relax(s_o) >= 0 for every opponent root information set of the cut (module docstring).

    Keyed by the opponent's information state at the roots; for `max_margin_gadget(relax=)`.

    Raises:
      ValueError: the cut's tree is not the quantities' game, or player is not 0 or 1.
    """
    sf = q.sf
    if root_set.tree is not sf.tree:
        raise ValueError(f"game {sf.name}: the cut was made in another compiled tree")
    if player not in (0, 1):
        raise ValueError(f"game {sf.name}: player must be 0 or 1, got {player}")
    o = 1 - player
    tp = sf.treeplexes[o]
    x_i = sf.treeplexes[player].realization_plan(q.blueprint[player])
    v_seq, _ = tp.infoset_values(sf.sequence_values(o, x_i), None)
    roots = root_set.roots
    root_seq = sf.node_seq[o][roots]
    w = q.reaches.player(player)[roots] * q.reaches.chance[roots]
    # sequences with a root below, and the W mass below each sequence
    above = np.zeros(tp.num_sequences, dtype=bool)
    above[root_seq] = True
    mass = np.bincount(root_seq, weights=w, minlength=tp.num_sequences).astype(np.float64)
    for lv in reversed(tp.levels):
        seqs = slice(lv.seq_lo, lv.seq_hi)
        np.logical_or.at(above, lv.seq_parent, above[seqs])
        np.add.at(mass, lv.seq_parent, mass[seqs])
    gift = np.zeros(tp.num_sequences)
    if tp.num_infosets:
        free = np.where(above, -np.inf, v_seq)
        best_free = np.maximum.reduceat(free[1:], tp.seq_start - 1)
        alternative = tp.spread(best_free)[1:]
        gift[1:] = np.where(above[1:], np.maximum(alternative - v_seq[1:], 0.0), 0.0)
    share = np.divide(gift, mass, out=np.zeros_like(gift), where=mass > 0)
    relax = share.copy()  # prefix sums down the treeplex, shallowest level first
    for lv in tp.levels:
        relax[lv.seq_lo : lv.seq_hi] += relax[lv.seq_parent]
    keys = root_set.keys[o]
    return {keys[k]: float(relax[root_seq[k]]) for k in range(len(roots))}
