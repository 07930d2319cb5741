"""Nested depth-limited solving without compiling the game (`depth_limited.sampled.bot`,
`depth_limited.sampled.public_belief`).

Expected values come from the compiled path: the public state and reaches that the large bot
finds by following pyspiel states must be the compiled tree's common-knowledge public state
(`subgames.cuts`) and its reach arrays (`tree_values.reaches`).
"""

import os
import signal

import numpy as np
import pyspiel
import pytest

from ospiel_ext import loading, policies, tree_values
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited.sampled import bot as sampled_bot
from ospiel_ext.algorithms.depth_limited.sampled import public_belief
from ospiel_ext.runtime import interrupts

LEDUC = "leduc_poker"
LIARS_DICE = "liars_dice(numdice=1,dice_sides=4)"
GOOFSPIEL = (
    "turn_based_simultaneous_game(game=goofspiel(imp_info=True,num_cards=4,"
    "points_order=descending))"
)

KEYS = {"leduc_poker": "observer", "liars_dice": "actions", "turn_based_simultaneous_game": "lines"}


def _play(game, seed, moves):
    """A state after `moves` player moves, actions uniformly at random (None if it ends)."""
    rng = np.random.default_rng(seed)
    state, made = game.new_initial_state(), 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        if made == moves:
            return state
        state.apply_action(int(rng.choice(state.legal_actions())))
        made += 1
    return None


def _node(tree, state):
    node = 0
    for a in state.history():
        children = tree.children(node)
        node = children.start + int(np.flatnonzero(tree.action[children] == a)[0])
    return node


