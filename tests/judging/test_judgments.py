"""Submitting judgments: idempotent tokens, revisions with history, skips, validation, back key."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError

from campaign_core.active_time import MAX_ACTIVE_SECONDS
from judging.models import Item, Judgment, JudgmentRevision
from judging.services.allocation import item_next
from judging.services.judgments import judgment_history, judgment_previous, judgment_submit
from tests.judging.conftest import expert

pytestmark = pytest.mark.django_db


@pytest.fixture
def a(campaign, alice):
    return expert(campaign, alice)


def test_submit_records_grade_time_and_frees_the_lease(a):
    item = item_next(assessor=a)
    judgment = judgment_submit(assessor=a, item=item, grade=2, active_seconds=4.25, comment="ok", client_token="t1")
    judgment.refresh_from_db()
    assert (judgment.grade, judgment.active_seconds, judgment.comment) == (2, 4.25, "ok")
    assert Item.objects.get(pk=item.pk).judgment_count == 1 and not item.leases.exists()


def test_a_repeated_token_returns_the_same_judgment_and_records_nothing(a):
    item = item_next(assessor=a)
    first = judgment_submit(assessor=a, item=item, grade=1, client_token="same")
    again = judgment_submit(assessor=a, item=item, grade=3, client_token="same")
    assert again.pk == first.pk and Judgment.objects.get().grade == 1
    assert Item.objects.get(pk=item.pk).judgment_count == 1 and not JudgmentRevision.objects.exists()


def test_a_revision_token_replayed_is_not_a_second_revision(a):
    item = item_next(assessor=a)
    judgment_submit(assessor=a, item=item, grade=1, client_token="first")
    judgment_submit(assessor=a, item=item, grade=3, client_token="revise")
    judgment_submit(assessor=a, item=item, grade=3, client_token="revise")
    assert JudgmentRevision.objects.count() == 1 and Judgment.objects.get().revision_count == 1


def test_another_assessors_token_is_refused(campaign, a, bob):
    b = expert(campaign, bob)
    judgment_submit(assessor=a, item=item_next(assessor=a), grade=1, client_token="mine")
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=b, item=item_next(assessor=b), grade=1, client_token="mine")
    assert error.value.code == "token_reused"


def test_revising_keeps_history_old_to_new_with_who_and_when(a):
    item = item_next(assessor=a)
    judgment = judgment_submit(assessor=a, item=item, grade=0, active_seconds=2, client_token="t1")
    judgment_submit(assessor=a, item=item, grade=2, active_seconds=3, client_token="t2")
    judgment_submit(assessor=a, item=item, grade=None, skipped=True, skip_reason="broken", client_token="t3")
    judgment.refresh_from_db()
    history = judgment_history(judgment=judgment)
    assert [(r.old_grade, r.new_grade, r.new_skipped) for r in history] == [(0, 2, False), (2, None, True)]
    assert all(r.changed_by_id == a.pk and r.changed_at for r in history)
    assert judgment.revision_count == 2 and judgment.skipped and judgment.skip_reason == "broken"
    assert judgment.active_seconds == 5 and Item.objects.get(pk=item.pk).judgment_count == 1


def test_resubmitting_the_same_grade_records_no_revision(a):
    item = item_next(assessor=a)
    judgment_submit(assessor=a, item=item, grade=1, client_token="t1")
    judgment_submit(assessor=a, item=item, grade=1, comment="sure", client_token="t2")
    assert not JudgmentRevision.objects.exists() and Judgment.objects.get().comment == "sure"


def test_skip_records_a_reason_without_grade(a):
    item = item_next(assessor=a)
    judgment = judgment_submit(assessor=a, item=item, grade=None, skipped=True, skip_reason="empty page",
                               client_token="s")
    assert judgment.grade is None and judgment.skipped and judgment.skip_reason == "empty page"


@pytest.mark.parametrize("grade", [4, -1, None, "2", True, 1.0])
def test_grades_outside_the_scale_are_refused(a, grade):
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=a, item=item_next(assessor=a), grade=grade, client_token="x")
    assert error.value.code == "bad_grade" and not Judgment.objects.exists()


def test_active_seconds_are_clamped(a):
    item = item_next(assessor=a)
    assert judgment_submit(assessor=a, item=item, grade=1, active_seconds=10**9, client_token="a").active_seconds == MAX_ACTIVE_SECONDS
    item = item_next(assessor=a)
    assert judgment_submit(assessor=a, item=item, grade=1, active_seconds=-5, client_token="b").active_seconds == 0
    item = item_next(assessor=a)
    assert judgment_submit(assessor=a, item=item, grade=1, active_seconds=float("nan"), client_token="c").active_seconds == 0


def test_an_item_leased_to_someone_else_is_refused(campaign, a, bob):
    b = expert(campaign, bob)
    held = item_next(assessor=b)
    item_next(assessor=a)
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=a, item=held, grade=1, client_token="steal")
    assert error.value.code == "not_assigned" and not Judgment.objects.exists()


def test_an_open_item_can_be_judged_without_a_lease(a):
    item = Item.objects.get(campaign=a.campaign, position=7)
    judgment_submit(assessor=a, item=item, grade=1, client_token="direct")
    assert Item.objects.get(pk=item.pk).judgment_count == 1


def test_an_item_of_another_campaign_is_refused(make_campaign, a, alice):
    other = make_campaign(name="other")
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=a, item=other.items.first(), grade=1, client_token="x")
    assert error.value.code == "not_assigned"


def test_a_closed_campaign_refuses_new_judgments_but_not_tokens_already_recorded(a):
    from judging.services.campaigns import campaign_set_status

    first = item_next(assessor=a)
    judgment_submit(assessor=a, item=first, grade=1, client_token="before")
    second = item_next(assessor=a)
    campaign_set_status(campaign=a.campaign, status="finished")
    a.campaign.refresh_from_db()
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=a, item=second, grade=1, client_token="after")
    assert error.value.code == "campaign_closed"
    assert judgment_submit(assessor=a, item=first, grade=1, client_token="before").grade == 1


def test_back_walks_through_my_judgments_newest_first(campaign, a, bob):
    b = expert(campaign, bob)
    mine = []
    for token in ("1", "2", "3"):
        mine.append(judgment_submit(assessor=a, item=item_next(assessor=a), grade=1, client_token=token))
    judgment_submit(assessor=b, item=item_next(assessor=b), grade=0, client_token="b")
    assert judgment_previous(assessor=a) == mine[2]
    assert judgment_previous(assessor=a, before=mine[2]) == mine[1]
    assert judgment_previous(assessor=a, before=mine[0]) is None
