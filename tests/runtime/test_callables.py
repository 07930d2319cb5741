"""User-named callables: MODULE:NAME and FILE.py:NAME."""

import os

import pytest

from ospiel_ext.runtime import callables


def test_a_module_function_and_a_file_function_are_found(tmp_path):
    assert callables.load_callable("os.path:join") is os.path.join
    (tmp_path / "mine.py").write_text("def twice(x):\n    return 2 * x\n")
    assert callables.load_callable(f"{tmp_path / 'mine.py'}:twice")(21) == 42


@pytest.mark.parametrize(
    "spec, message",
    [
        ("nothing", "not MODULE:NAME or FILE.py:NAME"),
        (":f", "not MODULE:NAME or FILE.py:NAME"),
        ("/nonexistent/a.py:f", "no file /nonexistent/a.py"),
        ("no_such_module_here:f", "No module named 'no_such_module_here'"),
        ("os:sep", "os has no callable sep"),
    ],
)
def test_what_is_wrong_is_named(spec, message):
    with pytest.raises(ValueError, match=message):
        callables.load_callable(spec)
