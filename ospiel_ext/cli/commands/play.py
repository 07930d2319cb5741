"""Play a saved policy against an OpenSpiel bot (or you).

  ospiel-ext play --game=kuhn_poker --policy=/tmp/kuhn.json --opponent=random --num_games=1000
  ospiel-ext play --game=kuhn_poker --policy=/tmp/kuhn.json --opponent=human --num_games=3

Opponents: `random` (`pyspiel.make_uniform_random_bot`), `policy:FILE` (another policy file),
`mcts` (`pyspiel.MCTSBot` with random rollouts, --mcts_simulations; in games of imperfect
information it searches the true state, i.e. it sees the hidden cards), `human` (the state and
the legal actions are shown, an action is read from the terminal; an illegal entry asks again,
end of input stops the match, keeping the deals completed in both seats). The policy plays
through OpenSpiel's `PolicyBot`. Games are played with `pyspiel.evaluate_bots` in duplicate
(`depth_limited.matches.play_duplicate`: the policy sits in seat g % 2 in game g, games 2k and
2k + 1 share the deal). Prints and writes (JSON) the policy's mean return with a 95 % normal
interval, the games played and the seed.

A --policy or policy:FILE ending in .npz is a range policy (`ospiel-ext solve
--form=public_tree --suits`, `poker.range_policy`): it answers at any state without walking
the game, so it plays in games too large for --max_nodes (Rhode Island Hold'em whole).

Ctrl-C or SIGTERM stops the match after the current game (at the human prompt: at once); the
games finished before it are printed and written, and the command exits with code 130.

JSON keys: game, policy, opponent, games (played), games_asked, stop_reason ('games',
'interrupted', 'end of input'), seed, mean, ci95 (null for fewer than two games).
"""

import re
import sys
from collections.abc import Callable

import numpy as np
import pyspiel
from absl import flags, logging
from open_spiel.python.bots.policy import PolicyBot

from ospiel_ext import loading
from ospiel_ext.algorithms.depth_limited import match_report, matches
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output
from ospiel_ext.cli import solving as cli_solving
from ospiel_ext.runtime import interrupts

_GAME = flags.DEFINE_string("game", "kuhn_poker", "A pyspiel.load_game string.")
_POLICY = flags.DEFINE_string("policy", None, "The policy file that plays (required).")
_OPPONENT = flags.DEFINE_string("opponent", "random", "random, policy:FILE, mcts or human.")
_NUM_GAMES = flags.DEFINE_integer("num_games", 100, "Number of games.")
cli_flags.rename("games", "num_games")
_SEED = flags.DEFINE_integer("seed", 0, "Seed of the deals and of the bots.")
_MCTS_SIMULATIONS = flags.DEFINE_integer("mcts_simulations", 200, "MCTS simulations per move.")
_MAX_NODES = flags.DEFINE_integer(
    "max_nodes",
    2_000_000,
    "Refuse games estimated above this many nodes (the policy file is read into OpenSpiel's "
    "TabularPolicy, which walks every state).",
)
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the results here as JSON.")


class EndOfInput(Exception):
    """The human player closed the input."""


class HumanBot(pyspiel.Bot):
    """Shows the state and the legal actions, reads an action id (or its name) from stdin."""

    def __init__(
        self,
        player: int,
        read: Callable[[str], str] = input,
        write: Callable[[str], None] = print,
    ) -> None:
        pyspiel.Bot.__init__(self)
        self.player, self._read, self._write = player, read, write

    def restart_at(self, state: pyspiel.State) -> None:
        """Implements `pyspiel.Bot.restart_at` (nothing to reset)."""

    def step(self, state: pyspiel.State) -> int:
        """Implements `pyspiel.Bot.step`: the action the human enters at `state`."""
        shown = (
            state.information_state_string(self.player)
            if state.get_game().get_type().provides_information_state_string
            else str(state)
        )
        self._write(f"\n{shown}")
        legal = state.legal_actions()
        names: dict[str, int] = {state.action_to_string(self.player, a): a for a in legal}
        self._write("legal actions: " + ", ".join(f"{a}={n}" for n, a in names.items()))
        while True:
            try:
                with interrupts.immediate():  # Ctrl-C at the prompt ends the match at once
                    entry = self._read(f"player {self.player}, your action: ").strip()
            except EOFError:
                raise EndOfInput from None
            if re.fullmatch(r"-?[0-9]+", entry) and int(entry) in legal:
                return int(entry)
            if entry in names:
                return names[entry]
            self._write(f"{entry!r} is not a legal action")


