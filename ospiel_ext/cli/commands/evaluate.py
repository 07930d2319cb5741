r"""Evaluate a saved policy with OpenSpiel's own tools.

  ospiel-ext solve --game=kuhn_poker --solver=lp --policy_out=/tmp/kuhn.json
  ospiel-ext evaluate --game=kuhn_poker --policy=/tmp/kuhn.json \
      [--against=/tmp/other.json] [--output_json=/tmp/eval.json]

Prints and writes (JSON keys): game; on_policy_values (each player's expected utility when
both play the policy); player_improvements (what a best response gains over that, per
player); best_response_values (their sum); nash_conv; exploitability (nash_conv / 2) — all
from `open_spiel.python.algorithms.exploitability.nash_conv` and
`open_spiel.python.algorithms.expected_game_score.policy_value`; exploitability_mbb (in
milli-big-blinds per game, universal_poker games only); policy (the file) or agent,
best_response_by ('openspiel' or 'ospiel_ext', below). With --against: the policy's
expected utility against the other policy file in each seat (as_player_0, as_player_1) and
their mean (average). OpenSpiel's TabularPolicy and best response walk the whole game in
Python: a game estimated above --max_nodes (Knuth's estimate, `loading.refuse_by_estimate`) is
refused with a one-line error before the policy file is read. OpenSpiel's best response needs
information_state_string: in a perfect-information game without one (pig, breakthrough,
...), the best responses are ospiel_ext's (`ospiel_ext.evaluate`, equal to OpenSpiel's to
1e-9 where both run); best_response_by says which.

A --policy ending in .npz is a range policy (`ospiel-ext solve --form=public_tree --suits`,
`poker.range_policy`): of a poker game too large for OpenSpiel's walk (Rhode Island Hold'em
whole), so its values and best responses are computed exactly on the public tree x hand
ranges (`poker.range_walker.RangeWalker`; equal to OpenSpiel's to 1e-9 where both run,
`tests/cli/test_evaluate_and_play.py`), best_response_by 'ospiel_ext (public tree)', and
--max_nodes does not apply. --against is then a range policy of the same game and layout.

--agent=MODULE:NAME (or FILE.py:NAME) evaluates a batched policy instead of a file: NAME is
a function of a public decision node and board (`poker.agents.PublicNode`: the betting, the
board, the acting player's hands, their information-state tensors) to the probabilities of
every hand, so that a neural agent is asked once per public node, not once per state, and its
best responses are exact on the public tree (`poker.agents.evaluate_batched`; --suits for a
suit-symmetric agent, --threads for the best-response passes):

  ospiel-ext evaluate --game="universal_poker(...)" --agent=my_agents.py:deep_cfr_agent
"""

import pyspiel
from absl import flags
from open_spiel.python.algorithms import exploitability as os_exploitability
from open_spiel.python.algorithms.expected_game_score import policy_value

