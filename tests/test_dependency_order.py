"""The apps import each other in one direction only, and the project package imports no app.

metrics, agreement ← aggregation (pure) ← qrelsmith (settings, helpers) ← collections_app ← campaign_core
← {judging, preferences} ← {evaluation, hub} ← demo.
Each package may import only the packages listed for it; the test reads every import statement
(function-local ones too) with ``ast``, so an arrow that runs back up fails here. Edges that
still run the wrong way are listed in KNOWN_BACK_EDGES with the module that holds them: remove
a line once its import is gone (the test says so), never add one.
"""
from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# The pure packages: no Django, no app, only the standard library and these third-party libraries.
PURE = {
    "metrics": {"numpy", "scipy", "sklearn"},
    "agreement": {"numpy", "scipy"},
    "aggregation": {"numpy", "scipy"},
}
ALLOWED = {
    "metrics": set(),
    "agreement": set(),
    "aggregation": {"agreement"},
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
# app: any app may import it, it imports no app. The pure packages sit under every app too and
# stay free of the project package (and of Django).
for _package in set(ALLOWED) - set(PURE) - {"qrelsmith"}:
    ALLOWED[_package] |= {"qrelsmith", *PURE}
# (importing module, imported package): back edges not yet removed, each someone's open work.
KNOWN_BACK_EDGES: set[tuple[str, str]] = set()
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


def test_known_back_edges_are_still_there():
    """A back edge that has been removed must leave the list too, so the list stays true."""
    gone = KNOWN_BACK_EDGES - _edges()
    assert gone == set(), f"{gone} are gone: delete them from KNOWN_BACK_EDGES"


def _absolute_imports(path: Path) -> set[str]:
    """Return every module a file imports by absolute name (relative imports stay inside its package)."""
    source = ast.parse(path.read_text(encoding="utf-8"))
    modules = {alias.name for node in ast.walk(source) if isinstance(node, ast.Import) for alias in node.names}
    return modules | {node.module for node in ast.walk(source)
                      if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module}


@pytest.mark.parametrize("folder", ["metrics", "collections_app/pooling", "agreement", "aggregation"])
def test_pure_packages_import_no_django(folder):
    for path in (ROOT / folder).rglob("*.py"):
        modules = _absolute_imports(path)
        assert not any(name.split(".")[0] in {"django", "rest_framework"} | PACKAGES - set(PURE)
                       or name.startswith("collections_app.models") for name in modules), path


@pytest.mark.parametrize("package", sorted(PURE))
def test_pure_packages_import_only_the_standard_library_numpy_and_scipy(package):
    """A pure package may import the standard library, its listed libraries and the pure packages below it."""
    allowed = sys.stdlib_module_names | PURE[package] | ALLOWED[package] | {package}
    for path in (ROOT / package).rglob("*.py"):
        outside = {name for name in _absolute_imports(path) if name.split(".")[0] not in allowed}
        assert outside == set(), path
