"""GameShrink (Gilpin & Sandholm, "Finding Equilibria in Large Sequential Games of Imperfect
Information", ACM EC 2006): signal tree, filters, Γ_f, lifting, refusals."""

import collections
import dataclasses
import itertools
import math

import numpy as np
import pyspiel
import pytest
import scipy.sparse as sp
from helpers import cpp_exploitability
from scipy.sparse.csgraph import connected_components

from ospiel_ext import evaluate, lp
from ospiel_ext.algorithms import cfr
from ospiel_ext.algorithms.gameshrink import abstract_game as ag
from ospiel_ext.algorithms.gameshrink import descriptions, filters, lifting
from ospiel_ext.algorithms.gameshrink import ordered_games as og_lib
from ospiel_ext.algorithms.gameshrink import shrink as gs

RI_SMALL = "rhode_island_holdem(num_ranks=3,num_suits=2,max_raises=1)"
UP_LEDUC = (  # Leduc hold'em as an ACPC game definition
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
    "firstPlayer=1 1,maxRaises=2 2,numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1)"
)
UP_NOLIMIT = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=1 1,firstPlayer=1 1,"
    "numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,stack=10 10)"
)
UP_TWO_CARDS = (  # two hole cards, two board cards
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
    "firstPlayer=1 1,maxRaises=2 2,numSuits=2,numRanks=4,numHoleCards=2,numBoardCards=0 2)"
)
# Lifting to Rhode Island and measuring OpenSpiel's exploitability there takes ~10 s.
RI_SMALL_LIFTED = pytest.param(RI_SMALL, marks=pytest.mark.slow)
LOSSLESS_GAMES = [
    "kuhn_poker",
    "leduc_poker",
    "limit_leduc_poker(num_ranks=4)",
    RI_SMALL_LIFTED,
    UP_LEDUC,
    UP_NOLIMIT,
]


def _lifted_lp(game):
    """Γ_f's LP equilibrium and OpenSpiel's exploitability of it lifted to the original game."""
    solution = lp.solve(game.sequence_form)
    tabular = lifting.LiftedPolicy(game, solution.behavioural).to_tabular()
    return solution, cpp_exploitability(game.abstraction.og.game, tabular)


def test_colex_index_is_the_colexicographic_rank():
    subsets = list(itertools.combinations(range(7), 3))
    colex_order = sorted(subsets, key=lambda s: s[::-1])
    idx = og_lib.colex_index(np.array(colex_order))
    np.testing.assert_array_equal(idx, np.arange(math.comb(7, 3)))


def test_signal_tree_sizes_from_counting(shrunk):
    st = shrunk.abstraction(RI_SMALL).signal_tree
    assert len(st.deals) == 6 * 5 * 4 * 3
    assert st.num_nodes == 1 + 6 + 6 * 5 + 6 * 5 * 4 + 6 * 5 * 4 * 3
    assert st.num_views == [6, 6 * 5, 6 * 5 * 4]


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL, UP_NOLIMIT, UP_TWO_CARDS])
def test_signal_tree_shortcuts_agree_with_the_plain_computation(shrunk, game):
    """Showdowns evaluated once per view equal the description's outcome of every deal, and
    view codes extended round by round equal codes computed from scratch."""
    st = shrunk.abstraction(game).signal_tree
    np.testing.assert_array_equal(st.result, st.og.outcome(st.deals.astype(np.int64)))
    for p in (0, 1):
        earlier = None
        for r in range(st.num_rounds):
            code = st.view_code(st.deals, p, r, earlier)
            np.testing.assert_array_equal(code, st.view_code(st.deals, p, r))
            np.testing.assert_array_equal(code, st.view_codes[r][st.views[r][p]])
            earlier = code