@pytest.mark.parametrize("name", [LEDUC, LIARS_DICE])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_public_belief_is_the_compiled_public_state_with_its_reaches(name, seed):
    sf = ss.blueprints.full_game(name)
    game = sf.tree.game
    rng = np.random.default_rng(seed)
    profile = policies.random_policy(game, seed, 1.0)
    behavioural = policies.layout(sf).from_tabular(profile)
    for moves in (1, 2, 3):
        state = _play(game, seed + 10 * moves, moves)
        if state is None:
            continue
        player = int(rng.integers(2))
        key = public_belief.make_public_key(game, KEYS[game.get_type().short_name])
        belief = public_belief.PublicBelief(game, key, player)
        belief.advance(state, [profile, profile])
        sub = next(
            s for s in ss.subgames(sf.tree, ss.Cut.after_moves(moves))
            if np.any(s.roots == _node(sf.tree, state))
        )  # fmt: skip
        want = {tuple(sf.tree.history(int(r))): int(r) for r in sub.roots}
        got = {tuple(s.history()): k for k, s in enumerate(belief.states)}
        assert set(got) == set(want)
        r = tree_values.reaches(sf.tree, sf.tree_profile(behavioural))
        for h, k in got.items():
            node = want[h]
            expected = [r.player0[node], r.player1[node], r.chance[node]]
            np.testing.assert_allclose(belief.reach[:, k], expected, rtol=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_goofspiel_belief_is_every_history_with_the_public_lines_and_their_reaches(seed):
    # 'lines' is coarser than the common-knowledge public state (a draw 0-0 and a draw 1-1
    # look alike but share no information set), so the reference is the compiled tree's
    # histories of the actual one's length and public key that the bot itself reaches.
    sf = ss.blueprints.full_game(GOOFSPIEL)
    tree, game = sf.tree, sf.tree.game
    profile = policies.random_policy(game, seed, 1.0)
    probs = profile.action_probability_array  # every other information state never plays
    rows = np.flatnonzero(profile.legal_actions_mask.sum(axis=1) > 1)[::2]  # its first action
    probs[rows, np.argmax(profile.legal_actions_mask[rows], axis=1)] = 0.0
    probs /= probs.sum(axis=1, keepdims=True)
    r = tree_values.reaches(tree, sf.tree_profile(policies.layout(sf).from_tabular(profile)))
    key = public_belief.make_public_key(game, "lines")
    for moves in (1, 2, 3, 4):
        state = _play(game, seed + 10 * moves, moves)
        player = (seed + moves) % 2
        belief = public_belief.PublicBelief(game, key, player)
        belief.advance(state, [profile, profile])
        own = (r.player0, r.player1)[player]
        want = {}
        for node in range(tree.num_nodes):
            history = tree.history(node)
            if len(history) != len(state.history()) or key(tree.state(node)) != key(state):
                continue
            if own[node] * r.chance[node] > 0 or history == state.history():  # actual: kept
                want[tuple(history)] = node
        got = {tuple(s.history()): k for k, s in enumerate(belief.states)}
        assert set(got) == set(want) and len(got) > 1
        for h, k in got.items():
            node = want[h]
            expected = [r.player0[node], r.player1[node], r.chance[node]]
            np.testing.assert_allclose(belief.reach[:, k], expected, rtol=1e-9)


def test_goofspiel_public_key_hides_the_cards_and_shows_the_outcomes():
    game = pyspiel.load_game(GOOFSPIEL)

    def after(actions):
        s = game.new_initial_state()
        for a in actions:
            s.apply_action(a)
        return s

    key = public_belief.common_lines_key
    # round 1: P0 bids 4 then P1 bids 1 or 2 (P0 wins either way) vs P1 bids 4 (a draw)
    assert key(after([3, 0])) == key(after([3, 1]))
    assert key(after([3, 0])) != key(after([3, 3]))
    assert key(after([3])) == key(after([0]))


def test_the_cached_lines_key_is_common_lines_key():
    """`CommonLinesKey` (each string's lines kept, a table dropped when full) gives
    `common_lines_key` at every state of a Goofspiel game, terminals included."""
    game = pyspiel.load_game(GOOFSPIEL)
    cached = public_belief.CommonLinesKey(loading.key_function(game), capacity=7)
    states, seen = [game.new_initial_state()], 0
    while states:
        s = states.pop()
        assert cached(s) == public_belief.common_lines_key(s)
        seen += 1
        if not s.is_terminal():
            states.extend(s.child(a) for a in s.legal_actions())
    assert seen > 7 * 10  # the tables were dropped many times over
    assert public_belief.make_public_key(game, "lines")(game.new_initial_state()) == (
        public_belief.common_lines_key(game.new_initial_state())
    )


def _bots(game, blueprint, gadget, prior, seed):
    return [
        sampled_bot.LargeNestedSolvingBot(
            game, blueprint, p, gadget=gadget, prior=prior, seed=seed + p,
            settings=dl.NestedSettings(
                public_key=KEYS[game.get_type().short_name], depth=2, num_values=3,
                iterations=50, samples=2,
            ),
        )
        for p in (0, 1)
    ]  # fmt: skip


def test_evaluate_bots_restarts_the_nested_bots():
    """`pyspiel.evaluate_bots` calls `restart` (not `restart_at`) before each game; the bots
    then forget the last game's solutions and belief."""
    game = pyspiel.load_game(LEDUC)
    mccfr = ss.mccfr_blueprint(game, 50, seed=0)
    settings = dl.NestedSettings(iterations=20, samples=4)
    bots = [
        sampled_bot.LargeNestedSolvingBot(game, mccfr, p, settings=settings, seed=p) for p in (0, 1)
    ]
    pyspiel.evaluate_bots(game.new_initial_state(), bots, 3)
    assert any(b.overrides for b in bots)
    for b in bots:
        b.restart()
        assert not b.overrides and b.belief.length == 0 and b._opponent_moves == -1


@pytest.mark.parametrize("name", [LEDUC, LIARS_DICE, GOOFSPIEL])
@pytest.mark.parametrize(
    "gadget,prior", [("resolving", "blueprint"), ("max_margin", "uniform"), ("unsafe", "none")]
)
def test_bots_play_legal_actions_and_are_deterministic_for_a_seed(name, gadget, prior):
    game = pyspiel.load_game(name)
    blueprint = ss.mccfr_blueprint(game, 200, seed=0)
    runs = []
    for _ in range(2):
        bots = _bots(game, blueprint, gadget, prior, seed=5)
        histories = []
        for g in range(3):
            state = game.new_initial_state()
            rng = np.random.default_rng(g)
            for b in bots:
                b.restart_at(state)
            while not state.is_terminal():
                if state.is_chance_node():
                    actions, probs = zip(*state.chance_outcomes())
                    state.apply_action(int(rng.choice(actions, p=probs)))
                    continue
                a = bots[state.current_player()].step(state)
                assert a in state.legal_actions()
                state.apply_action(a)
            histories.append(state.history())
        assert all(b.solves > 0 for b in bots)
        runs.append(histories)
    assert runs[0] == runs[1]


def test_solution_strategies_are_distributions_over_legal_actions():
    game = pyspiel.load_game(LIARS_DICE)
    blueprint = ss.mccfr_blueprint(game, 200, seed=0)
    bot = _bots(game, blueprint, "resolving", "blueprint", seed=0)[1]
    state = _play(game, 3, 1)
    solution = bot.solve(state)
    assert solution.gadget.kind == "resolving"
    assert bot.overrides and state.information_state_string(1) in bot.overrides
    for row in bot.overrides.values():
        assert abs(sum(row.values()) - 1) < 1e-9 and min(row.values()) >= 0


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"gadget": "reach_max_margin"}, "unknown gadget"),
        ({"gadget": "unsafe", "prior": "uniform"}, "prior"),
        ({"depth": 0}, "depth"),
        ({"samples": 1}, "samples"),
        ({"public_key": "nope"}, "public key"),
        ({"public_key": "observer"}, "no public observer"),
        ({"num_values": 99}, "bias set"),
        ({"player": 2}, "player"),
    ],
)
def test_bad_settings_raise_one_clear_error(kwargs, match):
    game = pyspiel.load_game(LIARS_DICE)
    args = {"player": 0, "public_key": "actions", **kwargs}
    bot_args = {k: args.pop(k) for k in ("player", "gadget", "prior") if k in args}
    settings = dl.NestedSettings(**args)
    with pytest.raises(ValueError, match=match):
        sampled_bot.LargeNestedSolvingBot(
            game, policies.uniform_policy(game), settings=settings, **bot_args
        )


