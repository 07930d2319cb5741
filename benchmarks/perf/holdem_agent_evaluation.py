r"""A neural hold'em agent's exact exploitability: one call per public node against OpenSpiel.

  python benchmarks/perf/holdem_agent_evaluation.py \
      --output_json=docs/results/holdem_agent_evaluation.json

Trains OpenSpiel's Deep CFR (`open_spiel.python.pytorch.deep_cfr`, Brown, Lerer, Gross &
Sandholm, "Deep Counterfactual Regret Minimization", ICML 2019; needs PyTorch: `pip install
torch dm-tree`) on --game for --iterations iterations of --traversals traversals, then
measures its average-strategy network's exploitability twice, side by side:

* ours: `poker.agents.evaluate_batched`, the network asked once per public decision node and
  board on the stacked information-state tensors of every hand the board allows, both best
  responses exact on the public tree x hand ranges;
* OpenSpiel's: `policy.tabular_policy_from_callable` of the same network asked per state,
  then `exploitability.exploitability` (skipped with --noopenspiel, for games it cannot walk).

Deep CFR's network puts a softmax over all the game's actions and OpenSpiel's
`DeepCFRSolver.action_probabilities` returns the legal actions' entries as they are (they sum
to less than 1 where an action is illegal); both evaluations here renormalise them over the
legal actions, the strategy the network describes. The network is evaluated in float64 (its
trained weights, widened), so that a batch of hands and one state at a time give the same
probabilities to rounding: in float32 a batched forward pass rounds differently from a
single row, and the two exploitabilities then differ by about 3e-8.

JSON keys: game, iterations, traversals, train_seconds, exploitability (ours, chips),
exploitability_mbb, nash_conv, calls (public nodes x boards asked), ours_seconds;
openspiel_exploitability, openspiel_seconds, speedup (OpenSpiel's seconds / ours) when
OpenSpiel's evaluation runs; agreement (|ours - OpenSpiel's|). A Ctrl-C or SIGTERM during
OpenSpiel's evaluation writes ours with stop_reason "interrupted" (earlier, nothing: there is
no result so far).
"""

import time

import numpy as np
import pyspiel
from absl import flags
from open_spiel.python import policy as policy_lib
from open_spiel.python.algorithms import exploitability

from ospiel_ext.algorithms.poker import agents, structure
from ospiel_ext.cli import command as cli
from ospiel_ext.cli import flags as cli_flags
from ospiel_ext.cli import output as cli_output

# two hole cards from 4 ranks x 2 suits, a 3-card flop, limit betting: OpenSpiel walks it
# in tens of seconds
GAME = (
    "universal_poker(betting=limit,numPlayers=2,numRounds=2,blind=2 1,raiseSize=2 4,"
    "firstPlayer=2 1,maxRaises=2 2,numSuits=2,numRanks=4,numHoleCards=2,numBoardCards=0 3)"
)
_GAME = flags.DEFINE_string("game", GAME, "A poker game of the range layout (load_game string).")
_ITERATIONS = flags.DEFINE_integer("iterations", 20, "Deep CFR iterations.", lower_bound=1)
_TRAVERSALS = flags.DEFINE_integer(
    "traversals", 40, "Deep CFR traversals per player and iteration.", lower_bound=1
)
_SEED = flags.DEFINE_integer("seed", 0, "Deep CFR's seed (and torch's).")
_OPENSPIEL = flags.DEFINE_bool("openspiel", True, "Also run OpenSpiel's per-state evaluation.")
_OUTPUT_JSON = flags.DEFINE_string("output_json", None, "Write the figures here as JSON.")


class NetworkAgent:
    """A Deep CFR policy network as a batched policy and as a per-state OpenSpiel callable."""

    def __init__(self, network, torch):
        self.network, self.torch = network.double(), torch
        self.calls = 0  # batched calls: public decision nodes x boards

    def _probabilities(self, tensors: np.ndarray, actions) -> np.ndarray:
        with self.torch.no_grad():
            out = self.network(self.torch.as_tensor(np.asarray(tensors, np.float64))).numpy()
        legal = out[:, list(actions)].astype(np.float64)
        return legal / legal.sum(axis=1, keepdims=True)

    def __call__(self, node: agents.PublicNode) -> np.ndarray:
        """The batched policy: every hand of the node in one forward pass."""
        self.calls += 1
        return self._probabilities(node.information_state_tensors(), node.actions)

    def per_state(self, state: pyspiel.State) -> dict[int, float]:
        """The same network asked at one state (OpenSpiel's `tabular_policy_from_callable`)."""
        actions = state.legal_actions()
        probs = self._probabilities([state.information_state_tensor()], actions)[0]
        return dict(zip(actions, probs.tolist()))


def main(argv):
    cli_flags.no_arguments(argv)
    cli_flags.output_path(_OUTPUT_JSON)
    try:
        import torch
        from open_spiel.python.pytorch import deep_cfr
    except ImportError as e:
        cli_flags.require(
            False, f"Deep CFR needs PyTorch and dm-tree ({e}): pip install torch dm-tree"
        )
    game = cli.load_game(_GAME.value)
    with cli_flags.refuse(ValueError):
        structure.detect(game)
    torch.manual_seed(_SEED.value)
    solver = deep_cfr.DeepCFRSolver(
        game,
        num_iterations=_ITERATIONS.value,
        num_traversals=_TRAVERSALS.value,
        seed=_SEED.value,
    )
    start = time.perf_counter()
    with cli.stage(f"training Deep CFR ({_ITERATIONS.value} iterations)"):
        solver.solve()
    train_seconds = time.perf_counter() - start
    agent = NetworkAgent(solver._policy_network, torch)  # the average-strategy network

    start = time.perf_counter()
    with cli.stage("exact best responses, the network asked per public node"):
        ours = agents.evaluate_batched(game, agent)
    row = {
        "game": str(game),
        "iterations": _ITERATIONS.value,
        "traversals": _TRAVERSALS.value,
        "train_seconds": train_seconds,
        "exploitability": ours.exploitability,
        "nash_conv": ours.nash_conv,
        "ours_seconds": time.perf_counter() - start,
        "calls": agent.calls,
    }
    blind = structure.big_blind(game)
    if blind is not None:
        row["exploitability_mbb"] = 1000 * ours.exploitability / blind
    print(f"ours: exploitability {ours.exploitability:.9g} in {row['ours_seconds']:.2f} s")
    if _OPENSPIEL.value:
        start = time.perf_counter()
        try:  # OpenSpiel's walk does not poll a stop flag: Ctrl-C raises in it
            with cli.stage("OpenSpiel: the network asked per state, then its best responses"):
                tabular = policy_lib.tabular_policy_from_callable(game, agent.per_state)
                theirs = float(exploitability.exploitability(game, tabular))
        except KeyboardInterrupt:  # ours is kept: written with the reason, exit 130
            row["stop_reason"] = "interrupted"
            with cli.outputs():
                cli_output.write_json(_OUTPUT_JSON.value, row)
            raise
        row["openspiel_seconds"] = time.perf_counter() - start
        row["openspiel_exploitability"] = theirs
        row["agreement"] = abs(theirs - ours.exploitability)
        row["speedup"] = row["openspiel_seconds"] / row["ours_seconds"]
        print(
            f"OpenSpiel: exploitability {theirs:.9g} in {row['openspiel_seconds']:.2f} s "
            f"({row['speedup']:.1f}x ours; |difference| {row['agreement']:.2g})"
        )
    with cli.outputs():
        cli_output.write_json(_OUTPUT_JSON.value, row)


if __name__ == "__main__":
    cli.main(main)
