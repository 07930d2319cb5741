"""The layers of the package: the run infrastructure (`ospiel_ext.runtime`) imports no game
maths; no module outside the command line (`ospiel_ext.cli`, `__main__`) imports it; importing
every library module defines no absl flag and registers no game (only `import
ospiel_ext.games` registers ours, as `open_spiel.python.games` does OpenSpiel's); the shared
array type aliases are defined in one module each; the library's import graph has no cycle;
the paper packages depend on each other in one direction only, and depth-limited solving's two
stacks on its core only."""

import ast
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = os.path.join(ROOT, "ospiel_ext")
COMMAND_LINE = ("ospiel_ext.cli", "ospiel_ext.__main__")
RUNTIME = "ospiel_ext.runtime"
GAMES = "ospiel_ext.games"


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
    assert {"ospiel_ext.tree", "ospiel_ext.runtime.sweeps", "ospiel_ext.algorithms.egt"} <= names
    assert not names & set(COMMAND_LINE)
    assert set(COMMAND_LINE) <= {m for m, _ in MODULES}  # a renamed module is not left out


def test_every_module_that_imports_absl_app_is_command_line():
    """`absl.app` (app.run, app.UsageError) is the command line's: a new module that imports
    it is listed in COMMAND_LINE, or it is a library module that the checks here reject."""
    users = {m for m, path in MODULES if "absl.app" in set(_imported(path, m))}
    assert {"ospiel_ext.cli.command", "ospiel_ext.cli.flags", "ospiel_ext.cli.output"} <= users
    assert [m for m in sorted(users) if not _is_command_line(m)] == []


@pytest.mark.parametrize("module, path", LIBRARY, ids=[m for m, _ in LIBRARY])
def test_library_module_does_not_import_the_command_line(module, path):
    bad = sorted({m for m in _imported(path, module) if _is_command_line(m)})
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
        f"assert not set({list(COMMAND_LINE)!r}) & set(sys.modules),"
        " 'the command line was imported'\n"
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
    """The shared type aliases live in one module each; others import them."""
    where = {}
    for module, path in MODULES:
        tree = ast.parse(open(path, encoding="utf-8").read(), path)
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            for t in targets:
                if isinstance(t, ast.Name) and t.id in ALIASES:
                    where.setdefault(t.id, []).append(module)
    assert where == {name: [module] for name, module in ALIASES.items()}


LIBRARY_NAMES = frozenset(m for m, _ in LIBRARY)


def _inside(module, package):
    return module.startswith(package + ".")


def _import_edges(path, module):
    """The library modules `module` imports, read with `ast` from the whole file (function
    bodies and `if TYPE_CHECKING:` blocks included): each imported module, and every package
    above it that does not contain `module` (Python runs a package's `__init__` before its
    modules; a module's own packages are already running, so they add no edge)."""
    tree = ast.parse(open(path, encoding="utf-8").read(), path)
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    targets = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            for a in node.names:
                sub = f"{base}.{a.name}"
                targets.add(sub if sub in LIBRARY_NAMES else base)
    edges = set()
    for target in targets:
        parts = target.split(".")
        for k in range(1, len(parts) + 1):
            name = ".".join(parts[:k])
            if name in LIBRARY_NAMES and name != module and not _inside(module, name):
                edges.add(name)
    return edges


IMPORTS = {module: _import_edges(path, module) for module, path in LIBRARY}


def _find_cycle(graph):
    """One import cycle of `graph` as a list of modules (first == last), or None."""
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found:
                    return found
        stack.pop()
        state[node] = "done"
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _find_cycle(graph) == ["a", "b", "c", "a"]
    assert _find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_import_edges_include_type_checking_imports_and_outer_packages(tmp_path):
    """The edge of the former gadgets <-> leaves cycle (a TYPE_CHECKING import) would count,
    and so does the package `__init__` an import from outside a package runs."""
    leaves = "ospiel_ext.algorithms.depth_limited.leaves"
    assert "ospiel_ext.algorithms.subgames" in IMPORTS[leaves]  # via subgames.cuts
    assert "ospiel_ext.algorithms.subgames.cuts" in IMPORTS[leaves]
    gadgets = "ospiel_ext.algorithms.subgames.gadgets"
    assert "ospiel_ext.algorithms.subgames" not in IMPORTS[gadgets]  # its own package
    code = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ospiel_ext import tree\n"
    path = tmp_path / "probe.py"
    path.write_text(code, encoding="utf-8")
    assert _import_edges(str(path), "ospiel_ext.probe") == {"ospiel_ext.tree"}


