"""Γ_f's sequence form built from betting tree x class pairs (no tree) runs every solver and
evaluator, and each agrees with the sequence form of Γ_f's built GameTree, sequences and
infosets matched by information-state key and action."""

import dataclasses

import numpy as np
import pytest
import scipy.sparse as sp

from ospiel_ext import evaluate, lp
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.algorithms import cfr, egt
from ospiel_ext.algorithms.certificates import certificate

RI_SMALL = "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"


@dataclasses.dataclass(frozen=True, kw_only=True)
class Forms:
    """The product and the tree-built sequence form of one game's Γ_f, and the index maps from the
    product's sequences / infosets to the built form's (per player)."""

    game: str
    product: sf_lib.SequenceForm
    built: sf_lib.TreeSequenceForm
    seq: tuple[np.ndarray, np.ndarray]
    inf: tuple[np.ndarray, np.ndarray]

    def to_built(self, behavioural):
        """Behavioural (or any per-sequence) arrays of the product in the built form's order."""
        out = []
        for m, b in zip(self.seq, behavioural):
            moved = np.empty_like(b)
            moved[m] = b
            out.append(moved)
        return tuple(out)


def _sequence_keys(sf, player):
    """(infoset key, action) of every sequence of `player` (None for the empty one)."""
    tp, keys = sf.treeplexes[player], sf.infoset_keys(player)
    out = [None] * tp.num_sequences
    for i, key in enumerate(keys):
        for s in range(tp.seq_start[i], tp.seq_start[i] + tp.num_actions[i]):
            out[s] = (key, int(tp.seq_action[s]))
    return out


@pytest.fixture(scope="module", params=["leduc_poker", RI_SMALL])
def forms(request, shrunk):
    product = shrunk.abstract_game(request.param).sequence_form
    built = shrunk.built_form(request.param)
    assert not isinstance(product, sf_lib.TreeSequenceForm)
    seq, inf = [], []
    for p in (0, 1):
        index = {k: s for s, k in enumerate(_sequence_keys(built, p))}
        seq.append(np.array([index[k] for k in _sequence_keys(product, p)]))
        index = {k: i for i, k in enumerate(built.infoset_keys(p))}
        inf.append(np.array([index[k] for k in product.infoset_keys(p)]))
        assert sorted(inf[-1].tolist()) == list(range(built.treeplexes[p].num_infosets))
    return Forms(game=request.param, product=product, built=built, seq=tuple(seq), inf=tuple(inf))


def _random_profile(sf, seed):
    """Random behavioural strategies in which about a third of the actions have probability
    zero (every infoset keeps one), so that some infosets are unreached."""
    rng = np.random.default_rng(seed)
    out = []
    for tp in sf.treeplexes:
        w = rng.random(tp.num_sequences) * (rng.random(tp.num_sequences) > 0.35)
        dead = tp.segment_sum(w) == 0
        w[tp.seq_start[dead]] = 1.0
        b = w / np.maximum(tp.spread(tp.segment_sum(w)), 1e-300)
        b[0] = 1.0
        out.append(b)
    return tuple(out)


def test_reach_matrices_are_the_trees(forms):
    """R_p of the product (betting decisions x class pairs, weighted by the pairs' deals) is
    the built tree's (its decision nodes weighted by chance reach), entry by entry."""
    for p in (0, 1):
        r = forms.product.reach_matrix(p).tocoo()
        moved = sp.csr_matrix(
            (r.data, (forms.inf[p][r.row], forms.seq[1 - p][r.col])),
            shape=forms.built.reach_matrix(p).shape,
        )
        assert abs(moved - forms.built.reach_matrix(p)).max() < 1e-15
        assert moved.nnz == forms.built.reach_matrix(p).nnz


@pytest.mark.parametrize("bound", ["value", "lo", "hi"])
def test_lp_values_agree(forms, bound):
    solution = lp.solve(forms.product, bound=bound)
    assert solution.value == pytest.approx(lp.solve(forms.built, bound=bound).value, abs=1e-9)
    # The product's equilibrium is one of the built game.
    in_built = evaluate.evaluate_profile(forms.built, forms.to_built(solution.behavioural))
    assert in_built.nash_conv < 1e-9


def _tied_infosets(sf, player, behavioural, tol=1e-12):
    """Infosets of `player` whose actions all have the same counterfactual value (to `tol`)
    under `behavioural`: there RM+ at zero regret plays uniform, and a rounding-level
    regret (1e-17) makes it play one action instead."""
    tp, opp = sf.treeplexes[player], sf.treeplexes[1 - player]
    g = sf.sequence_values(player, opp.realization_plan(behavioural[1 - player]))
    v_seq, v_inf = tp.infoset_values(g, behavioural[player])
    regret = np.abs(v_seq - tp.spread(v_inf))
    regret[0] = 0.0
    return np.maximum.reduceat(regret[1:], tp.seq_start - 1) < tol


