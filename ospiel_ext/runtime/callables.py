"""Callables a user names on the command line: MODULE:NAME or FILE.py:NAME.

A subgame cut's predicate (`subgames.cuts.parse_cut`) and an agent to evaluate (`ospiel-ext
evaluate --agent`) are Python functions the user writes; `load_callable` finds one by an
importable module's name or a file's path, and names what is wrong in one ValueError.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
from collections.abc import Callable
from typing import Any


def load_callable(spec: str) -> Callable[..., Any]:
    """The callable NAME of `spec`, MODULE:NAME (an importable module) or FILE.py:NAME.

    Raises:
      ValueError: `spec` has neither form, the file or module does not exist or fails to
        import, or it has no callable NAME; the message says which.
    """
    where, sep, name = spec.rpartition(":")
    if not (sep and where and name):
        raise ValueError("not MODULE:NAME or FILE.py:NAME")
    try:
        if where.endswith(".py"):
            if not os.path.isfile(where):
                raise ValueError(f"no file {where}")
            found = importlib.util.spec_from_file_location("ospiel_ext_user_module", where)
            assert found is not None and found.loader is not None
            module = importlib.util.module_from_spec(found)
            found.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except ImportError as e:
        raise ValueError(str(e)) from None
    target = getattr(module, name, None)
    if not callable(target):
        raise ValueError(f"{where} has no callable {name}")
    return target  # type: ignore[no-any-return]
