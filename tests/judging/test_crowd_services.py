"""Crowd services: joining from Prolific/MTurk, preview, resume, batches with gold, blocking, completion."""
from __future__ import annotations

import uuid

import pytest
from django.core.exceptions import ValidationError

from judging.models import Assessor, Judgment
from judging.services.allocation import item_next
from judging.services.crowd import (
    completion_url,
    crowd_batch_progress,
    crowd_complete,
    crowd_consent,
    crowd_join,
    gold_accuracy,
)
from judging.services.judgments import judgment_submit
from judging.services.qrels import final_labels
from tests.judging.conftest import build_gold, expert

pytestmark = pytest.mark.django_db


@pytest.fixture
def crowd_campaign(collection, make_campaign):
    gold = build_gold(collection, [("401", "T1-D1", 0), ("402", "T2-D1", 0), ("403", "T3-D1", 0), ("404", "T4-D1", 0)])
    return make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=6, gold_qrels=gold, gold_rate=0.2,
                         gold_accuracy_threshold=0.6)


def judge_batch(worker, grade_for):
    """Judge until the batch ends; grade_for(item) decides each label. Return the items judged."""
    judged = []
    while (item := item_next(assessor=worker)) is not None:
        judgment_submit(assessor=worker, item=item, grade=grade_for(item), client_token=uuid.uuid4().hex)
        judged.append(item)
        worker.refresh_from_db(fields=["blocked"])
    return judged


def test_prolific_and_mturk_parameters_identify_the_worker(crowd_campaign):
    prolific = crowd_join(campaign=crowd_campaign, params={"PROLIFIC_PID": "p1", "STUDY_ID": "s", "SESSION_ID": "x"})
    assert prolific.platform == "prolific" and prolific.worker_id == "p1" and prolific.platform_data["STUDY_ID"] == "s"
    turk = crowd_join(campaign=crowd_campaign, params={"workerId": "A9", "assignmentId": "as1", "hitId": "h"})
    assert turk.platform == "mturk" and turk.kind == "crowd" and turk.platform_data["assignmentId"] == "as1"


def test_mturk_preview_creates_nobody(crowd_campaign):
    assert crowd_join(campaign=crowd_campaign, params={"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE"}) is None
    assert not Assessor.objects.filter(kind="crowd").exists()


def test_a_returning_worker_resumes_the_same_assessor(crowd_campaign, worker):
    first = worker(crowd_campaign, "p1")
    crowd_consent(assessor=first)
    item = item_next(assessor=first)
    again = worker(crowd_campaign, "p1")
    assert again.pk == first.pk and again.consented_at is not None
    assert item_next(assessor=again).pk == item.pk


def test_plain_links_create_separate_anonymous_workers_when_the_lead_allows_them(crowd_campaign):
    with pytest.raises(ValidationError) as error:
        crowd_join(campaign=crowd_campaign, params={})
    assert error.value.code == "anonymous_off"
    crowd_campaign.crowd_anonymous_allowed = True
    one = crowd_join(campaign=crowd_campaign, params={})
    two = crowd_join(campaign=crowd_campaign, params={})
    assert one.platform == "link" and one.pk != two.pk
    assert crowd_join(campaign=crowd_campaign, params={}, bound=one).pk == one.pk  # the bound browser comes back


def test_a_campaign_without_crowd_mode_refuses_workers(make_campaign):
    with pytest.raises(ValidationError) as error:
        crowd_join(campaign=make_campaign(), params={"PROLIFIC_PID": "p"})
    assert error.value.code == "crowd_closed"


def test_a_batch_has_the_batch_size_including_gold(crowd_campaign, worker):
    w = worker(crowd_campaign)
    judged = judge_batch(w, lambda item: 0)
    assert len(judged) == 6 and sum(i.is_gold for i in judged) == 1  # round(6 * 0.2) = 1
    assert crowd_batch_progress(assessor=w) == (6, 6)
    with pytest.raises(ValidationError) as error:
        extra = crowd_campaign.items.exclude(pk__in=[i.pk for i in judged]).filter(is_gold=False).first()
        judgment_submit(assessor=w, item=extra, grade=0, client_token="extra")
    assert error.value.code == "batch_complete"


def test_gold_accuracy_counts_relevance_agreement(crowd_campaign, worker):
    w = worker(crowd_campaign)
    judge_batch(w, lambda item: 0)
    assert gold_accuracy(assessor=w) == (1, 1)


def test_workers_below_the_threshold_are_blocked_and_excluded_but_kept(collection, make_campaign, worker):
    gold = build_gold(collection, [("401", "T1-D1", 0), ("402", "T2-D1", 0), ("403", "T3-D1", 0)])
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=20, gold_qrels=gold, gold_rate=0.5,
                             gold_accuracy_threshold=0.5)
    bad = worker(campaign, "bad")
    judged = judge_batch(bad, lambda item: 3)  # says "relevant" to every gold pair labelled 0
    bad.refresh_from_db()
    assert bad.blocked and "gold accuracy 0/3" in bad.blocked_reason
    assert sum(i.is_gold for i in judged) == 3 and len(judged) < 20  # stopped right after the 3rd gold answer
    assert item_next(assessor=bad) is None
    assert Judgment.objects.filter(assessor=bad).count() == len(judged)  # kept for audit
    assert final_labels(campaign=campaign, rule="majority") == {}
    good = worker(campaign, "good")
    judge_batch(good, lambda item: 0)
    good.refresh_from_db()
    assert not good.blocked and set(final_labels(campaign=campaign, rule="majority").values()) == {0}


def test_no_blocking_before_the_minimum_number_of_gold_answers(collection, make_campaign, worker):
    gold = build_gold(collection, [("401", "T1-D1", 0), ("402", "T2-D1", 0)])
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=10, gold_qrels=gold, gold_rate=0.5,
                             gold_accuracy_threshold=0.9)
    w = worker(campaign)
    judge_batch(w, lambda item: 3)
    w.refresh_from_db()
    assert gold_accuracy(assessor=w) == (0, 2) and not w.blocked


def test_completion_code_is_generated_once_per_worker_and_repeated(crowd_campaign, worker):
    w = worker(crowd_campaign)
    with pytest.raises(ValidationError) as error:
        crowd_complete(assessor=w)
    assert error.value.code == "batch_incomplete"
    judge_batch(w, lambda item: 0)
    code = crowd_complete(assessor=w)
    assert len(code) == 16 and crowd_complete(assessor=w) == code
    crowd_campaign.refresh_from_db()
    assert crowd_campaign.crowd_completion_code == ""  # no campaign-wide code any more
    w.refresh_from_db()
    assert w.completed_at is not None and w.completion_code == code


def test_the_leads_platform_code_goes_to_the_platform_but_the_worker_gets_their_own(make_campaign, worker):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=2, crowd_completion_code="C0DE",
                             crowd_completion_url="https://app.prolific.com/submissions/complete")
    w = worker(campaign)
    judge_batch(w, lambda item: 1)
    code = crowd_complete(assessor=w)
    assert code != "C0DE"
    assert completion_url(campaign, code) == "https://app.prolific.com/submissions/complete?cc=C0DE"


def test_crowd_workers_and_experts_share_the_queue(make_campaign, alice, worker):
    campaign = make_campaign(assessors=[alice], crowd_enabled=True, crowd_batch_size=5)
    w = worker(campaign)
    mine = {i.pk for i in judge_batch(w, lambda item: 1)}
    a = expert(campaign, alice)
    assert item_next(assessor=a).pk not in mine
