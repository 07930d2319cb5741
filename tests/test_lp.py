"""Sequence-form LP on HiGHS: values from theory, both strategies, bounds, constraints."""

import dataclasses
import os
import signal
import subprocess
import sys
import time

import highspy
import numpy as np
import pyspiel
import pytest
import scipy.sparse as sp
from absl import logging
from helpers import KUHN_VALUE, LEDUC_VALUE
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, highs, highs_run, lp, lp_model, policies, sequence_form
from ospiel_ext.algorithms import certificates
from ospiel_ext.algorithms.certificates.trunks import Trunk
from ospiel_ext.constraints import BehaviouralLowerBounds
from ospiel_ext.runtime import interrupts
from ospiel_ext.tree_builder import TreeBuilder


@pytest.mark.parametrize(
    "game, value, tol",
    [
        ("kuhn_poker", KUHN_VALUE, 1e-12),
        ("leduc_poker", LEDUC_VALUE, 1e-6),
        ("matrix_rps", 0.0, 1e-12),
    ],
)
@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("method", highs.METHODS)
def test_values_and_equilibria(game, value, tol, player, method):
    game = pyspiel.load_game(game)
    sf = sequence_form.for_game(game)
    solution = lp.solve(sf, player=player, method=method, return_basis=True)
    assert solution.value == pytest.approx(value, abs=tol)
    pol = policies.layout(sf).to_tabular(solution.behavioural)
    assert os_exploitability.exploitability(sf.tree.game, pol) < 1e-9
    for tp, x in zip(sf.treeplexes, solution.plans):
        e_mat, e = tp.constraints
        np.testing.assert_allclose(e_mat @ x, e, atol=1e-9)
    # Both methods end at a vertex with its basis (crossover after the interior point): as
    # many basic columns and rows as the LP has rows.
    rows = lp_model.sequence_form_lp(sf, player).program.matrix().shape[0]
    assert solution.basis is not None
    assert np.count_nonzero(solution.basis.status == highs_run.BASIC) == rows


def _inferred_codes(h, model):
    solution = h.getSolution()
    return highs_run.basis_codes(
        h,
        model,
        solution,
        col_value=np.asarray(solution.col_value),
        row_value=np.asarray(solution.row_value),
        row_dual=np.asarray(solution.row_dual),
    )


def _getbasis_codes(h):
    """HiGHS's final statuses read through getBasis(), the slow way that
    `highs_run.basis_codes` avoids."""
    final = h.getBasis()
    return np.array([s.value for s in final.col_status + final.row_status], dtype=np.int8)


@pytest.mark.parametrize(
    "game", ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=3)"]
)
@pytest.mark.parametrize("player", [0, 1])
@pytest.mark.parametrize("bound", ["value", "lo", "hi"])
@pytest.mark.parametrize("method", highs.METHODS)
def test_basis_codes_are_highs_own_statuses(game, player, bound, method):
    # sequence-form LPs have free, bounded and fixed (equality) rows and columns; the
    # statuses inferred from the basic variables and the solution must be HiGHS's own, after
    # the simplex and after the interior point method's crossover alike
    sf = sequence_form.for_game(game)
    program = lp_model.sequence_form_lp(sf, player, bound=bound).program
    model = highs._arrays(program.matrix(), program.columns, program.rows)
    h = highs.new_highs()
    h.setOptionValue("output_flag", False)
    for option, value in highs_run.METHOD_OPTIONS[method].items():
        h.setOptionValue(option, value)
    model.pass_to(h)
    h.run()
    expected = _getbasis_codes(h)
    assert len(expected) == model.num_col + model.num_row
    np.testing.assert_array_equal(_inferred_codes(h, model), expected)


def test_basis_codes_of_a_grown_trunk_are_highs_own_statuses():
    trunk = Trunk("leduc_poker")
    for _ in range(4):
        for node in list(trunk.frontier):
            trunk.expand(node)
    sf = sequence_form.TreeSequenceForm(trunk.tree())
    for bound in ("lo", "hi"):
        program = lp_model.sequence_form_lp(sf, 0, bound=bound).program
        model = highs._arrays(program.matrix(), program.columns, program.rows)
        h = highs.new_highs()
        h.setOptionValue("output_flag", False)
        model.pass_to(h)
        h.run()
        np.testing.assert_array_equal(_inferred_codes(h, model), _getbasis_codes(h))


