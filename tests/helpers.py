"""Shared test games, reference values and API checks (one check_game / check_solver
for all tests), imported by the tests as `from helpers import ...`; conftest.py keeps only
pytest's fixtures and set-up."""

import dataclasses
import inspect
import os
import stat

import numpy as np
import pyspiel
import pytest
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability as os_exploitability

from ospiel_ext import policies, walk
from ospiel_ext.algorithms.certificates import trunks
from ospiel_ext.algorithms.solver import Solver
from ospiel_ext.sequence_form import SequenceForm

GOOFSPIEL_4 = (
    "turn_based_simultaneous_game(game=goofspiel(num_cards=4,imp_info=True,"
    "points_order=descending))"
)

# The games the foundation must agree with OpenSpiel on.
SMALL_GAMES = ["kuhn_poker", "leduc_poker", "liars_dice(numdice=1,dice_sides=4)", GOOFSPIEL_4]

# Hold'em games that compile: two hole cards from a deck of 3 ranks x 2 suits and a 2-card flop
# (every card is dealt), limit; and a 3-card flop, no-limit with pot and all-in bets, one suit of
# 7 ranks (compiles in a second)
HOLDEM_LIMIT = (
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=1 1,raiseSize=2 4,"
    "firstPlayer=1 1,maxRaises=2 2,numSuits=2,numRanks=3,numHoleCards=2,numBoardCards=0 2)"
)
HOLDEM_NO_LIMIT = (
    "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,blind=2 1,firstPlayer=2 1,"
    "numSuits=1,numRanks=7,numHoleCards=2,numBoardCards=0 3,stack=8 8,bettingAbstraction=fcpa)"
)
KUHN_VALUE = -1.0 / 18.0  # player 0's value of Kuhn poker (theory)
FULL, NULL = 7, 3  # minor numbers of /dev/full and /dev/null (major 1)


def cpp_exploitability(game: pyspiel.Game, tabular: policy_lib.TabularPolicy) -> float:
    """OpenSpiel's exploitability of a TabularPolicy by its C++ best responses.

    The same figure as `open_spiel.python.algorithms.exploitability`, an independent reference
    for ours; 1.6x faster on Rhode Island Hold'em 3x2 (2.9 against 4.7 s).
    """
    return float(pyspiel.exploitability(game, policy_lib.python_policy_to_pyspiel_policy(tabular)))


LEDUC_VALUE = -0.0856064  # player 0's value of Leduc poker (docs/games.md)


def check_solver(solver_cls, game, iterations=10, **kwargs):
    """Every solver: the `Solver` protocol (OpenSpiel's shape plus the array views), fresh
    TabularPolicy objects, valid distributions, exploitability as OpenSpiel computes it, and
    the keyword `max_nodes` refusing a game that is too large."""
    solver = solver_cls(game, **kwargs)
    assert isinstance(solver, Solver)
    assert solver.iteration == 0
    start = solver.traversals
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    assert solver.iteration == iterations and solver.traversals > start
    sf = solver.sequence_form
    assert isinstance(sf, SequenceForm)
    average = solver.average_behavioural()
    assert [len(b) for b in average] == [tp.num_sequences for tp in sf.treeplexes]
    for make in (solver.current_policy, solver.average_policy):
        first, second = make(), make()
        assert isinstance(first, policy_lib.TabularPolicy)
        assert first is not second
        first.action_probability_array[:] = 0.0  # mutating one leaves the solver intact
        probs = second.action_probability_array
        mask = second.legal_actions_mask.astype(bool)
        np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-9)
        assert np.all(probs[~mask] == 0.0)
        assert np.all(probs >= 0.0)
        os_exploitability.exploitability(game, second)  # OpenSpiel accepts it
    np.testing.assert_allclose(
        policies.layout(sf).to_tabular(average).action_probability_array,
        solver.average_policy().action_probability_array,
        atol=1e-12,
    )
    assert solver.exploitability() == pytest.approx(
        os_exploitability.exploitability(game, solver.average_policy()), abs=1e-9
    )
    assert (
        inspect.signature(solver_cls).parameters["max_nodes"].kind == inspect.Parameter.KEYWORD_ONLY
    )
    with pytest.raises(ValueError, match="max_nodes=1"):
        solver_cls(game, max_nodes=1, **kwargs)
    return solver


