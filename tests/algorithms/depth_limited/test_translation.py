"""The pseudo-harmonic mapping (Ganzfried & Sandholm 2013) both off-tree stacks translate by."""

import itertools

import numpy as np
import pytest

from ospiel_ext.algorithms.depth_limited import translation

P_LOW = 3 / 7  # f(0.75) between 0.5 and 1, worked by hand: 0.25 * 1.5 / (0.5 * 1.75)


def test_pseudo_harmonic_mapping():
    assert translation.pseudo_harmonic(0.75, 0.5, 1.0) == pytest.approx(P_LOW)
    assert translation.pseudo_harmonic(0.5, 0.5, 1.0) == pytest.approx(1.0)
    assert translation.pseudo_harmonic(1.0, 0.5, 1.0) == pytest.approx(0.0)
    grid = [translation.pseudo_harmonic(x, 0.5, 1.0) for x in np.linspace(0.5, 1.0, 11)]
    assert all(b < a for a, b in itertools.pairwise(grid))
    with pytest.raises(ValueError):
        translation.pseudo_harmonic(1.5, 0.5, 1.0)
