"""No import cycle in ``extension/cueboard``: every feature is a room with a door, and nothing
imports the router that calls it. Imports made only for type checking count too: a cycle
closed through ``if TYPE_CHECKING:`` is still one module reaching back into another."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "extension" / "cueboard"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported(tree: ast.AST, module: str, is_package: bool, modules: set[str]) -> Iterator[str]:
    """Every module named by an import anywhere in the file (functions and TYPE_CHECKING
    blocks included), relative imports resolved. ``from package import module`` names the
    module; ``from module import name`` names the module."""
    package = module if is_package else module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                yield sub if sub in modules else target


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module -> the modules of the package it imports (a name inside a module counts as an
    import of that module)."""
    files = {_module_name(p, root): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        targets: set[str] = set()
        for name in _imported(tree, module, path.name == "__init__.py", set(files)):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph, as the modules along it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state:
                found = visit(nxt)
                if found is not None:
                    return found
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state:
            found = visit(start)
            if found is not None:
                return found
    return None


def test_extension_cueboard_has_no_import_cycle() -> None:
    graph = import_graph(PACKAGE)
    assert "cueboard.core.app" in graph and len(graph) > 50, sorted(graph)
    assert find_cycle(graph) is None, " -> ".join(find_cycle(graph) or [])


def test_the_check_finds_a_cycle_closed_through_type_checking(tmp_path: Path) -> None:
    """The check can fail: two modules importing each other, one only for type checking."""
    pkg = tmp_path / "cueboard"
    (pkg / "core").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "core" / "__init__.py").write_text("")
    (pkg / "core" / "app.py").write_text("from . import feature\n")
    (pkg / "core" / "feature.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .app import Core\n"
    )
    cycle = find_cycle(import_graph(pkg))
    assert cycle is not None and set(cycle) == {"cueboard.core.app", "cueboard.core.feature"}


@pytest.mark.parametrize("statement", ["import cueboard.core.app", "from .. import app as a"])
def test_the_check_resolves_absolute_and_relative_imports(tmp_path: Path, statement: str) -> None:
    pkg = tmp_path / "cueboard"
    (pkg / "core" / "deck").mkdir(parents=True)
    for init in (pkg, pkg / "core", pkg / "core" / "deck"):
        (init / "__init__.py").write_text("")
    (pkg / "core" / "app.py").write_text("from .deck import state\n")
    (pkg / "core" / "deck" / "state.py").write_text(statement + "\n")
    assert find_cycle(import_graph(pkg)) is not None
