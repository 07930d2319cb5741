"""Certificate search and verification (Zhang & Sandholm, "Finding and Certifying (Near-)Optimal
Strategies in Black-Box Extensive-Form Games", AAAI 2021)."""

import importlib
import itertools
import json
import os
import signal
import threading
import time

import numpy as np
import pyspiel
import pytest
from helpers import KUHN_VALUE
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import evaluate, loading, lp, policies, sequence_form, walk
from ospiel_ext.algorithms import certificates
from ospiel_ext.algorithms.certificates import io as certificate_io
from ospiel_ext.algorithms.certificates import trunk_lps
from ospiel_ext.algorithms.certificates.trunks import Trunk
from ospiel_ext.games.limit_leduc_poker import max_consecutive_raises
from ospiel_ext.runtime import interrupts
from ospiel_ext.runtime.budget import Budget

# Alpha-beta example: L is worth min(3, 5) = 3; after R, P1's c gives 2 < 3, so the subtree
# "deep" never needs expanding: the certificate is the alpha-beta tree (7 of 9 nodes).
ALPHA_BETA_EFG = """EFG 2 R "alpha-beta" { "P0" "P1" }
""
p "" 1 1 "root" { "L" "R" } 0
p "" 2 1 "L" { "a" "b" } 0
t "" 1 "o1" { 3, -3 }
t "" 2 "o2" { 5, -5 }
p "" 2 2 "R" { "c" "d" } 0
t "" 3 "o3" { 2, -2 }
p "" 1 2 "deep" { "e" "f" } 0
t "" 4 "o4" { 10, -10 }
t "" 5 "o5" { -10, 10 }
"""


def test_perfect_information_certificate_is_the_alpha_beta_tree():
    game = pyspiel.load_efg_game(ALPHA_BETA_EFG)
    result = certificates.search(game)
    cert = result.certificate
    assert cert.epsilon == pytest.approx(0.0, abs=1e-12)
    assert cert.value_lower == pytest.approx(3.0) and cert.value_upper == pytest.approx(3.0)
    assert cert.trunk.num_nodes == 7  # "deep" stays a pseudoterminal leaf
    assert walk.game_tree(game).num_nodes == 9


@pytest.mark.parametrize(
    "game", ["repeated_matching_pennies(rounds=1)", "repeated_matching_pennies(rounds=2)"]
)
def test_matching_pennies_certificate_is_the_whole_game(game):
    # Theorem 4.5: nothing can be left out when every node matters.
    cert = certificates.search(game).certificate
    assert cert.epsilon == pytest.approx(0.0, abs=1e-12)
    assert cert.trunk.num_nodes == walk.game_tree(game).num_nodes


@pytest.mark.parametrize(
    "game, value",
    [
        ("kuhn_poker", KUHN_VALUE),
        ("sequential_goofspiel(num_cards=4)", 0.0),
        ("sequential_goofspiel(num_cards=4,info=perfect)", -2.0),
    ],
)
@pytest.mark.parametrize(
    "expand_below, lp_method, pessimistic",
    [(0, "simplex", False), (0, "simplex", True), (2, "simplex", True), (1, "ipm", True)],
)
def test_zero_certificates_export_equilibria(game, value, expand_below, lp_method, pessimistic):
    game = pyspiel.load_game(game)
    result = certificates.search(
        game, expand_below=expand_below, lp_method=lp_method, expand_pessimistic=pessimistic
    )
    cert = result.certificate
    assert result.stop_reason == "epsilon" and cert.epsilon < 1e-9
    assert cert.value_lower == pytest.approx(value, abs=1e-9)
    pol = certificates.CertificatePolicy(game, cert.strategy_table()).to_tabular()
    # Def 6.2 epsilon bounds NashConv; OpenSpiel's exploitability is NashConv / 2.
    assert os_exploitability.nash_conv(game, pol) <= cert.epsilon + 1e-9
    minimal = certificates.minimal_certificate(cert)
    assert minimal.epsilon == pytest.approx(cert.epsilon, abs=1e-9)
    assert minimal.trunk.num_nodes <= cert.trunk.num_nodes


# the module (the package's `search` is the function)
search_lib = importlib.import_module("ospiel_ext.algorithms.certificates.search")
RANDOM_GOOFSPIEL = "sequential_goofspiel(num_cards=3,points_order=random)"