def _flat_refinement(st):
    """The lossless fixed point computed the plain way, deal by deal with Counters: views split
    by their parent's class and the multiset of results (precheck), then repeatedly by the
    multiset of (own class, opponent's class, result) over all deals through them (flat, not
    via descendants), until no class splits; classes numbered by first view."""

    def split(key, signature):
        ids: dict = {}
        return np.array([ids.setdefault((key[v], signature[v]), len(ids)) for v in range(len(key))])

    def signatures(r, label):
        counts = [collections.Counter() for _ in range(st.num_views[r])]
        for view, x in zip(st.views[r][0], label):
            counts[view][x] += 1
        return [frozenset(c.items()) for c in counts]

    classes: list = []
    for r in range(st.num_rounds):
        key = st.parent_classes(classes, r).tolist()
        classes.append(split(key, signatures(r, st.result.tolist())))
    while True:
        own, opp = classes[-1][st.views[-1][0]], classes[-1][st.views[-1][1]]
        label = list(zip(own.tolist(), opp.tolist(), st.result.tolist()))
        new: list = []
        for r in range(st.num_rounds):
            key = list(zip(st.parent_classes(new, r).tolist(), classes[r].tolist()))
            new.append(split(key, signatures(r, label)))
        if [len(set(c)) for c in new] == [len(set(c)) for c in classes]:
            return new
        classes = new


@pytest.mark.parametrize(
    "game", ["leduc_poker", "limit_leduc_poker(num_ranks=4)", RI_SMALL, UP_TWO_CARDS]
)
def test_lossless_filter_is_the_flat_refinement(shrunk, game):
    """`lossless_filter` refines earlier rounds by their descendants' signatures, on a table of
    consecutive deals; the plain flat refinement reaches the same classes, numbered alike."""
    abstraction = shrunk.abstraction(game)
    for got, want in zip(abstraction.classes, _flat_refinement(abstraction.signal_tree)):
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL, UP_TWO_CARDS])
def test_deals_through_a_view_of_player_0_are_consecutive(shrunk, game):
    """`SignalTree.view_blocks`: every block of rows shares one view of player 0, all blocks of
    a round have the same size and they list every view once; each deal is a distinct set of
    card slots and there are as many as the counting formula says."""
    st = shrunk.abstraction(game).signal_tree
    for r in range(st.num_rounds):
        views, size = st.view_blocks(r)
        np.testing.assert_array_equal(st.views[r][0], np.repeat(views, size))
        np.testing.assert_array_equal(np.sort(views), np.arange(st.num_views[r]))
    assert len(np.unique(st.deals, axis=0)) == len(st.deals)
    left, count = st.og.num_cards, 1
    for g in st.og.groups:
        count, left = count * math.comb(left, g.size), left - g.size
    assert len(st.deals) == count


@pytest.mark.parametrize("num_labels, spread", [(4, 1), (4, 10**9)])
def test_multiset_classes_by_counting_and_by_sorting(num_labels, spread):
    """Owners with equal keys and equal multisets of labels share a class, numbered in order
    of their first owner - against a dictionary of sorted label tuples; `spread` makes the
    labels sparse, which takes the sorting path."""
    rng = np.random.default_rng(0)
    owner = rng.integers(0, 50, size=400)
    label = rng.integers(0, num_labels, size=400) * spread
    key = rng.integers(0, 2, size=50)
    got = filters._multiset_classes(owner, 50, label, num_labels=num_labels * spread, key=key)
    ids: dict = {}
    expected = [
        ids.setdefault((int(key[v]), tuple(sorted(label[owner == v].tolist()))), len(ids))
        for v in range(50)
    ]
    np.testing.assert_array_equal(got, expected)


def test_universal_poker_leduc_merges_the_suits_like_leduc(shrunk, leduc):
    """The ACPC Leduc deals the same cards (id = rank * suits + suit), so its filter is
    Leduc's: one class per (rank, public rank)."""
    up = shrunk.abstraction(UP_LEDUC)
    assert up.num_classes == leduc.num_classes == [3, 9]
    for r in range(2):
        np.testing.assert_array_equal(up.signal_tree.view_codes[r], leduc.signal_tree.view_codes[r])
        np.testing.assert_array_equal(up.classes[r], leduc.classes[r])


def test_kuhn_has_nothing_to_merge():
    assert gs.gameshrink("kuhn_poker").num_classes == [3]


