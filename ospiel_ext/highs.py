"""Linear programs as named blocks of columns and rows, solved by HiGHS (highspy).

A `LinearProgram` is a tuple of column blocks (bounds, cost), a tuple of row blocks (bounds)
and the sparse matrices where a row block meets a column block; it is immutable, and adding
a block returns a new program, so an LP is extended by adding blocks rather than options.
`LinearProgram.run` assembles one CSC matrix, passes it to HiGHS in one `passModel` (as scipy's
`_linprog_highs` does), and returns HiGHS's status, primal values, duals and final basis
(`HighsResult`); it never raises for a non-optimal status.

Every column and row has a key, id * NUM_KINDS + kind, from its block's `kind` and its
stable `ids`, so that the final basis (`Basis`) can warm-start a renumbered, grown program
(e.g. the LP of a larger trunk of the same game). Where HiGHS fails from a start basis
(HiGHS 1.15's dual simplex stops with "HiGHS did not run" from some alien bases), the program
is solved again from scratch and the fallback logged.

`method` chooses HiGHS's algorithm (`METHODS`): "simplex" (HiGHS's default for LPs, dual
simplex; warm-startable) or "ipm" (interior point with crossover to a vertex and its basis;
a warm-start basis is ignored). Which is faster depends on the size: docs/results/
certificates.md measures both on certificate-search trunks.

HiGHS itself is driven by `highs_run` (one run of a model given as arrays: Ctrl-C, progress,
reading the basis).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

import highspy
import numpy as np
import scipy.sparse as sp
from absl import logging
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import highs_run
from ospiel_ext.arrays import FloatArray, IntArray
from ospiel_ext.highs_run import METHODS, STATUS_MESSAGES, new_highs

__all__ = [
    "METHODS",
    "NUM_KINDS",
    "STATUS_MESSAGES",
    "Basis",
    "Block",
    "HighsResult",
    "LPError",
    "LinearProgram",
    "new_highs",
]


NUM_KINDS = 16


class LPError(RuntimeError):
    """HiGHS ended with a status other than optimal; `status` is HiGHS's model status name."""

    def __init__(self, message: str, status: str = ""):
        super().__init__(message)
        self.status = status


@dataclasses.dataclass(frozen=True)
class Basis:
    """The final simplex basis of an LP, keyed by what each column and row stands for.

    So keyed, it can warm-start a renumbered, grown LP.

    Keys are a block's stable ids times NUM_KINDS plus the block's kind; `keys` is sorted and
    `status` holds the HiGHS basis status of each as an integer.
    """

    keys: IntArray
    status: NDArray[np.int8]

    def lookup(self, keys: IntArray, default: NDArray[np.int8]) -> NDArray[np.int8]:
        """Statuses of `keys`, `default` where this basis does not know a key."""
        if not len(self.keys):
            return default
        pos = np.minimum(np.searchsorted(self.keys, keys), len(self.keys) - 1)
        return np.where(self.keys[pos] == keys, self.status[pos], default).astype(np.int8)


@dataclasses.dataclass(frozen=True, eq=False, kw_only=True)
class Block:
    """Consecutive columns (with a cost) or rows of an LP.

    Attributes:
      name: unique among the LP's column blocks (or row blocks).
      kind: in [0, NUM_KINDS), unique in the LP; `Basis` keys are ids * NUM_KINDS + kind.
      ids: an id per column / row that stays the same when the LP grows.
      lower, upper: bounds on the columns' values / the rows' activities.
      cost: objective coefficient of each column; None for rows.
    """

    name: str
    kind: int
    ids: IntArray
    lower: FloatArray
    upper: FloatArray
    cost: FloatArray | None = None

    def __post_init__(self) -> None:
        n = len(self.ids)
        lengths = [len(self.lower), len(self.upper)]
        if self.cost is not None:
            lengths.append(len(self.cost))
        if any(m != n for m in lengths):
            raise ValueError(f"LP block {self.name!r}: {n} ids but bounds / costs of {lengths}")
        if not 0 <= self.kind < NUM_KINDS:
            raise ValueError(f"LP block {self.name!r}: kind {self.kind} not in [0, {NUM_KINDS})")

    @property
    def size(self) -> int:
        """The number of columns / rows of the block."""
        return len(self.ids)

    @property
    def keys(self) -> IntArray:
        """The `Basis` key of each column / row: ids * NUM_KINDS + kind."""
        return np.asarray(self.ids, dtype=np.int64) * NUM_KINDS + self.kind

    def default_status(self) -> NDArray[np.int8]:
        """Warm-start status where a basis does not know a key.

        Rows basic, columns nonbasic at a finite bound (free columns at zero).
        """
        if self.cost is None:
            return np.full(self.size, highs_run.BASIC, dtype=np.int8)
        lower_finite, upper_finite = np.isfinite(self.lower), np.isfinite(self.upper)
        codes = np.where(
            lower_finite, highs_run.LOWER, np.where(upper_finite, highs_run.UPPER, highs_run.ZERO)
        )
        return codes.astype(np.int8)


