"""The layers of the package (issue 35, items 1-2): no module of `ospiel_ext` outside the
command line (`cli`, `cli_flags`, `cli_output`, `commands`, `__main__`) imports it, importing
every library module defines no absl flag, and the shared array type aliases are defined in
one module each."""

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "ospiel_ext")
COMMAND_LINE = (
    "ospiel_ext.cli",
    "ospiel_ext.cli_flags",
    "ospiel_ext.cli_output",
    "ospiel_ext.commands",
    "ospiel_ext.__main__",
)


def _is_command_line(module):
    """True for a module of COMMAND_LINE or inside one of its packages."""
    return any(module == m or module.startswith(m + ".") for m in COMMAND_LINE)


def _modules():
    """(module name, path) of every module of the package."""
    for folder, _, names in os.walk(PACKAGE):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), ROOT)[: -len(".py")]
            yield rel.replace(os.sep, ".").removesuffix(".__init__"), os.path.join(folder, name)


MODULES = sorted(_modules())
LIBRARY = [(m, path) for m, path in MODULES if not _is_command_line(m)]


def _imported(path, module):
    """Every module `path` imports (relative imports resolved against `module`)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            yield base
            yield from (f"{base}.{a.name}" for a in node.names)


def test_the_walk_finds_the_library():
    names = {m for m, _ in LIBRARY}
    assert {"ospiel_ext.tree", "ospiel_ext.sweeps", "ospiel_ext.algorithms.egt"} <= names
    assert not names & set(COMMAND_LINE)
    assert set(COMMAND_LINE) <= {m for m, _ in MODULES}  # a renamed module is not left out


def test_every_module_that_imports_absl_app_is_command_line():
    """`absl.app` (app.run, app.UsageError) is the command line's: a new module that imports
    it is listed in COMMAND_LINE, or it is a library module that the checks here reject."""
    users = {m for m, path in MODULES if "absl.app" in set(_imported(path, m))}
    assert {"ospiel_ext.cli", "ospiel_ext.cli_flags", "ospiel_ext.cli_output"} <= users
    assert [m for m in sorted(users) if not _is_command_line(m)] == []


@pytest.mark.parametrize("module, path", LIBRARY, ids=[m for m, _ in LIBRARY])
def test_library_module_does_not_import_the_command_line(module, path):
    bad = sorted({m for m in _imported(path, module) if _is_command_line(m)})
    assert not bad, f"{module} imports {bad}: the library must not import the command line"


def test_importing_the_library_defines_no_absl_flag():
    code = (
        "import importlib, sys\n"
        "from absl import flags\n"
        f"for m in {[m for m, _ in LIBRARY]!r}: importlib.import_module(m)\n"
        f"assert not set({list(COMMAND_LINE)!r}) & set(sys.modules),"
        " 'the command line was imported'\n"
        "ours = {k: [f.name for f in v] for k, v in flags.FLAGS.flags_by_module_dict().items()"
        " if k.startswith('ospiel_ext')}\n"
        "assert not ours, ours\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]


ALIASES = {"FloatArray": "ospiel_ext.arrays", "IntArray": "ospiel_ext.arrays",
           "BoolArray": "ospiel_ext.arrays", "Behavioural": "ospiel_ext.policies"}  # fmt: skip


def test_array_type_aliases_are_defined_once():
    """Issue 35 item 2: the shared type aliases live in one module each; others import them."""
    where = {}
    for module, path in MODULES:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Name) and t.id in ALIASES:
                    where.setdefault(t.id, []).append(module)
    assert where == {name: [module] for name, module in ALIASES.items()}
