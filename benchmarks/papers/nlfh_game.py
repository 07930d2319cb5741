"""No-limit flop hold'em (NLFH) as `nlfh_figure2.py` and `nlfh_sizes.py` play it.

Brown, Sandholm & Amos (2018), "Depth-Limited Solving for Imperfect-Information Games"
(NeurIPS), Section 6.1 and Appendix B: two hole cards, a three-card flop, two betting rounds,
blinds 100 / 50, the small blind (universal_poker's player 1) first; the action abstraction
fold, call, 0.5x and 1x the pot, all-in, and the game in which the off-tree 0.75x bet is
measured: the abstraction plus that bet as the bettor's first action.
"""

from ospiel_ext.games import poker_actions as pa

OFF_TREE = ("0.75p", 0.75)
NEIGHBOURS = (0.5, 1.0)
BETTOR = 1  # universal_poker's firstPlayer=2 1: the small blind (player 1) acts first
BIG_BLIND = 100


def game_string(num_ranks: int, num_suits: int, stack_bb: int) -> str:
    """NLFH on a deck of num_ranks x num_suits cards, every bet size."""
    stack = stack_bb * BIG_BLIND
    return (
        "universal_poker(betting=nolimit,numPlayers=2,numRounds=2,"
        f"blind={BIG_BLIND} {BIG_BLIND // 2},firstPlayer=2 1,numSuits={num_suits},"
        f"numRanks={num_ranks},numHoleCards=2,numBoardCards=0 3,stack={stack} {stack},"
        "bettingAbstraction=fullgame)"
    )


def abstractions() -> tuple[pa.PotFractionAbstraction, pa.PotFractionAbstraction]:
    """(the action abstraction, the abstraction with the bettor's first 0.75x bet)."""
    abstraction = pa.PotFractionAbstraction(fractions=NEIGHBOURS)
    with_bet = pa.PotFractionAbstraction(
        fractions=NEIGHBOURS, extra=pa.first_bet_extra(BETTOR, dict([OFF_TREE]))
    )
    return abstraction, with_bet
