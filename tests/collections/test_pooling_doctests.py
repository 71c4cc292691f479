"""The pooling modules' docstring examples run with the suite (only tests/ is collected)."""
import doctest

import pytest

from collections_app.pooling import ordering, selection, strategies


@pytest.mark.parametrize("module", [ordering, selection, strategies])
def test_docstring_examples_hold(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
