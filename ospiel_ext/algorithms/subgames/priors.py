"""Priors over the opponent's auxiliary actions of a gadget game.

Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve Subgame Solving in
Imperfect-Information Games", Definition 2 (a gadget game sequential equilibrium is a limit of
equilibria in which the opponent plays every auxiliary action a with probability at least
eps * pi^P(s^G, a) > 0) and Section 5 (choice of prior):

* 'none': no prior (plain Nash equilibrium of the gadget);
* 'uniform': pi^P uniform at every auxiliary information set (resolving: (T, C) = (1/2, 1/2);
  max-margin: 1/K over its K root information sets);
* 'blueprint': "the prior of the auxiliary action that leads to s_o proportional to the reach
  of s_o", with q(s_o) = P_o(s_o) / sum_{s'} P_o(s') over the gadget's root information sets,
  "clipped to >= 1e-3". Max-margin: p_a = max(q(s_a), clip), renormalised (`from_prior` needs
  a distribution; the paper does not say how the clipped values are normalised). Resolving:
  p_C(s_o) = min(max(q(s_o), clip), 1 - clip), p_T = 1 - p_C. Normalising q by the sum (not
  the maximum) makes the trembles eps p_C into each root information set equal in both gadgets
  (the prior reach P_2(s_2) := pi^P(s^G, a) eps of the proof of Theorem 2), and clipping T
  keeps Definition 2's pi^P > 0 for every action.

When the opponent never reaches the public state under the blueprint (sum of reaches 0), the
blueprint prior falls back to uniform with a warning.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from absl import logging
from numpy.typing import NDArray

from ospiel_ext.algorithms.subgames.gadgets import TERMINATE, GadgetGame

PriorKind = Literal["none", "uniform", "blueprint"]
PRIOR_KINDS: tuple[PriorKind, ...] = ("none", "uniform", "blueprint")
DEFAULT_CLIP = 1e-3  # Section 5: "we clip the value to >= 1e-3"

Prior = dict[str, NDArray[np.float64]]


def _normalised_reach(gadget: GadgetGame, targets: tuple[str, ...]) -> NDArray[np.float64] | None:
    """q(s_o) over `targets` (None when the opponent reaches none of them)."""
    rv = gadget.root_values
    assert rv is not None
    index = {k: n for n, k in enumerate(rv.keys)}
    reach = np.array([rv.opp_reach[index[k]] for k in targets])
    total = reach.sum()
    if not total > 0:
        logging.warning(
            "%s: the opponent never reaches the subgame under the blueprint; the blueprint "
            "prior falls back to uniform",
            gadget.sf.name,
        )
        return None
    normalised: NDArray[np.float64] = reach / total
    return normalised


def gadget_prior(gadget: GadgetGame, kind: PriorKind, clip: float = DEFAULT_CLIP) -> Prior | None:
    """The prior pi^P of the gadget's auxiliary information sets (module docstring).

    As {auxiliary key: distribution over its legal actions}, or None for 'none'.

    Raises:
      ValueError: unknown kind, clip outside (0, 1/2), or a prior asked of the unsafe
        subgame (which has no auxiliary information set).
    """
    if kind not in PRIOR_KINDS:
        raise ValueError(f"{gadget.sf.name}: unknown prior {kind!r}; priors: {PRIOR_KINDS}")
    if not 0 < clip < 0.5:
        raise ValueError(f"{gadget.sf.name}: the prior clip must be in (0, 1/2), got {clip}")
    if kind == "none":
        return None
    if gadget.kind == "unsafe":
        raise ValueError(f"{gadget.sf.name}: the unsafe subgame has no auxiliary information set")
    prior: Prior = {}
    if gadget.kind == "resolving":
        keys = gadget.aux_keys
        targets = tuple(gadget.aux_targets[k][0] for k in keys)
        q = _normalised_reach(gadget, targets) if kind == "blueprint" else None
        for n, key in enumerate(keys):
            p_continue = 0.5 if q is None else min(max(q[n], clip), 1 - clip)
            row = np.empty(2)
            row[TERMINATE], row[1 - TERMINATE] = 1 - p_continue, p_continue
            prior[key] = row
        return prior
    for key in gadget.aux_keys:  # max-margin: one auxiliary information set
        targets = gadget.aux_targets[key]
        q = _normalised_reach(gadget, targets) if kind == "blueprint" else None
        p = np.full(len(targets), 1 / len(targets)) if q is None else np.maximum(q, clip)
        prior[key] = p / p.sum()
    return prior