def test_library_imports_have_no_cycle():
    """No cycle among library modules, not even through type-only imports
    (a cycle hidden behind TYPE_CHECKING or a function-local import is a dependency pointing
    the wrong way)."""
    assert _find_cycle(IMPORTS) is None, " -> ".join(_find_cycle(IMPORTS) or ())


def test_the_runtime_imports_no_game_maths():
    """`ospiel_ext.runtime` is the run infrastructure every layer shares: it imports only
    itself (and the package root), never the game maths, the algorithms or the games."""
    bad = {
        module: sorted(t for t in targets if t != "ospiel_ext" and not _inside(t, RUNTIME))
        for module, targets in IMPORTS.items()
        if _inside(module, RUNTIME)
    }
    assert bad, "the walk found no runtime module"
    assert not any(bad.values()), {m: t for m, t in bad.items() if t}


SUBGAMES = "ospiel_ext.algorithms.subgames"
DEPTH_LIMITED = "ospiel_ext.algorithms.depth_limited"


def test_subgame_solving_does_not_import_depth_limited_solving():
    """The intended layering of the two papers' packages: depth-limited solving (Brown,
    Sandholm & Amos 2018) builds on subgame solving (Kubicek, Lisy & Sandholm 2025) - its
    depth-limited games are gadget games of the subgames package, solved by its GGSE solvers -
    so `depth_limited` may import `subgames`, and no module of `subgames` imports
    `depth_limited`, not even for a type: gadgets take the depth-limit leaves through their
    own protocol (`gadgets.DepthLimitLeaves`)."""
    bad = {
        module: sorted(t for t in targets if t == DEPTH_LIMITED or _inside(t, DEPTH_LIMITED))
        for module, targets in IMPORTS.items()
        if module == SUBGAMES or _inside(module, SUBGAMES)
    }
    assert not any(bad.values()), {m: t for m, t in bad.items() if t}
    users = [m for m, t in IMPORTS.items() if _inside(m, DEPTH_LIMITED) and SUBGAMES in t]
    assert users, "depth_limited no longer builds on subgames: revisit this layering"


DL_COMPILED = DEPTH_LIMITED + ".compiled"
DL_SAMPLED = DEPTH_LIMITED + ".sampled"
DL_RANGES = DEPTH_LIMITED + ".ranges"
DL_CORE = tuple(f"{DEPTH_LIMITED}.{m}" for m in ("leaves", "rollouts", "settings", "translation"))


def _in_stack(module, stack):
    return module == stack or _inside(module, stack)


def test_depth_limited_core_imports_no_stack_and_the_stacks_not_each_other():
    """Depth-limited solving is a shared core (leaves, rollouts, settings, translation) under
    three stacks: games compiled to a `GameTree`, games too large to compile, and poker's range
    layout. The core imports no stack, no stack imports another (only `matches` and the package
    serve several), and every stack builds on the core."""
    stacks = (DL_COMPILED, DL_SAMPLED, DL_RANGES)
    bad = {
        m: sorted(t for t in IMPORTS[m] if any(_in_stack(t, s) for s in stacks)) for m in DL_CORE
    }
    for own in stacks:
        for module in (m for m in IMPORTS if _in_stack(m, own)):
            bad[module] = sorted(
                t for t in IMPORTS[module] if any(_in_stack(t, s) for s in stacks if s != own)
            )
    assert not any(bad.values()), {m: t for m, t in bad.items() if t}
    users = {
        s: [m for m in IMPORTS if _in_stack(m, s) and set(DL_CORE) & IMPORTS[m]] for s in stacks
    }
    assert all(users.values()), "a stack no longer builds on the core: revisit this layering"


