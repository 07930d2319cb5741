"""The nested depth-limited solving bot of a compiled game (Brown, Sandholm & Amos 2018,
"Depth-Limited Solving for Imperfect-Information Games", Section 5): legal actions only,
deterministic for a seed, re-solving after opponent actions, and the blueprint bot's sampling
frequencies."""

import numpy as np
import pyspiel
import pytest

from ospiel_ext import sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss


@pytest.fixture(scope="module", name="leduc")
def fixture_leduc():
    sf = sequence_form.for_game("leduc_poker")
    blueprint = ss.load_blueprint(sf, ss.cfr_checkpoints(sf.tree.game, [20])[0])
    return sf, blueprint


class _CheckingBot(pyspiel.Bot):
    """Wraps a bot and checks each of its actions is legal."""

    def __init__(self, bot):
        pyspiel.Bot.__init__(self)
        self.bot, self.actions = bot, []

    def restart(self):
        self.bot.restart()

    def restart_at(self, state):
        self.bot.restart_at(state)

    def step(self, state):
        action = self.bot.step(state)
        assert action in state.legal_actions()
        self.actions.append(action)
        return action


def _play(sf, blueprint, seed, games=15, gadget="resolving", prior="none", depth=2, **kw):
    settings = dl.NestedSettings(iterations=50, depth=depth, **kw)
    nested = _CheckingBot(
        dl.NestedSolvingBot(
            sf, blueprint, 0, settings=settings, gadget=gadget, prior=prior, seed=seed
        )
    )
    other = _CheckingBot(dl.ProfileBot(sf, blueprint, 1, seed=seed + 1))
    returns = [
        pyspiel.evaluate_bots(sf.tree.game.new_initial_state(), [nested, other], g)[0]
        for g in range(games)
    ]
    return returns, nested.actions, nested.bot


def test_evaluate_bots_restarts_the_nested_bots(leduc):
    """`pyspiel.evaluate_bots` calls `restart` (not `restart_at`) before each game; the nested
    bot then forgets the last game's solutions (a bot that kept them started the next game
    from the last game's spliced profile, its path and its opponent-move count)."""
    sf, blueprint = leduc
    nested = dl.NestedSolvingBot(
        sf, blueprint, 0, settings=dl.NestedSettings(iterations=20), seed=1
    )
    other = dl.ProfileBot(sf, blueprint, 1, seed=2)
    game = sf.tree.game
    pyspiel.evaluate_bots(game.new_initial_state(), [nested, other], 0)
    assert nested._path and nested._opponent_moves >= 0
    restarted = []
    nested.restart_at = lambda state: (
        restarted.append(state),
        type(nested).restart_at(nested, state),
    )
    pyspiel.evaluate_bots(game.new_initial_state(), [nested, other], 0)
    assert restarted == [None]
    nested.restart()
    assert nested._path == () and nested.behavioural is nested.blueprint


@pytest.mark.parametrize(
    "kw",
    [
        {"strategy_set": "bias", "num_values": 4, "gadget": "resolving"},
        {"strategy_set": "blueprint", "num_values": 1, "gadget": "max_margin", "prior": "uniform"},
        {"strategy_set": "self_generative", "num_values": 2, "gadget": "unsafe", "depth": 1},
    ],
)
def test_legal_and_deterministic_for_a_seed(leduc, kw):
    sf, blueprint = leduc
    returns, actions, bot = _play(sf, blueprint, 7, **kw)
    again, actions_again, _ = _play(sf, blueprint, 7, **kw)
    assert returns == again and actions == actions_again
    assert bot.solves >= 1


def test_profile_bot_samples_its_strategy(leduc):
    sf, blueprint = leduc
    bot = dl.ProfileBot(sf, blueprint, 0, seed=3)
    state = sf.tree.game.new_initial_state()
    state.apply_action(0)
    state.apply_action(3)
    p = bot.probabilities(bot.node(state))
    counts = np.bincount([bot.step(state) for _ in range(4000)], minlength=3)[1:]
    legal = state.legal_actions()
    assert legal == [1, 2]
    # within 4 standard deviations of the binomial
    assert abs(counts[0] / 4000 - p[0]) < 4 * np.sqrt(p[0] * (1 - p[0]) / 4000) + 1e-12


def test_bot_checks():
    sf = sequence_form.for_game("kuhn_poker")
    b = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    with pytest.raises(ValueError, match="depth must be"):
        dl.NestedSolvingBot(sf, b, 0, settings=dl.NestedSettings(depth=0))
    with pytest.raises(ValueError, match="K = 1"):
        dl.NestedSolvingBot(
            sf, b, 0, settings=dl.NestedSettings(strategy_set="blueprint", num_values=3)
        )
    with pytest.raises(ValueError, match="player must be 0 or 1"):
        dl.ProfileBot(sf, b, 2, seed=0)
    bot = dl.ProfileBot(sf, b, 1, seed=0)
    state = sf.tree.game.new_initial_state()
    state.apply_action(0)
    state.apply_action(1)
    with pytest.raises(ValueError, match="asked to move for player 0"):
        bot.step(state)
