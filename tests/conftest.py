"""Personas and factories shared by the whole suite.

``lead`` owns the collection, ``alice`` and ``bob`` assess it, ``mallory`` is an
outsider with an account. Crowd workers are added by the judging tests.
"""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from collections_app import scales
from collections_app.models import Collection, Membership

PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def _immediate_tasks(settings):
    """Run background tasks inline so tests see their results without a worker."""
    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.immediate.ImmediateBackend"}}


@pytest.fixture(autouse=True)
def _fast_hashing_and_private_media(settings, tmp_path):
    """Hash test passwords with MD5 (PBKDF2's deliberate slowness would dominate the suite)
    and keep uploaded files in the test's own temporary folder, never in the project's media/."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.MEDIA_ROOT = tmp_path / "media"


@pytest.fixture(autouse=True)
def _empty_cache():
    """Start every test with an empty cache: rate limits (crowd joins per IP and hour) must not leak between tests."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def logged_in(client, user):
    """Return the test client logged in as ``user`` (left anonymous for None)."""
    if user is not None:
        assert client.login(username=user.username, password=PASSWORD)
    return client


def make_user(username: str, **extra):
    return get_user_model().objects.create_user(username=username, password=PASSWORD, **extra)


@pytest.fixture
def lead(db):
    return make_user("lead")


@pytest.fixture
def alice(db):
    return make_user("alice")


@pytest.fixture
def bob(db):
    return make_user("bob")


@pytest.fixture
def mallory(db):
    return make_user("mallory")


def make_collection(slug: str = "demo", *, scale: str = scales.GRADED, lead=None, assessors=()) -> Collection:
    grades, threshold = scales.preset(scale)
    collection = Collection.objects.create(
        name=slug.title(), slug=slug, scale=grades, relevant_threshold=threshold, guidelines="Judge carefully."
    )
    if lead is not None:
        Membership.objects.create(collection=collection, user=lead, role=Membership.Role.LEAD)
    for assessor in assessors:
        Membership.objects.create(collection=collection, user=assessor, role=Membership.Role.ASSESSOR)
    return collection


@pytest.fixture
def collection(lead, alice, bob):
    """A graded collection led by ``lead`` with ``alice`` and ``bob`` as assessors (no data yet)."""
    return make_collection("demo", lead=lead, assessors=(alice, bob))
