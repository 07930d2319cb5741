"""Arrays <-> TabularPolicy, and the JSON policy file format of docs/policy_files.md."""

import dataclasses
import json

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import expected_game_score

from ospiel_ext import evaluate, loading, policies, policy_files, sequence_form, tree_values
from ospiel_ext.games import _common, examples


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


def test_tables_are_the_policy_read_per_information_state(small_game):
    """`behavioural_to_table` gives, per player and information state, what OpenSpiel's
    TabularPolicy plays there; `behavioural_from_table` takes it back to the same arrays."""
    sf = sequence_form.for_game(small_game)
    layout = policies.layout(sf)
    pol = policies.random_policy(small_game, seed=3)
    behavioural = layout.from_tabular(pol)
    tables = policies.behavioural_to_table(sf, behavioural)
    assert [len(t) for t in tables] == [tp.num_infosets for tp in sf.treeplexes]
    for state in pol.states:
        player = state.current_player()
        row = tables[player][loading.infoset_key(state, player)]
        assert row == pytest.approx(pol.action_probabilities(state, player), abs=1e-15)
    for a, b in zip(policies.behavioural_from_table(sf, tables), behavioural):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("players", [None, [1]], ids=["both", "player1"])
def test_openspiels_own_tabular_policy_is_read_through_its_keys(small_game, players):
    """A TabularPolicy OpenSpiel built (its own row order; of one player or both) is read
    through its own keys, without walking the game for a template, as OpenSpiel asks it
    state by state."""
    pol = policy_lib.TabularPolicy(small_game, players=players)
    rng = np.random.default_rng(7)
    pol.action_probability_array[:] = rng.random(pol.action_probability_array.shape)
    pol.action_probability_array *= pol.legal_actions_mask
    pol.action_probability_array /= pol.action_probability_array.sum(axis=1, keepdims=True)
    sf = sequence_form.for_game(small_game)
    asked = (0, 1) if players is None else (1,)
    fast = policies.PolicyLayout(sf)  # not `layout`'s cached one
    got = fast.from_tabular(pol, players=asked)
    assert "template" not in fast.__dict__
    want = policies.PolicyLayout(sf).from_policy(pol, players=asked)
    for p in asked:
        np.testing.assert_array_equal(got[p], want[p])
    if players == [1]:
        np.testing.assert_array_equal(got[0], sf.treeplexes[0].uniform)


def test_tables_with_missing_rows():
    sf = sequence_form.for_game("kuhn_poker")
    tp0 = sf.treeplexes[0]
    behavioural = (np.r_[1.0, np.tile([0.25, 0.75], tp0.num_infosets)], sf.treeplexes[1].uniform)
    tables = policies.behavioural_to_table(sf, behavioural)
    key = sf.infoset_keys(0)[2]
    assert tables[0][key] == {0: 0.25, 1: 0.75}
    del tables[0][key]
    tables[0][sf.infoset_keys(0)[0]] = {1: 1.0}  # action 0 absent: probability 0
    with pytest.raises(ValueError, match=f"no entry for information state {key!r} of kuhn"):
        policies.behavioural_from_table(sf, tables)
    b0, _ = policies.behavioural_from_table(sf, tables, missing="uniform")
    s = int(tp0.seq_start[2])
    assert list(b0[s : s + 2]) == [0.5, 0.5]
    assert list(b0[int(tp0.seq_start[0]) :][:2]) == [0.0, 1.0]
    # as the tree_values profile: uniform everywhere from a uniform table
    uniform = policies.behavioural_to_table(sf, (tp0.uniform, sf.treeplexes[1].uniform))
    profile = sf.tree_profile(policies.behavioural_from_table(sf, uniform))
    np.testing.assert_array_equal(profile, tree_values.uniform_profile(sf.tree))


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
    policy_files.save_policy(pol, path, game)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["game"] == "kuhn_poker()"
    assert set(data["policy"]) == set(pol.state_lookup)
    row = data["policy"]["0"]
    assert set(row) == {"0", "1"} and sum(row.values()) == pytest.approx(1.0)
    loaded = policy_files.load_policy(game, path)
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
    policy_files.save_policy(policies.uniform_policy(game), path, game)
    data = json.loads(path.read_text(encoding="utf-8"))
    mutate(data)
    with pytest.raises(ValueError, match=message):
        policy_files.load_policy(game, _write(path, data))


