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

`LiveModel` solves a sequence of such programs on one HiGHS model, turning it into each in
place (new columns and rows appended, changed entries set) so that the simplex continues from
HiGHS's own basis; `certificates.search(live_lp=True)` uses it for its growing trunks.

`method` chooses HiGHS's algorithm (`METHODS`): "simplex" (HiGHS's default for LPs, dual
simplex; warm-startable) or "ipm" (interior point with crossover to a vertex and its basis;
a warm-start basis is ignored). Which is faster depends on the size: docs/results/
certificates.md measures both on certificate-search trunks.

HiGHS runs in C++ and never returns to Python on its own, so Python would only see a Ctrl-C
after the solve. While HiGHS runs, a SIGINT handler of this module counts Ctrl-C presses and
HiGHS's simplex / interior-point interrupt callbacks (`kCallbackSimplexInterrupt`,
`kCallbackIpmInterrupt`, through highspy's `cbSimplexInterrupt` / `cbIpmInterrupt`) stop the
solve: at the first press when nobody else handles Ctrl-C (the solve then raises
KeyboardInterrupt), at the second when a caller's handler does (a run loop's `StopFlag`: the
first press is handed to it after the solve ends, so the loop stops after its current step).
"""

from __future__ import annotations

import dataclasses
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Mapping
from types import FrameType
from typing import Any

import highspy
import numpy as np
import scipy.sparse as sp
from absl import logging
from numpy.typing import ArrayLike, NDArray

from ospiel_ext import progress

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

NUM_KINDS = 16
# `LinearProgram.run`'s HiGHS algorithms and the HiGHS options that select them.
_METHOD_OPTIONS: dict[str, dict[str, str]] = {
    "simplex": {},
    "ipm": {"solver": "ipm", "run_crossover": "on"},
}
METHODS = tuple(_METHOD_OPTIONS)

_M = highspy.HighsModelStatus
STATUS_MESSAGES = {
    _M.kOptimal: "optimal",
    _M.kNotset: "HiGHS did not run",
    _M.kLoadError: "HiGHS could not load the model",
    _M.kModelError: "the model is invalid",
    _M.kPresolveError: "presolve failed",
    _M.kSolveError: "the solver failed",
    _M.kPostsolveError: "postsolve failed",
    _M.kModelEmpty: "the model is empty",
    _M.kInfeasible: "the LP is infeasible (are the strategy constraints satisfiable?)",
    _M.kUnboundedOrInfeasible: "the LP is unbounded or infeasible",
    _M.kUnbounded: "the LP is unbounded",
    _M.kTimeLimit: "the time limit was reached",
    _M.kIterationLimit: "the iteration limit was reached",
    _M.kUnknown: "HiGHS ended in an unknown state",
    _M.kInterrupt: "the solve was interrupted",
}
# Statuses after which a warm-started run is repeated from scratch: HiGHS failed, not the LP.
_FAILED = {_M.kNotset, _M.kLoadError, _M.kPresolveError, _M.kSolveError, _M.kPostsolveError}
_FAILED.add(_M.kUnknown)

_STATUS = {int(v): v for v in highspy.HighsBasisStatus.__members__.values()}
_BASIS_VALID = 1  # HighsInfo.basis_validity of a valid basis (kBasisValidityValid)
# code -> HighsBasisStatus as an object array: `_STATUS_OBJECTS[codes].tolist()` is the list
# HighsBasis takes, twice as fast as a dict lookup per entry
_STATUS_OBJECTS = np.empty(max(_STATUS) + 1, dtype=object)
_STATUS_OBJECTS[list(_STATUS)] = list(_STATUS.values())
_LOWER, _BASIC, _UPPER, _ZERO = (
    int(highspy.HighsBasisStatus.kLower),
    int(highspy.HighsBasisStatus.kBasic),
    int(highspy.HighsBasisStatus.kUpper),
    int(highspy.HighsBasisStatus.kZero),
)


class LPError(RuntimeError):
    """HiGHS ended with a status other than optimal; `status` is HiGHS's model status name."""

    def __init__(self, message: str, status: str = ""):
        super().__init__(message)
        self.status = status