def _bounded_matching_pennies(width):
    """Matching pennies whose leaves carry [u - width, u + width]."""
    b = TreeBuilder(name="interval matching pennies")
    first = b.expand_decision(b.add_root(), 0, "p0", [0, 1])
    for a in range(2):
        leaf = b.expand_decision(first + a, 1, "p1", [0, 1])
        for c in range(2):
            u = 1.0 if a == c else -1.0
            b.set_leaf(leaf + c, u - width, u + width)
    return sequence_form.TreeSequenceForm(b.freeze())


def test_leaf_bounds_give_the_lo_and_hi_games():
    sf = _bounded_matching_pennies(0.5)
    assert sf.has_bounds
    assert lp.solve(sf, bound="lo").value == pytest.approx(-0.5)
    assert lp.solve(sf, bound="hi").value == pytest.approx(0.5)
    with pytest.raises(ValueError, match="intervals"):
        lp.solve(sf)


def test_behavioural_lower_bounds_hold_and_perturb_the_value():
    sf = sequence_form.for_game("kuhn_poker")
    xi = 0.05
    cons = [lp.behavioural_lower_bounds(tp, xi) for tp in sf.treeplexes]
    solution = lp.solve(sf, constraints=lp.LPConstraints(own=cons[0], opponent=cons[1]))
    for tp, x in zip(sf.treeplexes, solution.plans):
        assert np.all(x[1:] >= xi * x[tp.seq_parent[1:]] - 1e-9)
    # The same perturbed game solved from player 1's side has the same value.
    other = lp.solve(sf, player=1, constraints=lp.LPConstraints(own=cons[1], opponent=cons[0]))
    assert other.value == pytest.approx(solution.value, abs=1e-9)
    # Each strategy is a best response within the perturbed space: check via the value.
    assert evaluate.evaluate_plans(sf, *solution.plans).on_policy_values[0] == pytest.approx(
        solution.value, abs=1e-9
    )


def test_infeasible_constraints_raise_lp_error():
    sf = sequence_form.for_game("kuhn_poker")
    cons = lp.behavioural_lower_bounds(sf.treeplexes[0], 0.6)  # two actions, 0.6 each
    with pytest.raises(lp.LPError, match="infeasible"):
        lp.solve(sf, constraints=lp.LPConstraints(own=cons))


def test_rhs_perturbation_shifts_the_objective():
    sf = sequence_form.for_game("kuhn_poker")
    f_rows = sf.treeplexes[1].constraints[1].shape[0]
    base = lp.solve(sf)
    zero = lp.solve(sf, constraints=lp.LPConstraints(rhs_perturbation=np.zeros(f_rows)))
    assert zero.value == pytest.approx(base.value, abs=1e-12)


def test_bad_arguments_are_refused():
    sf = sequence_form.for_game("kuhn_poker")
    with pytest.raises(ValueError, match="bound must be"):
        lp.solve(sf, bound="middle")
    with pytest.raises(ValueError, match="player must be"):
        lp.solve(sf, player=2)
    with pytest.raises(ValueError, match="method must be one of"):
        lp.solve(sf, method="barrier")


def test_warm_start_from_a_smaller_trunk_gives_the_same_value():
    trunk = Trunk("kuhn_poker")
    for _ in range(3):  # grow the trunk breadth-first
        for node in list(trunk.frontier):
            trunk.expand(node)
    small = sequence_form.TreeSequenceForm(trunk.tree())
    first = lp.solve(small, bound="lo", return_basis=True)
    again = lp.solve(small, bound="lo", warm_start=first.basis)
    assert again.simplex_iterations == 0 and again.value == pytest.approx(first.value)
    for node in list(trunk.frontier):
        trunk.expand(node)
    grown = sequence_form.TreeSequenceForm(trunk.tree())
    warm = lp.solve(grown, bound="lo", warm_start=first.basis)
    cold = lp.solve(grown, bound="lo")
    assert warm.value == pytest.approx(cold.value, abs=1e-12)


def _entry_game(exit_value):
    """Player 1 first chooses L or R (information set "J1"); R ends the game with player 0's
    utility `exit_value`; after L player 1 chooses l or r ("J2"), and player 0, not seeing
    it, chooses a or b ("I") in the game [[3, -1], [-1, 1]] (rows a, b; columns l, r)."""
    b = TreeBuilder(name="entry game")
    j1 = b.expand_decision(b.add_root(), 1, "J1", [0, 1])
    b.set_leaf(j1 + 1, exit_value, exit_value)
    j2 = b.expand_decision(j1, 1, "J2", [0, 1])
    for c, row in enumerate([(3.0, -1.0), (-1.0, 1.0)]):  # c: player 1's l / r
        i = b.expand_decision(j2 + c, 0, "I", [0, 1])
        for a in range(2):
            b.set_leaf(i + a, row[a], row[a])
    return sequence_form.TreeSequenceForm(b.freeze())


