"""result_compare: how a fresh results JSON is matched against the committed one."""

import importlib.metadata as md

from result_compare import Rounding, compare, flatten


def test_records_are_matched_by_their_identifying_fields_in_any_order():
    committed = {"rows": [{"game": "a", "value": 1.0}, {"game": "b", "value": 2.0}]}
    fresh = {"rows": [{"game": "b", "value": 2.0 + 1e-12}]}  # a subset, another order
    result = compare(fresh, committed, keys={"rows": ("game",)}, tables={})
    assert result.mismatches == [] and result.compared == 2  # the record's game and value
    moved = {"rows": [{"game": "b", "value": 2.1}]}
    (line,) = compare(moved, committed, keys={"rows": ("game",)}, tables={}).mismatches
    assert line == "rows/[game=b]/value: fresh 2.1, committed 2.0"


def test_tables_become_records_and_timings_are_never_compared():
    committed = {"columns": ["case", "e", "seconds"], "records": [["x", 0.5, 9.0]],
                 "wall_seconds": 100.0, "provenance": {"commit": "abc"}}  # fmt: skip
    flat = flatten(committed, {"records": ("case",)}, {"records": "columns"})
    assert flat == {
        ("columns", "0"): "case",
        ("columns", "1"): "e",
        ("columns", "2"): "seconds",
        ("records", "[case=x]", "case"): "x",
        ("records", "[case=x]", "e"): 0.5,
    }


def test_a_shorter_trace_is_a_prefix_and_its_interrupted_last_entry_is_dropped():
    committed = {"trace": [{"nodes": 10}, {"nodes": 20}, {"nodes": 40}]}
    fresh = {"trace": [{"nodes": 10}, {"nodes": 20}, {"nodes": 25}]}  # stopped in iteration 3
    result = compare(fresh, committed, keys={}, tables={}, drop_last={"trace": 1})
    assert result.mismatches == [] and result.compared == 2
    assert compare(fresh, committed, keys={}, tables={}).mismatches == [
        "trace/2/nodes: fresh 25, committed 40"
    ]


def test_integers_are_exact_floats_within_tolerance_and_new_figures_fail():
    committed = {"n": 3, "x": 1.0, "ok": True}
    assert compare({"n": 3, "x": 1.0 + 5e-7, "ok": True}, committed, {}, {}).mismatches == []
    assert compare({"n": 4}, committed, {}, {}).mismatches == ["n: fresh 4, committed 3"]
    assert compare({"ok": 1}, committed, {}, {}).mismatches == ["ok: fresh 1, committed True"]
    assert compare({"y": 2.0}, committed, {}, {}).mismatches == [
        "y: 2.0 is not in the committed JSON"
    ]


def test_lp_vertex_figures_are_compared_only_in_the_committed_environment():
    committed = {"rows": [{"solver": "lp", "e": 1.0}, {"solver": "cfr", "e": 2.0}]}
    fresh = {"rows": [{"solver": "lp", "e": 1.5}, {"solver": "cfr", "e": 2.0}]}

    def vertex(path):
        return "solver=lp" in path

    keys = {"rows": ("solver",)}
    result = compare(fresh, committed, keys, {}, vertex=vertex)  # no provenance: skipped
    assert result.mismatches == [] and result.skipped == 2 and result.compared == 2
    here = {p: md.version(p) for p in ("open_spiel", "numpy", "scipy", "highspy")}
    same = {**committed, "provenance": here}
    result = compare(fresh, same, keys, {}, vertex=vertex)
    assert result.mismatches == ["rows/[solver=lp]/e: fresh 1.5, committed 1.0"]


def test_rounding_compares_first_points_exactly_and_the_last_at_its_tolerance():
    committed = {"EGT": {"value": [1.0, 2.0, 3.0, 4.0], "gap": [1.0, 1.0, 1.0], "steps": 100},
                 "CFR": {"value": [1.0, 2.0, 3.0, 4.0]}}  # fmt: skip
    rounding = Rounding(
        paths="^EGT", exact_points=2, loose={"value": (0.1, 0.0), "steps": (0, 0.1)}
    )
    parted = {"EGT": {"value": [1.0, 2.0, 9.0, 4.05], "gap": [1.0, 1.0, 7.0], "steps": 105},
              "CFR": {"value": [1.0, 2.0, 3.0, 4.0]}}  # fmt: skip
    result = compare(parted, committed, {}, {}, rounding=rounding)
    # EGT value: 2 exact points and the last within 0.1; gap: 2 exact points, its last point
    # not named; steps within 10 %; CFR: all 4 points (the pattern does not match it)
    assert result.mismatches == [] and result.compared == 10 and result.rounding == 2
    for moved, line in (
        ({"EGT": {"value": [1.0, 2.5]}}, "EGT/value/1: fresh 2.5, committed 2.0"),
        ({"EGT": {"value": [1.0, 2.0, 3.0, 4.2]}}, "EGT/value/3: fresh 4.2, committed 4.0"),
        ({"EGT": {"steps": 111}}, "EGT/steps: fresh 111, committed 100"),
        ({"CFR": {"value": [1.0, 2.0, 3.1]}}, "CFR/value/2: fresh 3.1, committed 3.0"),
    ):
        assert compare(moved, committed, {}, {}, rounding=rounding).mismatches == [line]