@pytest.mark.parametrize("threads", [1, 2])
def test_public_chance_splits_the_search_into_parts_with_the_games_value(threads, monkeypatch):
    game = pyspiel.load_game(RANDOM_GOOFSPIEL)
    assert certificates.search(game).trace[-1].parts == 1  # a small trunk is solved whole
    monkeypatch.setattr(trunk_lps, "SPLIT_MIN_NODES", 0)
    result = certificates.search(game, threads=threads)
    cert = result.certificate
    assert result.stop_reason == "epsilon" and cert.epsilon < 1e-9
    assert result.trace[-1].parts == 3  # one per first prize card
    whole_game = lp.game_value(sequence_form.for_game(game))  # one LP, not split
    assert cert.value_lower == pytest.approx(whole_game, abs=1e-9)
    pol = certificates.CertificatePolicy(game, cert.strategy_table()).to_tabular()
    assert os_exploitability.nash_conv(game, pol) <= cert.epsilon + 1e-9


def test_split_trunk_lps_have_the_whole_trunk_lps_optima(monkeypatch):
    monkeypatch.setattr(trunk_lps, "SPLIT_MIN_NODES", 0)
    grown = certificates.search(
        "sequential_goofspiel(num_cards=4,points_order=random)",
        max_nodes=3000,
        expand_below=0,
        lp_method="simplex",
    )
    sf = sequence_form.TreeSequenceForm(grown.certificate.trunk)
    whole = trunk_lps.solve_trunk(sf, split=False)
    one, two = trunk_lps.solve_trunk(sf), trunk_lps.solve_trunk(sf, threads=2)
    assert (whole.num_parts, one.num_parts) == (1, 4)
    for side in (0, 1):
        assert one.sides[side].value == pytest.approx(whole.sides[side].value, abs=1e-9)
        assert two.sides[side].value == one.sides[side].value  # threads change no solve
    for a, b in ((one, whole), (two, one)):
        assert a.certificate.value_lower == pytest.approx(b.certificate.value_lower, abs=1e-9)
        assert a.certificate.value_upper == pytest.approx(b.certificate.value_upper, abs=1e-9)
    assert set(one.parts) == {int(r) for r in sf.tree.children(0)}


def test_parts_no_expansion_touched_keep_their_solves(monkeypatch):
    monkeypatch.setattr(trunk_lps, "SPLIT_MIN_NODES", 0)
    trunk = Trunk("sequential_goofspiel(num_cards=4,points_order=random)")
    for _ in range(4):
        for node in list(trunk.frontier):
            trunk.expand(node)
    first = trunk_lps.solve_trunk(sequence_form.TreeSequenceForm(trunk.tree()))
    tree = trunk.tree()
    below = [n for n in trunk.frontier if _ancestor_at_depth_1(tree, n) == 1]
    trunk.expand(below[0])  # grows only the part below the root's first child (node 1)
    sf = sequence_form.TreeSequenceForm(trunk.tree())
    second = trunk_lps.solve_trunk(sf, first.parts)
    assert (second.num_parts, second.num_reused) == (4, 3)
    for root, part in second.parts.items():
        kept = root != 1
        assert (part.sides[0].lp_seconds == 0) == kept
        assert (part.sides[0].own_plan is first.parts[root].sides[0].own_plan) == kept
    fresh = trunk_lps.solve_trunk(sf)
    assert fresh.num_reused == 0
    for side in (0, 1):
        assert second.sides[side].value == pytest.approx(fresh.sides[side].value, abs=1e-9)
    assert second.certificate.epsilon == pytest.approx(fresh.certificate.epsilon, abs=1e-9)


def _ancestor_at_depth_1(tree, node):
    while tree.depth[node] > 1:
        node = tree.parent[node]
    return int(node)


