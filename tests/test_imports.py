"""The package is one-way: no import cycle and no import reaching up a layer.

Every ``import`` of every module of ``src/qacamp`` counts, those inside
functions too (a cycle hidden in a function still ties the modules together).
``from pkg import name`` depends on ``pkg`` (its ``__init__`` runs) and, when
``pkg.name`` is a module, on that module.  A cycle is allowed only between a
package's ``__init__`` and its own modules.  The layers (docs/architecture.md):
readers -> ingest -> scoring -> reliability -> report, with ``qacamp.io``
importing no domain module and the registries of kinds and measures below all
of them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"

#: module prefix -> the prefixes it must not import ("reaching up" a layer)
FORBIDDEN = {
    "qacamp.io": ("qacamp.readers", "qacamp.ingest", "qacamp.scoring", "qacamp.reliability",
                  "qacamp.report", "qacamp.measures", "qacamp.kinds", "qacamp.tables",
                  "qacamp.simulate", "qacamp.cli", "qacamp.api", "qacamp.loader",
                  "qacamp.plan", "qacamp.config", "qacamp.presets"),
    "qacamp.readers": ("qacamp.ingest", "qacamp.scoring", "qacamp.reliability", "qacamp.report",
                       "qacamp.cli", "qacamp.api", "qacamp.loader", "qacamp.plan"),
    "qacamp.kinds": ("qacamp.readers", "qacamp.ingest", "qacamp.scoring", "qacamp.reliability",
                     "qacamp.report", "qacamp.measures", "qacamp.simulate", "qacamp.io",
                     "qacamp.cli", "qacamp.api", "qacamp.plan", "qacamp.config"),
    "qacamp.measures": ("qacamp.ingest", "qacamp.scoring", "qacamp.reliability",
                        "qacamp.report", "qacamp.cli", "qacamp.api", "qacamp.plan"),
    "qacamp.ingest": ("qacamp.reliability", "qacamp.report", "qacamp.cli", "qacamp.api",
                      "qacamp.loader", "qacamp.plan"),
    "qacamp.scoring": ("qacamp.reliability", "qacamp.report", "qacamp.cli", "qacamp.api",
                       "qacamp.loader", "qacamp.plan"),
    "qacamp.reliability": ("qacamp.report", "qacamp.cli", "qacamp.api", "qacamp.loader",
                           "qacamp.plan"),
    "qacamp.report": ("qacamp.cli", "qacamp.api", "qacamp.loader"),
}


def modules(src: Path, top: str = "qacamp") -> dict[str, tuple[Path, list[str]]]:
    """module name -> (file, package parts) of every module under ``src/top``."""
    out = {}
    for path in sorted((src / top).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
            package = parts
        else:
            package = parts[:-1]
        out[".".join(parts)] = (path, package)
    return out


def import_graph(src: Path, top: str = "qacamp") -> dict[str, set[str]]:
    """module -> the modules of the package it imports (anywhere in its code)."""
    mods = modules(src, top)

    def known(name: str | None) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph = {}
    for name, (path, package) in mods.items():
        deps = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                deps.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package[: len(package) - (node.level - 1)]
                    target = ".".join(base + ([node.module] if node.module else []))
                else:
                    target = node.module or ""
                deps.add(target)
                deps.update(f"{target}.{a.name}" for a in node.names
                            if f"{target}.{a.name}" in mods)
        graph[name] = {d for d in map(known, deps)
                       if d and d != name and d.split(".")[0] == top}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles (strongly connected components of two or more
    modules); a package's ``__init__`` importing its own modules is no edge
    here (it may: they import what they need of the package)."""
    graph = {v: {w for w in deps if not w.startswith(v + ".")} for v, deps in graph.items()}
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v: str) -> None:  # Tarjan
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def upward(graph: dict[str, set[str]]) -> list[str]:
    """``module -> imported`` for every import that reaches up a layer (:data:`FORBIDDEN`)."""
    out = []
    for name, deps in sorted(graph.items()):
        for layer, banned in FORBIDDEN.items():
            if name == layer or name.startswith(layer + "."):
                out += [f"{name} -> {d}" for d in sorted(deps)
                        if any(d == b or d.startswith(b + ".") for b in banned)]
    return out


def test_the_package_has_no_import_cycle():
    assert cycles(import_graph(SRC)) == []


def test_no_import_reaches_up_a_layer():
    assert upward(import_graph(SRC)) == []


@pytest.fixture
def tangled(tmp_path):
    """A package with a cycle hidden in a function and a reader importing the report."""
    files = {
        "qacamp/__init__.py": "",
        "qacamp/readers/__init__.py": "",
        "qacamp/readers/a.py": "def f():\n    from ..report import b\n",
        "qacamp/report/__init__.py": "from . import b\n",
        "qacamp/report/b.py": "from . import c\n",
        "qacamp/report/c.py": "def g():\n    from .b import x\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def test_the_checks_find_a_hidden_cycle_and_an_upward_import(tangled):
    graph = import_graph(tangled)
    # report.b <-> report.c (inside a function); report/__init__ with its own b is allowed
    assert cycles(graph) == [["qacamp.report.b", "qacamp.report.c"]]
    assert upward(graph) == ["qacamp.readers.a -> qacamp.report",
                             "qacamp.readers.a -> qacamp.report.b"]