@dataclasses.dataclass(frozen=True)
class Basis:
    """The final simplex basis of an LP, keyed by what each column and row stands for, so
    that it can warm-start a renumbered, grown LP.

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


@dataclasses.dataclass(frozen=True, eq=False)
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

    def __post_init__(self):
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
        return len(self.ids)

    @property
    def keys(self) -> IntArray:
        return np.asarray(self.ids, dtype=np.int64) * NUM_KINDS + self.kind

    def default_status(self) -> NDArray[np.int8]:
        """Warm-start status where a basis does not know a key: rows basic, columns nonbasic
        at a finite bound (free columns at zero)."""
        if self.cost is None:
            return np.full(self.size, _BASIC, dtype=np.int8)
        lower_finite, upper_finite = np.isfinite(self.lower), np.isfinite(self.upper)
        codes = np.where(lower_finite, _LOWER, np.where(upper_finite, _UPPER, _ZERO))
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
        _, start, b = self._find(self.columns, name)
        return slice(start, start + b.size)

    def row_range(self, name: str) -> slice:
        _, start, b = self._find(self.rows, name)
        return slice(start, start + b.size)

    def _add(self, block: Block, entries: Mapping[str, sp.spmatrix], rows: bool):
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
            return dataclasses.replace(self, rows=self.rows + (block,), entries=entries_after)
        return dataclasses.replace(self, columns=self.columns + (block,), entries=entries_after)

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
        return dataclasses.replace(
            self, columns=self.columns[:i] + (block,) + self.columns[i + 1 :]
        )

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

    def to_highs(self) -> highspy.Highs:
        """A new HiGHS model holding this LP (maximised; columns and rows in block order;
        output off), for experiments with HiGHS's own interface."""
        return _model(_arrays(self.matrix(), self.columns, self.rows))

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
        col_keys = np.concatenate([b.keys for b in self.columns])
        row_keys = np.concatenate([b.keys for b in self.rows])
        start = None
        if method == "simplex" and warm_start is not None and len(warm_start.keys):
            col_default = np.concatenate([b.default_status() for b in self.columns])
            row_default = np.concatenate([b.default_status() for b in self.rows])
            start = (
                warm_start.lookup(col_keys, col_default),
                warm_start.lookup(row_keys, row_default),
            )
        run = _run_highs(lp, time_limit, start, method)
        cold = start is not None and run.failed
        if cold:
            logging.warning(
                "HiGHS failed from the warm-start basis on the LP of %s (%s); solving it "
                "again from scratch",
                self.name,
                run.message,
            )
            left = None if time_limit is None else max(time_limit - run.seconds, 1e-3)
            run = run.then(_run_highs(lp, left, None, method))
        logging.info(
            "%s: HiGHS %s after %d simplex iterations, %.2fs (%d rows x %d columns)",
            self.name, run.message, run.iterations, run.seconds, lp.num_row, lp.num_col,
        )  # fmt: skip
        keys = np.concatenate([col_keys, row_keys])
        order = np.argsort(keys, kind="stable")
        return HighsResult(
            status=run.status.name,
            message=run.message,
            objective=run.objective,
            column_values=run.col_value,
            row_duals=run.row_dual,
            seconds=run.seconds,
            simplex_iterations=run.iterations,
            basis=Basis(keys[order], run.basis_codes[order]),
            cold_restart=cold,
        )


