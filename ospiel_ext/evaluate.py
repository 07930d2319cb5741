"""Expected values, best responses, exploitability and per-infoset regret on arrays.

`exploitability(game, policy)` and `nash_conv(game, policy)` have the arguments and meaning of
`open_spiel.python.algorithms.exploitability`, and agree with it to 1e-9; the game is compiled
once (`sequence_form.for_game` caches it), so repeated evaluation never re-walks the game.
On a compiled game: each player's guaranteed value and exploitability E(pi_i) against the
game's value (`lp.game_value`, the sequence-form LP), and per-infoset regret.

A best response is the treeplex bottom-up pass with a segment max in place of the weighted sum
(`Treeplex.infoset_values(g, None)`), against the opponent's realization plan folded into the
sequence values g = A y (player 0) or -A^T x (player 1).
"""

from __future__ import annotations

import collections
import dataclasses
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as policy_lib

from ospiel_ext import policies
from ospiel_ext import sequence_form as sf_lib
from ospiel_ext.arrays import FloatArray
from ospiel_ext.sequence_form import SequenceForm


@dataclasses.dataclass(frozen=True)
class ProfileEvaluation:
    """Values of a behavioural profile, each in the named player's own utility.

    Attributes:
      on_policy_values: expected utility of each player.
      best_response_values: each player's best-response value against the other.
      nash_conv: sum over players of best response minus on-policy value.
      exploitability: OpenSpiel's exploitability, (sum of best responses - utility sum) / 2.
    """

    on_policy_values: tuple[float, float]
    best_response_values: tuple[float, float]

    @property
    def player_improvements(self) -> tuple[float, float]:
        """Each player's best-response value minus its on-policy value."""
        (b0, b1), (v0, v1) = self.best_response_values, self.on_policy_values
        return (b0 - v0, b1 - v1)

    @property
    def nash_conv(self) -> float:
        """NashConv: the sum of both players' improvements."""
        return float(sum(self.player_improvements))

    @property
    def exploitability(self) -> float:
        """OpenSpiel's exploitability: NashConv / 2."""
        return self.nash_conv / 2


def evaluate_profile(sf: SequenceForm, behavioural: policies.Behavioural) -> ProfileEvaluation:
    """Expected values and best-response values of a behavioural profile (one pass each)."""
    tp0, tp1 = sf.treeplexes
    x0, x1 = tp0.realization_plan(behavioural[0]), tp1.realization_plan(behavioural[1])
    return evaluate_plans(sf, x0, x1)


def evaluate_plans(sf: SequenceForm, x0: FloatArray, x1: FloatArray) -> ProfileEvaluation:
    """As `evaluate_profile`, from realization plans."""
    c = sf.utility_sum
    g0 = sf.sequence_values(0, x1)
    value = float(x0 @ g0)
    br0, _ = sf.treeplexes[0].best_response(g0)
    br1, _ = sf.treeplexes[1].best_response(sf.sequence_values(1, x0))
    return ProfileEvaluation((value, c - value), (br0, c + br1))


def _game_and_profile(
    game: pyspiel.Game | str, policy: policy_lib.Policy
) -> tuple[sf_lib.TreeSequenceForm, policies.Behavioural]:
    sf = sf_lib.for_game(game)
    return sf, policies.layout(sf).behavioural(policy)


class NashConvReturn(
    collections.namedtuple("NashConvReturn", ["nash_conv", "player_improvements"])
):
    """OpenSpiel's `exploitability._NashConvReturn`.

    Unpacks as (nash_conv, player_improvements) and indexes the same way (a namedtuple, as
    OpenSpiel's).

    Attributes:
      nash_conv: sum of the player improvements (float).
      player_improvements: numpy array, per player, of best-response value minus on-policy
        value.
    """

    __slots__ = ()