@pytest.mark.parametrize("d_root, d_j1, d_j2", [(0, 0, 0), (0, 0, 0.1), (0.2, -0.1, 0.05)])
def test_rhs_perturbation_has_its_closed_form_value(d_root, d_j1, d_j2):
    """Eq. 3a with d != 0 on `_entry_game(1/6)`, solved for player 0.

    The dual of the perturbed LP lets player 1 play any y >= 0 with F y = f + d:
    y[empty] = 1 + d_root, y[L] + y[R] = y[empty] + d_J1 =: T, y[l] + y[r] = y[L] + d_J2.
    Against player 0's p = P(a), the sub-game after L is worth y[l] (4p - 1) + y[r] (1 - 2p)
    to player 0, so player 1's best response gives (y[L] + d_J2) m(p) with
    m(p) = min(4p - 1, 1 - 2p), and R gives (T - y[L]) / 6. Player 0's value is
    max_p min_{0 <= y[L] <= T} [T / 6 + d_J2 m(p) + y[L] (m(p) - 1/6)]. Where m(p) >= 1/6
    (p in [7/24, 5/12]) player 1 exits (y[L] = 0) and the value is T / 6 + d_J2 m(p),
    maximised by m's peak p = 1/3, m = 1/3; elsewhere it is (T + d_J2) m(p) < T / 6 + d_J2 / 6.
    So the value is (1 + d_root + d_J1) / 6 + d_J2 / 3, and for d_J2 > 0 player 0's strategy at
    I is the unique p = 1/3 (at d = 0 any p in [7/24, 5/12] is optimal), while player 1 plays
    y[l] = d_J2 / 3, y[r] = 2 d_J2 / 3 (making a and b indifferent) and y[R] = T.
    """
    sf = _entry_game(1.0 / 6.0)
    tp1 = sf.treeplexes[1]
    rows = {key: 1 + i for i, key in enumerate(sf.infoset_keys(1))}
    d = np.zeros(1 + tp1.num_infosets)
    d[0], d[rows["J1"]], d[rows["J2"]] = d_root, d_j1, d_j2
    solution = lp.solve(sf, constraints=lp.LPConstraints(rhs_perturbation=d))
    total = 1 + d_root + d_j1
    assert solution.value == pytest.approx(total / 6 + d_j2 / 3, abs=1e-12)
    x, y = solution.plans
    np.testing.assert_allclose(tp1.constraints[0] @ y, tp1.constraints[1] + d, atol=1e-12)
    if d_j2 > 0:
        np.testing.assert_allclose(x[1:], [1 / 3, 2 / 3], atol=1e-12)
        j1, j2 = (int(tp1.seq_start[rows[k] - 1]) for k in ("J1", "J2"))
        np.testing.assert_allclose(y[j1 : j1 + 2], [0.0, total], atol=1e-12)
        np.testing.assert_allclose(y[j2 : j2 + 2], [d_j2 / 3, 2 * d_j2 / 3], atol=1e-12)


def test_rhs_perturbation_of_the_wrong_length_is_refused():
    sf = _entry_game(0.0)
    with pytest.raises(ValueError, match="3 entries"):
        lp.solve(sf, constraints=lp.LPConstraints(rhs_perturbation=np.zeros(2)))


@pytest.mark.parametrize(
    "own, opponent, value",
    [
        # P0 plays H with p >= 0.7: P1 answers T, 0.7 * -1 + 0.3 * 1.
        ({"p0": [0.7, 0.0]}, None, -0.4),
        # P1 plays H with q >= 0.6: P0 answers H, 0.6 - 0.4.
        (None, {"p1": [0.6, 0.0]}, 0.2),
        # Both: (2p - 1)(2q - 1) with 2p - 1 > 0, so q = 0.6 and p = 1.
        ({"p0": [0.7, 0.0]}, {"p1": [0.6, 0.0]}, 0.2),
        # The same bounds in one object passed for both players.
        ({"p0": [0.7, 0.0], "p1": [0.6, 0.0]}, "same", 0.2),
    ],
)
@pytest.mark.parametrize("player", [0, 1])
def test_behavioural_lower_bounds_have_their_closed_form_value(own, opponent, value, player):
    sf = _bounded_matching_pennies(0.0)
    own_bounds = None if own is None else BehaviouralLowerBounds(0.0, own)
    if opponent == "same":
        opp_bounds = own_bounds
    else:
        opp_bounds = None if opponent is None else BehaviouralLowerBounds(0.0, opponent)
    # Bounds on player 0 are "own" when player 0 solves, "opponent" when player 1 does.
    bounds = (own_bounds, opp_bounds) if player == 0 else (opp_bounds, own_bounds)
    solution = lp.solve(
        sf,
        player=player,
        constraints=lp.LPConstraints(own_lower_bounds=bounds[0], opponent_lower_bounds=bounds[1]),
    )
    assert solution.value == pytest.approx(value, abs=1e-12)


