"""Exact leaf values from a compiled continuation and the cached rollouts.

The exact values are checked against OpenSpiel's `expected_game_score.policy_value` from each
leaf state (an independent recursion over pyspiel states; Goofspiel 4 and 5 with imperfect
information, Liar's dice 1,4), the rollouts against the exact values within their standard
errors, the cached rollouts against the uncached ones draw for draw, and the bot's switch
between the two against the same references.
"""

import itertools

import numpy as np
import pyspiel
import pytest
from open_spiel.python.algorithms import expected_game_score

from ospiel_ext import policies, walk
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms.depth_limited import rollouts
from ospiel_ext.algorithms.depth_limited.sampled import bot as sampled_bot
from ospiel_ext.algorithms.depth_limited.sampled import continuation
from ospiel_ext.algorithms.depth_limited.sampled.from_states import BiasedPolicy
from ospiel_ext.tree_builder import TreeBuilder

GOOFSPIEL4 = (
    "turn_based_simultaneous_game(game=goofspiel(num_cards=4,imp_info=True,"
    "points_order=descending))"
)
GOOFSPIEL5 = GOOFSPIEL4.replace("num_cards=4", "num_cards=5")
LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"


def _states(game, length, limit, seed):
    """Up to `limit` distinct non-terminal states `length` actions deep (random playouts)."""
    rng = np.random.default_rng(seed)
    out = {}
    for _ in range(20 * limit):
        state = game.new_initial_state()
        while len(state.history()) < length and not state.is_terminal():
            if state.is_chance_node():
                actions = [a for a, _ in state.chance_outcomes()]
            else:
                actions = state.legal_actions()
            state.apply_action(int(rng.choice(actions)))
        if not state.is_terminal():
            out.setdefault(tuple(state.history()), state)
        if len(out) == limit:
            break
    return list(out.values())


def _count_nodes(state):
    """The nodes of the game below `state`, itself included (exhaustive enumeration)."""
    if state.is_terminal():
        return 1
    actions = (
        [a for a, _ in state.chance_outcomes()] if state.is_chance_node() else state.legal_actions()
    )
    return 1 + sum(_count_nodes(state.child(a)) for a in actions)


def _profiles(game, player):
    """The solving player's random policy and the opponent's three continuations."""
    own = policies.random_policy(game, 1)
    base = policies.random_policy(game, 2)
    strategies = [base, BiasedPolicy(base, 1 - player, ranks=[0]), policies.uniform_policy(game)]
    return own, strategies


def _policy_values(state, own, strategies, player):
    """v(h, n) by OpenSpiel's recursion: (K,) player 0's value of <own, strategies[n]>."""
    out = []
    for s in strategies:
        by_player = [own, s] if player == 0 else [s, own]
        out.append(expected_game_score.policy_value(state.clone(), by_player)[0])
    return np.array(out)


@pytest.mark.parametrize(
    "game_string, length, player",
    [(GOOFSPIEL4, 3, 0), (GOOFSPIEL4, 4, 1), (GOOFSPIEL5, 4, 0), (LIARS_DICE, 3, 1)],
)
def test_exact_values_equal_openspiel_policy_value(game_string, length, player):
    game = pyspiel.load_game(game_string)
    states = _states(game, length, 12, seed=length)
    own, strategies = _profiles(game, player)
    got = continuation.continuation_values(
        game, states, own, player=player, strategies=strategies, max_nodes=10**6
    )
    assert got.exact.all() and got.nodes > len(states)
    for k, state in enumerate(states):
        expected = _policy_values(state, own, strategies, player)
        np.testing.assert_allclose(got.values[k], expected, rtol=0, atol=1e-12)


def test_node_budget_selects_the_small_continuations():
    """A state is compiled iff the game below it has at most `max_nodes` nodes (counted by
    enumeration); the others are NaN, left to the rollouts."""
    game = pyspiel.load_game(GOOFSPIEL4)
    states = [s for n in (2, 3, 4, 5) for s in _states(game, n, 4, seed=n)]
    sizes = np.array([_count_nodes(s) for s in states])
    budget = int(np.median(sizes))
    own, strategies = _profiles(game, 0)
    got = continuation.continuation_values(
        game, states, own, player=0, strategies=strategies, max_nodes=budget
    )
    np.testing.assert_array_equal(got.exact, sizes <= budget)
    assert got.exact.any() and not got.exact.all()
    assert np.isnan(got.values[~got.exact]).all() and np.isfinite(got.values[got.exact]).all()
    none = continuation.continuation_values(
        game, states, own, player=0, strategies=strategies, max_nodes=0
    )
    assert not none.exact.any() and none.nodes == 0