def nash_conv(
    game: pyspiel.Game | str,
    policy: policy_lib.Policy,
    return_only_nash_conv: bool = True,
    use_cpp_br: bool = False,
) -> float | NashConvReturn:
    """NashConv of `policy` in `game`, as `open_spiel.python.algorithms.exploitability.nash_conv`.

    Args:
      game: a pyspiel game or load_game string (two-player zero/constant-sum).
      policy: any OpenSpiel policy; a TabularPolicy of the same game is read directly.
      return_only_nash_conv: if False, return a `NashConvReturn` (OpenSpiel's namedtuple of
        nash_conv and player_improvements); `evaluate_profile` gives the on-policy and
        best-response values too.
      use_cpp_br: accepted for signature compatibility; the array best response is always used.
    """
    del use_cpp_br
    sf, behavioural = _game_and_profile(game, policy)
    result = evaluate_profile(sf, behavioural)
    if return_only_nash_conv:
        return result.nash_conv
    return NashConvReturn(result.nash_conv, np.array(result.player_improvements))


def best_response(
    game: pyspiel.Game | str, policy: policy_lib.Policy, player_id: int
) -> dict[str, Any]:
    """`player_id`'s best response to `policy`, as `exploitability.best_response` of OpenSpiel.

    One bottom-up treeplex pass (a segment max) against the other player's realization plan.
    Every information set of the player gets an action, reached or not (a counterfactual best
    response), the lowest action id among equally good ones, as in OpenSpiel.

    Returns:
      A dict with OpenSpiel's keys `best_response_action` ({information_state_string: action
      id}), `best_response_value`, `on_policy_value`, `on_policy_values` (both players) and
      `nash_conv` (best_response_value - on_policy_value). OpenSpiel's per-state caches
      (`best_response_state_value`, `info_sets` of pyspiel states) are not produced: no
      pyspiel state is visited.

    Raises:
      ValueError: player_id is not 0 or 1, or as `exploitability`.
    """
    if player_id not in (0, 1):
        raise ValueError(f"player_id must be 0 or 1 in a two-player game, got {player_id}")
    sf, behavioural = _game_and_profile(game, policy)
    result = evaluate_profile(sf, behavioural)
    _, actions = pure_best_response(sf, behavioural, player_id)
    values = [float(v) for v in result.on_policy_values]
    return {
        "best_response_action": actions,
        "best_response_value": float(result.best_response_values[player_id]),
        "on_policy_value": values[player_id],
        "on_policy_values": values,
        "nash_conv": float(result.player_improvements[player_id]),
    }


def pure_best_response(
    sf: sf_lib.TreeSequenceForm, behavioural: policies.Behavioural, player: int
) -> tuple[FloatArray, dict[str, int]]:
    """`player`'s pure best response to the other player's behavioural strategy.

    One bottom-up treeplex pass (`Treeplex.best_response`): an action at every information
    set of the player, reached or not, the lowest action id among equally good ones. Returns
    the player's behavioural array (1 at each chosen sequence) and {information-state key:
    action}.
    """
    tp, opp = sf.treeplexes[player], sf.treeplexes[1 - player]
    g = sf.sequence_values(player, opp.realization_plan(behavioural[1 - player]))
    _, pure = tp.best_response(g)
    chosen = np.flatnonzero(pure[1:] > 0) + 1  # one sequence per infoset, in infoset order
    keys = sf.infoset_keys(player)
    actions = {keys[i]: int(a) for i, a in zip(tp.seq_infoset[chosen], tp.seq_action[chosen])}
    return pure, actions


def exploitability(game: pyspiel.Game | str, policy: policy_lib.Policy) -> float:
    """Exploitability of `policy`, as `open_spiel.python.algorithms.exploitability`."""
    sf, behavioural = _game_and_profile(game, policy)
    return evaluate_profile(sf, behavioural).exploitability


def guaranteed_value(sf: SequenceForm, behavioural: FloatArray, player: int) -> float:
    """u_i(pi_i, BR): what player i's behavioural strategy guarantees it against a best response.

    That is its own zero-sum utility against a best response, minus the opponent's
    best-response value (one treeplex pass). No game value is needed: a profile's
    exploitability is minus the mean of both players' guaranteed values.
    """
    o = 1 - player
    x = sf.treeplexes[player].realization_plan(np.asarray(behavioural, dtype=np.float64))
    br, _ = sf.treeplexes[o].best_response(sf.sequence_values(o, x))
    return -br