class LiveModel:
    """One HiGHS model carried through a sequence of `LinearProgram`s whose columns and rows
    keep their keys, e.g. the LPs of a growing certificate-search trunk.

    `run(program)` turns the model into `program` in place instead of passing it whole:
    columns and rows with new keys are appended (`addCols`, `addRows`: HiGHS makes the new
    columns nonbasic and the new rows basic), the coefficients, costs and bounds that differ
    are changed, and columns and rows whose key `program` lacks are retired (columns fixed at 0
    at no cost, rows freed; a retired key that comes back is changed back). HiGHS's simplex
    then continues from its own final basis: no model to pass, no alien basis to repair.
    Results are in `program`'s order, as `LinearProgram.run`'s. Simplex only. If HiGHS fails
    on the modified model, `program` is solved again from scratch in a new model.
    """

    def __init__(self) -> None:
        self._h: highspy.Highs | None = None
        self._col_keys = np.zeros(0, dtype=np.int64)  # model order
        self._row_keys = np.zeros(0, dtype=np.int64)
        self._lp: _Arrays | None = None  # the model as it stands, in model order

    def run(
        self,
        program: LinearProgram,
        time_limit: float | None = None,
        return_basis: bool = False,
    ) -> HighsResult:
        """Solves `program` on the kept model (see the class docstring); never raises for
        HiGHS's status. `return_basis`: also read the final basis (else `basis` is empty)."""
        if time_limit is not None and not time_limit > 0:
            raise ValueError(f"time_limit must be positive, got {time_limit}")
        a = program.matrix()
        lp = _arrays(a, program.columns, program.rows)
        col_keys = np.concatenate([b.keys for b in program.columns])
        row_keys = np.concatenate([b.keys for b in program.rows])
        cold = False
        if self._h is None:
            cols, rows = self._start(lp, col_keys, row_keys)
        else:
            cols, rows = self._update(a, lp, col_keys, row_keys)
        h = self._h
        assert h is not None and self._lp is not None
        h.setOptionValue("time_limit", np.inf if time_limit is None else float(time_limit))
        run = _run(h, self._lp, basis=return_basis)
        if run.failed:
            logging.warning(
                "HiGHS failed on the kept model of %s (%s); solving it again from scratch",
                program.name,
                run.message,
            )
            left = np.inf if time_limit is None else max(time_limit - run.seconds, 1e-3)
            cols, rows = self._start(lp, col_keys, row_keys)
            h = self._h
            assert h is not None
            h.setOptionValue("time_limit", left)
            run = run.then(_run(h, lp, basis=return_basis))
            cold = True
        logging.info(
            "%s: HiGHS %s after %d simplex iterations, %.2fs (kept model, %d rows x %d columns)",
            program.name, run.message, run.iterations, run.seconds, lp.num_row, lp.num_col,
        )  # fmt: skip
        basis = Basis(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8))
        if return_basis:
            keys = np.concatenate([col_keys, row_keys])
            codes = np.concatenate(
                [run.basis_codes[cols], run.basis_codes[len(self._col_keys) + rows]]
            )
            order = np.argsort(keys, kind="stable")
            basis = Basis(keys[order], codes[order])
        return HighsResult(
            status=run.status.name,
            message=run.message,
            objective=run.objective,
            column_values=run.col_value[cols] if len(run.col_value) else run.col_value,
            row_duals=run.row_dual[rows] if len(run.row_dual) else run.row_dual,
            seconds=run.seconds,
            simplex_iterations=run.iterations,
            basis=basis,
            cold_restart=cold,
        )

    def _start(self, lp: _Arrays, col_keys: IntArray, row_keys: IntArray):
        """A new model holding `lp`; positions are the program's."""
        self._h, self._lp = _model(lp), lp
        self._col_keys, self._row_keys = col_keys, row_keys
        return np.arange(lp.num_col), np.arange(lp.num_row)

    def _update(self, a: sp.csc_matrix, lp: _Arrays, col_keys: IntArray, row_keys: IntArray):
        """Turns the model into `lp` (matrix `a`, program order); returns the model position
        of every program column and row."""
        h, old = self._h, self._lp
        assert h is not None and old is not None
        cols = _positions(self._col_keys, col_keys)
        rows = _positions(self._row_keys, row_keys)
        nc, nr = old.num_col, old.num_row
        mc, mr = max(nc, int(cols.max(initial=-1)) + 1), max(nr, int(rows.max(initial=-1)) + 1)
        # the program in model order; retired columns fixed at 0 at no cost, retired rows free
        cost, col_lower, col_upper = np.zeros(mc), np.zeros(mc), np.zeros(mc)
        cost[cols], col_lower[cols], col_upper[cols] = lp.col_cost, lp.col_lower, lp.col_upper
        row_lower, row_upper = np.full(mr, -np.inf), np.full(mr, np.inf)
        row_lower[rows], row_upper[rows] = lp.row_lower, lp.row_upper
        coo = a.tocoo()
        m = sp.csc_matrix((coo.data, (rows[coo.row], cols[coo.col])), shape=(mr, mc))
        # existing columns and rows: what differs
        kept = m[:nr, :nc]
        diff = (kept - old.a).tocoo()
        changed = np.flatnonzero(diff.data != 0)
        if len(changed):
            r, c = diff.row[changed], diff.col[changed]
            values = np.asarray(kept[r, c]).ravel()
            for i, j, v in zip(r.tolist(), c.tolist(), values.tolist()):
                h.changeCoeff(i, j, v)
        idx = np.flatnonzero(cost[:nc] != old.col_cost)
        if len(idx):
            h.changeColsCost(len(idx), idx.astype(np.int32), cost[idx])
        idx = np.flatnonzero((col_lower[:nc] != old.col_lower) | (col_upper[:nc] != old.col_upper))
        if len(idx):
            h.changeColsBounds(len(idx), idx.astype(np.int32), col_lower[idx], col_upper[idx])
        idx = np.flatnonzero((row_lower[:nr] != old.row_lower) | (row_upper[:nr] != old.row_upper))
        if len(idx):
            # present at run time, missing from highspy 1.16's type stubs
            h.changeRowsBounds(  # type: ignore[attr-defined,unused-ignore]
                len(idx), idx.astype(np.int32), row_lower[idx], row_upper[idx]
            )
        # new columns (their entries in the existing rows), then new rows (in all columns)
        if mc > nc:
            block = m[:nr, nc:].tocsc()
            h.addCols(
                mc - nc, cost[nc:], col_lower[nc:], col_upper[nc:], block.nnz,
                block.indptr[:-1].astype(np.int32), block.indices.astype(np.int32), block.data,
            )  # fmt: skip
        if mr > nr:
            block = m[nr:, :].tocsr()
            h.addRows(
                mr - nr, row_lower[nr:], row_upper[nr:], block.nnz,
                block.indptr[:-1].astype(np.int32), block.indices.astype(np.int32), block.data,
            )  # fmt: skip
        new_cols, new_rows = cols >= nc, rows >= nr
        self._col_keys = np.concatenate(
            [self._col_keys, col_keys[new_cols][np.argsort(cols[new_cols])]]
        )
        self._row_keys = np.concatenate(
            [self._row_keys, row_keys[new_rows][np.argsort(rows[new_rows])]]
        )
        self._lp = _Arrays(mc, mr, cost, col_lower, col_upper, row_lower, row_upper, m)
        return cols, rows


