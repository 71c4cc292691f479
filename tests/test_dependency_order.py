"""The apps import each other in one direction only, and the project package imports no app.

metrics (pure) ← qrelsmith (settings, helpers) ← collections_app ← campaign_core ← {judging, preferences} ← {evaluation, hub} ← demo.
Each package may import only the packages listed for it; the test reads every import statement
(function-local ones too) with ``ast``, so an arrow that runs back up fails here. Edges that
still run the wrong way are listed in KNOWN_BACK_EDGES with the module that holds them: remove
a line once its import is gone (the test says so), never add one.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ALLOWED = {
    "metrics": set(),
    "collections_app": {"metrics"},
    "campaign_core": {"metrics", "collections_app"},
    "judging": {"metrics", "collections_app", "campaign_core"},
    "preferences": {"metrics", "collections_app", "campaign_core"},
    "evaluation": {"metrics", "collections_app", "campaign_core", "judging", "preferences"},
    "model_assessors": {"metrics", "collections_app", "campaign_core", "judging", "evaluation"},
    "hub": {"collections_app", "campaign_core", "judging", "preferences"},
    "demo": {"metrics", "collections_app", "campaign_core", "judging", "preferences", "evaluation"},
    "qrelsmith": set(),
}
# The project package (settings, URLs, small shared helpers such as csv_cells) sits under every
# app: any app may import it, it imports no app. metrics stays free of it (and of Django).
for _package in set(ALLOWED) - {"metrics", "qrelsmith"}:
    ALLOWED[_package].add("qrelsmith")
# (importing module, imported package): back edges not yet removed, each someone's open work.
KNOWN_BACK_EDGES = {
    ("preferences/stats.py", "judging"),  # judging.agreement: to move into a pure agreement package
}
PACKAGES = set(ALLOWED)


def _imports(path: Path) -> set[str]:
    """Return the first-party top-level packages a module imports (absolute imports only)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        found |= {name.split(".")[0] for name in names} & PACKAGES
    return found


def _edges() -> set[tuple[str, str]]:
    edges = set()
    for package in ALLOWED:
        for path in (ROOT / package).rglob("*.py"):
            if "migrations" in path.parts:
                continue
            for target in _imports(path) - {package}:
                edges.add((path.relative_to(ROOT).as_posix(), target))
    return edges


def test_every_import_follows_the_dependency_order():
    wrong = {(module, target) for module, target in _edges()
             if target not in ALLOWED[module.split("/")[0]] and (module, target) not in KNOWN_BACK_EDGES}
    assert wrong == set()


@pytest.mark.parametrize("edge", sorted(KNOWN_BACK_EDGES))
def test_known_back_edges_are_still_there(edge):
    """A back edge that has been removed must leave the list too, so the list stays true."""
    assert edge in _edges(), f"{edge} is gone: delete it from KNOWN_BACK_EDGES"


@pytest.mark.parametrize("folder", ["metrics", "collections_app/pooling"])
def test_pure_packages_import_no_django(folder):
    for path in (ROOT / folder).rglob("*.py"):
        source = ast.parse(path.read_text(encoding="utf-8"))
        modules = {alias.name for node in ast.walk(source) if isinstance(node, ast.Import) for alias in node.names}
        modules |= {node.module for node in ast.walk(source) if isinstance(node, ast.ImportFrom) and node.module}
        assert not any(name.split(".")[0] in {"django", "rest_framework"} | PACKAGES - {"metrics"}
                       or name.startswith("collections_app.models") for name in modules), path
