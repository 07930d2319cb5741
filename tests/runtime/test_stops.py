"""The one stop vocabulary (`ospiel_ext.runtime.stops`) and the results that carry it."""

import dataclasses
import sys
import typing

import pytest

from ospiel_ext.algorithms import certificates, solver
from ospiel_ext.algorithms.gameshrink import filters, shrink
from ospiel_ext.algorithms.subgames import combine
from ospiel_ext.runtime import stops, sweeps


@pytest.mark.parametrize("reason", ["time_limit", "max_memory", "max_nodes", "interrupted"])
def test_early_reasons_are_stopped_early(reason):
    assert stops.stopped_early(reason)


@pytest.mark.parametrize("reason", ["iterations", "target", "epsilon", "solved", "completed"])
def test_finished_reasons_are_not(reason):
    assert not stops.stopped_early(reason)


def test_an_unknown_reason_is_refused():
    with pytest.raises(ValueError, match="unknown stop reason 'timeout'"):
        stops.stopped_early("timeout")


def _literals(annotation):
    """The strings of a Literal, or of a union of Literals."""
    for arg in typing.get_args(annotation):
        yield from [arg] if isinstance(arg, str) else _literals(arg)


@pytest.mark.parametrize(
    "result_type",
    [
        solver.RunResult,
        certificates.SearchResult,
        sweeps.SweepResult,
        combine.Resolution,
        shrink.Abstraction,
        filters.FilterResult,
    ],
)
def test_every_result_states_its_reasons_in_the_one_vocabulary(result_type):
    assert issubclass(result_type, stops.Stoppable)
    module = sys.modules[result_type.__module__]
    annotation = eval(result_type.__annotations__["stop_reason"], vars(module))
    reasons = set(_literals(annotation))
    assert reasons and reasons <= stops.REASONS, reasons - stops.REASONS


@dataclasses.dataclass(frozen=True)
class _Result(stops.Stoppable):
    stop_reason: stops.StopReason


def test_the_questions_a_caller_asks():
    assert _Result("interrupted").interrupted and _Result("interrupted").stopped_early
    assert not _Result("time_limit").interrupted and _Result("time_limit").stopped_early
    assert not _Result("completed").interrupted and not _Result("completed").stopped_early