def test_simultaneous_and_three_player_games_are_refused():
    with pytest.raises(ValueError, match="sequential"):
        sampled_bot.LargeNestedSolvingBot(
            pyspiel.load_game("goofspiel(num_cards=3)"),
            policies.uniform_policy(pyspiel.load_game(GOOFSPIEL)), 0,
        )  # fmt: skip
    three = pyspiel.load_game("kuhn_poker(players=3)")
    with pytest.raises(ValueError, match="kuhn_poker"):
        sampled_bot.LargeNestedSolvingBot(three, policies.uniform_policy(three), 0)


def test_bias_set_favours_legal_ranks_wherever_the_legal_actions_are():
    game = pyspiel.load_game(LIARS_DICE)
    uniform = policies.uniform_policy(game)
    strategies, labels = sampled_bot.bias_set(uniform, 1, 4, game)
    assert labels == ["blueprint", "bias legal rank 0", "bias legal rank -1", "bias legal rank 1"]
    state = game.new_initial_state()
    for a in (0, 1, 5):  # the dice, then player 0 bids: player 1's legal actions start at 6
        state.apply_action(a)
    legal = state.legal_actions()
    n = len(legal)
    for strategy, favoured in zip(strategies[1:], (legal[0], legal[-1], legal[1])):
        probs = strategy.action_probabilities(state)
        assert probs[favoured] == pytest.approx(10 / (n + 9))  # uniform, one action x 10
        others = [a for a in legal if a != favoured]
        assert all(probs[a] == pytest.approx(1 / (n + 9)) for a in others)


def _belief_after(game, key, seed, moves, player):
    """The exact public belief of `player` after `moves` random player moves, and the state."""
    state = _play(game, seed, moves)
    belief = public_belief.PublicBelief(game, public_belief.make_public_key(game, key), player)
    profile = policies.random_policy(game, seed, 1.0)
    belief.advance(state, [profile, profile])
    return belief, state


