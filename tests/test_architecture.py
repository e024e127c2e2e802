"""The architecture of docs/architecture.md holds: each package imports only the layers
below it, the rules engine stays pure, and no module imports itself round a cycle.

The contracts live in pyproject.toml (``[tool.importlinter]``) and are checked by
import-linter; the controls add one forbidden import to the real graph and show that the
same layers, and the cycle search, catch it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from pathlib import Path

import grimp
import pytest
from importlinter.cli import lint_imports

ROOT = Path(__file__).resolve().parents[1]


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return list(config["contracts"])


def _layers() -> list[grimp.Layer]:
    (contract,) = [c for c in _contracts() if c["type"] == "layers"]
    layers = contract["layers"]
    assert isinstance(layers, list)
    return [
        grimp.Layer(*(part.strip() for part in str(layer).split("|")), independent=True)
        for layer in layers
    ]


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph("arena", "dashboard", cache_dir=None)


def test_import_linter_keeps_every_contract(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert lint_imports(no_cache=True) == 0


def test_the_layers_catch_an_upward_import(graph: grimp.ImportGraph) -> None:
    assert graph.find_illegal_dependencies_for_layers(layers=_layers()) == set()
    # Control: the rules engine reaching up into storage breaks the layers.
    graph.add_import(importer="arena.game.cards", imported="arena.storage.models")
    try:
        broken = graph.find_illegal_dependencies_for_layers(layers=_layers())
        assert {(d.importer, d.imported) for d in broken} == {("arena.game", "arena.storage")}
    finally:
        graph.remove_import(importer="arena.game.cards", imported="arena.storage.models")


def _cycles(edges: Mapping[str, Iterable[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def _module_edges(graph: grimp.ImportGraph) -> dict[str, set[str]]:
    ours = {m for m in graph.modules if m.split(".")[0] in ("arena", "dashboard")}
    return {m: graph.find_modules_directly_imported_by(m) & ours for m in ours}


def test_no_module_imports_itself_round_a_cycle(graph: grimp.ImportGraph) -> None:
    edges = _module_edges(graph)
    assert _cycles(edges) == []
    # Control: one import back along any real import closes a cycle, and it is found.
    importer, imported = min((a, b) for a, bs in edges.items() for b in bs)
    edges[imported] = edges[imported] | {importer}
    (cycle,) = _cycles(edges)
    assert {importer, imported} <= set(cycle)