def test_ctrl_c_stops_the_parts_solved_on_threads(monkeypatch):
    """A SIGINT while the parts' LPs run on worker threads stops every solve; the search
    returns the last trunk's certificate, interrupted."""
    monkeypatch.setattr(trunk_lps, "SPLIT_MIN_NODES", 0)
    solve_side, calls = trunk_lps._solve_side, []

    def pressed_on_the_tenth_part(sf, player, warm, **kwargs):
        calls.append(threading.current_thread() is threading.main_thread())
        if len(calls) == 10:
            os.kill(os.getpid(), signal.SIGINT)
        if len(calls) >= 10:  # the handler runs on the main thread: let it set the flag
            waited = time.monotonic()
            while not interrupts.requested() and time.monotonic() - waited < 5:
                time.sleep(0.001)
        return solve_side(sf, player, warm, **kwargs)

    monkeypatch.setattr(trunk_lps, "_solve_side", pressed_on_the_tenth_part)
    result = certificates.search(RANDOM_GOOFSPIEL, threads=2, expand_below=0)
    assert result.stop_reason == "interrupted"
    assert result.iterations == 3 and len(result.trace) == 2  # stopped inside the third
    assert not any(calls[2:])  # the parts (from the second iteration) solved off the main thread
    assert len(calls) <= 11  # of the third's 6 solves, none begun once the flag was set
    assert result.certificate.epsilon > 0


def test_goofspiel_certificate_is_smaller_than_the_game():
    cert = certificates.search("sequential_goofspiel(num_cards=4)").certificate
    assert (
        cert.trunk.num_nodes < 0.5 * walk.game_tree("sequential_goofspiel(num_cards=4)").num_nodes
    )


def test_search_traces_each_iteration_against_its_trunk():
    result = certificates.search("sequential_goofspiel(num_cards=4)")
    trace = result.trace
    assert len(trace) == result.iterations
    assert trace[-1].nodes == result.certificate.trunk.num_nodes  # the last trunk was the best
    assert all(a.nodes < b.nodes for a, b in itertools.pairwise(trace))  # each expansion grew it
    assert all(t.expanded > 0 for t in trace[:-1]) and trace[-1].expanded == 0
    assert sum(t.lp_seconds for t in trace) == pytest.approx(result.lp_seconds)
    spent = sum(t.build_seconds + t.lp_seconds + t.expand_seconds + t.other_seconds for t in trace)
    assert 0 < spent <= result.seconds


def test_verify_on_a_full_tree_is_nash_conv():
    # With no pseudoterminal leaves, beta*(y) - alpha*(x) is the profile's NashConv.
    game = pyspiel.load_game("leduc_poker")
    sf = sequence_form.for_game(game)
    profile = policies.layout(sf).from_tabular(policies.random_policy(game, seed=2))
    lower, upper = certificates.verify(sf, profile)
    assert upper - lower == pytest.approx(evaluate.evaluate_profile(sf, profile).nash_conv)


def test_budget_returns_the_best_certificate_so_far():
    result = certificates.search("sequential_goofspiel(num_cards=4)", max_nodes=200)
    assert result.stop_reason == "max_nodes"
    assert result.certificate.trunk.num_nodes <= 200
    assert result.certificate.epsilon > 0


def test_zero_certificate_tolerance_is_relative_to_the_payoff_range():
    # 4-card Goofspiel: player 0's utility is points won minus points lost, in [-10, 10]
    # (points 1..4); the finished search's trunk has seen both extremes.
    result = certificates.search("sequential_goofspiel(num_cards=4,info=perfect)")
    cert = result.certificate
    assert cert.payoff_range == pytest.approx(20.0)
    assert cert.zero_tolerance == pytest.approx(20.0 * certificates.ZERO_TOLERANCE)
    assert cert.is_zero and result.stop_reason == "epsilon"
    early = certificates.search(
        "sequential_goofspiel(num_cards=4,info=perfect)", max_nodes=200
    ).certificate
    assert early.epsilon > early.zero_tolerance and not early.is_zero


def test_expanding_below_respects_the_node_budget():
    for below in (1, 3):
        result = certificates.search(
            "sequential_goofspiel(num_cards=4)", max_nodes=300, expand_below=below
        )
        assert result.stop_reason == "max_nodes"
        assert max(t.nodes for t in result.trace) <= 300
        # each non-final iteration expanded its support leaves and some children below them
        assert all(t.expanded > 0 for t in result.trace[:-1])