def _positions(model_keys: IntArray, keys: IntArray) -> IntArray:
    """The model position of each of `keys`: where the model has it, else appended after the
    model's in the order of `keys`."""
    n = len(model_keys)
    pos = np.full(len(keys), -1, dtype=np.int64)
    if n:
        order = np.argsort(model_keys, kind="stable")
        at = np.minimum(np.searchsorted(model_keys[order], keys), n - 1)
        found = model_keys[order][at] == keys
        pos[found] = order[at[found]]
    missing = pos < 0
    pos[missing] = n + np.arange(int(missing.sum()))
    return pos


@dataclasses.dataclass(frozen=True)
class _Run:
    """One HiGHS run."""

    status: highspy.HighsModelStatus
    message: str
    failed: bool  # HiGHS failed rather than answered: rejected basis, solver error
    objective: float
    col_value: FloatArray
    row_dual: FloatArray
    seconds: float
    iterations: int
    basis_codes: NDArray[np.int8]  # final column then row statuses

    def then(self, again: _Run) -> _Run:
        """`again`'s answer, with this failed run's seconds and iterations added."""
        return dataclasses.replace(
            again,
            seconds=self.seconds + again.seconds,
            iterations=self.iterations + again.iterations,
        )


@dataclasses.dataclass(frozen=True)
class _Arrays:
    """A maximising LP as the arrays HiGHS's `passModel` takes (column-wise matrix)."""

    num_col: int
    num_row: int
    col_cost: FloatArray
    col_lower: FloatArray
    col_upper: FloatArray
    row_lower: FloatArray
    row_upper: FloatArray
    a: sp.csc_matrix

    def pass_to(self, h: highspy.Highs) -> None:
        """`Highs.passModel`'s array overload: numpy buffers are read in place (filling a
        `highspy.HighsLp` attribute by attribute converted them element by element, a cost
        that showed in profiles of the certificate search's thousands of small LPs)."""
        a = self.a
        h.passModel(
            self.num_col,
            self.num_row,
            a.nnz,
            int(highspy.MatrixFormat.kColwise),
            int(highspy.ObjSense.kMaximize),
            0.0,
            self.col_cost,
            self.col_lower,
            self.col_upper,
            self.row_lower,
            self.row_upper,
            a.indptr.astype(np.int32, copy=False),
            a.indices.astype(np.int32, copy=False),
            a.data.astype(np.float64, copy=False),
            np.zeros(self.num_col, dtype=np.int32),  # every column continuous
        )