def test_leduc_merges_exactly_the_suits(leduc):
    st = leduc.signal_tree
    for r in range(2):
        # Decode each view's cards from its code: own card, then the public card.
        cards = [st.view_codes[r] % 6] + ([st.view_codes[r] // 6] if r else [])
        ranks = np.column_stack(cards) // 2  # OpenSpiel Leduc: rank = card // 2
        for a, b in itertools.combinations(range(len(ranks)), 2):
            same_class = leduc.classes[r][a] == leduc.classes[r][b]
            assert same_class == bool(np.all(ranks[a] == ranks[b]))
    assert leduc.num_classes == [3, 9]


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL])
def test_algorithm_1_agrees_with_the_fixed_point_on_every_sibling_pair(shrunk, game):
    a = shrunk.abstraction(game)
    iso = filters.OrderedGameIsomorphism(a.signal_tree, list(a.classes))
    for r, cls in enumerate(a.classes):
        parent = a.signal_tree.parent_classes(list(a.classes), r)
        for x, y in itertools.combinations(range(len(cls)), 2):
            if parent[x] == parent[y]:
                assert iso.isomorphic(r, x, y) == (cls[x] == cls[y]), (r, x, y)
                assert (iso.cost(r, x, y) == 0.0) == (cls[x] == cls[y])


@pytest.mark.parametrize("game", LOSSLESS_GAMES)
def test_lifted_equilibrium_is_an_equilibrium_of_the_original_game(shrunk, game):
    solution, expl = _lifted_lp(shrunk.abstract_game(game))
    assert expl <= 1e-9  # Theorem 2, measured by OpenSpiel
    assert solution.value == pytest.approx(lp.solve(shrunk.original(game)).value, abs=1e-9)


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL_LIFTED])
def test_abstract_exploitability_is_the_lifted_one(shrunk, game):
    """For a lossless filter the exploitability of an approximate (CFR+) profile measured in
    Γ_f equals the exploitability of the lifted policy in the original game compiled from
    OpenSpiel's states (evaluated as OpenSpiel does, tests/test_evaluate.py), so Γ_f's number
    stands for the original where the original cannot be walked (Rhode Island)."""
    abstract = shrunk.abstract_game(game)
    solver = cfr.CFRPlusSolver(abstract.sequence_form)
    for _ in range(15):
        solver.evaluate_and_update_policy()
    profile = solver.average_behavioural()
    in_abstract = evaluate.evaluate_profile(abstract.sequence_form, profile).exploitability
    lifted = lifting.LiftedPolicy(abstract, profile).to_tabular()
    in_original = evaluate.exploitability(abstract.abstraction.og.game, lifted)
    assert in_abstract > 0.01  # not an equilibrium yet
    assert in_abstract == pytest.approx(in_original, abs=1e-9)


def test_outcome_histograms_alone_are_not_lossless(leduc):
    """The Section 5.2 precheck ignores the opponent's information; as a filter it merges
    (J, public Q) with (J, public K) and its lifted equilibrium is exploitable."""
    st = leduc.signal_tree
    coarse = dataclasses.replace(leduc, classes=tuple(filters._precheck_classes(st)))
    assert coarse.num_classes[1] < leduc.num_classes[1]
    assert _lifted_lp(ag.AbstractGame.of(coarse))[1] > 0.1


@pytest.mark.parametrize("game", ["leduc_poker", "limit_leduc_poker(num_ranks=4)", RI_SMALL])
def test_paper_transformation_is_algorithm_1_with_payoff_only_leaves(shrunk, game):
    """`paper_filter` against Algorithm 1's perfect matchings run pair by pair, with every
    opponent class equal (so leaves compare the showdown result only): siblings share a class
    exactly when their subtrees match; and it coarsens the coarsest lossless filter."""
    paper = gs.gameshrink(game, transformation="paper")
    st = paper.signal_tree
    iso = filters.OrderedGameIsomorphism(st, [np.zeros(n, dtype=np.int64) for n in st.num_views])
    for r, cls in enumerate(paper.classes):
        parent = st.parent_classes(list(paper.classes), r)
        for x, y in itertools.combinations(range(len(cls)), 2):
            if parent[x] == parent[y]:
                assert iso.isomorphic_subtrees(r, x, y) == (cls[x] == cls[y]), (r, x, y)
        coarsest = shrunk.abstraction(game).classes[r]
        pairs = np.unique(np.column_stack([coarsest, cls]), axis=0)
        assert len(pairs) == len(np.unique(coarsest))  # one paper class per coarsest class


