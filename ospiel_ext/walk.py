"""Walks of pyspiel states into a `tree_builder.TreeBuilder`.

* `game_tree`: the whole game, once, depth first and iteratively, behind the node cap of
  `loading.node_cap` (the `tree.GameTree` every solver of a compiled game works on);
* `expand_below`: the part of a game below given states, breadth first, down to a number of
  player moves (or a predicate on states): the depth-limited games of games too large to
  compile, whose states at the limit get values from elsewhere (Monte Carlo rollouts, a
  value function).

Terminal states become leaves worth their returns to player 0; every decision node is keyed by
`loading.infoset_key`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pyspiel

from ospiel_ext import loading
from ospiel_ext.runtime import progress
from ospiel_ext.tree import GameTree
from ospiel_ext.tree_builder import ActionFilter, TreeBuilder


def game_tree(
    game: pyspiel.Game | str,
    max_nodes: int | float | None = None,
    actions: ActionFilter | None = None,
) -> GameTree:
    """Walks a two-player zero-sum pyspiel game once, depth first and iteratively.

    The walk keeps one pyspiel state per depth level (children are generated lazily, and
    only the state being descended into is cloned), so its memory beyond the tree itself
    is O(depth).

    Args:
      game: a `pyspiel.Game` or a `load_game` string; simultaneous games are converted.
      max_nodes: the node cap (`loading.node_cap`). None: `loading.DEFAULT_MAX_NODES`; a
        positive int: that cap; `loading.NO_NODE_CAP` (math.inf): none. A finite cap is
        checked twice: first Knuth's estimate refuses games estimated above the cap within
        about a second (`loading.refuse_by_estimate`; of the unrestricted game: skipped when
        `actions` is given), then the walk stops as soon as the tree passes the cap; meanwhile a
        progress bar (or, when stderr is not a terminal, a log line every 10 s:
        `progress.Counter`) shows the nodes against the estimate. Infinite games are
        refused unless an int cap is given.
      actions: an action abstraction (`ActionFilter`): only these actions are expanded
        at each decision state; infosets keep the game's keys, so a policy of the
        restricted tree is a policy of the game on the states it reaches (e.g. a
        no-limit poker game restricted to a few pot-fraction bets).

    Raises:
      ValueError: not two players, not zero/constant-sum, imperfect recall, infinite game.
      loading.GameTooLargeError: more than `max_nodes` nodes (estimated or counted).
    """
    game = loading.load(game)
    loading.check_two_player_zero_sum(game)
    cap = loading.node_cap(game, max_nodes)
    estimate = loading.refuse_by_estimate(game, cap) if actions is None else None
    utility_sum = game.utility_sum()
    builder = TreeBuilder(name=str(game), game=game, utility_sum=utility_sum)
    node, state = builder.add_root(), game.new_initial_state()
    # One frame per internal node on the current path: [its state, its first child,
    # its child actions, the next child to visit]. Children are visited last first (the
    # order of earlier versions, so node ids are unchanged); all but child 0 get a clone,
    # child 0 takes over the parent's state once the frame is done.
    stack: list[list] = []
    total = None if estimate is None else estimate.nodes
    with progress.Counter(f"compiling {game}", total, unit="node") as counter:
        shown = 0
        while True:
            if builder.num_nodes - shown >= loading.PROGRESS_STEP:
                shown = builder.num_nodes
                counter.update_to(shown)
            if state.is_terminal():
                returns = state.returns()
                loading.check_zero_sum_returns(game, state, returns, utility_sum)
                builder.set_leaf(node, returns[0], returns[0])
            else:
                first, children = builder.expand_from_state(node, state, actions=actions)
                if builder.num_nodes > cap:
                    raise loading.GameTooLargeError(
                        f"game {game} has more nodes than the cap max_nodes={cap}: the walk "
                        f"reached {builder.num_nodes} nodes ({loading.CAP_HINT})"
                    )
                stack.append([state, first, children, len(children) - 1])
            if not stack:
                break
            frame = stack[-1]
            parent_state, first, children, k = frame
            node = first + k
            if k:
                frame[3] = k - 1
                state = parent_state.child(children[k])
            else:
                stack.pop()
                parent_state.apply_action(children[0])
                state = parent_state
    tree = builder.freeze()
    tree.check_perfect_recall()
    return tree


def expand_below(
    builder: TreeBuilder,
    roots: Sequence[tuple[int, pyspiel.State]],
    depth: int,
    *,
    at_limit: Callable[[pyspiel.State], bool] | None = None,
    max_nodes: int = loading.DEFAULT_MAX_NODES,
    max_nodes_per_root: int | None = None,
) -> tuple[list[int], list[pyspiel.State], dict[str, pyspiel.State]]:
    """Expands the builder's unexpanded `roots` (node, state) breadth first down to `depth`.

    Down to `depth` player moves below them (or the first states where `at_limit` holds);
    terminal states become leaves with their returns. With `max_nodes_per_root`, a root whose
    subtree has passed that many nodes is expanded no further: its unexpanded states are
    returned with the limit's (a caller that compiles whole continuations, `depth` beyond the
    game's length, tells the roots cut short by them).

    Returns:
      (the nodes at the limit, left unexpanded; their states; one state per decision
      information set expanded, by key).

    Raises:
      ValueError: more than `max_nodes` nodes.
    """
    frontier = [(node, state, 0, k) for k, (node, state) in enumerate(roots)]
    size = [1] * len(roots)
    cap = max_nodes_per_root
    limit_nodes: list[int] = []
    limit_states: list[pyspiel.State] = []
    infoset_states: dict[str, pyspiel.State] = {}
    while frontier:
        next_frontier = []
        for node, state, moves, root in frontier:
            if state.is_terminal():
                r = float(state.returns()[0])
                builder.set_leaf(node, r, r)
            elif (
                moves >= depth
                or (cap is not None and size[root] > cap)
                or (at_limit is not None and at_limit(state))
            ):
                limit_nodes.append(node)
                limit_states.append(state)
            else:
                first, actions = builder.expand_from_state(node, state)
                size[root] += len(actions)
                step = 0 if state.is_chance_node() else 1
                if step:
                    infoset_states.setdefault(builder.node_infoset_key(node), state)
                for k, a in enumerate(actions):
                    next_frontier.append((first + k, state.child(a), moves + step, root))
            if builder.num_nodes > max_nodes:
                raise ValueError(
                    f"{builder.name}: more than {max_nodes} nodes above the depth limit"
                )
        frontier = next_frontier
    return limit_nodes, limit_states, infoset_states