POKER = "ospiel_ext.algorithms.poker"
GAMESHRINK = "ospiel_ext.algorithms.gameshrink"


def test_gameshrink_does_not_import_the_poker_form():
    """The public-tree poker form (Johanson, Bowling, Waugh & Zinkevich 2011) reads the poker
    structure from GameShrink's ordered-signals descriptions (Gilpin & Sandholm 2006), so
    `poker` may import `gameshrink`, and no module of `gameshrink` imports `poker`; the core
    modules import neither (the solvers reach the poker form through `algorithms.forms`)."""
    bad = {
        module: sorted(t for t in targets if t == POKER or _inside(t, POKER))
        for module, targets in IMPORTS.items()
        if module == GAMESHRINK
        or _inside(module, GAMESHRINK)
        or not module.startswith("ospiel_ext.algorithms")
    }
    assert not any(bad.values()), {m: t for m, t in bad.items() if t}
    users = [
        m
        for m, t in IMPORTS.items()
        if _inside(m, POKER) and any(x == GAMESHRINK or _inside(x, GAMESHRINK) for x in t)
    ]
    assert users, "poker no longer builds on gameshrink: revisit this layering"


PAPER_PACKAGES = tuple(
    f"ospiel_ext.algorithms.{name}"
    for name in ("poker", "gameshrink", "certificates", "subgames", "depth_limited")
)


def _generic(module):
    """The core modules and the generic solvers: every library module outside the paper
    packages and the games."""
    return not module.startswith(GAMES) and not any(
        module == p or _inside(module, p) for p in PAPER_PACKAGES
    )


def test_generic_solvers_import_no_paper_package():
    """The generic solvers (`algorithms.solver`, `cfr*`, `egt`, `forms`, ...) and the core
    know no paper's package, not even poker's engine: a sequence form offers its own CFR
    engine (`cfr_rules.OffersCFREngine`) and the public-tree form is imported by name when
    asked for (`forms.PUBLIC_TREE_MODULE`)."""
    generic = [m for m, _ in LIBRARY if _generic(m)]
    assert "ospiel_ext.algorithms.cfr_variants" in generic and "ospiel_ext.lp" in generic
    bad = {
        module: sorted(t for t in IMPORTS[module] if not _generic(t) and not t.startswith(GAMES))
        for module in generic
    }
    assert not any(bad.values()), {m: t for m, t in bad.items() if t}


def _loaded_after(code):
    """The ospiel_ext modules loaded by running `code` in a fresh interpreter."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: print('\\n'.join(m for m in sys.modules"
        " if m.startswith('ospiel_ext'))))\n" + code
    )
    proc = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return set(proc.stdout.split())


def _in_packages(modules, *packages):
    return sorted(m for m in modules if any(m == p or _inside(m, p) for p in packages))


def test_importing_the_cfr_solvers_loads_no_poker_or_gameshrink_module():
    loaded = _loaded_after("import ospiel_ext.algorithms.cfr\n")
    assert "ospiel_ext.algorithms.cfr_variants" in loaded
    assert _in_packages(loaded, POKER, GAMESHRINK) == []
    # the public-tree form, asked for, loads the poker package (the check above can fail)
    asked = _loaded_after(
        "from ospiel_ext.algorithms import cfr\ncfr.CFRSolver('kuhn_poker', form='public_tree')\n"
    )
    assert "ospiel_ext.algorithms.poker.range_form" in asked


def test_stats_imports_no_lp_gameshrink_or_poker_module():
    """`ospiel-ext stats` counts a game: it loads no LP, GameShrink or poker module (about 0.9 s
    of imports when every command loaded them)."""
    loaded = _loaded_after(
        "from ospiel_ext.cli.commands import run\nrun(['stats', '--game=kuhn_poker'])\n"
    )
    assert "ospiel_ext.counting" in loaded
    assert _in_packages(loaded, POKER, GAMESHRINK, "ospiel_ext.lp", "ospiel_ext.highs") == []