def test_paper_transformation_as_written_loses_in_leduc(leduc):
    """Definition 5's leaf test read literally (payoffs only) merges Leduc's (J, public Q) with
    (J, public K): of the four unseen cards each ties one and loses to three. But the
    opponent's K is a pair only on the K board, so the opponent's information differs and the
    lifted equilibrium of the abstraction is exploitable in Leduc (OpenSpiel's measure), where
    the coarsest filter's is exact (test_lifted_equilibrium_is_an_equilibrium_...)."""
    paper = gs.gameshrink("leduc_poker", transformation="paper")
    j_q, j_k = [0, -1, 2], [0, -1, 4]  # OpenSpiel Leduc: card // 2 is J, Q, K
    assert paper.class_of(j_q, 0, 1) == paper.class_of(j_k, 0, 1)
    assert leduc.class_of(j_q, 0, 1) != leduc.class_of(j_k, 0, 1)
    assert paper.num_classes[1] < leduc.num_classes[1]
    assert _lifted_lp(ag.AbstractGame.of(paper))[1] > 0.1


def _sequence_keys(sf, player):
    """(infoset key, action) of every sequence of `player` (None for the empty one)."""
    tp, keys = sf.treeplexes[player], sf.infoset_keys(player)
    out = [None] * tp.num_sequences
    for i, key in enumerate(keys):
        for s in range(tp.seq_start[i], tp.seq_start[i] + tp.num_actions[i]):
            out[s] = (key, int(tp.seq_action[s]))
    return out


@pytest.mark.parametrize("game", ["leduc_poker", RI_SMALL, UP_NOLIMIT])
def test_product_sequence_form_is_the_trees(shrunk, game):
    """Γ_f's sequence form built from betting tree x class pairs equals SequenceForm of the
    built GameTree: the same sequences, parents and payoff entries, matched by key."""
    product, built = shrunk.abstract_game(game).sequence_form, shrunk.built_form(game)
    assert isinstance(product, ag.ProductSequenceForm)
    maps = []
    for p in (0, 1):
        index = {k: s for s, k in enumerate(_sequence_keys(built, p))}
        m = np.array([index[k] for k in _sequence_keys(product, p)])
        assert sorted(m.tolist()) == list(range(built.shape[p]))
        tp, tb = product.treeplexes[p], built.treeplexes[p]
        np.testing.assert_array_equal(m[tp.seq_parent[1:]], tb.seq_parent[m[1:]])
        maps.append(m)
    a = product.payoff.tocoo()
    moved = sp.csr_matrix((a.data, (maps[0][a.row], maps[1][a.col])), shape=built.shape)
    assert abs(moved - built.payoff).max() < 1e-15
    assert product.payoff.nnz == built.payoff.nnz
    with pytest.raises(ValueError, match="TabularPolicy needs the pyspiel game"):
        cfr.CFRPlusSolver(product).average_policy()  # lift with LiftedPolicy instead


def test_size_counts_match_built_trees(shrunk, leduc):
    game = shrunk.abstract_game("leduc_poker")
    size, sf = game.size(), game.sequence_form
    assert size["nodes"] == game.tree.num_nodes
    assert size["leaves"] == int(game.tree.is_leaf.sum())
    assert size["infosets"] == game.tree.num_infosets
    e0, f0 = (tp.constraints[0] for tp in sf.treeplexes)
    rows = e0.shape[0] + sf.treeplexes[1].num_sequences
    assert size["lp_rows"] == rows
    assert size["lp_nonzeros"] == e0.nnz + sf.payoff.nnz + f0.nnz
    # The identity filter counts the original game: its sequence form, built from pyspiel.
    identity = gs.identity_filter(leduc)
    original = shrunk.original("leduc_poker")
    isize = ag.AbstractGame.of(identity).size()
    assert isize["infosets"] == original.tree.num_infosets
    assert isize["sequences_0"] == original.treeplexes[0].num_sequences
    assert (
        isize["lp_nonzeros"]
        == sum(tp.constraints[0].nnz for tp in original.treeplexes) + original.payoff.nnz
    )