def test_pessimistic_expansion_adds_the_leaves_the_certificate_reaches():
    """On a grown trunk of 4-rank random Goofspiel, `expand_pessimistic` expands the optimistic
    profile's support leaves and every pseudoterminal leaf that a mix of the players'
    optimistic and pessimistic strategies reaches (the pessimistic plans rebuilt from the
    certificate's behavioural strategies), and no other."""
    trunk = Trunk(pyspiel.load_game("sequential_goofspiel(num_cards=4,points_order=random)"))
    added = 0
    for _ in range(12):
        sf = sequence_form.TreeSequenceForm(trunk.tree())
        solved = trunk_lps.solve_trunk(sf)
        paper = search_lib._nodes_to_expand(trunk, solved, shallowest=False, pessimistic=False)
        both = search_lib._nodes_to_expand(trunk, solved, shallowest=False, pessimistic=True)
        beta, alpha = solved.sides
        cert = solved.certificate
        plans = [
            [beta.own_plan, sf.treeplexes[0].realization_plan(cert.behavioural[0])],
            [alpha.own_plan, sf.treeplexes[1].realization_plan(cert.behavioural[1])],
        ]
        z = sf.leaves[sf.chance_reach[sf.leaves] > 0]
        reached = np.zeros(len(z), bool)
        for x, y in itertools.product(*plans):
            reached |= (x[sf.node_seq[0][z]] > 1e-9) & (y[sf.node_seq[1][z]] > 1e-9)
        expected = {int(n) for n in z[reached] if int(n) in trunk.frontier}
        assert set(paper) <= set(both) == expected
        added += len(both) - len(paper)
        for node in both:
            trunk.expand(node)
    assert added > 0  # the pessimistic profile reached others


def test_deeper_levels_stop_at_the_room_the_steps_give():
    """Auto's `room`: the levels below the expanded nodes stop once the next node's children
    would pass it; the expanded nodes themselves are always expanded."""
    trunk = Trunk(pyspiel.load_game("sequential_goofspiel(num_cards=5)"))
    first = trunk.expand(0)  # 5 bids of player 0
    budget = Budget()
    before = trunk.num_nodes
    expanded, stop = search_lib._expand(trunk, first, 16, room=400, budget=budget)
    assert stop is None and before + 25 <= trunk.num_nodes <= 400  # 25: the first level
    assert expanded > len(first) and trunk.frontier  # some levels below, not the whole game
    whole = Trunk(pyspiel.load_game("sequential_goofspiel(num_cards=3)"))
    search_lib._expand(whole, [0], 16, room=np.inf, budget=budget)
    assert not whole.frontier  # no room limit, 16 levels: the whole game


def test_expand_shallowest_still_finds_a_zero_certificate():
    result = certificates.search("kuhn_poker", expand_shallowest=True)
    assert result.certificate.epsilon < 1e-9


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    game = pyspiel.load_game("sequential_goofspiel(num_cards=3)")
    path = tmp_path_factory.mktemp("cert") / "g3.json"
    certificate_io.save(certificates.search(game).certificate, path, game)
    return game, path


def test_saved_certificate_reverifies(saved):
    game, path = saved
    outcome = certificate_io.verify_saved(game, path)
    assert outcome.ok and outcome.epsilon < 1e-9


def _tampered(path, tmp_path, edit_json=None, edit_arrays=None):
    meta = json.loads(path.read_text())
    arrays = dict(np.load(f"{path}.npz"))
    if edit_json:
        edit_json(meta)
    if edit_arrays:
        edit_arrays(arrays)
    out = tmp_path / "bad.json"
    out.write_text(json.dumps(meta))
    np.savez(f"{out}.npz", **arrays)
    return out


def test_tampered_strategy_is_rejected(saved, tmp_path):
    game, path = saved

    def pure_low_bid(meta):  # player 0 always bids 1 in the first round: exploitable
        meta["strategy"][0]["p0 prizes: own: results:"] = {"0": 1.0, "1": 0.0, "2": 0.0}

    outcome = certificate_io.verify_saved(game, _tampered(path, tmp_path, pure_low_bid))
    assert not outcome.ok and "claims epsilon=0 but its strategy proves 6" in outcome.reason


def test_tampered_bounds_are_rejected(saved, tmp_path):
    game, path = saved

    def tighten(arrays):  # claim a pseudoterminal leaf's value is known exactly
        is_leaf = ~np.isin(np.arange(len(arrays["parent"])), arrays["parent"])
        leaf = int(np.flatnonzero(is_leaf & (arrays["lo"] < arrays["hi"]))[0])
        arrays["lo"][leaf] = arrays["hi"][leaf]

    outcome = certificate_io.verify_saved(game, _tampered(path, tmp_path, edit_arrays=tighten))
    assert not outcome.ok and "game's oracle" in outcome.reason


