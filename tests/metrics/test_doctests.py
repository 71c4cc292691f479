"""Run the doctests of the metrics modules (tests/ collects doctests only under tests/)."""

import doctest
import importlib

import pytest

MODULES = ["metrics", "metrics.io", "metrics.registry", "metrics.evaluate", "metrics.cli", "metrics.significance", "metrics.correlation",
           "metrics.prefs", "metrics.curves", "metrics.measures.variants"]


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
