"""The suite's own bookkeeping: every test conftest marks slow by name exists."""

import ast
import os

from conftest import SLOW_MODULES, SLOW_TESTS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _tests_in(path):
    """'function' and 'Class::method' of every test defined in the file."""
    tree = ast.parse(open(os.path.join(ROOT, path), encoding="utf-8").read(), path)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            yield node.name
        elif isinstance(node, ast.ClassDef):
            yield from (
                f"{node.name}::{f.name}" for f in node.body if isinstance(f, ast.FunctionDef)
            )


def _defined(test):
    """Whether the file of `test` defines it (absl's parameterized cases add a number)."""
    path, name = test.split("::", 1)
    return any(
        name == d or (name.startswith(d) and name[len(d) :].isdigit()) for d in _tests_in(path)
    )


def test_every_slow_module_and_test_exists():
    assert all(os.path.isfile(os.path.join(ROOT, m)) for m in SLOW_MODULES)
    missing = [t for t in SLOW_TESTS if not _defined(t)]
    assert missing == [], "renamed or removed: update tests/conftest.py"
    assert not _defined("tests/test_suite.py::test_no_such_test")  # the check can fail
