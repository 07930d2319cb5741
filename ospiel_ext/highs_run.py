"""One HiGHS run of a model given as arrays, for `highs` (the LP interface users call).

`ModelArrays` holds a maximising LP as the arrays HiGHS's `passModel` takes; `new_model`
passes it to a new HiGHS instance (`new_highs`, without HiGHS's banner on standard output);
`run` runs a model and reads its status, solution and final basis (`Run`), and
`run_new_model` does both for one algorithm of `METHODS`, optionally from a start basis.
Basis statuses are integer codes (`LOWER`, `BASIC`, `UPPER`, `ZERO`: HiGHS's
`HighsBasisStatus`), read without making a Python object per column (`basis_codes`).

HiGHS runs in C++ and never returns to Python on its own, so Python would only see a Ctrl-C
after the solve. A solve is therefore an `interrupts.deferred()` region: the first Ctrl-C or
SIGTERM sets the flag of `ospiel_ext.runtime.interrupts`, HiGHS's simplex / interior-point interrupt
callbacks (`kCallbackSimplexInterrupt`, `kCallbackIpmInterrupt`, through highspy's
`cbSimplexInterrupt` / `cbIpmInterrupt`) see it and stop the solve within milliseconds, and
`run` raises `interrupts.Interrupted` (a KeyboardInterrupt: an interrupted LP has no solution
so far). A caller that can keep a result (a run loop, the certificate search) catches it.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time

import highspy
import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from ospiel_ext.arrays import FloatArray
from ospiel_ext.runtime import interrupts, progress

# `LinearProgram.run`'s HiGHS algorithms and the HiGHS options that select them.
METHOD_OPTIONS: dict[str, dict[str, str]] = {
    "simplex": {},
    "ipm": {"solver": "ipm", "run_crossover": "on"},
}
METHODS = tuple(METHOD_OPTIONS)

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
FAILED = {_M.kNotset, _M.kLoadError, _M.kPresolveError, _M.kSolveError, _M.kPostsolveError}
FAILED.add(_M.kUnknown)

_STATUS = {int(v): v for v in highspy.HighsBasisStatus.__members__.values()}
_BASIS_VALID = 1  # HighsInfo.basis_validity of a valid basis (kBasisValidityValid)
# code -> HighsBasisStatus as an object array: `_STATUS_OBJECTS[codes].tolist()` is the list
# HighsBasis takes, twice as fast as a dict lookup per entry
_STATUS_OBJECTS = np.empty(max(_STATUS) + 1, dtype=object)
_STATUS_OBJECTS[list(_STATUS)] = list(_STATUS.values())
LOWER, BASIC, UPPER, ZERO = (
    int(highspy.HighsBasisStatus.kLower),
    int(highspy.HighsBasisStatus.kBasic),
    int(highspy.HighsBasisStatus.kUpper),
    int(highspy.HighsBasisStatus.kZero),
)


@dataclasses.dataclass(frozen=True)
class Run:
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

    def then(self, again: Run) -> Run:
        """`again`'s answer, with this failed run's seconds and iterations added."""
        return dataclasses.replace(
            again,
            seconds=self.seconds + again.seconds,
            iterations=self.iterations + again.iterations,
        )


@dataclasses.dataclass(frozen=True)
class ModelArrays:
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
        """Passes the model to `h` by `Highs.passModel`'s array overload.

        Numpy buffers are read in place (filling a `highspy.HighsLp` attribute by attribute
        converted them element by element, a cost that showed in profiles of the certificate
        search's thousands of small LPs).
        """
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


class _StopOnSignal:
    """Stops HiGHS on Ctrl-C or SIGTERM while it runs (see the module docstring).

    HiGHS's simplex and interior-point interrupt callbacks stop the solve once
    `interrupts.requested()`.
    """

    def __init__(self, h: highspy.Highs):
        self._h = h

    def __enter__(self) -> _StopOnSignal:
        self._h.cbSimplexInterrupt.subscribe(self._callback)
        self._h.cbIpmInterrupt.subscribe(self._callback)
        return self

    @staticmethod
    def _callback(event: highspy.HighsCallbackEvent) -> None:
        if interrupts.requested():
            event.interrupt()

    def __exit__(self, *exc: object) -> None:
        self._h.cbSimplexInterrupt.unsubscribe(self._callback)
        self._h.cbIpmInterrupt.unsubscribe(self._callback)


_banner_silenced = False


def new_highs() -> highspy.Highs:
    """A Highs instance, made without HiGHS's version banner on standard output.

    The process's first one prints HiGHS's version banner to the C-level stdout from its
    constructor, before any option can turn output off; that one is made with file descriptor
    1 pointed at /dev/null, so scripts' standard output holds only their results.
    """
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


def new_model(lp: ModelArrays) -> highspy.Highs:
    """A new HiGHS model holding `lp`, output off."""
    h = new_highs()
    h.setOptionValue("output_flag", False)
    lp.pass_to(h)
    return h


def basis_codes(
    h: highspy.Highs,
    lp: ModelArrays,
    solution: highspy.HighsSolution,
    *,
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
      h: the run.
      lp: its LP.
      solution: its `getSolution()`.
      col_value: the solution's column values, already read.
      row_value: the solution's row values, already read.
      row_dual: the solution's row duals, already read (the column duals are read from
        `solution` only if a column is fixed).
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
    codes = np.where(at_lower, LOWER, np.where(np.isfinite(upper), UPPER, ZERO))
    fixed = np.flatnonzero(lower == upper)
    if len(fixed):
        col_dual = (
            np.asarray(solution.col_dual, dtype=np.float64)
            if fixed[0] < lp.num_col
            else np.zeros(lp.num_col)
        )
        dual = np.concatenate([col_dual, row_dual])[fixed]
        codes[fixed] = np.where(dual > 0, UPPER, LOWER)
    codes[np.where(basic >= 0, basic, lp.num_col - 1 - basic)] = BASIC  # row r is -1 - r
    return codes.astype(np.int8)


def run_new_model(
    lp: ModelArrays,
    time_limit: float | None,
    start: tuple[NDArray[np.int8], NDArray[np.int8]] | None,
    method: str,
) -> Run:
    """Runs HiGHS's `method` on `lp`, from `start` (column and row status codes) if given."""
    h = new_model(lp)
    for option, value in METHOD_OPTIONS[method].items():
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
    return run(h, lp, rejected)


def run(h: highspy.Highs, lp: ModelArrays, rejected: bool = False, basis: bool = True) -> Run:
    """Runs `h`, whose model is `lp`, and reads the result.

    Ctrl-C and a progress bar while it runs. `rejected`: HiGHS refused the start basis, so
    nothing runs; `basis`: read the final basis (otherwise `basis_codes` is empty).
    """
    begin = time.perf_counter()
    if rejected:
        run_status = highspy.HighsStatus.kError
    else:
        size = f"HiGHS {lp.num_row:,} rows x {lp.num_col:,} columns"
        with interrupts.deferred(), _StopOnSignal(h), progress.bar(size, unit="simplex it") as bar:
            if bar.disable:  # a callback only when the bar is drawn
                run_status = h.run()
            else:

                def show(event: highspy.HighsCallbackEvent) -> None:
                    bar.update(int(event.data_out.simplex_iteration_count) - bar.n)

                h.cbSimplexInterrupt.subscribe(show)
                try:
                    run_status = h.run()
                finally:
                    h.cbSimplexInterrupt.unsubscribe(show)
    seconds = time.perf_counter() - begin
    status = _M.kNotset if rejected else h.getModelStatus()
    # An interrupt does not always end a run as kInterrupt: the interior point method has also
    # ended as kTimeLimit and as kNotset ("HiGHS did not run") when Ctrl-C came during a
    # certificate search. With a signal or deadline pending, a run that did not reach its
    # optimum ended because of it: that is the stop the caller asked for, not a failure.
    if status == _M.kInterrupt or (status != _M.kOptimal and interrupts.requested()):
        raise interrupts.Interrupted
    message = "HiGHS rejected the start basis" if rejected else STATUS_MESSAGES.get(status, "")
    info, solution = h.getInfo(), h.getSolution()
    # each read of a solution attribute converts a whole C++ vector to a list: once each
    col_value = np.asarray(solution.col_value, dtype=np.float64)
    row_dual = np.asarray(solution.row_dual, dtype=np.float64)
    n = lp.num_col + lp.num_row
    codes = np.zeros(0, dtype=np.int8)
    if basis:
        row_value = np.asarray(solution.row_value, dtype=np.float64)
        codes = basis_codes(
            h, lp, solution, col_value=col_value, row_value=row_value, row_dual=row_dual
        )
        if len(codes) != n:
            codes = np.full(n, BASIC, dtype=np.int8)
    return Run(
        status=status,
        message=message or str(status),
        failed=rejected or run_status == highspy.HighsStatus.kError or status in FAILED,
        objective=float(info.objective_function_value),
        col_value=col_value,
        row_dual=row_dual,
        seconds=seconds,
        iterations=max(int(info.simplex_iteration_count), 0),
        basis_codes=codes,
    )