def test_certificate_for_another_game_is_rejected(saved):
    _, path = saved
    outcome = certificate_io.verify_saved("sequential_goofspiel(num_cards=3,info=perfect)", path)
    assert not outcome.ok and "not for sequential_goofspiel" in outcome.reason


@pytest.mark.parametrize("ranks", [2, 3])
def test_unbounded_leduc_reaches_a_zero_certificate(ranks):
    # Section 6.4 / Theorem 6.12: the infinite game is solved exactly by a finite trunk.
    result = certificates.search(f"limit_leduc_poker(num_ranks={ranks},max_raises=-1)")
    cert = result.certificate
    assert result.stop_reason == "epsilon" and cert.epsilon < 1e-9
    most = max_consecutive_raises(cert.trunk)
    # Independent check: the trunk is also a trunk of the finite game with one raise more per
    # round than was ever expanded (same rules below that cap, tighter bounds), so the
    # exported strategy must be an equilibrium there (Prop. 3.5).
    finite = pyspiel.load_game(f"limit_leduc_poker(num_ranks={ranks},max_raises={most + 1})")
    pol = certificates.CertificatePolicy(finite, cert.strategy_table()).to_tabular()
    assert os_exploitability.nash_conv(finite, pol) < 1e-8


def test_nature_sampling_certificate_holds_in_the_true_game():
    # Section 5: an epsilon'-certificate of the sampled trunk is an (epsilon' + 2 epsilon)
    # equilibrium of the true game (each player's gain), with probability 1 - 4 delta.
    game = pyspiel.load_game("kuhn_poker")
    nature = certificates.NatureSampling(0.05, 1e-6, support=6, max_nodes=100, seed=3)
    cert = certificates.search(game, black_box=certificates.BlackBox(nature=nature)).certificate
    deal = cert.trunk.chance_prob[list(cert.trunk.children(0))]
    assert not np.allclose(deal, 1 / 3, atol=1e-12)  # the sampled distribution
    pol = certificates.CertificatePolicy(game, cert.strategy_table()).to_tabular()
    assert os_exploitability.nash_conv(game, pol) <= 2 * (cert.epsilon + 2 * nature.epsilon)


def test_warm_and_cold_searches_certify_the_same_value():
    warm = certificates.search("sequential_goofspiel(num_cards=4)", warm_start=True)
    cold = certificates.search("sequential_goofspiel(num_cards=4)", warm_start=False)
    for result in (warm, cold):
        assert result.certificate.epsilon < 1e-9
    assert warm.certificate.value_lower == pytest.approx(cold.certificate.value_lower, abs=1e-9)


# --- every field verified; the assumptions the other algorithms check ------------------


@pytest.mark.parametrize(
    "edit_json, edit_arrays, reason",
    [
        (lambda m: m.update(trunk_nodes=m["trunk_nodes"] + 1), None, "claims trunk_nodes="),
        (lambda m: m.update(trunk_infosets=0), None, "claims trunk_infosets=0 but its trunk"),
        (lambda m: m.update(comment="trust me"), None, "unknown field 'comment'"),
        (lambda m: m.update(version=1), None, "certificate format version 1; this ospiel_ext"),
        (lambda m: m.pop("version"), None, "not a certificate of this format"),
        (lambda m: m.update(strategy=m["strategy"][0]), None, "must be two tables"),
        (
            lambda m: next(iter(m["strategy"][0].values())).update({"--1": 0.0}),
            None,
            "action '--1' at",
        ),
        (
            lambda m: m["strategy"][1].update({"not a state": {"0": 1.0}}),
            None,
            "player 1 has information state 'not a state', which the trunk does not have",
        ),
        (None, lambda a: a.update(extra=np.zeros(3)), "it holds ['action', 'extra', 'hi',"),
        (None, lambda a: a.update(parent=a["parent"].astype(float)), "parent must be integers"),
    ],
)
def test_every_field_of_a_certificate_is_verified(saved, tmp_path, edit_json, edit_arrays, reason):
    game, path = saved
    outcome = certificate_io.verify_saved(game, _tampered(path, tmp_path, edit_json, edit_arrays))
    assert not outcome.ok and reason in outcome.reason, outcome.reason


def test_a_missing_trunk_file_is_named(saved, tmp_path):
    game, path = saved
    (tmp_path / "c.json").write_text(path.read_text())
    outcome = certificate_io.verify_saved(game, tmp_path / "c.json")
    assert not outcome.ok
    assert outcome.reason == (
        f"the trunk file {tmp_path}/c.json.npz is missing (a certificate is two files, PATH and "
        "PATH.npz, written together by certify --certificate_out)"
    )