def player_exploitability(
    sf: SequenceForm, behavioural: FloatArray, player: int, value0: float
) -> float:
    """E(pi_i) = u_o(pi_i, BR) - u_o^*, player i's exploitability.

    What player i's strategy loses against a best response compared with the game value
    (Kubíček, Lisý & Sandholm 2025, "Equilibrium Refinements Improve Subgame Solving in
    Imperfect-Information Games", Section 2); `value0` is player 0's game value
    (`game_value`). The profile's exploitability is the mean of both players'.
    """
    return (value0 if player == 0 else -value0) - guaranteed_value(sf, behavioural, player)


def player_figures(
    sf: SequenceForm, profile: policies.Behavioural, value0: float | None = None
) -> tuple[list[float], list[float] | None]:
    """Both players' guaranteed values u_i(pi_i, BR) of a profile, and their exploitabilities.

    The exploitabilities E(pi_i) when the game's value `value0` is known (else None).
    """
    guaranteed = [guaranteed_value(sf, profile[p], p) for p in (0, 1)]
    if value0 is None:
        return guaranteed, None
    value = (value0, -value0)
    return guaranteed, [value[p] - guaranteed[p] for p in (0, 1)]


@dataclasses.dataclass(frozen=True)
class InfosetRegrets:
    """Per-infoset regret of one player.

    Kroer, Farina & Sandholm, "Smoothing Method for Approximate Extensive-Form Perfect
    Equilibrium", IJCAI 2017, Section 4, Figure 3 measure.

    The infoset is assumed reached with probability one; beliefs over its nodes follow Bayes'
    rule from the opponent's and chance's reach; the regret is the gain of best-responding in
    every infoset of the subtree below it over playing the strategy. Where the opponent never
    reaches the infoset, Bayes' rule is undefined; there the beliefs (and the opponent's play
    below) are those of the trembling-hand limit: the opponent's strategy mixed with uniform
    with weight `tremble` (default 1e-6), the regret measure of an extensive-form perfect
    equilibrium. Chance-unreachable infosets (none in a compiled game) would give NaN.

    Attributes:
      player: whose infosets.
      regret: regret per local infoset of the player's treeplex.
      reach: opponent-and-chance reach probability mass of each infoset (before trembling).
    """

    player: int
    regret: FloatArray
    reach: FloatArray

    @property
    def max(self) -> float:
        """The largest defined (non-NaN) regret, 0 when there is none."""
        defined = self.regret[~np.isnan(self.regret)]
        return float(defined.max()) if len(defined) else 0.0


def _conditional_regrets(
    sf: SequenceForm, behavioural: policies.Behavioural, player: int, b_opp: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """(regret, reach) per infoset of `player` against opponent behaviour b_opp."""
    tp, opp = sf.treeplexes[player], sf.treeplexes[1 - player]
    x_opp = opp.realization_plan(b_opp)
    g = sf.sequence_values(player, x_opp)
    _, v_inf = tp.infoset_values(g, behavioural[player])
    _, v_best = tp.infoset_values(g, None)
    reach = sf.opponent_reach(player, x_opp)  # R_player x_opp
    with np.errstate(invalid="ignore", divide="ignore"):
        regret = np.where(reach > 0, np.maximum(v_best - v_inf, 0.0) / reach, np.nan)
    return regret, reach


def infoset_regrets(
    sf: SequenceForm, behavioural: policies.Behavioural, player: int, tremble: float = 1e-6
) -> InfosetRegrets:
    """Per-infoset regret of `player` under a behavioural profile (see `InfosetRegrets`)."""
    regret, reach = _conditional_regrets(sf, behavioural, player, behavioural[1 - player])
    unreached = ~(reach > 0)
    if unreached.any() and tremble > 0:
        opp = sf.treeplexes[1 - player]
        trembling = (1 - tremble) * behavioural[1 - player] + tremble * opp.uniform
        regret[unreached] = _conditional_regrets(sf, behavioural, player, trembling)[0][unreached]
    return InfosetRegrets(player, regret, reach)


def max_infoset_regret(sf: SequenceForm, behavioural: policies.Behavioural) -> float:
    """The largest per-infoset regret of either player (Kroer, Farina & Sandholm 2017, Figure 3)."""
    return max(infoset_regrets(sf, behavioural, p).max for p in (0, 1))