def _differing_infosets(tp, a, b):
    return np.maximum.reduceat(np.abs(a - b)[1:], tp.seq_start - 1) > 1e-9


def test_cfr_plus_iterates_agree(forms):
    solvers = [cfr.CFRPlusSolver(forms.product), cfr.CFRPlusSolver(forms.built)]
    for solver in solvers:
        solver.evaluate_and_update_policy()
    # Iteration 1: player 0 answers uniform play and agrees except where all its actions have
    # the same value (Rhode Island has a few such ties); player 1 agrees everywhere.
    ours, theirs = (
        forms.to_built(solvers[0].current_behavioural()),
        solvers[1].current_behavioural(),
    )
    tied = _tied_infosets(forms.built, 0, tuple(tp.uniform for tp in forms.built.treeplexes))
    assert tied.mean() < 0.05
    assert not (_differing_infosets(forms.built.treeplexes[0], ours[0], theirs[0]) & ~tied).any()
    np.testing.assert_allclose(ours[1], theirs[1], rtol=0, atol=1e-9)
    if forms.game != "leduc_poker":
        return  # the ties make Rhode Island's next iterates differ
    for solver in solvers:  # iteration 2; later iterates drift apart by rounding
        solver.evaluate_and_update_policy()
    for name in ("current_behavioural", "average_behavioural"):
        ours = forms.to_built(getattr(solvers[0], name)())
        for b, want in zip(ours, getattr(solvers[1], name)()):
            np.testing.assert_allclose(b, want, rtol=0, atol=1e-9)


def test_egt_iterates_agree(forms):
    solvers = [egt.EGTSolver(forms.product), egt.EGTSolver(forms.built)]
    for _ in range(4):
        for solver in solvers:
            solver.evaluate_and_update_policy()
    for b, want in zip(forms.to_built(solvers[0].behavioural()), solvers[1].behavioural()):
        np.testing.assert_allclose(b, want, rtol=0, atol=1e-9)
    assert solvers[0].perturbed_gap() == pytest.approx(solvers[1].perturbed_gap(), abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_exploitability_and_certificate_bounds_agree(forms, seed):
    profile = _random_profile(forms.product, seed)
    ours = evaluate.evaluate_profile(forms.product, profile)
    theirs = evaluate.evaluate_profile(forms.built, forms.to_built(profile))
    np.testing.assert_allclose(ours.on_policy_values, theirs.on_policy_values, atol=1e-9)
    np.testing.assert_allclose(ours.best_response_values, theirs.best_response_values, atol=1e-9)
    assert ours.exploitability > 1e-3
    lower, upper = certificate.verify(forms.product, profile)
    np.testing.assert_allclose(
        (lower, upper), certificate.verify(forms.built, forms.to_built(profile)), atol=1e-9
    )
    assert lower < ours.on_policy_values[0] < upper


@pytest.mark.parametrize("seed", [0, 1])
def test_infoset_regrets_agree(forms, seed):
    profile = _random_profile(forms.product, seed)
    for p in (0, 1):
        ours = evaluate.infoset_regrets(forms.product, profile, p)
        theirs = evaluate.infoset_regrets(forms.built, forms.to_built(profile), p)
        assert (ours.reach == 0).any()  # the trembling-hand regrets are compared too
        np.testing.assert_allclose(ours.reach, theirs.reach[forms.inf[p]], rtol=0, atol=1e-12)
        np.testing.assert_allclose(ours.regret, theirs.regret[forms.inf[p]], rtol=0, atol=1e-9)
        assert ours.max > 0


def test_infosets_by_betting_is_the_table_the_keys_spell(forms):
    """Read from the decisions, the (round, betting) -> infoset-per-class table equals the one
    parsed from the infoset keys ("r<round> c<class> b<betting>")."""
    for p in (0, 1):
        parsed = {}
        for i, key in enumerate(forms.product.infoset_keys(p)):
            head, betting = key.split(" b", 1)
            r, c = head.split(" ")
            parsed[int(r[1:]), betting, int(c[1:])] = i
        table = forms.product.infosets_by_betting(p)
        flat = {(r, b, c): int(i) for (r, b), row in table.items() for c, i in enumerate(row)}
        assert flat == parsed