def test_policy_files_with_unknown_information_states_are_refused(tmp_path):
    path = tmp_path / "kuhn.json"
    policy_files.save_policy(policies.uniform_policy("kuhn_poker"), path, "kuhn_poker")
    data = json.loads(path.read_text())
    data["policy"]["no such state"] = {"0": 1.0}
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"has information state 'no such state', which kuhn"):
        policy_files.load_policy("kuhn_poker", path)


def test_a_policy_of_another_game_is_not_saved(tmp_path):
    with pytest.raises(ValueError, match=r"a policy of leduc_poker\(\), not of kuhn_poker\(\)"):
        policy_files.save_policy(
            policies.uniform_policy("leduc_poker"), tmp_path / "p.json", "kuhn_poker"
        )
    assert list(tmp_path.iterdir()) == []


PIG = "pig(winscore=6,horizon=6)"  # perfect information, no information_state_string


def test_games_without_information_state_strings_are_keyed_by_history(tmp_path):
    """pig's policies are TabularPolicy objects keyed by the history (each decision node is an
    information set): OpenSpiel's expected game score plays them, and they survive a file."""
    game = pyspiel.load_game(PIG)
    sf = sequence_form.for_game(game)
    layout = policies.layout(sf)
    rng = np.random.default_rng(0)
    behavioural = tuple(
        tp.behavioural(tp.realization_plan(tp.uniform) * rng.uniform(0.5, 1.5, tp.num_sequences))
        for tp in sf.treeplexes
    )
    pol = layout.to_tabular(behavioural)
    assert isinstance(pol, policies.KeyedTabularPolicy)
    assert all(key.startswith("history: ") for key in pol.state_lookup)
    ours = evaluate.evaluate_profile(sf, behavioural).on_policy_values[0]
    theirs = expected_game_score.policy_value(game.new_initial_state(), [pol, pol])[0]
    assert theirs == pytest.approx(ours, abs=1e-12)
    policy_files.save_policy(pol, tmp_path / "pig.json", game)
    loaded = policy_files.load_policy(game, tmp_path / "pig.json")
    np.testing.assert_allclose(loaded.action_probability_array, pol.action_probability_array)
    for a, b in zip(layout.from_tabular(loaded), behavioural):
        np.testing.assert_allclose(a, b, atol=1e-12)


class _SharedKeyState(examples.TwoStageState):
    """RPS+ where both players' information state before moving is "own:" (as phantom_ttt's
    players share the empty board's string)."""

    def information_state(self, player):
        return super().information_state(player).split(" ", 2)[2]


class _SharedKeyGame(examples.TwoStageGame):
    spec = dataclasses.replace(examples.SPECS["rps_plus"], short_name="test_shared_key_rps")

    def new_initial_state(self):
        return _SharedKeyState(self)


pyspiel.register_game(
    _common.game_type("test_shared_key_rps", "RPS+ with a shared key", {}, chance=False),
    _SharedKeyGame,
)


