"""The campaign core's docstring examples run with the suite (only tests/ is collected)."""
import doctest

from campaign_core import active_time


def test_docstring_examples_hold():
    result = doctest.testmod(active_time)
    assert result.attempted > 0 and result.failed == 0
