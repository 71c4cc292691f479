"""Fixtures for model assessors: the fake OpenAI-compatible server, a campaign, a judge pointed at the server."""
from __future__ import annotations

import pytest

from tests.judging.conftest import build_pool
from tests.model_assessors.fake_openai import FakeOpenAI


@pytest.fixture
def fake_llm():
    """A running fake endpoint on 127.0.0.1 (an OS-chosen free port), shut down after the test."""
    server = FakeOpenAI()
    server.thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def pool(collection):
    return build_pool(collection)


@pytest.fixture
def campaign(collection, pool, lead, alice, bob):
    """A shared-queue campaign of 20 pairs (4 topics × 5 documents), alice and bob judging."""
    from judging.services.campaigns import campaign_create

    return campaign_create(collection=collection, pool=pool, name="c1", created_by=lead, assessors=[alice, bob])


@pytest.fixture
def make_judge(campaign, fake_llm, lead):
    """Return a factory adding a model judge that calls the fake server, with fast retries."""
    from model_assessors.services.judges import judge_create

    def factory(name: str = "gpt-test", **options):
        options = {"concurrency": 3, "requests_per_minute": 0, "timeout_seconds": 0.5, "max_attempts": 3,
                   "backoff_seconds": 0.0, **options}
        return judge_create(campaign=options.pop("campaign", campaign), name=name, base_url=options.pop("base_url", fake_llm.base_url),
                            model=options.pop("model", "fake-model"), api_key_env=options.pop("api_key_env", ""),
                            user=lead, **options)

    return factory
