"""The layers of the package (issue 35, items 1-2): no module of `ospiel_ext` outside `cli`,
`commands` and `__main__` imports them, importing every library module defines no absl flag and
registers no game (only `import ospiel_ext.games` registers ours, as `open_spiel.python.games`
does OpenSpiel's), and the shared array type aliases are defined in one module each."""

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "ospiel_ext")
COMMAND_LINE = ("ospiel_ext.cli", "ospiel_ext.commands", "ospiel_ext.__main__")
GAMES = "ospiel_ext.games"


def _library_modules():
    for folder, _, names in os.walk(PACKAGE):
        for name in sorted(names):
            if not name.endswith(".py"):
                continue
            rel = os.path.relpath(os.path.join(folder, name), ROOT)[: -len(".py")]
            module = rel.replace(os.sep, ".").removesuffix(".__init__")
            if not module.startswith(COMMAND_LINE):
                yield module, os.path.join(folder, name)


LIBRARY = sorted(_library_modules())


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


@pytest.mark.parametrize("module, path", LIBRARY, ids=[m for m, _ in LIBRARY])
def test_library_module_does_not_import_the_command_line(module, path):
    bad = sorted({m for m in _imported(path, module) if m.startswith(COMMAND_LINE)})
    assert not bad, f"{module} imports {bad}: the library must not import the command line"


@pytest.mark.parametrize("module, path", LIBRARY, ids=[m for m, _ in LIBRARY])
def test_only_the_games_package_imports_the_games(module, path):
    if module.startswith(GAMES):
        return
    bad = sorted({m for m in _imported(path, module) if m == GAMES or m.startswith(GAMES + ".")})
    assert not bad, f"{module} imports {bad}: importing it would register our games"


def test_importing_the_library_defines_no_absl_flag_and_registers_no_game():
    outside_games = [m for m, _ in LIBRARY if not m.startswith(GAMES)]
    code = (
        "import importlib, sys\n"
        "import pyspiel\n"
        "import open_spiel.python.games\n"  # OpenSpiel's policy module registers its own
        "from absl import flags\n"
        "before = set(pyspiel.registered_names())\n"
        f"for m in {outside_games!r}: importlib.import_module(m)\n"
        "assert 'ospiel_ext.cli' not in sys.modules, 'the command line was imported'\n"
        "assert 'ospiel_ext.games' not in sys.modules, 'the games package was imported'\n"
        "assert set(pyspiel.registered_names()) == before, 'a game was registered'\n"
        "ours = {k: [f.name for f in v] for k, v in flags.FLAGS.flags_by_module_dict().items()"
        " if k.startswith('ospiel_ext')}\n"
        "assert not ours, ours\n"
        "import ospiel_ext.games\n"  # the test can fail: this import registers
        "assert 'limit_leduc_poker' in set(pyspiel.registered_names()) - before\n"
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
    for module, path in [*LIBRARY, ("ospiel_ext.cli", os.path.join(PACKAGE, "cli.py"))]:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Name) and t.id in ALIASES:
                    where.setdefault(t.id, []).append(module)
    assert where == {name: [module] for name, module in ALIASES.items()}