@dataclasses.dataclass(frozen=True)
class HighsResult:
    """What HiGHS returned for a `LinearProgram` (optimal or not).

    Attributes:
      status: HiGHS's model status name ("kOptimal", "kTimeLimit", "kInfeasible", ...).
      message: the status in words.
      objective: the objective value (of the LP as written, maximised).
      column_values: primal value of every column (empty if HiGHS has none).
      row_duals: dual value of every row (non-positive on binding >= rows).
      seconds: HiGHS wall time, both runs if a warm start fell back to a cold one.
      simplex_iterations: simplex iterations, both runs.
      basis: the final basis, keyed.
      cold_restart: HiGHS failed from the warm-start basis and solved again from scratch.
    """

    status: str
    message: str
    objective: float
    column_values: FloatArray
    row_duals: FloatArray
    seconds: float
    simplex_iterations: int
    basis: Basis
    cold_restart: bool = False

    @property
    def optimal(self) -> bool:
        """True when HiGHS's status is "kOptimal"."""
        return self.status == "kOptimal"


@dataclasses.dataclass(frozen=True, eq=False)
class LinearProgram:
    """max cost^T z s.t. row lower <= A z <= row upper, column lower <= z <= column upper.

    Attributes:
      name: what the LP is of (for messages).
      columns, rows: the blocks, in LP order.
      entries: (row block name, column block name, matrix) for every non-empty intersection.
    """

    name: str
    columns: tuple[Block, ...] = ()
    rows: tuple[Block, ...] = ()
    entries: tuple[tuple[str, str, sp.csr_matrix], ...] = ()

    def _find(self, blocks: tuple[Block, ...], name: str) -> tuple[int, int, Block]:
        """(position among the blocks, first column / row, block)."""
        start = 0
        for i, b in enumerate(blocks):
            if b.name == name:
                return i, start, b
            start += b.size
        raise ValueError(f"the LP of {self.name} has no block {name!r}")

    def column_range(self, name: str) -> slice:
        """The columns of column block `name`, as a slice of the LP's columns."""
        _, start, b = self._find(self.columns, name)
        return slice(start, start + b.size)

    def row_range(self, name: str) -> slice:
        """The rows of row block `name`, as a slice of the LP's rows."""
        _, start, b = self._find(self.rows, name)
        return slice(start, start + b.size)

    def _add(self, block: Block, entries: Mapping[str, sp.spmatrix], rows: bool) -> LinearProgram:
        taken = {b.kind for b in self.columns + self.rows}
        names = {b.name for b in (self.rows if rows else self.columns)}
        if block.kind in taken or block.name in names:
            raise ValueError(
                f"LP of {self.name}: block {block.name!r} reuses a name or kind {block.kind}"
            )
        if rows == (block.cost is not None):
            raise ValueError(f"LP of {self.name}: column blocks have a cost, row blocks none")
        new = []
        for other_name, matrix in entries.items():
            _, _, other = self._find(self.columns if rows else self.rows, other_name)
            shape = (block.size, other.size) if rows else (other.size, block.size)
            if matrix.shape != shape:
                raise ValueError(
                    f"LP of {self.name}: block {block.name!r} x {other_name!r} must be "
                    f"{shape}, got {matrix.shape}"
                )
            pair = (block.name, other_name) if rows else (other_name, block.name)
            new.append((*pair, sp.csr_matrix(matrix)))
        entries_after = self.entries + tuple(new)
        if rows:
            return dataclasses.replace(self, rows=(*self.rows, block), entries=entries_after)
        return dataclasses.replace(self, columns=(*self.columns, block), entries=entries_after)

    def add_rows(self, block: Block, entries: Mapping[str, sp.spmatrix]) -> LinearProgram:
        """This LP with the rows `block`, whose coefficients on column block c are entries[c]."""
        return self._add(block, entries, rows=True)

    def add_columns(self, block: Block, entries: Mapping[str, sp.spmatrix]) -> LinearProgram:
        """This LP with the columns `block`, whose coefficients in row block r are entries[r]."""
        return self._add(block, entries, rows=False)

    def shift_cost(self, name: str, delta: ArrayLike) -> LinearProgram:
        """This LP with `delta` added to the cost of column block `name`."""
        i, _, b = self._find(self.columns, name)
        delta = np.asarray(delta, dtype=np.float64)
        if delta.shape != (b.size,):
            raise ValueError(
                f"LP of {self.name}: the cost shift of {name!r} must have {b.size} entries, "
                f"got shape {delta.shape}"
            )
        block = dataclasses.replace(b, cost=b.cost + delta)
        return dataclasses.replace(self, columns=(*self.columns[:i], block, *self.columns[i + 1 :]))

    def optimal_face(
        self, objective: float, tolerance: float, kind: int, costs: Mapping[str, ArrayLike]
    ) -> LinearProgram:
        """This LP restricted to within `tolerance` of the optimal `objective`, maximising `costs`.

        The solutions of this LP within `tolerance` of the optimal `objective` (one row block
        "optimal face" of `kind`: cost^T z >= objective - tolerance), maximising instead
        `costs` (column block name -> its new cost; the other blocks' costs become 0). A
        simplex solve returns the vertex of the optimal face that maximises the new costs:
        with random costs, a random vertex among the LP's optimal solutions.
        """
        unknown = set(costs) - {b.name for b in self.columns}
        if unknown:
            raise ValueError(f"LP of {self.name}: no column blocks {sorted(unknown)}")
        old = {b.name: np.asarray(b.cost, dtype=np.float64) for b in self.columns}
        face = self.add_rows(
            Block(
                name="optimal face",
                kind=kind,
                ids=np.zeros(1, np.int64),
                lower=np.array([objective - tolerance]),
                upper=np.array([np.inf]),
            ),
            {name: sp.csr_matrix(cost[None, :]) for name, cost in old.items() if np.any(cost)},
        )
        for name, cost in old.items():
            new = np.asarray(costs.get(name, np.zeros_like(cost)), dtype=np.float64)
            face = face.shift_cost(name, new - cost)
        return face

    def matrix(self) -> sp.csc_matrix:
        """The assembled constraint matrix."""
        found = {(r, c): m for r, c, m in self.entries}
        grid = [
            [found.get((r.name, c.name), sp.csr_matrix((r.size, c.size))) for c in self.columns]
            for r in self.rows
        ]
        a = sp.bmat(grid, format="csc")
        a.eliminate_zeros()
        return a

    def keys(self) -> tuple[IntArray, IntArray]:
        """The key of every column and of every row, in this program's order."""
        return (
            np.concatenate([b.keys for b in self.columns]),
            np.concatenate([b.keys for b in self.rows]),
        )

    def to_highs(self) -> highspy.Highs:
        """A new HiGHS model holding this LP, for experiments with HiGHS's own interface.

        Maximised; columns and rows in block order; output off.
        """
        return highs_run.new_model(_arrays(self.matrix(), self.columns, self.rows))

    def run(
        self,
        time_limit: float | None = None,
        warm_start: Basis | None = None,
        method: str = "simplex",
    ) -> HighsResult:
        """Solves the LP with HiGHS; never raises for HiGHS's status (see `HighsResult`).

        Args:
          time_limit: seconds for HiGHS (both runs together if a warm start falls back).
          warm_start: a `Basis` of an earlier run (of this LP or a smaller one): known
            columns and rows take its status, the others `Block.default_status`, and HiGHS
            repairs the rest (an "alien" basis). If HiGHS fails from it, the LP is solved
            again from scratch and the fallback logged. Ignored by method "ipm".
          method: HiGHS's algorithm, one of `METHODS` (see the module docstring).
        """
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be positive, got {time_limit}")
        if method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {method!r}")
        lp = _arrays(self.matrix(), self.columns, self.rows)
        col_keys, row_keys = self.keys()
        start = None
        if method == "simplex" and warm_start is not None and len(warm_start.keys):
            col_default = np.concatenate([b.default_status() for b in self.columns])
            row_default = np.concatenate([b.default_status() for b in self.rows])
            start = (
                warm_start.lookup(col_keys, col_default),
                warm_start.lookup(row_keys, row_default),
            )
        run = highs_run.run_new_model(lp, time_limit, start, method)
        cold = start is not None and run.failed
        if cold:
            logging.warning(
                "HiGHS failed from the warm-start basis on the LP of %s (%s); solving it "
                "again from scratch",
                self.name,
                run.message,
            )
            left = None if time_limit is None else max(time_limit - run.seconds, 1e-3)
            run = run.then(highs_run.run_new_model(lp, left, None, method))
        logging.vlog(
            1,
            "%s: HiGHS %s after %d simplex iterations, %.2fs (%d rows x %d columns)",
            self.name, run.message, run.iterations, run.seconds, lp.num_row, lp.num_col,
        )  # fmt: skip
        return HighsResult(
            status=run.status.name,
            message=run.message,
            objective=run.objective,
            column_values=run.col_value,
            row_duals=run.row_dual,
            seconds=run.seconds,
            simplex_iterations=run.iterations,
            basis=_keyed_basis(col_keys, row_keys, run.basis_codes),
            cold_restart=cold,
        )


def _keyed_basis(col_keys: IntArray, row_keys: IntArray, codes: NDArray[np.int8]) -> Basis:
    """The `Basis` of status `codes` (columns then rows, in the order of the keys)."""
    keys = np.concatenate([col_keys, row_keys])
    order = np.argsort(keys, kind="stable")
    return Basis(keys[order], codes[order])


def _arrays(
    a: sp.csc_matrix, columns: tuple[Block, ...], rows: tuple[Block, ...]
) -> highs_run.ModelArrays:
    """The LP of the blocks and their assembled CSC matrix."""
    return highs_run.ModelArrays(
        num_col=a.shape[1],
        num_row=a.shape[0],
        col_cost=np.concatenate([b.cost for b in columns]).astype(np.float64),
        col_lower=np.concatenate([b.lower for b in columns]).astype(np.float64),
        col_upper=np.concatenate([b.upper for b in columns]).astype(np.float64),
        row_lower=np.concatenate([b.lower for b in rows]).astype(np.float64),
        row_upper=np.concatenate([b.upper for b in rows]).astype(np.float64),
        a=a,
    )
