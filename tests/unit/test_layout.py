"""The house drawn from its imports: every import points downwards (STYLE.md), the graph has no
cycle, route modules do not import each other and the web does not import the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.helpers import ROOT

PACKAGE = ROOT / "kmood_lib"
# Faces -> bootstrap, worker -> enrich, reminders, portability -> queue, journal, accounts
# -> core, upstream. A package imports only from its own level or below.
LEVELS = {"web": 5, "cli": 5, "bootstrap": 4, "worker": 4, "enrich": 3, "reminders": 3,
          "portability": 3, "queue": 2, "journal": 2, "accounts": 2, "core": 1, "upstream": 1}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports() -> dict[str, set[str]]:
    """module -> the kmood_lib modules it imports (`from a import b` counts a.b when a.b is a
    module, else a), TYPE_CHECKING imports included: they are edges of the house too."""
    modules = {module_name(p) for p in PACKAGE.rglob("*.py")}
    found: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        me = module_name(path)
        edges = found.setdefault(me, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                edges.update(a.name for a in node.names if a.name.startswith("kmood_lib."))
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                    and node.module.startswith("kmood_lib"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    edges.add(full if full in modules else node.module)
        edges.discard(me)
    return found


def level(module: str) -> int | None:
    parts = module.split(".")
    return LEVELS.get(parts[1]) if len(parts) > 1 else None


def test_every_package_has_a_level_and_every_import_points_downwards():
    graph = imports()
    unplaced = {m for m in graph if m != "kmood_lib" and level(m) is None}
    assert unplaced == set(), "give these a level in STYLE.md and here"
    upwards = sorted(f"{a} -> {b}" for a, targets in graph.items() for b in targets
                     if level(a) is not None and level(b) is not None and level(b) > level(a))
    assert upwards == []


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path + [nxt]
            if nxt not in state and (found := visit(nxt, path + [nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def test_the_import_graph_has_no_cycle_between_modules_or_packages():
    graph = imports()
    assert find_cycle(graph) is None
    packages: dict[str, set[str]] = {}
    for a, targets in graph.items():
        for b in targets:
            pa, pb = a.split(".")[:2], b.split(".")[:2]
            if pa != pb:
                packages.setdefault(".".join(pa), set()).add(".".join(pb))
    assert find_cycle(packages) is None


def test_route_modules_do_not_import_each_other_and_the_web_not_the_cli():
    graph = imports()
    routes = {m for m in graph if m.startswith(("kmood_lib.web.api.", "kmood_lib.web.pages."))}
    assert len(routes) >= 12
    assert {(a, b) for a in routes for b in graph[a] if b in routes} == set()
    assert {(a, b) for a, targets in graph.items() if a.startswith("kmood_lib.web")
            for b in targets if b.startswith("kmood_lib.cli")} == set()


def test_the_cycle_finder_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": {"c"}}) is None
