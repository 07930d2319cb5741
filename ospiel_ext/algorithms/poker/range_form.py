"""The public-tree sequence form: a `SequenceForm` whose payoff products walk the public tree.

Solvers read a sequence form through `sequence_values(p, y)` (A y, or -A^T x), `expected_value`
and the treeplexes; exploitability and best responses through the same; per-infoset regrets
through `opponent_reach`. Here these are computed without the payoff matrix A (Johanson,
Bowling, Waugh & Zinkevich, "Accelerating Best Response Calculation in Large Extensive
Games", IJCAI 2011, Section 4): for every terminal public state (betting terminal x board) the
opponent's range is gathered from its realization plan, each own hand's value is a fold or
showdown rule against that range (with card removal), and the values are summed onto the own
sequences, one vectorised block per (round, fold / showdown). The rules are applied as one
T x T kernel per board (`products`: a precomputed gather, a batched dense matmul per block,
one precomputed CSR scatter), O(public terminals x T^2) per call like the nonzeros of A, but
dense and without A's per-entry indices; the paper's O(public terminals x T) strength-sorted
prefix sums were slower in numpy up to T = 52 at least (`products`).

The treeplexes are numbered as `sequence_form.for_game(game)`'s (`public_tree`), so every
solver, best response and behavioural strategy is interchangeable between the two forms. The
form names its game and lists its infosets' keys (one pyspiel replay per infoset, on demand),
so `policies.layout(form)` makes the game's TabularPolicy without compiling the game tree. The
explicit A (for the LP) is built from the public tree on first use of `payoff`; EGT reads its
scale, max |A_ij|, from the terminal blocks (`max_abs_payoff`).
"""

from __future__ import annotations

import collections
import dataclasses
import functools

import numpy as np
import pyspiel
import scipy.sparse as sp

from ospiel_ext import loading
from ospiel_ext.algorithms.cfr_rules import CFRConfig
from ospiel_ext.algorithms.poker import products, range_engine, structure
from ospiel_ext.algorithms.poker.public_tree import PublicTree
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.sequence_form import SequenceForm


@dataclasses.dataclass(frozen=True, eq=False)
class TerminalBlock:
    """Terminals of one round and one kind, over (terminal, board, hand).

    Attributes:
      round: the betting round.
      showdown: showdowns (payoff pot x sign) or folds (payoff fixed by the betting).
      sequences: per player, (n, n_B, T) the player's sequence (0: empty or incompatible).
      payoff: (n,) player 0's fold payoff, or the pot won at a showdown.
    """

    round: int
    showdown: bool
    sequences: tuple[IntArray, IntArray]
    payoff: FloatArray


def _strengths(pt: PublicTree, round_: int) -> IntArray:
    """Strength of every (board, hand) of the round; -1 where the board holds the hand."""
    boards = pt.boards[round_]
    b, h = np.nonzero(boards.remaining > 0)
    out = np.full(boards.remaining.shape, -1, dtype=np.int64)
    out[b, h] = pt.structure.strength(h, boards.types[b])
    return out


def _blocks(pt: PublicTree) -> list[TerminalBlock]:
    groups: dict[tuple[int, bool], list] = collections.defaultdict(list)
    for tp in pt.terminals:
        values = set((tp.node.utility or {}).values())
        groups[tp.round, len(values) > 1].append(tp)
    blocks = []
    for (r, showdown), terms in sorted(groups.items()):
        n_b, t = pt.boards[r].remaining.shape
        boards, hands = np.arange(n_b)[:, None], np.arange(t)[None, :]
        seqs = tuple(
            np.stack(
                [
                    pt.sequences_at(p, tp.last[p], round_=r, boards=boards, hands=hands)
                    for tp in terms
                ]
            )
            for p in (0, 1)
        )
        payoff = np.array(
            [
                tp.node.utility[1] if showdown else next(iter(tp.node.utility.values()))
                for tp in terms
            ]
        )
        blocks.append(TerminalBlock(r, showdown, (seqs[0], seqs[1]), payoff))
    return blocks


