"""The experiment grid of Kubíček, Lisý & Sandholm (2025), "Equilibrium Refinements Improve
Subgame Solving in Imperfect-Information Games", Section 8 / Appendix B.1: records through the
serial executor and a local Dask cluster agree; safety and Theorem 1 hold on every safe record;
the t-test table is scipy's paired one-sided test."""

import dataclasses

import numpy as np
import pyspiel
import pytest
import scipy.stats
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import policies
from ospiel_ext.algorithms.subgames import blueprints
from ospiel_ext.algorithms.subgames import experiment as ex
from ospiel_ext.runtime import executors

try:
    import dask.distributed as dd
except ImportError:
    dd = None

GAME = "kuhn_poker"
TECHNIQUES = ("resolving/none", "resolving/blueprint", "max_margin/uniform", "unsafe")


@pytest.fixture(scope="module")
def tasks():
    bps = blueprints.make_blueprints(GAME, [3], [1])
    return ex.grid(
        [(GAME, "after_moves=1")], [bps], TECHNIQUES, solvers=["cfr_plus", "lp"], iterations=50
    )


@pytest.fixture(scope="module")
def serial(tasks):
    with executors.executor("local") as e:
        return ex.sweep(tasks, e).results


def _strip(record):
    return dataclasses.replace(record, seconds=0.0)


@pytest.mark.skipif(dd is None, reason="dask.distributed not installed")
def test_local_dask_gives_the_serial_records(tasks, serial):
    with executors.executor("local-dask", 2) as e:
        result = ex.sweep(tasks, e)
    assert not result.interrupted and len(result.results) == len(tasks) == 16
    for a, b in zip(serial, result.results):
        assert _strip(a) == _strip(b)


def test_records_match_openspiel_and_theory(tasks, serial):
    game = pyspiel.load_game(GAME)
    layout = policies.layout_for_game(game)
    for task, r in zip(tasks, serial):
        assert (r.blueprint, r.technique, r.solver) == (task.blueprint, task.technique, task.solver)
        pol = layout.to_tabular(task.behavioural)
        assert r.blueprint_exploitability == pytest.approx(
            os_exploitability.exploitability(game, pol), abs=1e-12
        )
        assert r.blueprint_exploitability == pytest.approx(
            sum(r.blueprint_player_exploitability) / 2, abs=1e-12
        )
        assert r.exploitability == pytest.approx(sum(r.player_exploitability) / 2, abs=1e-12)
        for p in (0, 1):
            assert r.gain[p] >= r.theorem1_bound[p] - 1e-9  # Theorem 1
            if r.technique != "unsafe" and r.solver == "lp":  # safety of exact gadget solutions
                assert r.player_exploitability[p] <= r.blueprint_player_exploitability[p] + 1e-9


def test_a_cfr_task_with_one_blueprint_resolved_by_hand():
    # cfr:1 on Kuhn: CFR's first average policy is uniform, whose exploitability is 11/24; the
    # cut after one move has two public states (after a pass, after a bet).
    label, b = blueprints.blueprint_from_spec(GAME, "cfr:1")
    uniform = policies.layout_for_game(GAME).behavioural(policies.uniform_policy(GAME))
    for p in (0, 1):
        np.testing.assert_allclose(b[p], uniform[p])
    task = ex.Task(
        game=GAME,
        cut="after_moves=1",
        blueprint=label,
        behavioural=b,
        technique="resolving/none",
        solver="lp",
        iterations=1,
        eps=1e-3,
    )
    r = ex.run_task(task)
    assert r.blueprint_exploitability == pytest.approx(11 / 24, abs=1e-12)
    assert r.subgames == 2


def test_bad_tasks_are_refused():
    b = blueprints.blueprint_from_spec(GAME, "dirichlet:0")[1]
    for field, value, message in [
        ("technique", "nope", "unknown technique"),
        ("solver", "simplex", "unknown solver"),
        ("eps", 1.0, "eps must be in"),
        ("cut", "after_moves=x", "unknown cut"),
    ]:
        task = ex.Task(
            game=GAME,
            cut="after_moves=1",
            blueprint="d",
            behavioural=b,
            technique="unsafe",
            solver="lp",
            iterations=10,
            eps=1e-3,
        )
        task = dataclasses.replace(task, **{field: value})
        with pytest.raises(ValueError, match=message):
            ex.check_task(task)


def _record(game, blueprint, technique, exploitability):
    z = (0.0, 0.0)
    return ex.Record(
        game=game,
        cut="c",
        blueprint=blueprint,
        technique=technique,
        solver="lp",
        iterations=1,
        eps=1e-3,
        subgames=1,
        blueprint_exploitability=1.0,
        exploitability=exploitability,
        blueprint_player_exploitability=z,
        player_exploitability=z,
        gain=z,
        theorem1_bound=z,
        min_delta=z,
        seconds=0.0,
    )


def test_t_tests_are_scipys_paired_one_sided_test():
    rng = np.random.default_rng(0)
    a, b = rng.random(7), rng.random(7)
    records = [_record("g", f"bp{k}", "A", a[k]) for k in range(7)]
    records += [_record("g", f"bp{k}", "B", b[k]) for k in range(7)]
    records.append(_record("g", "only-one", "A", 0.5))  # unmatched: left out
    tests = {(t.row, t.column): t for t in ex.paired_t_tests(records, ["A", "B"])}
    assert set(tests) == {("A", "B"), ("B", "A")}
    for (row, col), x, y in ((("A", "B"), a, b), (("B", "A"), b, a)):
        expected = scipy.stats.ttest_rel(x, y, alternative="less")
        t = tests[row, col]
        assert t.n == 7
        assert t.p_value == pytest.approx(expected.pvalue, rel=1e-12)
        assert t.statistic == pytest.approx(expected.statistic, rel=1e-12)
        assert t.mean_difference == pytest.approx(np.mean(x - y), rel=1e-12)
