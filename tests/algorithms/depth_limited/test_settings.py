"""One settings class for the nested bots of both stacks (`depth_limited.settings`): the shared
fields reach the GGSE solve of either bot, the naive variant is K = 1 from the blueprint, and a
results JSON records the fields its stack reads."""

import dataclasses
import json

import pyspiel
import pytest

from ospiel_ext import sequence_form
from ospiel_ext.algorithms import depth_limited as dl
from ospiel_ext.algorithms import subgames as ss
from ospiel_ext.algorithms.depth_limited import settings as settings_lib
from ospiel_ext.algorithms.depth_limited.sampled import public_belief
from ospiel_ext.algorithms.subgames import ggse

KUHN = "kuhn_poker"


def _spy(monkeypatch):
    """Records the keyword arguments of every `ggse.solve` call, then solves as before."""
    calls, real = [], ggse.solve

    def spy(*args, **kwargs):
        calls.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(ggse, "solve", spy)
    return calls


def _play(bots, game):
    return pyspiel.evaluate_bots(game.new_initial_state(), bots, 0)


@pytest.mark.parametrize("stack", ["compiled", "sampled"])
def test_both_bots_solve_with_the_shared_iterations_tremble_and_time_limit(monkeypatch, stack):
    settings = dl.NestedSettings(num_values=3, iterations=7, eps=0.05, time_limit=30.0)
    sf = sequence_form.for_game(KUHN)
    game = sf.tree.game
    if stack == "compiled":
        blueprint = ss.load_blueprint(sf, ss.cfr_checkpoints(game, [5])[0])
        bots = [dl.NestedSolvingBot(sf, blueprint, p, settings=settings, seed=p) for p in (0, 1)]
    else:
        blueprint = ss.mccfr_blueprint(game, 20, seed=0)
        bots = [
            dl.LargeNestedSolvingBot(game, blueprint, p, settings=settings, seed=p) for p in (0, 1)
        ]
    calls = _spy(monkeypatch)
    _play(bots, game)
    assert calls, "no bot solved"
    assert {(c["iterations"], c["eps"], c["time_limit"]) for c in calls} == {(7, 0.05, 30.0)}


def test_the_default_tremble_is_the_gadget_solvers_default(monkeypatch):
    """eps None: `ggse.solve` uses `ggse.DEFAULT_EPS`, what every compiled head to head ran."""
    sf = sequence_form.for_game(KUHN)
    blueprint = ss.load_blueprint(sf, ss.cfr_checkpoints(sf.tree.game, [5])[0])
    calls = _spy(monkeypatch)
    settings = dl.NestedSettings(num_values=3)  # Kuhn's bias set: blueprint, check/call, bet
    bots = [dl.NestedSolvingBot(sf, blueprint, p, settings=settings, seed=p) for p in (0, 1)]
    _play(bots, sf.tree.game)
    assert calls and all(c["eps"] is None for c in calls)
    assert ggse.DEFAULT_EPS == 1e-3


def test_naive_is_one_value_from_the_blueprint():
    base = dl.NestedSettings(num_values=4, strategy_set="self_generative", depth=2)
    naive = base.bot_settings("naive")
    assert (naive.num_values, naive.strategy_set) == (1, "blueprint")
    assert dataclasses.replace(naive, num_values=4, strategy_set="self_generative") == base
    assert base.bot_settings("nested") is base


def test_a_sampled_naive_bot_plays_as_a_one_value_bias_bot():
    """The bias set of K = 1 is the blueprint alone: the two settings give the same games."""
    game = pyspiel.load_game(KUHN)
    blueprint = ss.mccfr_blueprint(game, 20, seed=0)
    base = dl.NestedSettings(iterations=10, num_values=1)

    def returns(settings):
        bots = [
            dl.LargeNestedSolvingBot(game, blueprint, p, settings=settings, seed=p) for p in (0, 1)
        ]
        return [pyspiel.evaluate_bots(game.new_initial_state(), bots, g) for g in range(6)]

    assert returns(base) == returns(base.bot_settings("naive"))


@pytest.mark.parametrize(
    "kwargs", [{"strategy_set": "self_generative"}, {"strategy_set": "blueprint", "num_values": 2}]
)
def test_the_sampled_bot_refuses_sets_it_cannot_build(kwargs):
    game = pyspiel.load_game(KUHN)
    with pytest.raises(ValueError, match="'bias' or 'blueprint'"):
        dl.LargeNestedSolvingBot(
            game, ss.MCCFRPolicy(game, None), 0, settings=dl.NestedSettings(**kwargs)
        )


def test_a_record_holds_the_fields_its_stack_reads():
    settings = dl.NestedSettings(public_key=public_belief.player_actions_key, samples=3)
    compiled = settings.record("compiled")
    sampled = settings.record("sampled")
    assert list(compiled) == list(settings_lib.COMPILED_FIELDS)
    assert not {"public_key", "samples", "max_nodes", "blueprint_iterations"} & set(compiled)
    names = {f.name for f in dataclasses.fields(dl.NestedSettings)}
    assert set(sampled) == names  # the sampled stack reads every field
    assert sampled["public_key"] == "player_actions_key" and sampled["samples"] == 3
    assert json.loads(json.dumps(sampled)) == sampled