def _arrays(a: sp.csc_matrix, columns: tuple[Block, ...], rows: tuple[Block, ...]) -> _Arrays:
    """The LP of the blocks and their assembled CSC matrix."""
    return _Arrays(
        num_col=a.shape[1],
        num_row=a.shape[0],
        col_cost=np.concatenate([b.cost for b in columns]).astype(np.float64),
        col_lower=np.concatenate([b.lower for b in columns]).astype(np.float64),
        col_upper=np.concatenate([b.upper for b in columns]).astype(np.float64),
        row_lower=np.concatenate([b.lower for b in rows]).astype(np.float64),
        row_upper=np.concatenate([b.upper for b in rows]).astype(np.float64),
        a=a,
    )


class _CtrlC:
    """Ctrl-C while HiGHS runs (see the module docstring): counts presses, interrupts HiGHS
    through its interrupt callbacks, and hands the presses to the previous SIGINT handler
    when the solve ends. Outside the main thread (no signal handlers) or where SIGINT is
    ignored it does nothing."""

    def __init__(self, h: highspy.Highs):
        self._h = h
        self._presses = 0
        self._previous: Callable[[int, FrameType | None], Any] | int = signal.SIG_DFL
        self._installed = False
        self._needed = 1

    def __enter__(self) -> _CtrlC:
        previous = signal.getsignal(signal.SIGINT)
        if threading.current_thread() is threading.main_thread() and previous != signal.SIG_IGN:
            # None: a handler not installed from Python, which cannot be restored.
            self._previous = signal.default_int_handler if previous is None else previous
            graceful = callable(self._previous) and self._previous is not signal.default_int_handler
            self._needed = 2 if graceful else 1
            signal.signal(signal.SIGINT, self._handle)
            self._installed = True
            self._h.cbSimplexInterrupt.subscribe(self._callback)
            self._h.cbIpmInterrupt.subscribe(self._callback)
        return self

    def _handle(self, signum, frame) -> None:
        del signum, frame
        self._presses += 1

    def _callback(self, event) -> None:
        if self._presses >= self._needed:
            event.interrupt()

    def __exit__(self, exc_type, exc, tb) -> None:
        if not self._installed:
            return
        signal.signal(signal.SIGINT, self._previous)
        self._h.cbSimplexInterrupt.unsubscribe(self._callback)
        self._h.cbIpmInterrupt.unsubscribe(self._callback)
        self._installed = False
        if exc_type is not None:
            return
        for _ in range(self._presses):  # each press goes to whoever handles SIGINT by now
            handler = signal.getsignal(signal.SIGINT)
            if handler is signal.default_int_handler or handler == signal.SIG_DFL:
                raise KeyboardInterrupt
            if callable(handler):
                handler(signal.SIGINT, None)


_banner_silenced = False


def new_highs() -> highspy.Highs:
    """A Highs instance. The process's first one prints HiGHS's version banner to the C-level
    stdout from its constructor, before any option can turn output off; that one is made with
    file descriptor 1 pointed at /dev/null, so scripts' standard output holds only their
    results."""
    global _banner_silenced
    if _banner_silenced:
        return highspy.Highs()
    _banner_silenced = True
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):  # no usable stdout: nothing to silence
        return highspy.Highs()
    try:
        with open(os.devnull, "w", encoding="utf-8") as null:
            os.dup2(null.fileno(), 1)
            return highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


def _model(lp: _Arrays) -> highspy.Highs:
    """A new HiGHS model holding `lp`, output off."""
    h = new_highs()
    h.setOptionValue("output_flag", False)
    lp.pass_to(h)
    return h


