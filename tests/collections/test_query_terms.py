"""One rule for the words a judging page highlights, used by both campaign kinds."""
import doctest

from collections_app import query_terms as module
from collections_app.query_terms import query_terms


def test_docstring_examples_hold():
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


def test_words_come_once_in_order_without_stop_words_or_single_letters():
    assert query_terms("How do wind farms affect birds? Wind, birds & b") == ["wind", "farms", "affect", "birds"]


def test_both_campaign_kinds_use_the_same_function():
    from judging.views import workspace
    from preferences import panels

    assert workspace.query_terms is panels.query_terms is query_terms
