"""Crowd quality services: the gold threshold, a lead's block and unblock, and what blocking leaves out."""
from __future__ import annotations

import json
import uuid

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError

from campaign_core.crowd import completion_url, mturk_submit
from campaign_core.services import quality as core_quality
from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment, PrefLease
from preferences.services import allocation, crowd, judgments, quality
from preferences.services.campaigns import doc_pair_create
from preferences.services.export import prefs_lines
from preferences.services.results import campaign_results
from tests.preferences.conftest import answer, crowd_worker

pytestmark = pytest.mark.django_db

Z = 1.959963984540054  # the 97.5 % normal quantile


def _assessor(campaign, user):
    return PrefAssessor.objects.get(campaign=campaign, user=user)


def _stream(worker, gold_answers, *, outcome=1):
    """Judge until nothing is left; gold items take the next of ``gold_answers`` (True = right).

    Return (is_gold, blocked afterwards) for each item judged.
    """
    gold_answers = iter(gold_answers)
    seen = []
    for _ in range(50):
        item = allocation.item_next(assessor=worker)
        if item is None:
            return seen
        wanted = (1 if next(gold_answers) else -1) if item.is_gold else outcome
        judgments.judgment_submit(assessor=worker, item=item, choice=judgments.choice_of(wanted, item.left_is_a),
                                  token=uuid.uuid4().hex)
        worker.refresh_from_db()
        seen.append((item.is_gold, worker.blocked))
    raise AssertionError("the stream never ended")


@pytest.fixture
def gold_campaign(make_sbs, sbs):
    """Four regular topics and four gold ones, half of each worker's work gold, stop below 0.5 after 3 answers."""
    return make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=20, gold_topics=sbs[0], gold_rate=0.5,
                    gold_accuracy_threshold=0.5, gold_min_answers=3)


def test_a_crowd_worker_is_stopped_right_after_the_gold_answer_that_crosses_the_threshold(gold_campaign):
    worker = crowd_worker(gold_campaign)
    seen = _stream(worker, [False] * 4)
    # k-th item is gold while gold answers < round(k / 2): items 2, 3 and 6; the third wrong answer stops the worker
    assert seen == [(False, False), (True, False), (True, False), (False, False), (False, False), (True, True)]
    worker.refresh_from_db()
    assert worker.blocked_reason == "gold accuracy 0/3 below 0.50" and worker.blocked_at is not None
    assert allocation.item_next(assessor=worker) is None
    assert PrefJudgment.objects.filter(assessor=worker).count() == 6  # kept for audit
    assert not PrefLease.objects.filter(assessor=worker).exists()


def test_accuracy_equal_to_the_threshold_passes_and_answers_below_the_minimum_never_stop(make_sbs, sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=20, gold_topics=sbs[0], gold_rate=0.5,
                        gold_accuracy_threshold=0.5, gold_min_answers=2)
    worker = crowd_worker(campaign)
    # gold answers: wrong (0/1, below the minimum of 2), right (1/2 = 0.5, not below), wrong (1/3 < 0.5)
    seen = _stream(worker, [False, True, False, True])
    assert [blocked for is_gold, blocked in seen if is_gold] == [False, False, True]
    worker.refresh_from_db()
    assert worker.blocked_reason == "gold accuracy 1/3 below 0.50"
    assert quality.gold_accuracy(assessor=worker) == (1, 3)


def test_a_tie_on_a_gold_item_is_a_wrong_answer(gold_campaign):
    worker = crowd_worker(gold_campaign)
    answer(worker, token="r1")
    gold = allocation.item_next(assessor=worker)
    assert gold.is_gold
    judgments.judgment_submit(assessor=worker, item=gold, choice=0, token="tie")
    assert quality.gold_accuracy(assessor=worker) == (0, 1)


def test_experts_are_never_stopped_by_the_gold_threshold(gold_campaign, alice):
    expert = PrefAssessor.objects.create(campaign=gold_campaign, kind=PrefAssessor.Kind.EXPERT, user=alice)
    seen = _stream(expert, [False] * 4)
    assert len(seen) == 8 and not any(blocked for _, blocked in seen)
    assert quality.gold_accuracy(assessor=expert) == (0, 4)


def test_without_a_threshold_nobody_is_stopped(make_sbs, sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=20, gold_topics=sbs[0], gold_rate=0.5)
    worker = crowd_worker(campaign)
    seen = _stream(worker, [False] * 4)
    assert len(seen) == 8 and not worker.blocked


def test_experts_stop_when_regular_items_run_out_and_crowd_workers_fill_their_batch_with_gold(make_sbs, sbs, alice):
    campaign = make_sbs(assessors=[alice], crowd_enabled=True, gold_topics=sbs[0][:2], gold_rate=0.1,
                        judgments_per_item=2)
    expert = _assessor(campaign, alice)
    assert [g for g, _ in _stream(expert, [True] * 2)] == [False] * 4
    worker = crowd_worker(campaign)
    assert [g for g, _ in _stream(worker, [True] * 2)] == [False] * 4 + [True] * 2


