"""pyproject.toml names every package of the apps, ships templates/static, and its console scripts resolve."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# every top-level package of the checkout (a new one is found, not forgotten), except the test suite
APPS = tuple(sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name not in {"tests", "benchmarks"}))


def test_the_top_level_packages_are_found():
    assert {"qrelsmith", "metrics", "agreement", "aggregation", "judging", "ops", "model_assessors"} <= set(APPS)


def project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def test_every_package_of_the_apps_is_listed():
    listed = set(project()["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for app in APPS for p in (ROOT / app).rglob("__init__.py")
             if "__pycache__" not in p.parts}
    assert found - listed == set(), "add these packages to pyproject.toml's [tool.setuptools] packages"
    assert not {p for p in listed if p.startswith(("tests", "benchmarks"))}


def test_templates_and_static_travel_inside_the_qrelsmith_package():
    setup = project()["tool"]["setuptools"]
    assert setup["package-dir"] == {"qrelsmith._templates": "templates", "qrelsmith._static": "static"}
    assert {"qrelsmith._templates", "qrelsmith._static"} <= set(setup["packages"])


def test_console_scripts_resolve_to_callables():
    scripts = project()["project"]["scripts"]
    assert set(scripts) == {"qrelsmith-eval", "qrelsmith"}
    for target in scripts.values():
        module, _, func = target.partition(":")
        assert callable(getattr(importlib.import_module(module), func))


def test_runtime_dependencies_cover_requirements_txt():
    wanted = {line.split("==")[0].split("[")[0].lower() for line in (ROOT / "requirements.txt").read_text().splitlines()
              if line and not line.startswith("#")}
    declared = {d.split(">")[0].split("<")[0].split("=")[0].split("[")[0].lower() for d in project()["project"]["dependencies"]}
    assert wanted == declared