def _opponent(game: pyspiel.Game, spec: str, player: int, seed: int) -> pyspiel.Bot:
    if spec == "random":
        return pyspiel.make_uniform_random_bot(player, seed)
    if spec == "mcts":
        evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
        return pyspiel.MCTSBot(
            game, evaluator, 2.0, _MCTS_SIMULATIONS.value, 1000, False, seed, False
        )
    if spec == "human":
        return HumanBot(player)
    path = spec.removeprefix("policy:")
    return PolicyBot(player, np.random.RandomState(seed), cli_solving.load_policy_file(game, path))


def main(argv: list[str]) -> None:
    """Plays --policy against --opponent in --game; prints and writes the mean return."""
    cli_flags.no_arguments(argv)
    cli_flags.require(bool(_POLICY.value), "--policy is required")
    cli_flags.input_file(_POLICY)
    assert _POLICY.value is not None  # required above
    spec = _OPPONENT.value
    cli_flags.require(
        spec in ("random", "mcts", "human") or (spec.startswith("policy:") and len(spec) > 7),
        f"--opponent must be random, policy:FILE, mcts or human, got {spec!r}",
    )
    cli_flags.positive(_NUM_GAMES)
    cli_flags.positive(_MCTS_SIMULATIONS)
    cli_flags.positive(_MAX_NODES)
    cli_flags.output_path(_OUTPUT_JSON)
    opponent_file = spec.removeprefix("policy:") if spec.startswith("policy:") else None
    if opponent_file is not None:
        cli_flags.input_file(("--opponent=policy:", opponent_file))
    cli_flags.distinct_files(
        [_OUTPUT_JSON], inputs=[_POLICY, ("--opponent=policy:", opponent_file)]
    )
    game = cli.load_game(_GAME.value)
    if any(p and not cli_solving.is_range_policy_file(p) for p in (_POLICY.value, opponent_file)):
        cli.walkable(game, _MAX_NODES.value)  # a TabularPolicy walks the game, a range policy not
    seed = _SEED.value
    with cli_flags.refuse(ValueError):
        loading.check_two_player_zero_sum(game)
        policy = cli_solving.load_policy_file(game, _POLICY.value)
        ours = [PolicyBot(p, np.random.RandomState(seed + p), policy) for p in (0, 1)]
        theirs = [_opponent(game, spec, p, seed + 2 + p) for p in (0, 1)]
    returns = []
    num_games = _NUM_GAMES.value
    logging.info("playing %d games of %s: %s against %s", num_games, game, _POLICY.value, spec)
    try:
        with cli.stage(f"playing {num_games} games"), cli.stoppable() as stop:
            for k in range(0, num_games, 2):  # a deal per call: a stop keeps the games so far
                if interrupts.requested():
                    break
                n = min(2, _NUM_GAMES.value - k)
                returns += matches.play_duplicate(game, ours, theirs, games=n, seed=seed + k)
    except EndOfInput:
        print("\nend of input: stopping", file=sys.stderr)
    stop_reason = stop.reason or ("games" if len(returns) == _NUM_GAMES.value else "end of input")
    summary = match_report.Summary.of("policy", spec, returns) if returns else None
    row = {
        "game": str(game),
        "policy": _POLICY.value,
        "opponent": spec,
        "games": len(returns),
        "games_asked": _NUM_GAMES.value,
        "stop_reason": stop_reason,
        "seed": seed,
        "mean": None if summary is None else summary.mean,
        "ci95": None if summary is None or not np.isfinite(summary.ci95) else summary.ci95,
    }
    if summary is not None:
        print(
            f"{_POLICY.value} against {spec} in {game}: {summary.mean:.4f} ± {summary.ci95:.4f} "
            f"per game (95 % interval) over {len(returns)} games"
        )
    if stop_reason != "games":
        print(f"stopped ({stop_reason}) after {len(returns)} of {_NUM_GAMES.value} games")
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)


if __name__ == "__main__":
    cli.main(main)