def test_walk_cut_per_root_stops_only_the_large_roots():
    """`walk.expand_below(max_nodes_per_root=c)` expands a root whose subtree has at most c
    nodes to the end, and leaves unexpanded states below the larger ones (all but those whose
    last expansions, of terminal states only, pass c)."""
    game = pyspiel.load_game(LIARS_DICE)
    states = _states(game, 4, 6, seed=0) + _states(game, 2, 3, seed=1)
    sizes = [_count_nodes(s) for s in states]
    cap = sorted(sizes)[len(sizes) // 2]
    builder = TreeBuilder(game=game)
    n = len(states)
    first = builder.expand_chance(builder.add_root(), range(n), [1 / n] * n)
    roots = [(first + k, s) for k, s in enumerate(states)]
    cut, cut_states, _ = walk.expand_below(
        builder, roots, game.max_game_length() + 1, max_nodes_per_root=cap
    )
    below = {k: 0 for k in range(len(states))}
    for s in cut_states:
        k = next(k for k, r in enumerate(states) if s.history()[: len(r.history())] == r.history())
        below[k] += 1
    for k, size in enumerate(sizes):
        assert size > cap if below[k] else True, (size, cap)  # never cuts a small root
        assert below[k] or size <= cap + 40  # a large root is cut, up to its last level
    assert len(cut) == len(cut_states) > 0


def test_rollouts_agree_with_exact_values():
    game = pyspiel.load_game(GOOFSPIEL4)
    states = _states(game, 3, 8, seed=5)
    own, strategies = _profiles(game, 1)
    exact = continuation.continuation_values(
        game, states, own, player=1, strategies=strategies, max_nodes=10**6
    )
    est = rollouts.rollout_values(
        game,
        [s.history() for s in states],
        own,
        player=1,
        strategies=strategies,
        samples=300,
        seed=3,
    )
    noisy = est.stderr > 0
    z = np.abs(est.mean - exact.values)[noisy] / est.stderr[noisy]
    assert noisy.sum() > len(states) and np.all(z < 4.5)
    np.testing.assert_allclose(est.mean[~noisy], exact.values[~noisy], atol=1e-12)


def test_cached_rollouts_draw_what_the_uncached_draw(monkeypatch):
    """Caching the policies per information state changes no draw: the same seed gives the
    same returns, bit for bit, with the cache on and off."""
    game = pyspiel.load_game(LIARS_DICE)
    states = _states(game, 2, 10, seed=2)
    own, strategies = _profiles(game, 0)
    run = lambda: rollouts.rollout_values(  # noqa: E731
        game, [s.history() for s in states], own, player=0, strategies=strategies,
        samples=5, seed=11,
    )  # fmt: skip
    cached = run()
    monkeypatch.setattr(rollouts, "CACHE_POLICIES", False)
    uncached = run()
    np.testing.assert_array_equal(cached.mean, uncached.mean)
    np.testing.assert_array_equal(cached.stderr, uncached.stderr)


def test_rollout_uniforms_are_the_generator_numbers_in_order(monkeypatch):
    """Drawn in blocks (here of 3), the uniform numbers are the generator's one by one."""
    monkeypatch.setattr(rollouts, "UNIFORM_BLOCK", 3)
    got = list(itertools.islice(rollouts._uniforms(np.random.default_rng(7)), 10))
    rng = np.random.default_rng(7)
    want = [float(rng.random()) for _ in range(10)]
    assert got == want


def _bot(game, exact_leaf_nodes, **kwargs):
    blueprint = policies.random_policy(game, 4)
    settings = dl.NestedSettings(
        public_key="actions", num_values=2, iterations=20, exact_leaf_nodes=exact_leaf_nodes
    )
    return sampled_bot.LargeNestedSolvingBot(
        game, blueprint, 0, settings=settings, seed=3, **kwargs
    )


def test_bot_leaf_values_switch_between_exact_and_rollouts():
    game = pyspiel.load_game(LIARS_DICE)
    states = _states(game, 3, 8, seed=6)
    exact_bot, rollout_bot = _bot(game, 10**6), _bot(game, 0)
    mean, stderr = exact_bot.values(states, exact_bot.blueprint)
    assert np.all(stderr == 0)
    for k, state in enumerate(states):
        expected = _policy_values(state, exact_bot.blueprint, exact_bot.continuations, 0)
        np.testing.assert_allclose(mean[k], expected, atol=1e-12)
    est, est_stderr = rollout_bot.values(states, rollout_bot.blueprint)
    assert np.any(est_stderr > 0)
    noisy = est_stderr > 0
    assert np.all(np.abs(est - mean)[noisy] / est_stderr[noisy] < 6)
    rollout_bot.step(game.new_initial_state().child(0).child(1))  # plays with either
    exact_bot.step(game.new_initial_state().child(0).child(1))


@pytest.mark.parametrize("bad", [-1, True, 2.5])
def test_settings_refuse_a_bad_node_budget(bad):
    game = pyspiel.load_game(LIARS_DICE)
    with pytest.raises(ValueError, match="exact_leaf_nodes"):
        _bot(game, bad)
    with pytest.raises(ValueError, match="max_nodes"):
        continuation.continuation_values(
            game, [game.new_initial_state()], policies.uniform_policy(game), player=0,
            strategies=[policies.uniform_policy(game)], max_nodes=-1,
        )  # fmt: skip