def test_sampled_reaches_are_unbiased_and_keep_the_kept_histories():
    game = pyspiel.load_game(GOOFSPIEL)
    belief, state = _belief_after(game, "lines", 4, 4, 0)
    n = len(belief.states)
    assert n > 12  # the budget below makes it sample
    own = state.information_state_string(0)
    keep = np.array([s.information_state_string(0) == own for s in belief.states])
    index = {tuple(s.history()): k for k, s in enumerate(belief.states)}
    seeds = 4000
    samples = np.zeros((seeds, n))
    for seed in range(seeds):
        sample = public_belief.sample_histories(belief, 12, np.random.default_rng(seed), keep)
        rows = [index[tuple(s.history())] for s in sample.states]
        assert set(np.flatnonzero(keep)) <= set(rows) and len(rows) <= 12
        np.testing.assert_array_equal(sample.reach[:2], belief.reach[:2, rows])  # P_0, P_1 kept
        samples[seed, rows] = sample.reach[2]
    # Each history's chance reach (and the total reach, the sum every solve normalises by):
    # unbiased (Duffield, Lund & Thorup 2007, Theorem 1), so the mean over seeds is within 5
    # standard errors of the exact value.
    se = samples.std(axis=0) / np.sqrt(seeds)
    err = np.abs(samples.mean(axis=0) - belief.reach[2])
    assert np.all(err <= 5 * se + 1e-12)
    assert np.any(se > 0)  # some histories were sampled
    total = (np.prod(belief.reach[:2], axis=0) * samples).sum(axis=1)
    want = np.prod(belief.reach, axis=0).sum()
    assert abs(total.mean() - want) <= 5 * total.std() / np.sqrt(seeds) + 1e-12


def test_sampling_at_or_under_the_budget_is_the_belief_and_leaves_the_rng():
    game = pyspiel.load_game(GOOFSPIEL)
    belief, _ = _belief_after(game, "lines", 4, 4, 0)
    rng = np.random.default_rng(0)
    keep = np.zeros(len(belief.states), dtype=bool)
    assert public_belief.sample_histories(belief, len(belief.states), rng, keep) is belief
    assert rng.integers(2**31) == np.random.default_rng(0).integers(2**31)


def _game_with(bot_settings, game, blueprint, seed=3):
    """The histories of two games between bots with these settings, and their solutions' values."""
    bots = [
        sampled_bot.LargeNestedSolvingBot(
            game, blueprint, p, settings=bot_settings, gadget="resolving", prior="blueprint",
            seed=seed + p,
        )
        for p in (0, 1)
    ]  # fmt: skip
    out = []
    for g in range(2):
        state, rng = game.new_initial_state(), np.random.default_rng(g)
        for b in bots:
            b.restart()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            state.apply_action(bots[state.current_player()].step(state))
        out.append(state.history())
    return out, [sorted(b.overrides.items()) for b in bots]


def test_a_budget_of_every_history_changes_no_decision():
    game = pyspiel.load_game(GOOFSPIEL)
    blueprint = ss.mccfr_blueprint(game, 200, seed=0)
    base = dict(public_key="lines", depth=1, num_values=3, iterations=50, samples=2)
    want = _game_with(dl.NestedSettings(**base), game, blueprint)
    for budget in (0, 10_000):  # Goofspiel 4's public states have far fewer histories
        got = _game_with(dl.NestedSettings(**base, max_histories=budget), game, blueprint)
        assert got == want
        carried = dl.NestedSettings(**base, max_belief_histories=budget)
        assert _game_with(carried, game, blueprint) == want