def test_lifted_policy_plays_in_pyspiel(shrunk):
    game = shrunk.abstract_game("leduc_poker")
    lifted = lifting.LiftedPolicy(game, lp.solve(game.sequence_form).behavioural)
    state = pyspiel.load_game("leduc_poker").new_initial_state()
    for a in (0, 3):
        state.apply_action(a)
    probs = lifted.action_probabilities(state)
    assert set(probs) == set(state.legal_actions())
    assert sum(probs.values()) == pytest.approx(1.0)


def test_threshold_knob(shrunk, leduc):
    tiny = gs.gameshrink("leduc_poker", threshold=1e-12)
    for a, b in zip(tiny.classes, leduc.classes):
        np.testing.assert_array_equal(a, b)
    flat = gs.gameshrink("leduc_poker", threshold=math.inf)
    assert flat.num_classes == [1, 1]  # ignores all signals
    mid = gs.gameshrink("limit_leduc_poker(num_ranks=5)", threshold=0.8)
    lossless = shrunk.abstraction("limit_leduc_poker(num_ranks=5)")
    assert sum(mid.num_classes) < sum(lossless.num_classes)
    # No longer an equilibrium, and the ex post check says so.
    assert _lifted_lp(ag.AbstractGame.of(flat))[1] > 0.1


@pytest.mark.parametrize(
    "game, threshold",
    [
        (RI_SMALL, 1.0),
        ("limit_leduc_poker(num_ranks=5)", 0.8),
        ("limit_leduc_poker(num_ranks=13)", 0.3),
    ],
)
def test_approximate_classes_are_components_of_cheap_sibling_pairs(shrunk, game, threshold):
    """Section 6.2's joins, recomputed without a disjoint-set forest: in each round the joined
    classes are the connected components of the graph on the lossless classes whose edges are
    the sibling pairs (parents in one joined class) of matching cost <= threshold; classes are
    numbered in order of their first view, like the lossless filter's."""
    lossless = shrunk.abstraction(game)
    st = lossless.signal_tree
    got = gs.gameshrink(game, threshold=threshold)
    iso = filters.OrderedGameIsomorphism(st, list(lossless.classes))
    joined: list[np.ndarray] = []
    for r, cls in enumerate(lossless.classes):
        k = lossless.num_classes[r]
        rep = [int(np.flatnonzero(cls == c)[0]) for c in range(k)]
        parent = st.parent_classes(joined, r)
        edges = [
            (a, b)
            for a, b in itertools.combinations(range(k), 2)
            if parent[rep[a]] == parent[rep[b]] and iso.cost(r, rep[a], rep[b]) <= threshold
        ]
        rows, cols = zip(*edges) if edges else ((), ())
        graph = sp.coo_matrix((np.ones(len(edges)), (rows, cols)), shape=(k, k))
        component = connected_components(graph, directed=False)[1][cls]  # per view
        _, first, inverse = np.unique(component, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(first))  # numbered in order of first view
        joined.append(rank[inverse])
        np.testing.assert_array_equal(got.classes[r], joined[-1])
    assert sum(got.num_classes) < sum(lossless.num_classes)


def _kuhn_description(**changes):
    base = descriptions.describe("kuhn_poker")
    return dataclasses.replace(base, **changes)


def test_refuses_players_with_different_orderings():
    """Section 3.4's three-card example: player 0 ranks K > J1 ~ J2, player 1 ranks
    J1 > K > J2 (cards 0 = J1, 1 = J2, 2 = K)."""
    rank0, rank1 = np.array([0, 0, 1]), np.array([2, 0, 1])

    def outcome(deals):
        return np.sign(rank0[deals[:, 0]] - rank1[deals[:, 1]]).astype(np.int8)

    with pytest.raises(ValueError, match="common ordering"):
        gs.gameshrink(_kuhn_description(outcome=outcome))


