"""The range layout as the CFR engine the public-tree form offers (`cfr_rules.CFREngine`).

`cfr_variants.CFRVariantSolver` asks its sequence form for an engine (`cfr_rules.
OffersCFREngine`); the public-tree form (`range_form.PublicTreeSequenceForm.cfr_engine`)
answers with `for_form`: from `RANGE_MIN_SEQUENCES` sequences up, the range solver
(`range_cfr.RangeCFRSolver`, the same iterates without sequence-numbered passes) with its
strategies mapped back to the form's sequence numbering (`range_numbering.SequenceIndex`);
below it, None, and the solver keeps its sequence-form passes.
"""

from __future__ import annotations

from absl import logging

from ospiel_ext.algorithms.cfr_rules import CFRConfig
from ospiel_ext.algorithms.poker.public_tree import PublicTree
from ospiel_ext.algorithms.poker.range_cfr import RangeCFRSolver
from ospiel_ext.algorithms.poker.range_numbering import SequenceIndex
from ospiel_ext.algorithms.poker.range_tree import RangeTree
from ospiel_ext.policies import Behavioural

# The range layout's iteration against the sequence-form one on the public-tree form
# (benchmarks/perf/poker_scale.py): 0.80x on limit Leduc 13 (6,865 sequences), 1.84x on Rhode
# Island 6x2 with one raise (49,153 sequences).
RANGE_MIN_SEQUENCES = 20_000


class RangeCFREngine:
    """`RangeCFRSolver` seen through the public tree's sequence numbering.

    Args:
      public_tree: the public tree whose treeplexes number the form's sequences.
      config: the CFR variant.
    """

    def __init__(self, public_tree: PublicTree, config: CFRConfig):
        tree = RangeTree(public_tree.structure)
        self.solver = RangeCFRSolver(tree, config)
        self._index = SequenceIndex(public_tree, tree)

    def evaluate_and_update_policy(self) -> None:
        """One iteration of the range solver."""
        self.solver.evaluate_and_update_policy()

    def current_behavioural(self) -> Behavioural:
        """The strategies of this iteration in the form's sequence numbering."""
        return self._index.behavioural(self.solver.current_strategy())

    def average_behavioural(self) -> Behavioural:
        """The average strategies in the form's sequence numbering."""
        return self._index.behavioural(self.solver.average_strategy())

    def exploitability(self) -> float:
        """The average profile's exploitability (`RangeCFRSolver.exploitability`)."""
        return self.solver.exploitability()


def for_form(
    public_tree: PublicTree, num_sequences: int, config: CFRConfig
) -> RangeCFREngine | None:
    """The range engine of a public-tree form of `num_sequences` (its larger treeplex), or None.

    None below `RANGE_MIN_SEQUENCES`, where the range layout's per-group numpy calls cost more
    than the sequence-form passes; the choice is logged.
    """
    if num_sequences < RANGE_MIN_SEQUENCES:
        return None
    logging.info(
        "%s: CFR runs on the range layout (%d sequences >= %d)",
        public_tree.structure.name,
        num_sequences,
        RANGE_MIN_SEQUENCES,
    )
    return RangeCFREngine(public_tree, config)
