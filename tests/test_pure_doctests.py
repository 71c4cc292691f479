"""Run the doctests of the pure agreement and aggregation packages (pytest collects doctests only under tests/).

Every module must carry at least one example, so the worked answers in the docstrings stay checked.
"""
import doctest
import importlib
import pkgutil

import pytest

import aggregation
import agreement

MODULES = sorted({package.__name__ for package in (agreement, aggregation)}
                 | {info.name for package in (agreement, aggregation)
                    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}.")})


def test_every_module_of_both_packages_is_listed():
    assert {"agreement.coefficients", "agreement.data", "aggregation.dawid_skene"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests_pass(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} has no doctest"
    assert result.failed == 0