def test_lower_bounds_given_as_rows_or_as_an_added_block_agree():
    sf = _bounded_matching_pennies(0.0)
    bounds = BehaviouralLowerBounds(0.0, {"p0": [0.7, 0.0]})
    cons = bounds.linear_constraints(sf, 0)
    model = lp_model.sequence_form_lp(sf)
    block = highs.Block(
        name="custom",
        kind=lp_model.FIRST_FREE_KIND,
        ids=cons.row_ids,
        lower=cons.rhs,
        upper=np.full(len(cons.rhs), np.inf),
    )
    custom = model.add_rows(block, {"x": cons.matrix})
    assert custom.solution(custom.run()).value == pytest.approx(-0.4, abs=1e-12)
    with pytest.raises(ValueError, match="reuses a name or kind"):
        custom.add_rows(block, {"x": cons.matrix})
    with pytest.raises(ValueError, match="must be"):
        model.add_rows(block, {"x": sp.csr_matrix((1, 5))})


def test_warm_start_with_extra_constraints():
    sf = sequence_form.for_game("kuhn_poker")
    bounds = BehaviouralLowerBounds(0.05, {"1": [0.3, 0.1]})
    kwargs = dict(
        constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds)
    )
    first = lp.solve(sf, return_basis=True, **kwargs)
    again = lp.solve(sf, warm_start=first.basis, **kwargs)
    assert again.simplex_iterations == 0
    assert again.value == pytest.approx(first.value, abs=1e-12)
    assert again.value == pytest.approx(lp.solve(sf, **kwargs).value, abs=1e-12)
    # The basis of the unconstrained LP warm-starts the constrained one, and vice versa.
    plain = lp.solve(sf, return_basis=True)
    assert lp.solve(sf, warm_start=plain.basis, **kwargs).value == pytest.approx(first.value)
    assert lp.solve(sf, warm_start=first.basis).value == pytest.approx(KUHN_VALUE, abs=1e-12)


def test_warm_start_with_constraints_on_a_grown_trunk():
    trunk = Trunk("kuhn_poker")
    for _ in range(4):
        for node in list(trunk.frontier):
            trunk.expand(node)
    bounds = BehaviouralLowerBounds(0.05)
    small = sequence_form.TreeSequenceForm(trunk.tree())
    first = lp.solve(
        small,
        bound="lo",
        constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds),
        return_basis=True,
    )
    for node in list(trunk.frontier):
        trunk.expand(node)
    grown = sequence_form.TreeSequenceForm(trunk.tree())
    kwargs = dict(
        bound="lo",
        constraints=lp.LPConstraints(own_lower_bounds=bounds, opponent_lower_bounds=bounds),
    )
    warm = lp.solve(grown, warm_start=first.basis, **kwargs)
    cold = lp.solve(grown, **kwargs)
    assert warm.value == pytest.approx(cold.value, abs=1e-12)


def test_certificate_search_on_leduc_survives_a_failing_warm_start():
    """HiGHS 1.15's dual simplex stops with "HiGHS did not run" from the alien basis the
    search passes to iteration 15's LP (2050 trunk nodes); the LP must then solve cold."""
    # Algorithm 6.7's own steps and leaves (the auto steps follow measured seconds, so under
    # load they may take larger ones and never meet that LP)
    result = certificates.search(
        "leduc_poker",
        max_nodes=2500,
        expand_below=0,
        lp_method="simplex",
        expand_pessimistic=False,
    )
    cert = result.certificate
    assert result.iterations >= 15
    assert cert.value_lower - 1e-9 <= LEDUC_VALUE <= cert.value_upper + 1e-9


def test_a_failing_warm_start_falls_back_to_a_cold_solve(monkeypatch):
    real = highs_run.run_new_model

    def fail_when_warm(model, time_limit, start, method):
        run = real(model, time_limit, start, method)
        if start is None:
            return run
        return dataclasses.replace(run, status=highspy.HighsModelStatus.kNotset, failed=True)

    sf = sequence_form.for_game("kuhn_poker")
    basis = lp.solve(sf, return_basis=True).basis
    monkeypatch.setattr(highs_run, "run_new_model", fail_when_warm)
    warnings = []
    monkeypatch.setattr(logging, "warning", lambda msg, *args: warnings.append(msg % args))
    solution = lp.solve(sf, warm_start=basis)
    assert solution.cold_restart
    assert solution.value == pytest.approx(KUHN_VALUE, abs=1e-12)
    assert len(warnings) == 1 and "from scratch" in warnings[0]
    assert not lp.solve(sf).cold_restart  # no warm start, nothing to fall back from