def test_a_blocked_assessor_can_neither_answer_nor_revise_but_a_replay_still_answers(make_sbs, alice, lead):
    campaign = make_sbs()
    me = _assessor(campaign, alice)
    item = answer(me, token="t1")
    other = allocation.item_next(assessor=me)
    core_quality.assessor_block(assessor=_assessor(campaign, alice), user=lead)
    for target, token in ((item, "t2"), (other, "t3")):
        with pytest.raises(ValidationError) as error:
            judgments.judgment_submit(assessor=me, item=target, choice=1, token=token)
        assert error.value.code == "blocked"
    first = PrefJudgment.objects.get(assessor=me)
    assert judgments.judgment_submit(assessor=me, item=item, choice=1, token="t1").pk == first.pk
    first.refresh_from_db()
    assert first.revision_count == 0 and PrefJudgment.objects.count() == 1


def test_a_leads_block_drops_leases_reopens_items_and_is_audited(make_sbs, alice, bob, lead):
    campaign = make_sbs()
    a, b = _assessor(campaign, alice), _assessor(campaign, bob)
    first, _ = answer(a, token="a1"), answer(a, token="a2")
    allocation.item_next(assessor=a)  # holds a lease on the third item
    counts = dict(PrefItem.objects.filter(campaign=campaign).values_list("position", "judgment_count"))
    assert counts == {1: 1, 2: 1, 3: 0, 4: 0} and PrefLease.objects.filter(assessor=a).count() == 1
    assert core_quality.assessor_block(assessor=a, user=lead, reason="  clicks   without reading ")
    a.refresh_from_db()
    assert (a.blocked, a.blocked_reason) == (True, "blocked by lead: clicks without reading")
    assert not PrefLease.objects.filter(assessor=a).exists()
    counts = dict(PrefItem.objects.filter(campaign=campaign).values_list("position", "judgment_count"))
    assert counts == {1: 0, 2: 0, 3: 0, 4: 0}
    assert [allocation.item_next(assessor=b).pk] == [first.pk]  # her items are offered again
    entry = LogEntry.objects.get()
    assert entry.user == lead and entry.object_id == str(campaign.pk)
    assert json.loads(entry.change_message) == {"kind": "block", "assessor": a.pk, "name": "alice",
                                                "reason": "clicks without reading"}
    assert not core_quality.assessor_block(assessor=a, user=lead)  # already blocked: nothing changes
    assert LogEntry.objects.count() == 1
    assert allocation.item_next(assessor=a) is None


def test_unblocking_counts_the_judgments_again_and_waives_the_gold_check(gold_campaign, lead):
    worker = crowd_worker(gold_campaign)
    _stream(worker, [False] * 3)
    worker.refresh_from_db()
    assert worker.blocked
    assert campaign_results(gold_campaign).excluded_judgments == 3
    assert core_quality.assessor_unblock(assessor=worker, user=lead)
    worker.refresh_from_db()
    assert (worker.blocked, worker.blocked_reason, worker.gold_check_waived) == (False, "", True)
    counts = dict(PrefItem.objects.filter(campaign=gold_campaign, is_gold=False).values_list("position", "judgment_count"))
    assert counts == {1: 1, 2: 1, 3: 1, 4: 0}
    seen = _stream(worker, [False])  # another wrong gold answer (0/4) no longer stops this worker
    assert seen == [(True, False), (False, False)]
    r = campaign_results(gold_campaign)
    assert (r.overall.wins, r.overall.n, r.excluded_judgments, r.excluded_assessors) == (4, 4, 0, 0)
    log = core_quality.quality_log(campaign=gold_campaign)
    assert [(e["kind"], e["name"], e["reason"]) for e in log] == [("unblock", "prolific:w1",
                                                                   "gold accuracy 0/3 below 0.50")]
    assert not core_quality.assessor_unblock(assessor=worker, user=lead)


def test_results_leave_out_blocked_assessors_and_say_how_many(make_sbs, alice, bob, lead):
    campaign = make_sbs(judgments_per_item=2, seed=3)
    a, b = _assessor(campaign, alice), _assessor(campaign, bob)
    for n in range(4):
        answer(a, outcome=1, token=f"a{n}")
        answer(b, outcome=-1, token=f"b{n}")
    before = campaign_results(campaign)
    assert (before.overall.wins, before.overall.losses, before.overall.p_value) == (4, 4, 1.0)
    core_quality.assessor_block(assessor=b, user=lead)
    r = campaign_results(campaign)
    assert (r.overall.wins, r.overall.ties, r.overall.losses) == (4, 0, 0)
    assert r.overall.p_value == pytest.approx(0.125)  # 2 / 2^4
    assert (r.overall.ci_low, r.overall.ci_high) == pytest.approx((4 / (4 + Z * Z), 1.0))  # Wilson at p = 1
    assert (r.topic_votes.wins, r.topic_votes.n) == (4, 4)
    assert [(t.wins, t.losses) for t in r.per_topic.values()] == [(1, 0)] * 4
    assert r.agreement is None  # one usable judgment per item is left
    lefts = PrefItem.objects.filter(campaign=campaign, left_is_a=True).count()
    assert (r.position.wins, r.position.losses) == (lefts, 4 - lefts)  # alice's clicks only
    assert (r.excluded_judgments, r.excluded_gold, r.excluded_assessors) == (4, 0, 1)
    assert [(x.name, x.judgments, x.blocked) for x in r.assessors] == [("alice", 4, False), ("bob", 4, True)]