def perturbed_lp_value(sf, xi):
    """Value of the game where both players' behavioural strategies are bounded below by xi
    (the xi-perturbed treeplexes), by the sequence-form LP: an independent reference."""
    from ospiel_ext import lp

    cons = [lp.behavioural_lower_bounds(tp, xi) for tp in sf.treeplexes]
    return lp.solve(sf, constraints=lp.LPConstraints(own=cons[0], opponent=cons[1])).value


def subtree_utility_range(tree):
    """Min and max of player 0's leaf utility below every node (independent bottom-up pass)."""
    lo = np.where(tree.is_leaf, tree.lo, np.inf)
    hi = np.where(tree.is_leaf, tree.hi, -np.inf)
    for d in range(int(tree.depth.max()), 0, -1):
        nodes = np.flatnonzero(tree.depth == d)
        np.minimum.at(lo, tree.parent[nodes], lo[nodes])
        np.maximum.at(hi, tree.parent[nodes], hi[nodes])
    return lo, hi


def check_game(game_string, max_bound_checks=2000, seed=0):
    """Every game: random simulation, a perfect-recall compile, and sound utility bounds."""
    game = pyspiel.load_game(game_string)
    pyspiel.random_sim_test(game, num_sims=20, serialize=False, verbose=False)
    tree = walk.game_tree(game)
    lo, hi = subtree_utility_range(tree)
    nodes = np.arange(tree.num_nodes)
    if len(nodes) > max_bound_checks:
        nodes = np.random.default_rng(seed).choice(nodes, max_bound_checks, replace=False)
    for node in nodes:
        b_lo, b_hi = trunks.utility_bounds(tree.state(int(node)))
        assert b_lo <= lo[node] + 1e-9 and hi[node] <= b_hi + 1e-9, (node, b_lo, b_hi)
    return game, tree


def memory_device(directory, name: str, minor: int) -> str:
    """A private copy of the memory device (1, minor) in `directory` where mknod is allowed
    (root), else the system's own (/dev/full, /dev/null), which a user who may not mknod
    cannot replace either: an output test never risks the machine's device nodes."""
    path = os.path.join(directory, name)
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, minor))
    except OSError:
        return {FULL: "/dev/full", NULL: "/dev/null"}[minor]
    return path


@dataclasses.dataclass
class ProfileRows:
    """A behavioural profile as the rows `range_policy.arrays_from_tabular` reads: one state per
    information set of the compiled game, its action probabilities over the game's actions."""

    states: list
    action_probability_array: np.ndarray


def profile_rows(explicit, profile):
    """`profile` of a compiled game's sequence form as `ProfileRows` (one state per infoset)."""
    g = explicit.tree
    decisions = np.flatnonzero(g.infoset >= 0)
    ids, first = np.unique(g.infoset[decisions], return_index=True)
    node_of = dict(zip(ids.tolist(), decisions[first].tolist()))
    states, probs = [], []
    for tp, b in zip(explicit.treeplexes, profile):
        for i, infoset in enumerate(tp.infoset_ids.tolist()):
            states.append(g.state(node_of[infoset]))
            row = np.zeros(g.game.num_distinct_actions())
            seqs = slice(tp.seq_start[i], tp.seq_start[i] + tp.num_actions[i])
            row[tp.seq_action[seqs]] = b[seqs]
            probs.append(row)
    return ProfileRows(states, np.array(probs))


def random_behavioural(sf, seed):
    """Random behavioural strategies of both players (cubed uniforms: uneven, some actions
    nearly never played)."""
    rng = np.random.default_rng(seed)
    out = []
    for tp in sf.treeplexes:
        b = rng.random(tp.num_sequences) ** 3
        b[1:] /= np.repeat(tp.segment_sum(b), tp.num_actions)
        b[0] = 1.0
        out.append(b)
    return tuple(out)
