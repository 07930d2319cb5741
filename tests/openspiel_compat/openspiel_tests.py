"""Loading one of OpenSpiel's own test files with only its import of the module under test
bound to ours (the drop-in compat tests)."""

import importlib
import sys
import types

import pytest


def with_module_swapped(test_module: str, module: str, ours: types.ModuleType) -> types.ModuleType:
    """OpenSpiel's `test_module`, imported while the name `module` is bound to `ours`.

    The test file's `from open_spiel.python.algorithms import X` finds `ours` under X's name;
    afterwards the name is restored, so no other test sees the swap.
    """
    package, _, name = module.rpartition(".")
    parent = importlib.import_module(package)
    saved_module, saved_attribute = sys.modules.get(module), getattr(parent, name, None)
    sys.modules[module] = ours
    setattr(parent, name, ours)  # `from package import name` reads the attribute first
    try:
        sys.modules.pop(test_module, None)
        return importlib.import_module(test_module)
    finally:
        if saved_module is None:
            sys.modules.pop(module, None)
        else:
            sys.modules[module] = saved_module
        if saved_attribute is None:
            delattr(parent, name)
        else:
            setattr(parent, name, saved_attribute)


def skipped(reason: str):
    """A test case that does not run, with the reason, to put in place of one of OpenSpiel's
    (a function of its own per case: a mark on a shared function would carry every reason)."""

    @pytest.mark.skip(reason=reason)
    def case(self):
        del self

    return case
