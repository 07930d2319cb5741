"""A batched hold'em agent that is not suit-symmetric, for `ospiel-ext evaluate --agent`.

  ospiel-ext evaluate --game="universal_poker(...)" \
      --agent=benchmarks/perf/card_agent.py:card_weights --threads=2 --output_json=J

`card_weights` is a fixed function of the cards: a softmax over the legal actions of a random
weight per (own card, action) summed over the hand, plus one per (board card, action) summed
over the board (seeded, so every run asks the same agent). Its weights differ between the
suits of a rank, so suit isomorphism cannot be used (`--suits` refuses it) and the agent is
asked on every actual board: it measures the exact evaluation of an agent at full scale
without the cost of a network (`poker.agents.evaluate_batched`).
"""

import numpy as np

# universal_poker's deck, and its action ids in limit betting and the fcpa / fchpa abstractions
_MAX_CARDS, _MAX_ACTIONS = 52, 5
_HAND = np.random.default_rng(0).normal(size=(_MAX_CARDS, _MAX_ACTIONS))
_BOARD = np.random.default_rng(1).normal(size=(_MAX_CARDS, _MAX_ACTIONS))


def card_weights(node) -> np.ndarray:
    """(H, A) action probabilities at a public node for each of its hands (module docstring)."""
    actions = list(node.actions)
    logits = _HAND[node.hands].sum(axis=1)[:, actions]
    logits += _BOARD[list(node.board)].sum(axis=0)[actions]
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    return probs / probs.sum(axis=1, keepdims=True)
