"""Certificates of equilibria in black-box games.

Zhang & Sandholm, "Finding and Certifying (Near-)Optimal Strategies in Black-Box Extensive-Form
Games" (AAAI 2021). Modules:

* `trunks`: trunks grown on demand from pyspiel states, nature sampling (Defs 3.1, 3.3; Section 5);
* `certificate`: certificates, their verification, minimal certificates, the certified policy
  (Sections 3, 4, Def. 6.2);
* `trunk_lps`: the best certificate of a trunk, unbounded payoffs (Sections 6.1, 6.4);
* `search`: Algorithm 6.7, the search that grows the trunk (Sections 6.3, 6.7);
* `steps`: how large its steps are and which LP method it uses, chosen as it runs;
* `io`: certificate files, re-verified from the game alone.

The names users call are re-exported here: `certificates.search(game, ...)`,
`certificates.save(...)`, `certificates.verify_saved(game, path)`.
"""

from ospiel_ext.algorithms.certificates.certificate import (
    ZERO_TOLERANCE,
    Certificate,
    CertificatePolicy,
    minimal_certificate,
    verify,
)
from ospiel_ext.algorithms.certificates.io import Verification, save, verify_data, verify_saved
from ospiel_ext.algorithms.certificates.search import (
    DEFAULT_MAX_TRUNK_NODES,
    IterationCost,
    SearchResult,
    SearchStop,
    search,
)
from ospiel_ext.algorithms.certificates.steps import AUTO, Choice, Steps
from ospiel_ext.algorithms.certificates.trunk_lps import best_certificate
from ospiel_ext.algorithms.certificates.trunks import BlackBox, Bounds, NatureSampling, Trunk

__all__ = [
    "AUTO",
    "DEFAULT_MAX_TRUNK_NODES",
    "ZERO_TOLERANCE",
    "BlackBox",
    "Bounds",
    "Certificate",
    "CertificatePolicy",
    "Choice",
    "IterationCost",
    "NatureSampling",
    "SearchResult",
    "SearchStop",
    "Steps",
    "Trunk",
    "Verification",
    "best_certificate",
    "minimal_certificate",
    "save",
    "search",
    "verify",
    "verify_data",
    "verify_saved",
]