def test_a_carried_sample_keeps_the_bots_information_set_and_the_actual_history():
    """With `max_belief_histories`, the belief carried to the next decision is a sample: at most
    the budget beside the bot's own information set, which it keeps whole (so the actual
    history), with the exact belief's reaches there; the game goes on from it to the end."""
    game = pyspiel.load_game(GOOFSPIEL)
    blueprint = ss.mccfr_blueprint(game, 200, seed=0)
    budget = 3
    settings = dl.NestedSettings(
        public_key="lines", depth=1, num_values=3, iterations=20, samples=2,
        max_belief_histories=budget,
    )  # fmt: skip
    thinned = 0
    for seed in range(4):
        bots = [sampled_bot.LargeNestedSolvingBot(game, blueprint, p, settings=settings, seed=seed)
                for p in (0, 1)]  # fmt: skip
        exact = public_belief.PublicBelief(game, bots[1].public_key, 1)
        state = game.new_initial_state()  # Goofspiel 4 descending: no chance
        while not state.is_terminal():
            p = state.current_player()
            if p == 1:
                exact.advance(state, bots[1]._policy_of())
            action = bots[p].step(state)
            if p == 1:
                belief, own = bots[1].belief, state.information_state_string(1)
                want = {tuple(s.history()): k for k, s in enumerate(exact.states)
                        if s.information_state_string(1) == own}  # fmt: skip
                got = {tuple(s.history()): k for k, s in enumerate(belief.states)}
                assert want.keys() <= got.keys() and tuple(state.history()) in got
                if len(exact.states) > budget:
                    assert len(got) <= max(budget, len(want))
                else:
                    assert got.keys() == {tuple(s.history()) for s in exact.states}
                for h, k in want.items():
                    np.testing.assert_array_equal(belief.reach[:, got[h]], exact.reach[:, k])
                thinned += len(belief.states) < len(exact.states)
                exact = public_belief.PublicBelief(game, bots[1].public_key, 1)
                exact.states, exact.reach = list(belief.states), belief.reach.copy()
                exact.path = list(belief.path)  # the exact walk goes on from the carried one
            state.apply_action(action)
    assert thinned


def test_the_bots_own_information_set_is_always_in_the_solve():
    game = pyspiel.load_game(GOOFSPIEL)
    blueprint = ss.mccfr_blueprint(game, 200, seed=0)
    settings = dl.NestedSettings(
        public_key="lines", depth=1, num_values=3, iterations=20, samples=2, max_histories=2
    )
    sampled = 0
    for seed in range(6):
        bot = sampled_bot.LargeNestedSolvingBot(game, blueprint, 1, settings=settings, seed=seed)
        state = _play(game, seed, 5)
        bot.belief.advance(state, bot._policy_of())
        sample = bot.solve_belief(state)
        own = state.information_state_string(1)
        want = {
            tuple(s.history()) for s in bot.belief.states if s.information_state_string(1) == own
        }
        got = {tuple(s.history()) for s in sample.states}
        assert want <= got
        sampled += len(bot.belief.states) > 2
        bot.step(state)  # plays: its information set is solved
        assert own in bot.overrides
    assert sampled


@pytest.mark.parametrize("bad", [-1, True, 2.5, "10"])
@pytest.mark.parametrize("name", ["max_histories", "max_belief_histories"])
def test_a_bad_history_budget_raises_naming_the_game(bad, name):
    game = pyspiel.load_game(LIARS_DICE)
    settings = dl.NestedSettings(public_key="actions", **{name: bad})
    with pytest.raises(ValueError, match=rf"liars_dice.*{name}"):
        sampled_bot.LargeNestedSolvingBot(game, policies.uniform_policy(game), 0, settings=settings)


def test_a_signal_stops_the_belief_between_histories_and_keeps_it_whole():
    """`PublicBelief.advance` checks for Ctrl-C / SIGTERM per history (a late step walks 10^5
    of them): it raises `interrupts.Interrupted`, and the belief stands after the last step
    it took, from where a later call goes on as if uninterrupted."""
    game = pyspiel.load_game(GOOFSPIEL)
    uniform = policies.random_policy(game, 0)
    state = game.new_initial_state()
    for _ in range(4):
        state.apply_action(state.legal_actions()[0])
    belief = public_belief.PublicBelief(game, public_belief.make_public_key(game, "lines"), 0)
    want = public_belief.PublicBelief(game, belief.public_key, 0)
    want.advance(state, [uniform, uniform])
    with interrupts.graceful():
        os.kill(os.getpid(), signal.SIGTERM)
        with pytest.raises(interrupts.Interrupted):
            belief.advance(state, [uniform, uniform])
    assert belief.path == [] and len(belief.states) == 1 and belief.reach.shape == (3, 1)
    belief.advance(state, [uniform, uniform])
    assert [s.history() for s in belief.states] == [s.history() for s in want.states]
    np.testing.assert_array_equal(belief.reach, want.reach)
