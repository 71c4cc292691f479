"""Configuring judges: validation, the default prompt per scale, versions, updates."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from judging.models import Assessor
from model_assessors.models import ModelJudge
from model_assessors.services.judges import judge_update, prompt_save

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("fields", "code"), [
    ({"name": "has space"}, "bad_name"),
    ({"base_url": "ftp://x/v1"}, "bad_url"),
    ({"model": " "}, "bad_model"),
    ({"api_key_env": "sk-abc"}, "bad_key_env"),
    ({"api_key_env": "SECRET_KEY"}, "bad_key_env"),
    ({"api_key_env": "DATABASE_URL"}, "bad_key_env"),
    ({"temperature": 3.0}, "bad_option"),
    ({"concurrency": 0}, "bad_option"),
    ({"colour": "blue"}, "bad_option"),
])
def test_a_bad_configuration_is_refused_with_its_code_and_creates_nothing(make_judge, fields, code):
    with pytest.raises(ValidationError) as refused:
        make_judge(**fields)
    assert refused.value.code == code
    assert not ModelJudge.objects.exists() and not Assessor.objects.filter(kind="model").exists()


def test_two_judges_of_a_campaign_cannot_share_a_name(make_judge):
    make_judge("same")
    with pytest.raises(ValidationError) as refused:
        make_judge("same")
    assert refused.value.code == "duplicate_name" and ModelJudge.objects.count() == 1


def test_the_model_assessor_has_no_account_and_is_named_after_the_judge(make_judge):
    judge = make_judge("gpt-x")
    assert judge.assessor.user_id is None and str(judge.assessor) == "model:gpt-x"


def test_the_default_prompt_follows_the_collections_scale(make_judge, campaign):
    graded = make_judge("graded").current_prompt()
    assert graded.version == 1 and "0 = represent that the passage has nothing to do" in graded.user
    binary = make_judge("binary", prompting="binary").current_prompt()
    assert "##final score: 0 or ##final score: 1" in binary.user


def test_prompt_versions_count_up_and_an_unchanged_text_writes_none(make_judge, lead):
    judge = make_judge()
    first = judge.current_prompt()
    assert prompt_save(judge=judge, system=first.system, user_text=first.user, user=lead) == first
    second = prompt_save(judge=judge, system="", user_text="{query} {document} final score?", note="short", user=lead)
    assert second.version == 2 and judge.current_prompt() == second
    with pytest.raises(ValidationError) as refused:
        prompt_save(judge=judge, system="{", user_text="{query}", user=lead)
    assert refused.value.code == "bad_template" and judge.prompts.count() == 2


def test_an_update_changes_the_endpoint_and_keeps_the_name_and_assessor(make_judge):
    judge = make_judge()
    updated = judge_update(judge=judge, base_url="http://127.0.0.1:11434/v1", model="llama3.1", api_key_env="",
                           concurrency=8, max_pairs=100)
    updated.refresh_from_db()
    assert (updated.base_url, updated.model, updated.concurrency, updated.max_pairs) == (
        "http://127.0.0.1:11434/v1", "llama3.1", 8, 100)
    assert updated.assessor_id == judge.assessor_id and updated.name == judge.name
    with pytest.raises(ValidationError):
        judge_update(judge=judge, base_url="http://x/v1", model="m", api_key_env="SECRET_KEY")
