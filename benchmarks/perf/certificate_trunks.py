"""Trunks grown for the certificate-search measurements (`certificate_lp_starts.py`,
`certificate_parts.py`)."""

import pyspiel

from ospiel_ext.algorithms import certificates
from ospiel_ext.sequence_form import TreeSequenceForm


def grown_trunk(game: pyspiel.Game, max_nodes: int, expand_below: int) -> TreeSequenceForm:
    """The trunk of the best certificate found before an expansion would pass `max_nodes` nodes.

    Algorithm 6.7 of Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in
    Black-Box Extensive-Form Games" (AAAI 2021) with fixed steps: the optimistic profile's
    leaves (`expand_pessimistic=False`, the trunks the committed figures were measured on),
    `expand_below` levels deeper, HiGHS's interior point: the same trunks on every machine,
    unlike the search's default steps, which follow measured seconds.
    """
    result = certificates.search(
        game,
        max_nodes=max_nodes,
        expand_below=expand_below,
        lp_method="ipm",
        expand_pessimistic=False,
    )
    return result.certificate.sequence_form