class PublicTreeSequenceForm(SequenceForm):
    """The sequence form of a poker game computed on its public tree (module docstring).

    `payoff_lo` / `payoff_hi` / `payoff` are the explicit matrix, built from the public tree on
    first use only (nothing a CFR iteration or a best response reads).
    """

    def __init__(self, pt: PublicTree):
        self.public_tree = pt
        self.blocks = _blocks(pt)
        self._decisions_cache: dict[int, list[tuple[IntArray, IntArray, int]]] = {}
        self._m = [b.remaining.astype(np.float64) for b in pt.boards]
        self._coef = [b.coef for b in pt.boards]
        self._terminal_products = self._build_terminal_products()
        self._reach_products: dict[int, products.Products] = {}
        super().__init__(
            name=pt.name,
            treeplexes=pt.treeplexes,
            payoff_lo=None,
            payoff_hi=None,
            infoset_keys=self._infoset_keys,
            build_reach=self._reach_matrix,
            utility_sum=float(pt.structure.game.utility_sum()),
            game=pt.structure.game,
        )

    def __post_init__(self) -> None:
        """No payoff matrix to check: it is built on demand."""

    def cfr_engine(self, config: CFRConfig) -> range_engine.RangeCFREngine | None:
        """The range layout as CFR engine where it is faster (`range_engine.for_form`).

        The form is a `cfr_rules.OffersCFREngine`: `cfr_variants.CFRVariantSolver` runs this
        engine in place of its sequence-form passes (without basis matrices).
        """
        return range_engine.for_form(self.public_tree, max(self.shape), config)

    # --- the explicit payoff, on demand -----------------------------------------------------
    @property
    def payoff_lo(self) -> sp.csr_matrix:
        """The explicit payoff matrix A, built from the public tree on first use."""
        return self._explicit_payoff

    @payoff_lo.setter
    def payoff_lo(self, value: sp.csr_matrix | None) -> None:
        if value is not None:
            raise ValueError("the public-tree form builds its payoff matrix itself")

    payoff_hi = payoff_lo

    @functools.cached_property
    def has_bounds(self) -> bool:
        """False: every terminal carries a value."""
        return False

    @functools.cached_property
    def _explicit_payoff(self) -> sp.csr_matrix:
        """A, entry by entry: every terminal x board x compatible hand pair."""
        rows, cols, vals = [], [], []
        for blk in self.blocks:
            m, coef = self._m[blk.round], self._coef[blk.round]
            t_count = m.shape[1]
            w = m[:, :, None] * (m[:, None, :] - np.eye(t_count)[None])  # W_b[h0, h1]
            b, h0, h1 = np.nonzero(w > 0)
            weight = coef[b] * w[b, h0, h1]
            if blk.showdown:
                s = _strengths(self.public_tree, blk.round)
                weight = weight * np.sign(s[b, h0] - s[b, h1])
            for i, u in enumerate(blk.payoff):
                rows.append(blk.sequences[0][i, b, h0])
                cols.append(blk.sequences[1][i, b, h1])
                vals.append(u * weight)
        return sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=self.shape
        )

    def max_abs_payoff(self) -> float:
        """The largest |A_ij|, read from the terminal blocks without building A.

        An entry of A sums the terminal deals that its two sequences share. A player who acted
        has its hand in its sequence, and the player who acted last also the betting (so the
        terminal) and the board: where both acted, an entry is one deal, and the largest is a
        block's largest |payoff| times its largest chance weight coef_B W_B[h0, h1] (at a
        showdown, over hand pairs that do not tie). Where one player never acted (a fold
        before its first decision) its empty sequence sums the deal over its hands.
        """
        best = 0.0
        for blk in self.blocks:
            m, coef = self._m[blk.round], self._coef[blk.round]
            w = coef[:, None, None] * m[:, :, None] * (m[:, None, :] - np.eye(m.shape[1])[None])
            if blk.showdown:
                s = _strengths(self.public_tree, blk.round)
                w = w * np.sign(s[:, :, None] - s[:, None, :])
            u = np.abs(blk.payoff)
            acted = [np.any(blk.sequences[p] > 0, axis=(1, 2)) for p in (0, 1)]
            for terminals, weight in (
                (acted[0] & acted[1], np.abs(w)),
                (acted[0] & ~acted[1], np.abs(w.sum(axis=2))),  # summed over player 1's hands
                (~acted[0] & acted[1], np.abs(w.sum(axis=1))),
            ):
                if terminals.any():
                    best = max(best, float(u[terminals].max() * weight.max()))
        return best

    # --- what solvers and evaluators call ---------------------------------------------------
    def sequence_values(
        self, player: int, opponent_plan: FloatArray, matrix: sp.csr_matrix | None = None
    ) -> FloatArray:
        """Player's own (zero-sum) value of each of its sequences, without A.

        A y for player 0, -A^T x for player 1, by the fold and showdown rules over
        the public terminals (Johanson et al. 2011, Section 4), as precomputed `products`; a
        given `matrix` is used as SequenceForm's.
        """
        if matrix is not None:
            return super().sequence_values(player, opponent_plan, matrix)
        return self._terminal_products[player](opponent_plan)

    def expected_value(self, x0: FloatArray, x1: FloatArray) -> float:
        """Player 0's expected utility x0^T A x1, by `sequence_values`."""
        return float(x0 @ self.sequence_values(0, x1))

    def opponent_reach(self, player: int, opponent_plan: FloatArray) -> FloatArray:
        """Opponent-and-chance reach R_player y of each of player's infosets, without R.

        The fold rule with payoff 1 at every decision of the player, as `products`
        built on first use.
        """
        if player not in self._reach_products:
            self._reach_products[player] = self._build_reach_products(player)
        return self._reach_products[player](opponent_plan)

    def _build_terminal_products(self) -> tuple[products.Products, products.Products]:
        """Per player, the terminal blocks' products onto the player's sequences."""
        pt = self.public_tree
        kernels = [
            products.kernel(
                self._m[b.round],
                self._coef[b.round],
                _strengths(pt, b.round) if b.showdown else None,
            )
            for b in self.blocks
        ]
        out = []
        for p in (0, 1):
            sign = 1.0 if p == 0 else -1.0  # a showdown pays sign(own - opponent's): either player
            parts = [
                products.BlockPart(
                    kernel=k,
                    gather=b.sequences[1 - p],
                    target=np.where(self._m[b.round][None] > 0, b.sequences[p], -1),
                    weight=b.payoff if b.showdown else sign * b.payoff,
                )
                for k, b in zip(kernels, self.blocks)
            ]
            out.append(products.Products(parts, pt.treeplexes[p].num_sequences))
        return out[0], out[1]

    def _build_reach_products(self, player: int) -> products.Products:
        """The fold rule with payoff 1 at player's decisions, onto player's infosets."""
        pt = self.public_tree
        parts = [
            products.BlockPart(
                kernel=products.kernel(self._m[r], self._coef[r]),
                gather=seqs,
                target=np.where(rows >= 0, pt.row_infoset[rows], -1),
                weight=np.ones(len(rows)),
            )
            for rows, seqs, r in self._decision_blocks(player)
        ]
        return products.Products(parts, self.treeplexes[player].num_infosets)

    def _decision_blocks(self, player: int) -> list[tuple[IntArray, IntArray, int]]:
        """Per round, the rows of player's decisions and the opponent's sequences there.

        (rows (n, n_B, T), opponent sequences (n, n_B, T), round), built on first use.
        """
        if player not in self._decisions_cache:
            self._decisions_cache[player] = self._build_decision_blocks(player)
        return self._decisions_cache[player]

    def _build_decision_blocks(self, player: int) -> list[tuple[IntArray, IntArray, int]]:
        pt = self.public_tree
        out = []
        for r in range(len(pt.boards)):
            ds = [
                d for d, bp in enumerate(pt.decisions) if bp.round == r and bp.node.player == player
            ]
            if not ds:
                continue
            n_b, t = pt.boards[r].remaining.shape
            boards, hands = np.arange(n_b)[:, None], np.arange(t)[None, :]
            rows = np.stack(
                [
                    pt.rows_of(
                        d, np.broadcast_to(boards, (n_b, t)), np.broadcast_to(hands, (n_b, t))
                    )
                    for d in ds
                ]
            )
            seqs = np.stack(
                [
                    pt.sequences_at(
                        1 - player,
                        pt.decisions[d].last[1 - player],
                        round_=r,
                        boards=boards,
                        hands=hands,
                    )
                    for d in ds
                ]
            )
            out.append((rows, seqs, r))
        return out

    def _reach_matrix(self, player: int) -> sp.csr_matrix:
        """R_player entry by entry: infoset (d, b, h) x opponent sequence at (d, b, o)."""
        pt = self.public_tree
        rows_, cols, vals = [], [], []
        for rows, seqs, r in self._decision_blocks(player):
            m, coef = self._m[r], self._coef[r]
            w = m[:, :, None] * (m[:, None, :] - np.eye(m.shape[1])[None])
            b, h, o = np.nonzero(w > 0)
            for i in range(len(rows)):
                rows_.append(pt.row_infoset[rows[i, b, h]])
                cols.append(seqs[i, b, o])
                vals.append(coef[b] * w[b, h, o])
        return sp.csr_matrix(
            (np.concatenate(vals), (np.concatenate(rows_), np.concatenate(cols))),
            shape=(self.treeplexes[player].num_infosets, self.shape[1 - player]),
        )

    def _infoset_keys(self, player: int) -> list[str]:
        """Each infoset's information-state key, built on demand.

        One pyspiel state per infoset replays the infoset's first history.
        """
        pt, ps = self.public_tree, self.public_tree.structure
        key = loading.key_function(ps.game)
        tp = self.treeplexes[player]
        row_of = np.empty(tp.num_infosets, dtype=np.int64)
        owner = np.repeat([bp.node.player for bp in pt.decisions], np.diff(pt.row_offset))
        mine = np.flatnonzero(owner == player)
        row_of[pt.row_infoset[mine]] = mine
        keys = []
        for row in row_of:
            history = pt.first_history[row]
            state = ps.game.new_initial_state()
            for a in ps.private_actions(int(history[0]), int(history[1])):
                state.apply_action(a)
            for a in history[2:]:
                if a < 0:
                    break
                state.apply_action(int(a))
            keys.append(key(state, player))
        return keys


_CACHE: collections.OrderedDict[str, PublicTreeSequenceForm] = collections.OrderedDict()


def for_game(game: pyspiel.Game | str) -> PublicTreeSequenceForm:
    """The public-tree sequence form of a poker game, built once and cached (last 8 games).

    Raises:
      ValueError: the game lacks the poker structure (`structure.detect`), naming the property.
    """
    game = loading.load(game)
    key = str(game)
    if key not in _CACHE:
        _CACHE[key] = PublicTreeSequenceForm(PublicTree(structure.detect(game)))
        if len(_CACHE) > 8:
            _CACHE.popitem(last=False)
    _CACHE.move_to_end(key)
    return _CACHE[key]