def test_assessor_rows_count_work_gold_and_median_active_time(make_sbs, sbs, alice, bob):
    campaign = make_sbs(gold_topics=sbs[0][:1], gold_rate=0.5)
    me = _assessor(campaign, alice)
    for n, seconds in enumerate((2.0, 10.0, 4.0)):  # regular, gold (right), regular
        answer(me, token=f"s{n}", seconds=seconds)
    rows = campaign_results(campaign).assessors
    got = [(x.name, x.kind, x.judgments, x.gold_correct, x.gold_answered, x.median_seconds, x.blocked, x.status)
           for x in rows]
    assert got == [("alice", "Expert", 3, 1, 1, 4.0, False, ""), ("bob", "Expert", 0, 0, 0, None, False, "")]
    assert rows[0].gold_accuracy == 1.0 and rows[1].gold_accuracy is None


def test_export_leaves_out_blocked_assessors(collection, sbs, alice, bob, lead):
    topics = sbs[0]
    campaign = doc_pair_create(collection=collection, name="pairs", assessors=(alice, bob), judgments_per_item=2,
                               pairs=[(topics[0], "T1-D1", "T1-D2"), (topics[1], "T2-D1", "T2-D9")])
    a, b = _assessor(campaign, alice), _assessor(campaign, bob)
    for n in range(2):
        answer(a, outcome=1, token=f"a{n}")
        answer(b, outcome=-1, token=f"b{n}")
    assert len(prefs_lines(campaign)) == 8
    core_quality.assessor_block(assessor=b, user=lead)
    assert prefs_lines(campaign) == [f"501 a{a.pk} 1 T1-D1 1", f"501 a{a.pk} 1 T1-D2 0",
                                     f"502 a{a.pk} 2 T2-D1 1", f"502 a{a.pk} 2 T2-D9 0"]


def test_a_blocked_worker_gets_no_completion_code(gold_campaign):
    worker = crowd_worker(gold_campaign)
    _stream(worker, [False] * 3)
    worker.refresh_from_db()
    with pytest.raises(ValidationError) as error:
        crowd.crowd_complete(assessor=worker)
    assert error.value.code == "blocked" and worker.completion_code == ""


def test_platform_ids_win_over_the_binding_and_the_latest_ids_are_kept(make_sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_anonymous_allowed=True)
    first = crowd.crowd_join(campaign=campaign, params={"PROLIFIC_PID": "p1", "SESSION_ID": "s1"})
    second = crowd.crowd_join(campaign=campaign, params={"PROLIFIC_PID": "p2"}, bound=first)
    assert second.pk != first.pk and second.worker_id == "p2"
    assert crowd.crowd_join(campaign=campaign, params={}, bound=first).pk == first.pk
    again = crowd.crowd_join(campaign=campaign, params={"PROLIFIC_PID": "p1", "SESSION_ID": "s2"}, bound=first)
    assert again.pk == first.pk and again.platform_data["SESSION_ID"] == "s2"
    anonymous = crowd.crowd_join(campaign=campaign, params={})
    assert anonymous.pk not in (first.pk, second.pk) and anonymous.platform == "link"


def test_completion_url_and_mturk_submit(make_sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_completion_url="https://app.prolific.com/submissions/complete")
    assert completion_url(campaign, "AB12") == "https://app.prolific.com/submissions/complete?cc=AB12"
    campaign.crowd_completion_url = "https://example.org/done/{code}"
    assert completion_url(campaign, "AB12") == "https://example.org/done/AB12"
    turk = crowd.crowd_join(campaign=campaign, params={"workerId": "W1", "assignmentId": "A1",
                                                       "turkSubmitTo": "https://workersandbox.mturk.com/"})
    assert mturk_submit(turk) == {"action": "https://workersandbox.mturk.com/mturk/externalSubmit",
                                        "assignment_id": "A1"}
    plain = crowd.crowd_join(campaign=campaign, params={"workerId": "W2", "assignmentId": "A2",
                                                        "turkSubmitTo": "http://evil.example"})
    assert mturk_submit(plain) is None


@pytest.mark.parametrize("options, code", [
    ({"gold_accuracy_threshold": 1.5}, "bad_fraction"),
    ({"gold_accuracy_threshold": 0.5}, "bad_gold"),  # a threshold without gold items would never apply
    ({"gold_accuracy_threshold": 0.5, "gold_rate": 0.2, "gold_min_answers": 0}, "bad_size"),
    ({"crowd_batch_size": 0}, "bad_size"),
])
def test_campaign_settings_out_of_range_are_refused(make_sbs, options, code):
    with pytest.raises(ValidationError) as error:
        make_sbs(**options)
    found = error.value
    codes = [e.code for errors in found.error_dict.values() for e in errors] if hasattr(found, "error_dict") else [found.code]
    assert code in codes
    assert not PrefCampaign.objects.exists()
