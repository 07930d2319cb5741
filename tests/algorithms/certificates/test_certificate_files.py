"""Exported certificates and certified policies are valid files (every row a distribution)."""

import numpy as np
import pytest

from ospiel_ext import policy_files
from ospiel_ext.algorithms import certificates


def test_zero_certificate_of_goofspiel_4_survives_its_own_files(tmp_path):
    # The --help example of scripts/certify.py: its certificate once failed its own
    # verification ("not a probability distribution") because an LP plan reached an infoset
    # with probability ~1e-17 and its actions with exactly 0.
    game = "sequential_goofspiel(num_cards=4)"
    cert = certificates.search(game, epsilon=0.0).certificate
    for table in cert.strategy_table():
        for key, row in table.items():
            probs = np.array(list(row.values()))
            assert probs.min() >= 0 and probs.sum() == pytest.approx(1.0), key
    path = tmp_path / "cert.json"
    certificates.save(cert, path, cert.trunk.game)
    result = certificates.verify_saved(game, path)
    assert result.ok, result.reason
    assert result.epsilon == pytest.approx(0.0, abs=1e-9)
    pol = certificates.CertificatePolicy(cert.trunk.game, cert.strategy_table()).to_tabular()
    policy_files.save_policy(pol, tmp_path / "policy.json", game)
    loaded = policy_files.load_policy(game, tmp_path / "policy.json")
    np.testing.assert_allclose(loaded.action_probability_array.sum(axis=1), 1.0)
