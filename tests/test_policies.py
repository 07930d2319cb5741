"""Arrays <-> TabularPolicy, and the JSON policy file format of DESIGN.md."""

import json

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib

from ospiel_ext import policies, sequence_form


def test_tabular_round_trip(small_game):
    sf = sequence_form.for_game(small_game)
    layout = policies.layout(sf)
    pol = policies.random_policy(small_game, seed=5)
    again = layout.to_tabular(layout.from_tabular(pol))
    np.testing.assert_allclose(again.action_probability_array, pol.action_probability_array)
    assert again is not layout.to_tabular(layout.from_tabular(pol))


def test_generic_and_cpp_policies_convert():
    game = pyspiel.load_game("leduc_poker")
    layout = policies.layout_for_game(game)
    uniform = layout.from_policy(policy_lib.UniformRandomPolicy(game))
    for tp, b in zip(layout.sf.treeplexes, uniform):
        np.testing.assert_allclose(b, tp.uniform)
    solver = pyspiel.CFRPlusSolver(game)
    solver.evaluate_and_update_policy()
    from_cpp = layout.from_table(solver.tabular_average_policy().policy_table())
    from_py = layout.from_tabular(
        policy_lib.pyspiel_policy_to_python_policy(game, solver.tabular_average_policy())
    )
    for a, b in zip(from_cpp, from_py):
        np.testing.assert_allclose(a, b)


def test_random_policy_is_a_distribution_per_state():
    pol = policies.random_policy("leduc_poker", seed=1, alpha=0.3)
    probs = pol.action_probability_array
    np.testing.assert_allclose(probs.sum(axis=1), 1.0)
    assert np.all(probs[pol.legal_actions_mask == 0] == 0)
    assert not np.allclose(
        probs, policies.random_policy("leduc_poker", seed=2).action_probability_array
    )


def test_save_and_load_follow_the_file_format(tmp_path):
    game = pyspiel.load_game("kuhn_poker")
    pol = policies.random_policy(game, seed=0)
    path = tmp_path / "p.json"
    policies.save_policy(pol, path, game)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == "kuhn_poker()"
    assert set(data["policy"]) == set(pol.state_lookup)
    row = data["policy"]["0"]
    assert set(row) == {"0", "1"} and sum(row.values()) == pytest.approx(1.0)
    loaded = policies.load_policy(game, path)
    np.testing.assert_allclose(loaded.action_probability_array, pol.action_probability_array)


def _write(path, data):
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "mutate, message",
    [
        (lambda d: d.update(game="leduc_poker"), "not for kuhn_poker"),
        (lambda d: d["policy"].pop("0"), "no distribution"),
        (lambda d: d["policy"]["0"].update({"7": 0.0}), "not legal"),
        (lambda d: d["policy"]["0"].update({"0": 0.9, "1": 0.9}), "not a probability"),
        (lambda d: d.pop("policy"), "not a policy file"),
    ],
)
def test_load_rejects_bad_files(tmp_path, mutate, message):
    game = pyspiel.load_game("kuhn_poker")
    path = tmp_path / "p.json"
    policies.save_policy(policies.uniform_policy(game), path, game)
    data = json.loads(path.read_text(encoding="utf-8"))
    mutate(data)
    with pytest.raises(ValueError, match=message):
        policies.load_policy(game, _write(path, data))