def test_players_sharing_an_information_state_string_keep_their_own_rows(tmp_path):
    """OpenSpiel's TabularPolicy gives both players one row for a shared string; ours keys the
    row by player there, so a profile survives TabularPolicy and the policy file."""
    game = pyspiel.load_game("test_shared_key_rps")
    assert policy_lib.TabularPolicy(game).action_probability_array.shape[0] == 1
    sf = sequence_form.for_game(game)
    layout = policies.layout(sf)
    behavioural = (np.array([1.0, 0.5, 0.3, 0.2]), np.array([1.0, 0.1, 0.1, 0.8]))
    pol = layout.to_tabular(behavioural)
    assert sorted(pol.state_lookup) == ["player 0: own:", "player 1: own:"]
    ours = evaluate.evaluate_profile(sf, behavioural).on_policy_values[0]
    theirs = expected_game_score.policy_value(game.new_initial_state(), [pol, pol])[0]
    assert theirs == pytest.approx(ours, abs=1e-12)
    policy_files.save_policy(pol, tmp_path / "p.json", game)
    for a, b in zip(
        layout.from_tabular(policy_files.load_policy(game, tmp_path / "p.json")), behavioural
    ):
        np.testing.assert_allclose(a, b)
    # a file of OpenSpiel's one shared row gives both players that row, as OpenSpiel plays it
    data = {"game": str(game), "policy": {"own:": {"0": 0.2, "1": 0.3, "2": 0.5}}}
    (tmp_path / "openspiel.json").write_text(json.dumps(data))
    loaded = policy_files.load_policy(game, tmp_path / "openspiel.json")
    np.testing.assert_allclose(loaded.action_probability_array, [[0.2, 0.3, 0.5]] * 2)


def _chance_value(state) -> float:
    """Player 0's expected return by enumerating chance (the games below have no decision)."""
    if state.is_terminal():
        return state.returns()[0]
    assert state.is_chance_node()
    return sum(p * _chance_value(state.child(a)) for a, p in state.chance_outcomes())


@pytest.mark.parametrize("name", ["checkers(rows=4,columns=4)", "go_fish(ranks=2,suits=2)"])
def test_a_game_without_a_decision_node_has_an_empty_policy(name, tmp_path):
    """`solve --policy_out` on such a game ended in OpenSpiel's "GetSubgameStates returned 0
    states!": the policy is empty, and the game's value is chance's alone."""
    game = pyspiel.load_game(name)
    sf = sequence_form.for_game(game)
    assert sf.tree.num_infosets == 0  # no decision node (checkers 4x4 starts terminal)
    pol = policies.layout(sf).to_tabular(tuple(tp.uniform for tp in sf.treeplexes))
    assert pol.state_lookup == {} and pol.action_probability_array.shape == (
        0, game.num_distinct_actions()
    )  # fmt: skip
    value = expected_game_score.policy_value(game.new_initial_state(), [pol, pol])[0]
    assert value == pytest.approx(_chance_value(game.new_initial_state()), abs=1e-12)
    assert evaluate.nash_conv(game, pol) == 0
    policy_files.save_policy(pol, tmp_path / "p.json", game)
    assert json.loads((tmp_path / "p.json").read_text())["policy"] == {}
    again = policy_files.load_policy(game, tmp_path / "p.json")
    assert again.state_lookup == {}


@pytest.mark.parametrize(
    "game",
    ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=4)", PIG, "test_shared_key_rps",
     "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"],
)  # fmt: skip
def test_the_layouts_template_has_openspiels_rows_without_its_walk(game):
    """The template a layout builds from one state per information set of the compiled tree
    is the TabularPolicy OpenSpiel's walk gives: the same keys on the same rows, legal actions
    and states (its `tabular_policy`, itself OpenSpiel's own where the keys are OpenSpiel's)."""
    game = pyspiel.load_game(game)
    ours = policies.PolicyLayout(sequence_form.for_game(game)).template
    walked = policies.tabular_policy(game)
    assert type(ours) is type(walked)
    assert list(ours.state_lookup.items()) == list(walked.state_lookup.items())
    np.testing.assert_array_equal(ours.legal_actions_mask, walked.legal_actions_mask)
    assert [s.history() for s in ours.states] == [s.history() for s in walked.states]
    if type(walked) is policy_lib.TabularPolicy:
        theirs = policy_lib.TabularPolicy(game)
        assert list(theirs.state_lookup.items()) == list(walked.state_lookup.items())
