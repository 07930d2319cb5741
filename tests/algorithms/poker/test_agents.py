"""Batched policies (one call per public node and board) evaluated exactly on the range layout.

The reference is OpenSpiel itself: its per-state `exploitability` of the same policy written
as an ordinary `Policy`, and its own information-state tensors of states built per hand."""

import importlib.util
import os
import signal
import threading

import numpy as np
import pyspiel
import pytest
from helpers import HOLDEM_LIMIT, HOLDEM_NO_LIMIT
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import policies
from ospiel_ext.algorithms.poker import agents, range_parts, range_tree, range_walker, structure
from ospiel_ext.runtime import interrupts

LIMIT, NO_LIMIT = HOLDEM_LIMIT, HOLDEM_NO_LIMIT
HOLDEM = [LIMIT, NO_LIMIT]
ONE_CARD = [
    "kuhn_poker",
    "leduc_poker",
    "limit_leduc_poker(num_ranks=3)",  # one chance action deals both private cards
    "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)",
]


class _SoftmaxOfTensor(policy_lib.Policy):
    """A fixed random linear softmax of the information-state tensor: a stand-in network."""

    def __init__(self, game, seed=0):
        super().__init__(game, [0, 1])
        rng = np.random.default_rng(seed)
        self.weights = rng.normal(
            size=(game.information_state_tensor_size(), game.num_distinct_actions())
        )

    def probabilities(self, tensors, actions):
        logits = np.asarray(tensors, dtype=np.float64) @ self.weights[:, list(actions)]
        e = np.exp(logits - logits.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def action_probabilities(self, state, player_id=None):
        actions = state.legal_actions()
        probs = self.probabilities([state.information_state_tensor()], actions)[0]
        return dict(zip(actions, probs))

    def batched(self, node):
        return self.probabilities(node.information_state_tensors(), node.actions)


# OpenSpiel's walk of the larger games takes seconds: they are compared with the tabular route
# on the same layout (`range_walker.evaluate_tabular`), itself checked against OpenSpiel's walk
# (test_holdem_ranges.py, test_range_policy.py).
OPENSPIEL_WALKS = [LIMIT, *ONE_CARD[:3]]


@pytest.mark.parametrize("game", HOLDEM + ONE_CARD)
def test_an_openspiel_policy_asked_per_hand_has_openspiels_exploitability(game):
    pol = policies.random_policy(pyspiel.load_game(game), seed=3)
    ours = agents.evaluate_batched(game, agents.from_policy(pol))
    theirs = range_walker.evaluate_tabular(pol)
    np.testing.assert_allclose(ours.best_response_values, theirs.best_response_values, atol=1e-12)
    if game in OPENSPIEL_WALKS:
        want = os_exploitability.exploitability(pol.game, pol)
        assert ours.exploitability == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("game", [*HOLDEM, "leduc_poker"])
def test_every_node_builds_its_states_and_openspiels_tensors(game):
    tree = range_tree.RangeTree(structure.detect(game))
    for _, _, _, _, node in agents.public_nodes(tree):
        states = [node.state(h) for h in range(len(node.hands))]
        assert all(s.current_player() == node.player for s in states)
        assert all(tuple(s.legal_actions()) == node.actions for s in states)
        want = np.array([s.information_state_tensor() for s in states], dtype=np.float32)
        np.testing.assert_array_equal(node.information_state_tensors(), want)


@pytest.mark.parametrize("game", HOLDEM)
def test_a_network_on_batched_tensors_has_the_exploitability_of_its_per_state_twin(game):
    """The batched path (tensors built per node) against the same network asked per state."""
    net = _SoftmaxOfTensor(pyspiel.load_game(game))
    ours = agents.evaluate_batched(game, net.batched)
    if game in OPENSPIEL_WALKS:
        want = os_exploitability.exploitability(net.game, net)
    else:
        want = agents.evaluate_batched(game, agents.from_policy(net)).exploitability
    assert ours.exploitability == pytest.approx(want, abs=1e-9)


def test_suit_isomorphism_takes_a_suit_symmetric_agent_and_refuses_another():
    uniform = agents.from_policy(policy_lib.UniformRandomPolicy(pyspiel.load_game(LIMIT)))
    with_suits = agents.evaluate_batched(LIMIT, uniform, suits=True)
    without = agents.evaluate_batched(LIMIT, uniform)
    np.testing.assert_allclose(
        with_suits.best_response_values, without.best_response_values, atol=1e-12
    )
    net = _SoftmaxOfTensor(pyspiel.load_game(LIMIT))  # its weights tell the suits apart
    with pytest.raises(ValueError, match="suit-isomorphic hands"):
        agents.evaluate_batched(LIMIT, net.batched, suits=True)


@pytest.mark.parametrize(
    "answer, message",
    [
        (lambda node: np.ones((len(node.hands), len(node.actions) + 1)), "shape"),
        (lambda node: np.full((len(node.hands), len(node.actions)), -1.0), "negative"),
        (lambda node: np.full((len(node.hands), len(node.actions)), np.nan), "not finite"),
        (lambda node: np.ones((len(node.hands), len(node.actions))), "does not sum to 1"),
    ],
)
def test_a_bad_answer_is_refused_naming_the_node(answer, message):
    with pytest.raises(ValueError, match=f"game universal_poker.*board.*{message}"):
        agents.evaluate_batched(LIMIT, answer)


def test_arrays_too_large_for_the_machine_are_refused_before_any_call(monkeypatch):
    monkeypatch.setattr(agents, "MEMORY_SHARE", 1e-12)
    calls = []
    with pytest.raises(ValueError, match=r"GiB.*suits=True"):
        agents.evaluate_batched(LIMIT, calls.append)
    assert not calls


@pytest.mark.parametrize("threads", [1, 2])
def test_the_last_rounds_answers_are_asked_chunk_by_chunk_and_never_held_whole(
    monkeypatch, threads
):
    """With room for the first round's answers only (`arrays_from_batched` refuses the whole
    tree) and chunks of one board, the agent is asked once per public node and board, and its
    exploitability is the tabular route's (to 1e-12)."""
    tree = range_tree.RangeTree(structure.detect(LIMIT))
    pol = policies.random_policy(pyspiel.load_game(LIMIT), seed=5)
    batched = agents.from_policy(pol)
    entries = [8 * int(np.prod(s)) for per_round in tree.per_hand_shapes for s in per_round]
    first = sum(entries[: len(tree.per_hand_shapes[0])])
    monkeypatch.setattr(agents.budget, "physical_memory", lambda: 2 * first + 1)
    monkeypatch.setattr(agents, "MEMORY_SHARE", 0.5)
    with pytest.raises(ValueError, match="GiB"):
        agents.arrays_from_batched(tree, batched)
    monkeypatch.setattr(range_parts, "CHUNK_VALUES", 1)
    calls = []
    ours = agents.evaluate_batched(
        LIMIT, lambda node: calls.append(node) or batched(node), threads=threads
    )
    assert len(calls) == agents.num_calls(tree)
    theirs = range_walker.evaluate_tabular(pol)
    np.testing.assert_allclose(ours.best_response_values, theirs.best_response_values, atol=1e-12)


@pytest.mark.parametrize("threads", [1, 2])
def test_ctrl_c_stops_the_asking_within_a_call(monkeypatch, threads):
    """A Ctrl-C while the agent is asked (a pass of hours for a slow network) stops it before
    the next call, on every thread, and no chunk queued behind starts: Interrupted (exit 130)."""
    monkeypatch.setattr(range_parts, "CHUNK_VALUES", 1)  # chunks queued behind the signal
    uniform = agents.from_policy(policy_lib.UniformRandomPolicy(pyspiel.load_game(LIMIT)))
    calls, at = [], 40

    def slow(node):
        calls.append(node)
        if len(calls) == at:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # until the main thread's handler has set the flag
                if interrupts.requested():
                    break
                threading.Event().wait(0.01)
        return uniform(node)

    tree = range_tree.RangeTree(structure.detect(LIMIT))
    assert agents.num_calls(tree) > 10 * at
    with interrupts.graceful(), pytest.raises(interrupts.Interrupted):
        agents.evaluate_batched(LIMIT, slow, threads=threads)
    assert len(calls) == at


def test_tensors_not_linear_in_the_own_cards_come_from_each_hands_state(monkeypatch):
    """Wrong columns (as for an encoding that is not one-hot) fail the check: built per hand."""
    monkeypatch.setattr(
        agents._StateBuilder, "own_card_columns", lambda self, player: np.zeros((6, 1))
    )
    tree = range_tree.RangeTree(structure.detect(LIMIT))
    for _, _, _, _, node in list(agents.public_nodes(tree))[:20]:
        want = [node.state(h).information_state_tensor() for h in range(len(node.hands))]
        np.testing.assert_array_equal(node.information_state_tensors(), np.float32(want))
    assert node._states.per_state_nodes == 20


def test_the_benchmarks_card_agent_is_a_policy_that_is_not_suit_symmetric():
    """benchmarks/perf/card_agent.py (holdem.md's agent at scale): distributions over the
    legal actions, evaluated without suit isomorphism and refused with it."""
    path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks", "perf")
    spec = importlib.util.spec_from_file_location("card_agent", os.path.join(path, "card_agent.py"))
    card_agent = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(card_agent)
    tree = range_tree.RangeTree(structure.detect(LIMIT))
    for _, _, _, _, node in list(agents.public_nodes(tree))[:20]:
        probs = card_agent.card_weights(node)
        assert probs.shape == (len(node.hands), len(node.actions)) and np.all(probs > 0)
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert agents.evaluate_batched(LIMIT, card_agent.card_weights).nash_conv > 0
    with pytest.raises(ValueError, match="suit-isomorphic hands"):
        agents.evaluate_batched(LIMIT, card_agent.card_weights, suits=True)
