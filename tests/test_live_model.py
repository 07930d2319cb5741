"""highs.LiveModel: one HiGHS model turned into each LP of a sequence in place. Every answer
is checked against the same LP passed whole to a new HiGHS model (`LinearProgram.run`) and,
for sequence-form LPs, against a best response to the returned strategy."""

import dataclasses

import highspy
import numpy as np
import pytest
import scipy.sparse as sp
from absl import logging

from ospiel_ext import highs_run, lp, sequence_form
from ospiel_ext.algorithms.certificates.trunks import Trunk
from ospiel_ext.highs import Block, LinearProgram, LiveModel


def _guaranteed(sf, player, plan, bound):
    """What `plan` guarantees player `player` against a best response, in player 0's terms."""
    opp = 1 - player
    g = sf.bound_sequence_values(opp, plan, bound)  # the opponent's values (its own sign)
    best, _ = sf.treeplexes[opp].best_response(g)
    return -best if player == 0 else best


@pytest.mark.parametrize("game", ["kuhn_poker", "sequential_goofspiel(num_cards=4)"])
def test_a_growing_trunks_lps_on_one_model_match_fresh_solves(game):
    trunk = Trunk(game)
    live = (LiveModel(), LiveModel())
    models = []
    for _ in range(6):
        sf = sequence_form.TreeSequenceForm(trunk.tree())
        for player, bound in ((0, "hi"), (1, "lo")):
            kept = lp.solve(sf, bound=bound, player=player, live=live[player])
            fresh = lp.solve(sf, bound=bound, player=player)
            assert kept.value == pytest.approx(fresh.value, abs=1e-9)
            plan = kept.plans[player]
            assert _guaranteed(sf, player, plan, bound) == pytest.approx(fresh.value, abs=1e-9)
        models.append(live[0]._h)
        for node in list(trunk.frontier)[:3]:
            trunk.expand(node)
    assert all(m is models[0] for m in models)  # changed in place, never passed again
    # Ctrl-C and progress callbacks are unsubscribed after every run
    assert not models[0].cbSimplexInterrupt.callbacks
    assert not models[0].cbIpmInterrupt.callbacks


def _program(costs, matrix, row_upper, col_ids, row_ids, col_upper=None):
    """max costs^T z, 0 <= z <= col_upper, matrix z <= row_upper, keyed by the given ids."""
    n, m = len(col_ids), len(row_ids)
    upper = np.full(n, np.inf) if col_upper is None else np.asarray(col_upper, dtype=float)
    return LinearProgram(
        "test LP",
        columns=(Block("z", 0, np.asarray(col_ids), np.zeros(n), upper, np.asarray(costs, float)),),
        rows=(
            Block("r", 1, np.asarray(row_ids), np.full(m, -np.inf), np.asarray(row_upper, float)),
        ),
        entries=(("r", "z", sp.csr_matrix(np.asarray(matrix, dtype=float))),),
    )


def test_changed_dropped_and_returning_keys():
    """Coefficients, costs and bounds that change, columns and rows that leave the program
    and come back, and new ones: each answer equals a fresh solve's."""
    programs = [
        _program([1, 2], [[1, 1], [1, 3]], [4, 6], [0, 1], [0, 1]),
        # a coefficient and a cost change, a bound tightens, a new column
        _program([1, 3, 1], [[1, 1, 1], [1, 2, 0]], [4, 5], [0, 1, 2], [0, 1], [np.inf, 1, 5]),
        # column 1 and row 0 leave; a new row
        _program([1, 1], [[1, 1], [2, 1]], [5, 7], [0, 2], [1, 2]),
        # both come back with other values
        _program([2, 1, 1], [[1, 0, 1], [1, 1, 1], [3, 1, 1]], [3, 5, 9], [0, 1, 2], [0, 1, 2]),
    ]
    live = LiveModel()
    for program in programs:
        kept, fresh = live.run(program), program.run()
        assert kept.optimal and fresh.optimal
        assert kept.objective == pytest.approx(fresh.objective, abs=1e-9)
        z = kept.column_values
        cost = program.columns[0].cost
        assert cost @ z == pytest.approx(kept.objective, abs=1e-9)
        assert np.all(program.matrix() @ z <= program.rows[0].upper + 1e-9)
        assert np.all(z >= -1e-9) and np.all(z <= program.columns[0].upper + 1e-9)
        if np.isinf(program.columns[0].upper).all():  # strong duality, rows in program order
            b = program.rows[0].upper
            assert kept.row_duals @ b == pytest.approx(kept.objective, abs=1e-9)


def test_a_failing_kept_model_falls_back_to_a_new_one(monkeypatch):
    sf = sequence_form.for_game("kuhn_poker")
    live = LiveModel()
    first = lp.solve(sf, live=live)
    real = highs_run.run
    calls = []

    def fail_once(h, model, rejected=False, basis=True):
        run = real(h, model, rejected, basis)
        calls.append(h)
        if len(calls) > 1:
            return run
        return dataclasses.replace(run, status=highspy.HighsModelStatus.kSolveError, failed=True)

    monkeypatch.setattr(highs_run, "run", fail_once)
    warnings = []
    monkeypatch.setattr(logging, "warning", lambda msg, *args: warnings.append(msg % args))
    again = lp.solve(sf, live=live)
    assert again.cold_restart and again.value == pytest.approx(first.value, abs=1e-12)
    assert len(warnings) == 1 and "from scratch" in warnings[0]
    assert calls[0] is not calls[1] and live._h is calls[1]


def test_time_limit_applies_to_the_kept_model():
    sf = sequence_form.for_game("leduc_poker")
    live = LiveModel()
    result = lp.sequence_form_lp(sf).run(time_limit=1e-9, live=live)
    assert result.status == "kTimeLimit"
    assert lp.sequence_form_lp(sf).run(live=live).optimal  # the limit does not stay
    with pytest.raises(ValueError, match="time_limit must be positive"):
        live.run(lp.sequence_form_lp(sf).program, time_limit=0.0)
