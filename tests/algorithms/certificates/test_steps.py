"""The step sizes and LP method of the certificate search, chosen as it runs (`steps.Steps`)."""

import pyspiel
import pytest
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext.algorithms import certificates
from ospiel_ext.algorithms.certificates import steps as steps_lib


def _observe(steps, iteration, nodes, growth, seconds=1.0, lp_seconds=0.5):
    steps.observe(
        iteration,
        nodes=nodes,
        nodes_after=int(nodes * (1 + growth)),
        seconds=seconds,
        lp_seconds=lp_seconds,
    )


def test_given_steps_are_kept():
    steps = certificates.Steps(2, "ipm")
    for i in range(1, 20):
        _observe(steps, i, 1000 * i, growth=0.001, lp_seconds=100.0)
    assert (steps.expand_below, steps.lp_method, steps.choices) == (2, "ipm", [])
    assert steps.describe() == "expand_below 2 (given), lp_method ipm (given)"


def test_auto_deepens_while_the_trunk_takes_long_to_double():
    """1 % growth per iteration: 0.01 s iterations double the trunk in 0.7 s (kept), 1 s ones
    in 70 s (deeper, judged by the window's medians, up to `MAX_BELOW`)."""
    steps = certificates.Steps()
    for i in range(1, 10):
        _observe(steps, i, 100, growth=0.01, seconds=0.01)
    assert steps.expand_below == 0 and not steps.choices
    i = 10
    while not steps.choices and i < 10 + steps_lib.WINDOW:
        _observe(steps, i, 10_000, growth=0.01, seconds=1.0)
        i += 1
    assert steps.expand_below == 2 and steps.choices[-1].iteration == i
    assert "grew the trunk 1 % (doubling it in 69.7 s)" in steps.choices[-1].reason
    for j in range(i, i + steps_lib.WINDOW - 1):  # a new window after each change
        _observe(steps, j, 10_000, growth=0.01)
    assert steps.expand_below == 2
    for i in range(20, 80):
        _observe(steps, i, 10_000, growth=0.01)
    assert steps.expand_below == steps_lib.MAX_BELOW  # and no deeper
    for i in range(80, 80 + steps_lib.WINDOW):  # a median above the ceiling: one level back
        _observe(steps, i, 10_000, growth=0.8 if i % 3 else 0.0)
    assert steps.expand_below == steps_lib.MAX_BELOW - 1
    for i in range(90, 90 + steps_lib.WINDOW):  # doubling in under 10 s, growth below 50 %
        _observe(steps, i, 10_000, growth=0.3)
    assert steps.expand_below == steps_lib.MAX_BELOW - 1
    assert steps.lp_method == "simplex"  # LPs of half a second never try ipm


@pytest.mark.parametrize(
    "seconds, growth, levels",
    [
        # 2^(1/10) - 1 = 7.18 % doubles in 10 s: log2(7.18 / 1) = 2.84, two levels deeper
        (1.0, 0.01, 2),
        # minutes per iteration: the growth ceiling, 50 % = 2^7.4 x 0.3 %: seven levels
        (175.0, 0.003, 7),
        # 0.7 % wanted, 0.5 % grown: log2 below 1, still one level
        (0.1, 0.005, 1),
    ],
)
def test_auto_deepens_by_the_levels_that_double_the_growth_to_what_doubles_the_trunk_in_time(
    seconds, growth, levels
):
    steps = certificates.Steps()
    for i in range(1, 1 + steps_lib.WINDOW):
        _observe(steps, i, 100_000, growth=growth, seconds=seconds)
    assert steps.expand_below == levels
    assert steps.room(100_000) == 100_000 * (1 + steps_lib.GROWTH_CEILING)
    assert certificates.Steps(levels).room(100_000) == float("inf")  # given steps: no limit


def test_auto_tries_ipm_once_a_solve_takes_seconds_and_keeps_the_faster_per_node():
    t = steps_lib.IPM_TRIAL_SECONDS
    steps = certificates.Steps(0, steps_lib.AUTO)
    _observe(steps, 1, 10_000, growth=0.2, lp_seconds=0.5 * t)
    assert steps.lp_method == "simplex"
    _observe(steps, 2, 12_000, growth=0.2, lp_seconds=1.5 * t)  # 1.25e-4 t per node
    assert steps.lp_method == "ipm" and "trying ipm" in steps.choices[-1].reason
    _observe(steps, 3, 14_400, growth=0.2, lp_seconds=2.5 * t)  # ipm slower: 1.74e-4 t
    assert steps.lp_method == "simplex" and "simplex again" in steps.choices[-1].reason
    _observe(steps, 4, 17_280, growth=0.2, lp_seconds=2 * t)  # not twice the trial's trunk
    assert steps.lp_method == "simplex"
    _observe(steps, 5, 28_800, growth=0.2, lp_seconds=4 * t)  # twice: tried again
    assert steps.lp_method == "ipm"
    _observe(steps, 6, 34_560, growth=0.2, lp_seconds=2 * t)  # faster per node: kept for good
    assert steps.lp_method == "ipm" and "ipm kept" in steps.choices[-1].reason
    for i in range(7, 12):
        _observe(steps, i, 40_000 * i, growth=0.2, lp_seconds=1000 * t)
    assert steps.lp_method == "ipm" and len(steps.choices) == 4
    assert [c.lp_method for c in steps.choices] == ["ipm", "simplex", "ipm", "ipm"]


@pytest.mark.parametrize(
    "below, method, match",
    [(-1, "auto", "expand_below"), ("deep", "auto", "expand_below"), (0, "barrier", "lp_method")],
)
def test_invalid_steps_are_refused(below, method, match):
    with pytest.raises(ValueError, match=match):
        certificates.Steps(below, method)
    with pytest.raises(ValueError, match=match):
        certificates.search("kuhn_poker", expand_below=below, lp_method=method)


def test_a_search_whose_steps_change_still_certifies_and_says_what_it_chose(monkeypatch):
    """Thresholds at 0: auto deepens and tries ipm from the first iterations of 4-rank
    Goofspiel; the 0-certificate is still one (verified from the game, an equilibrium)."""
    monkeypatch.setattr(steps_lib, "DOUBLING_SECONDS", 0.0)
    monkeypatch.setattr(steps_lib, "IPM_TRIAL_SECONDS", 0.0)
    game = pyspiel.load_game("sequential_goofspiel(num_cards=4)")
    result = certificates.search(game)
    cert = result.certificate
    assert result.stop_reason == "epsilon" and cert.epsilon < 1e-9
    lower, upper = certificates.verify(cert.sequence_form, cert.behavioural)
    assert upper - lower < 1e-9
    pol = certificates.CertificatePolicy(game, cert.strategy_table()).to_tabular()
    assert os_exploitability.nash_conv(game, pol) <= cert.epsilon + 1e-9
    assert any(c.lp_method == "ipm" for c in result.choices)
    assert max(c.expand_below for c in result.choices) >= 1
    last = result.choices[-1]
    assert (result.expand_below, result.lp_method) == (last.expand_below, last.lp_method)
    assert last.iteration <= result.iterations


def test_the_last_iteration_chooses_nothing(monkeypatch):
    """The steps are chosen for a next iteration only: a choice after the last would report
    a method or depth the search never used."""
    observed = []
    observe = steps_lib.Steps.observe

    def counting(self, iteration, **kwargs):
        observed.append(iteration)
        observe(self, iteration, **kwargs)

    monkeypatch.setattr(steps_lib.Steps, "observe", counting)
    result = certificates.search("sequential_goofspiel(num_cards=4)")
    assert observed == list(range(1, result.iterations))