def test_refuses_unobserved_actions():
    """sequential_rps: player 0 moves without seeing player 1's move (Section 3.4's first
    failure)."""
    game = pyspiel.load_game("sequential_rps")
    desc = _kuhn_description(
        game=game, chance_actions=lambda deal, r: [], deal_from_chance=lambda acts: [-1, -1]
    )
    with pytest.raises(ValueError, match="does not observe"):
        gs.gameshrink(desc)


@pytest.mark.parametrize(
    "game, message",
    [
        ("tic_tac_toe", "no ordered-signals description"),
        ("kuhn_poker(players=3)", "3 players"),
        ("leduc_poker(suit_isomorphism=true)", r"deals ranks.*load leduc_poker\(\) instead"),
        (UP_LEDUC[:-1] + ",boardCards=2c)", "boardCards fixes part of the deal"),
    ],
)
def test_refuses_other_games(game, message):
    with pytest.raises(ValueError, match=message):
        gs.gameshrink(game)


def test_refuses_a_wrong_description():
    """A description whose results do not determine the payoffs (every deal a tie) is caught
    by the sampled plays."""
    with pytest.raises(ValueError, match="not a function of the showdown result"):
        gs.gameshrink(_kuhn_description(outcome=lambda d: np.zeros(len(d), dtype=np.int8)))


def test_bad_threshold():
    with pytest.raises(ValueError, match="threshold"):
        gs.gameshrink("kuhn_poker", threshold=-1.0)
    with pytest.raises(ValueError, match="transformation"):
        gs.gameshrink("kuhn_poker", transformation="exact")
    with pytest.raises(ValueError, match="starts from the coarsest"):
        gs.gameshrink("kuhn_poker", threshold=0.5, transformation="paper")


def test_saved_abstract_strategy_is_checked_on_load(shrunk, tmp_path):
    game = shrunk.abstract_game("leduc_poker")
    lifted = lifting.LiftedPolicy(game, lp.solve(game.sequence_form).behavioural)
    path = tmp_path / "leduc.npz"
    lifting.save_lifted_policy(lifted, path)
    loaded = lifting.load_lifted_policy(path)
    for p in (0, 1):
        np.testing.assert_array_equal(loaded.behavioural[p], lifted.behavioural[p])
    with np.load(path) as f:
        data = dict(f)
    np.savez(tmp_path / "other.npz", **{**data, "threshold": np.inf})  # one class per round
    with pytest.raises(ValueError, match="differs from the saved one"):
        lifting.load_lifted_policy(tmp_path / "other.npz")
    paper = ag.AbstractGame.of(gs.gameshrink("leduc_poker", transformation="paper"))
    lifting.save_lifted_policy(
        lifting.LiftedPolicy(paper, lp.solve(paper.sequence_form).behavioural), path
    )
    assert lifting.load_lifted_policy(path).abstract.abstraction.transformation == "paper"
    with np.load(path) as f:
        data = dict(f)
    np.savez(tmp_path / "other.npz", **{**data, "transformation": "coarsest"})
    with pytest.raises(ValueError, match="differs from the saved one"):
        lifting.load_lifted_policy(tmp_path / "other.npz")
    np.savez(tmp_path / "bad.npz", game=data["game"])
    with pytest.raises(ValueError, match="not a lifted-policy file"):
        lifting.load_lifted_policy(tmp_path / "bad.npz")


def test_a_strategy_saved_before_a_default_changed_is_refused(shrunk, tmp_path):
    """A file written for rhode_island_holdem before its ace_low parameter names the game
    without it; that string now loads the ace_low=true game, whose coarsest classes and keys
    may be the same, so the load refuses it by the game string."""
    game = shrunk.abstract_game(RI_SMALL)
    path = tmp_path / "ri.npz"
    lifting.save_lifted_policy(
        lifting.LiftedPolicy(game, lp.solve(game.sequence_form).behavioural), path
    )
    with np.load(path) as f:
        data = dict(f)
    assert "ace_low=True," in str(data["game"])
    old = str(data["game"]).replace("ace_low=True,", "")
    np.savez(tmp_path / "old.npz", **{**data, "game": old})
    with pytest.raises(ValueError, match="now loads as"):
        lifting.load_lifted_policy(tmp_path / "old.npz")
    assert lifting.load_lifted_policy(path).abstract.abstraction.num_classes == [3, 15, 60]
