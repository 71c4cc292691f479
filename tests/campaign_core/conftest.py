"""Fixtures of the campaign kinds, for tests that run the same scenario on both."""
from tests.preferences.conftest import make_sbs, sbs  # noqa: F401 - fixtures used by the tests here