def _basis_codes(
    h: highspy.Highs,
    lp: _Arrays,
    solution: highspy.HighsSolution,
    col_value: FloatArray,
    row_value: FloatArray,
    row_dual: FloatArray,
) -> NDArray[np.int8]:
    """HiGHS's final basis as status codes, columns then rows.

    Reading `getBasis()`'s status lists makes one pybind11 enum object per column and row
    (about 1 us each: more than the simplex itself on the certificate search's small warm-
    started LPs). Instead the basic variables come as one array (`getBasicVariables`) and a
    nonbasic variable's status from where it sits: at its lower or upper bound, free at zero,
    and fixed ones (lower = upper) at upper exactly when their dual is positive, as HiGHS
    marks them. `tests/test_lp.py` checks this against `getBasis()`. Where HiGHS has no
    basis (a run stopped before crossover) it falls back to the status lists.

    Args:
      h, lp, solution: the run, its LP, and its `getSolution()`.
      col_value, row_value, row_dual: the solution's arrays, already read (the column duals
        are read from `solution` only if a column is fixed).
    """
    ok, basic = h.getBasicVariables()  # type: ignore[attr-defined]  # not in highspy stubs
    if ok != highspy.HighsStatus.kOk or h.getInfo().basis_validity != _BASIS_VALID:
        final = h.getBasis()
        return np.array(
            [s.value for s in final.col_status] + [s.value for s in final.row_status],
            dtype=np.int8,
        )
    lower = np.concatenate([lp.col_lower, lp.row_lower])
    upper = np.concatenate([lp.col_upper, lp.row_upper])
    value = np.concatenate([col_value, row_value])
    at_lower = np.isfinite(lower) & (np.abs(value - lower) <= np.abs(value - upper))
    codes = np.where(at_lower, _LOWER, np.where(np.isfinite(upper), _UPPER, _ZERO))
    fixed = np.flatnonzero(lower == upper)
    if len(fixed):
        col_dual = (
            np.asarray(solution.col_dual, dtype=np.float64)
            if fixed[0] < lp.num_col
            else np.zeros(lp.num_col)
        )
        dual = np.concatenate([col_dual, row_dual])[fixed]
        codes[fixed] = np.where(dual > 0, _UPPER, _LOWER)
    codes[np.where(basic >= 0, basic, lp.num_col - 1 - basic)] = _BASIC  # row r is -1 - r
    return codes.astype(np.int8)


def _run_highs(lp: _Arrays, time_limit: float | None, start, method: str) -> _Run:
    """Runs HiGHS's `method` on `lp`, from `start` (column and row status codes) if given."""
    h = _model(lp)
    for option, value in _METHOD_OPTIONS[method].items():
        h.setOptionValue(option, value)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    rejected = False
    if start is not None:
        basis = highspy.HighsBasis()
        basis.col_status = _STATUS_OBJECTS[start[0]].tolist()
        basis.row_status = _STATUS_OBJECTS[start[1]].tolist()
        basis.alien = True
        basis.valid = True
        rejected = h.setBasis(basis) == highspy.HighsStatus.kError
    return _run(h, lp, rejected)


def _run(h: highspy.Highs, lp: _Arrays, rejected: bool = False, basis: bool = True) -> _Run:
    """Runs `h`, whose model is `lp` (Ctrl-C and a progress bar while it runs), and reads the
    result; `rejected`: HiGHS refused the start basis, so nothing runs; `basis`: read the
    final basis (otherwise `basis_codes` is empty)."""
    begin = time.perf_counter()
    if rejected:
        run_status = highspy.HighsStatus.kError
    else:
        size = f"HiGHS {lp.num_row:,} rows x {lp.num_col:,} columns"
        with _CtrlC(h), progress.bar(size, unit="simplex it") as bar:
            if bar.disable:  # a callback only when the bar is drawn
                run_status = h.run()
            else:

                def show(event) -> None:
                    bar.update(int(event.data_out.simplex_iteration_count) - bar.n)

                h.cbSimplexInterrupt.subscribe(show)
                try:
                    run_status = h.run()
                finally:
                    h.cbSimplexInterrupt.unsubscribe(show)
    seconds = time.perf_counter() - begin
    status = _M.kNotset if rejected else h.getModelStatus()
    message = "HiGHS rejected the start basis" if rejected else STATUS_MESSAGES.get(status, "")
    info, solution = h.getInfo(), h.getSolution()
    # each read of a solution attribute converts a whole C++ vector to a list: once each
    col_value = np.asarray(solution.col_value, dtype=np.float64)
    row_dual = np.asarray(solution.row_dual, dtype=np.float64)
    n = lp.num_col + lp.num_row
    codes = np.zeros(0, dtype=np.int8)
    if basis:
        row_value = np.asarray(solution.row_value, dtype=np.float64)
        codes = _basis_codes(h, lp, solution, col_value, row_value, row_dual)
        if len(codes) != n:
            codes = np.full(n, _BASIC, dtype=np.int8)
    return _Run(
        status=status,
        message=message or str(status),
        failed=rejected or run_status == highspy.HighsStatus.kError or status in _FAILED,
        objective=float(info.objective_function_value),
        col_value=col_value,
        row_dual=row_dual,
        seconds=seconds,
        iterations=max(int(info.simplex_iteration_count), 0),
        basis_codes=codes,
    )