from ospiel_ext import evaluate, loading
from ospiel_ext.algorithms.poker import agents, range_policy, range_walker, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.cli import solving as cli_solving
from ospiel_ext.runtime import callables
from ospiel_ext.runtime.tables import format_table

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_POLICY = flags.DEFINE_string("policy", None, "The policy file to evaluate (or --agent).")
_AGAINST = flags.DEFINE_string("against", None, "Also play the policy against this policy file.")
_AGENT = flags.DEFINE_string(
    "agent", None, "MODULE:NAME or FILE.py:NAME, a batched policy to evaluate (not with --policy)."
)
_SUITS = flags.DEFINE_bool(
    "suits", False, "With --agent: one board per suit orbit (a suit-symmetric agent only)."
)
_THREADS = flags.DEFINE_integer(
    "threads", 1, "With --agent: threads of the best-response passes.", lower_bound=1
)
_MAX_NODES = flags.DEFINE_integer(
    "max_nodes", 2_000_000, "Refuse games estimated above this many nodes."
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


# on-policy values, player improvements, NashConv, best_response_by, against (as 0, as 1)
_Figures = tuple[list[float], list[float], float, str, tuple[float, float] | None]


def _openspiel_figures(game: pyspiel.Game, path: str) -> _Figures:
    """OpenSpiel's values and best responses of the policy files (ours without info states)."""
    cli.walkable(game, _MAX_NODES.value)  # before a policy file makes OpenSpiel walk the game
    with cli.stage(f"reading {path}"), cli_flags.refuse(ValueError):
        policy = cli_solving.load_policy_file(game, path)
        other = cli_solving.load_policy_file(game, _AGAINST.value) if _AGAINST.value else None
    root = game.new_initial_state()
    # OpenSpiel's best response needs information_state_string; games keyed by their
    # histories (perfect information without one, e.g. pig) are evaluated by ospiel_ext's,
    # which agrees with OpenSpiel's to 1e-9 where both run (tests/openspiel_compat).
    openspiel = not loading.keyed_by_history(game)
    best_responses = os_exploitability.nash_conv if openspiel else evaluate.nash_conv
    with cli.stage("computing best responses"):
        on_policy = [float(v) for v in policy_value(root, [policy, policy])]
        result = best_responses(game, policy, return_only_nash_conv=False)
    assert not isinstance(result, float)  # return_only_nash_conv=False: a NashConvReturn
    against = None
    if other is not None:
        against = (
            float(policy_value(root, [policy, other])[0]),
            float(policy_value(root, [other, policy])[1]),
        )
    improvements = [float(v) for v in result.player_improvements]
    by = "openspiel" if openspiel else "ospiel_ext"
    return on_policy, improvements, float(result.nash_conv), by, against


def _range_figures(game: pyspiel.Game, path: str) -> _Figures:
    """Exact values and best responses of range policies on their public tree (docstring)."""
    with cli.stage(f"reading {path}"), cli_flags.refuse(ValueError):
        policy = cli_solving.load_policy_file(game, path)
        other = cli_solving.load_policy_file(game, _AGAINST.value) if _AGAINST.value else None
    assert isinstance(policy, range_policy.RangePolicy)
    if other is not None:
        assert isinstance(other, range_policy.RangePolicy)
        cli_flags.require(
            other.tree.suits == policy.tree.suits,
            f"--against={_AGAINST.value}: laid out with suits {other.tree.suits}, --policy "
            f"with suits {policy.tree.suits} (both range policies on one layout)",
        )
    tree = policy.tree
    walker = range_walker.RangeWalker(tree)
    with cli.stage("computing best responses on the public tree"):
        mine = tree.contract(policy.strategy)  # one entry per hand orbit (`poker.orbits`)
        result = walker.evaluate(mine)
        against = None
        if other is not None:
            c = float(game.utility_sum())
            theirs = tree.contract(other.strategy)
            as_0 = walker.value(range_walker.mix(tree, (mine, theirs)))
            as_1 = c - walker.value(range_walker.mix(tree, (theirs, mine)))
            against = (as_0, as_1)
    return _public_tree_figures(result, against)


def _public_tree_figures(
    result: evaluate.ProfileEvaluation, against: tuple[float, float] | None
) -> _Figures:
    """The figures of an evaluation on the public tree (`RangeWalker.evaluate`)."""
    on_policy = [float(v) for v in result.on_policy_values]
    improvements = [float(v) for v in result.player_improvements]
    return on_policy, improvements, result.nash_conv, "ospiel_ext (public tree)", against


def _agent_figures(game: pyspiel.Game, spec: str) -> _Figures:
    """Exact values and best responses of a batched policy on the public tree (docstring)."""
    with cli_flags.refuse(ValueError):  # one line: --agent=SPEC: what is wrong
        try:
            agent: agents.BatchedPolicy = callables.load_callable(spec)
        except ValueError as e:
            raise ValueError(f"--agent={spec}: {e}") from None
    with cli.stage("asking the agent and computing best responses on the public tree"):
        with cli_flags.refuse(ValueError):
            result = agents.evaluate_batched(
                game, agent, suits=_SUITS.value, threads=_THREADS.value
            )
    return _public_tree_figures(result, None)


def main(argv: list[str]) -> None:
    """Evaluates --policy in --game (best responses, NashConv); prints and writes the figures."""
    cli_flags.no_arguments(argv)
    cli_flags.require(
        bool(_POLICY.value) != bool(_AGENT.value), "one of --policy and --agent is required"
    )
    cli_flags.require(
        not (_AGENT.value and _AGAINST.value), "--against takes policy files, not --agent"
    )
    if _AGENT.value:
        cli_flags.output_path(_OUTPUT_JSON)
        agent_file = _AGENT.value.rpartition(":")[0]
        if agent_file.endswith(".py"):  # the agent's file is an input the JSON must not replace
            cli_flags.distinct_files([_OUTPUT_JSON], inputs=[("--agent file", agent_file)])
        game = cli.load_game(_GAME.value)
        _report(game, _AGENT.value, _agent_figures(game, _AGENT.value))
        return
    cli_flags.input_file(_POLICY)
    if _AGAINST.value:
        cli_flags.input_file(_AGAINST)
    cli_flags.positive(_MAX_NODES)
    cli_flags.output_path(_OUTPUT_JSON)
    cli_flags.distinct_files([_OUTPUT_JSON], inputs=[_POLICY, _AGAINST])
    assert _POLICY.value is not None  # required above
    ranges = cli_solving.is_range_policy_file(_POLICY.value)
    cli_flags.require(
        not _AGAINST.value or cli_solving.is_range_policy_file(_AGAINST.value) == ranges,
        f"--against={_AGAINST.value}: --policy and --against are both policy files (JSON) "
        "or both range policies (.npz)",
    )
    game = cli.load_game(_GAME.value)
    figures = (_range_figures if ranges else _openspiel_figures)(game, _POLICY.value)
    _report(game, _POLICY.value, figures)


def _report(game: pyspiel.Game, evaluated: str, figures: _Figures) -> None:
    """Prints the figures of the policy file or agent `evaluated` and writes --output_json."""
    on_policy, improvements, nash_conv, by, against = figures
    key = "agent" if _AGENT.value else "policy"
    row = {
        "game": str(game),
        key: evaluated,
        "on_policy_values": on_policy,
        "player_improvements": improvements,
        "best_response_values": [v + d for v, d in zip(on_policy, improvements)],
        "nash_conv": cli_output.clip_rounding(nash_conv),
        "exploitability": cli_output.clip_rounding(nash_conv / 2),
        "best_response_by": by,
    }
    blind = structure.big_blind(game)
    mbb = "" if blind is None else f" ({1000 * row['exploitability'] / blind:.6g} mbb/g)"
    if blind is not None:
        row["exploitability_mbb"] = 1000 * row["exploitability"] / blind
    if against is not None:
        as_0, as_1 = against
        row["against"] = {
            "policy": _AGAINST.value,
            "as_player_0": as_0,
            "as_player_1": as_1,
            "average": (as_0 + as_1) / 2,
        }
    print(f"game: {game}\n{key}: {evaluated}")
    print(
        format_table(
            ["player", "on-policy value", "best-response value", "improvement"],
            [
                [
                    p,
                    f"{on_policy[p]:.6g}",
                    f"{row['best_response_values'][p]:.6g}",
                    f"{improvements[p]:.6g}",
                ]
                for p in (0, 1)
            ],
        )
    )
    print(f"NashConv {row['nash_conv']:.6g}, exploitability {row['exploitability']:.6g}{mbb}")
    if against is not None:
        a = row["against"]
        print(
            f"against {_AGAINST.value}: {a['as_player_0']:.6g} as player 0, "
            f"{a['as_player_1']:.6g} as player 1, {a['average']:.6g} on average"
        )
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)


if __name__ == "__main__":
    cli.main(main)