IMPERFECT_RECALL = "goofspiel(num_cards=4)"  # its information state forgets own bids


def test_search_refuses_imperfect_recall_as_compiling_does():
    """The search used to certify -0.00463 for this symmetric game of value 0."""
    with pytest.raises(ValueError) as compiled:
        walk.game_tree(IMPERFECT_RECALL)
    with pytest.raises(ValueError) as searched:
        certificates.search(IMPERFECT_RECALL)
    game = loading.load(IMPERFECT_RECALL)
    for e in (compiled, searched):  # the same message (the infoset found first may differ)
        assert str(e.value).startswith(f"game {game} does not have perfect recall: player ")
        assert "imp_info=True" in str(e.value) and "\n" not in str(e.value)


def test_verification_refuses_imperfect_recall():
    """A certificate on the whole imperfect-recall trunk (its uniform profile) is rejected
    even though its figures are what its strategy proves."""
    trunk = Trunk(IMPERFECT_RECALL)
    while trunk.frontier:
        trunk.expand(next(iter(trunk.frontier)))
    sf = sequence_form.TreeSequenceForm(trunk.tree())
    uniform = (sf.treeplexes[0].uniform, sf.treeplexes[1].uniform)
    lower, upper = certificates.verify(sf, uniform)
    cert = certificates.Certificate(
        sequence_form=sf,
        behavioural=uniform,
        epsilon=upper - lower,
        value_lower=lower,
        value_upper=upper,
    )
    outcome = certificates.verify_data(
        IMPERFECT_RECALL, *certificate_io.to_data(cert, IMPERFECT_RECALL)
    )
    assert not outcome.ok and "does not have perfect recall" in outcome.reason


def test_players_sharing_an_information_state_string_keep_their_own_strategies():
    """phantom_ttt's players both see an empty board as '...\\n...\\n...\\n'. A strategy table
    keyed by the string alone gave both players one row, so `verify` rejected the
    certificate certify wrote ("claims epsilon=1.605 but its strategy proves 2")."""
    # Algorithm 6.7's own steps: the auto steps follow measured seconds, so under load they
    # grew another trunk, whose shared strings happened to get equal strategies
    cert = certificates.search(
        "phantom_ttt", max_nodes=6000, expand_below=0, lp_method="simplex", expand_pessimistic=False
    ).certificate
    tables = cert.strategy_table()
    shared = set(tables[0]) & set(tables[1])
    assert any(tables[0][key] != tables[1][key] for key in shared)
    outcome = certificates.verify_data("phantom_ttt", *certificate_io.to_data(cert, "phantom_ttt"))
    assert outcome.ok, outcome.reason
    assert outcome.epsilon == pytest.approx(cert.epsilon, abs=1e-12)


def test_budgets_are_checked_inside_an_iteration():
    """go_fish's trunk grows by chance nodes only (no information set for thousands of
    nodes): the node and memory budgets stop it inside the expansion."""
    by_nodes = certificates.search("go_fish", max_nodes=3000)
    assert by_nodes.stop_reason == "max_nodes" and by_nodes.certificate.trunk.num_nodes <= 3000
    by_memory = certificates.search("go_fish", max_memory=1)
    assert by_memory.stop_reason == "max_memory" and by_memory.iterations == 1
    assert by_memory.peak_memory > 1
    timed = certificates.search("go_fish", time_limit=1e-6)
    assert timed.stop_reason == "time_limit" and timed.iterations == 1


def test_the_default_node_cap_is_finite():
    assert certificates.DEFAULT_MAX_TRUNK_NODES < np.inf
    with pytest.raises(ValueError, match="max_nodes must be positive"):
        certificates.search("kuhn_poker", max_nodes=0)


def test_the_explored_trunk_is_reported_beside_the_certificates():
    """Tic-tac-toe at a cap of 300 nodes never beats the root's certificate (every leaf of a
    small trunk is still [-1, 1]): the certificate's trunk is the root, the trunk grown is
    what the cap allowed."""
    result = certificates.search("tic_tac_toe", max_nodes=300)
    assert result.stop_reason == "max_nodes"
    assert result.certificate.trunk.num_nodes == 1 and result.certificate.epsilon == 2
    assert 200 < result.explored_nodes <= 300