class _EndsAs:
    """A HiGHS instance whose run reports `status` (how an interrupted run has ended)."""

    def __init__(self, h, status):
        self._h, self._status = h, status

    def __getattr__(self, name):
        return getattr(self._h, name)

    def getModelStatus(self):  # HiGHS's name
        return self._status


@pytest.mark.parametrize("status", ["kInterrupt", "kTimeLimit", "kNotset"])
def test_a_run_that_ends_without_its_optimum_after_ctrl_c_is_interrupted(status):
    # max x1 + x2 subject to x1 + x2 <= 1, x >= 0
    arrays = highs_run.ModelArrays(
        num_col=2,
        num_row=1,
        col_cost=np.ones(2),
        col_lower=np.zeros(2),
        col_upper=np.full(2, np.inf),
        row_lower=np.full(1, -np.inf),
        row_upper=np.ones(1),
        a=sp.csc_matrix(np.ones((1, 2))),
    )
    ended_as = getattr(highspy.HighsModelStatus, status)
    with interrupts.graceful():
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.01)  # the handler runs at the next bytecode
        with pytest.raises(interrupts.Interrupted):
            highs_run.run(_EndsAs(highs_run.new_model(arrays), ended_as), arrays)
    if status != "kInterrupt":  # without a signal, the same ending is HiGHS's answer
        run = highs_run.run(_EndsAs(highs_run.new_model(arrays), ended_as), arrays)
        assert run.status == ended_as and run.message != "optimal"


def test_time_limit_is_honoured_and_reported():
    sf = sequence_form.for_game("leduc_poker")
    result = lp_model.sequence_form_lp(sf).run(time_limit=1e-9)
    assert result.status == "kTimeLimit" and not result.optimal
    with pytest.raises(lp.LPError, match="time limit") as error:
        lp.solve(sf, time_limit=1e-9)
    assert error.value.status == "kTimeLimit"
    with pytest.raises(ValueError, match="time_limit must be positive"):
        lp.solve(sf, time_limit=0.0)


def test_standard_output_holds_no_highs_banner():
    """HiGHS's first Highs() of a process prints a banner to the C-level stdout; ours is made
    with stdout silenced, and stdout works again afterwards."""
    code = (
        "from ospiel_ext import lp, sequence_form\n"
        "print('before', flush=True)\n"
        "print(round(lp.solve(sequence_form.for_game('kuhn_poker')).value, 6))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["before", "-0.055556"]


@pytest.mark.parametrize("game", ["kuhn_poker", pyspiel.load_game("kuhn_poker")])
def test_solve_takes_a_game_like_every_entry_point(game):
    assert lp.solve(game).value == pytest.approx(-1 / 18, abs=1e-9)


def test_optimal_face_maximises_the_second_objective_among_the_optimal_solutions():
    # max x0 + x1 s.t. x0 + x1 + x2 <= 1, x >= 0: the optimal face is x0 + x1 = 1, x2 = 0.
    inf, cost = np.inf, np.array([1.0, 1, 0])
    program = highs.LinearProgram(
        "segment",
        columns=(
            highs.Block(
                name="x",
                kind=0,
                ids=np.arange(3),
                lower=np.zeros(3),
                upper=np.full(3, inf),
                cost=cost,
            ),
        ),
        rows=(
            highs.Block(
                name="r",
                kind=1,
                ids=np.zeros(1, np.int64),
                lower=np.array([-inf]),
                upper=np.array([1.0]),
            ),
        ),
        entries=(("r", "x", sp.csr_matrix(np.ones((1, 3)))),),
    )
    assert program.run().objective == pytest.approx(1.0)
    # x2 is worth most to the second objective, but no optimal solution has x2 > 1e-9
    for costs, vertex in (([1.0, 0, 5], [1, 0, 0]), ([0, 1.0, 5], [0, 1, 0])):
        result = program.optimal_face(1.0, 1e-9, 2, {"x": costs}).run()
        assert result.optimal
        np.testing.assert_allclose(result.column_values, vertex, atol=1e-8)
    with pytest.raises(ValueError, match="no column blocks"):
        program.optimal_face(1.0, 1e-9, 2, {"y": [1.0]})
