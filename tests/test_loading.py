"""Loading games, and Knuth's estimate of their size (Knuth 1975, "Estimating the efficiency of
backtrack programs") against exact counts."""

import math

import pyspiel
import pytest

from ospiel_ext import loading, walk
from ospiel_ext.loading import estimate_num_nodes


def test_load_accepts_games_and_strings():
    game = pyspiel.load_game("kuhn_poker")
    assert loading.load(game) is game
    assert str(loading.load("kuhn_poker")) == str(game)


def test_knuth_estimate_is_exact_on_a_uniform_tree():
    estimate = estimate_num_nodes(pyspiel.load_game("matrix_mp"))  # 1 + 2 + 4 histories
    assert estimate.nodes == 7 and estimate.std_error == 0 and estimate.complete


@pytest.mark.parametrize("game", ["kuhn_poker", "leduc_poker"])
def test_knuth_estimate_is_unbiased(game):
    # Knuth 1975: the mean of the playout estimates converges to the number of histories.
    true = walk.game_tree(game).num_nodes
    estimate = estimate_num_nodes(game, playouts=4000, seed=11)
    assert abs(estimate.nodes - true) < 4 * estimate.std_error
    assert math.log10(estimate.nodes) == pytest.approx(estimate.log10_nodes)


def test_knuth_estimate_of_a_cut_playout_is_a_lower_estimate():
    estimate = estimate_num_nodes("leduc_poker", max_steps=2)  # root and the first deal only
    assert estimate.nodes == 1 + 6 + 6 * 5 and not estimate.complete
    assert "lower estimate" in estimate.describe()
