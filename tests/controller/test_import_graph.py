"""The modules of ``controller/`` import each other without a circle.

Every ``import`` counts, at module level or inside a function (an import moved into a function
to dodge a circle is still a circle), except those under ``if TYPE_CHECKING:`` (they never
run). A package's ``__init__`` counts as the package itself; importing ``a.b`` also imports
``a`` (its ``__init__`` runs first), except from inside ``a`` (a package's ``__init__`` that
gathers its own modules is no circle).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.paths import REPO as ROOT

PACKAGE = "controller"


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST, module: str, is_package: bool) -> set[str]:
    """The module names a module's source imports (TYPE_CHECKING blocks left out)."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".") if is_package else module.split(".")[:-1]
                base = base[:len(base) - node.level + 1]
                prefix = ".".join(base + ([node.module] if node.module else []))
            else:
                prefix = node.module or ""
            found.add(prefix)
            found.update(f"{prefix}.{alias.name}" for alias in node.names)   # a submodule imported by name
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def import_graph(package: str = PACKAGE) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports (each import's parents included)."""
    files = sorted((ROOT / package).rglob("*.py"))
    modules = {_module_name(p): p for p in files}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets: set[str] = set()
        for imported in _imports(tree, name, path.name == "__init__.py"):
            parts = imported.split(".")
            for k in range(1, len(parts) + 1):
                candidate = ".".join(parts[:k])
                if candidate in modules and candidate != name and not name.startswith(candidate + "."):
                    targets.add(candidate)
        graph[name] = targets
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of two or more modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return groups


def test_the_checker_finds_a_circle() -> None:
    # the test itself must be able to fail: a made-up circle of three is found, a chain is not
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_function_level_and_relative_imports_count() -> None:
    tree = ast.parse("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import x.hidden\n"
                     "def f():\n    from . import sibling\n    from .other import thing\n")
    found = _imports(tree, "controller.pkg.mod", is_package=False)
    assert "controller.pkg.sibling" in found and "controller.pkg.other" in found
    assert "x.hidden" not in found


def test_controller_has_no_import_circle() -> None:
    graph = import_graph()
    assert "controller.daemon" in graph and graph["controller.daemon"], "the graph reads the real tree"
    cycles = find_cycles(graph)
    assert cycles == [], "import circles in controller/: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_panel_never_imports_the_daemon() -> None:
    # the narrow door: the panel reaches the daemon only through controller.panel.facade
    # (TYPE_CHECKING imports count here too: the panel is typed against the facade)
    for path in sorted((ROOT / PACKAGE / "panel").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        names |= {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        assert not any(n == "controller.daemon" or n.startswith("controller.daemon.") for n in names), path
