"""Crowd quality on the pages: the lead's block/unblock action, the results table, what stopped workers see."""
from __future__ import annotations

import pytest
from django.contrib.admin.models import LogEntry
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign_core.services import quality as core_quality
from preferences.models import PrefAssessor, PrefCampaign
from tests.conftest import make_user
from tests.preferences.conftest import answer, crowd_worker

pytestmark = pytest.mark.django_db


def _block_url(campaign, assessor):
    return reverse("pref-assessor-block", args=[campaign.pk, assessor.pk])


@pytest.fixture
def campaign(make_sbs):
    return make_sbs()


@pytest.fixture
def bob_row(campaign, bob):
    return PrefAssessor.objects.get(campaign=campaign, user=bob)


def test_a_lead_blocks_and_unblocks_an_assessor(client, campaign, bob_row, lead):
    client.force_login(lead)
    response = client.post(_block_url(campaign, bob_row), {"action": "block", "reason": "too fast"})
    assert response.status_code == 302
    assert response["Location"] == reverse("pref-campaign-results", args=[campaign.pk]) + "#assessors"
    bob_row.refresh_from_db()
    assert bob_row.blocked and bob_row.blocked_reason == "blocked by lead: too fast"
    assert client.post(_block_url(campaign, bob_row), {"action": "unblock"}).status_code == 302
    bob_row.refresh_from_db()
    assert not bob_row.blocked and bob_row.gold_check_waived
    assert [e["kind"] for e in core_quality.quality_log(campaign=campaign)] == ["unblock", "block"]


@pytest.mark.parametrize("who, status", [("alice", 403), ("mallory", 404)])
def test_only_leads_may_block(client, campaign, bob_row, who, status, request):
    client.force_login(request.getfixturevalue(who))
    assert client.post(_block_url(campaign, bob_row), {"action": "block"}).status_code == status
    bob_row.refresh_from_db()
    assert not bob_row.blocked and not LogEntry.objects.exists()


def test_anonymous_block_goes_to_login_and_changes_nothing(client, campaign, bob_row):
    response = client.post(_block_url(campaign, bob_row), {"action": "block"})
    assert response.status_code == 302 and "login" in response["Location"]
    bob_row.refresh_from_db()
    assert not bob_row.blocked


def test_block_needs_post_and_a_known_action(client, campaign, bob_row, lead):
    client.force_login(lead)
    assert client.get(_block_url(campaign, bob_row)).status_code == 405
    assert client.post(_block_url(campaign, bob_row), {"action": "delete"}).status_code == 400
    bob_row.refresh_from_db()
    assert not bob_row.blocked


def test_block_checks_the_csrf_token(campaign, bob_row, lead):
    client = Client(enforce_csrf_checks=True)
    client.force_login(lead)
    assert client.post(_block_url(campaign, bob_row), {"action": "block"}).status_code == 403
    bob_row.refresh_from_db()
    assert not bob_row.blocked


def test_an_assessor_of_another_campaign_or_a_missing_one_is_404(client, make_sbs, campaign, lead, bob):
    other = make_sbs(name="other")
    theirs = PrefAssessor.objects.get(campaign=other, user=bob)
    client.force_login(lead)
    assert client.post(_block_url(campaign, theirs), {"action": "block"}).status_code == 404
    missing = reverse("pref-assessor-block", args=[campaign.pk, 999999])
    assert client.post(missing, {"action": "block"}).status_code == 404
    assert client.post(reverse("pref-assessor-block", args=[999999, theirs.pk]), {"action": "block"}).status_code == 404
    theirs.refresh_from_db()
    assert not theirs.blocked


def test_a_blocked_expert_may_not_open_the_judging_page_nor_sees_the_campaign(client, campaign, bob_row, bob, lead):
    core_quality.assessor_block(assessor=bob_row, user=lead)
    client.force_login(bob)
    judge = reverse("pref-judge", args=[campaign.pk])
    assert client.get(judge).status_code == 403
    assert client.post(judge, {"item": campaign.items.first().pk, "choice": "0", "token": "x"}).status_code == 403
    assert judge not in client.get(reverse("my-campaigns")).content.decode()


def test_results_page_lists_assessors_and_excluded_work_escaping_worker_ids(client, make_sbs, sbs, alice, lead):
    campaign = make_sbs(crowd_enabled=True, crowd_batch_size=20, gold_topics=sbs[0], gold_rate=0.5,
                        gold_accuracy_threshold=0.5, gold_min_answers=3, judgments_per_item=2)
    me = PrefAssessor.objects.get(campaign=campaign, user=alice)
    for n, seconds in enumerate((3.0, 5.0, 20.0)):
        answer(me, token=f"a{n}", seconds=seconds)
    worker = crowd_worker(campaign, worker_id="<b>w</b>")
    n = 0
    while answer(worker, gold_right=False, token=f"w{n}") is not None:
        n += 1
    client.force_login(lead)
    html = client.get(reverse("pref-campaign-results", args=[campaign.pk])).content.decode()
    assert "<b>w</b>" not in html and "prolific:&lt;b&gt;w&lt;/b&gt;" in html
    assert "<td>alice</td><td>Expert</td><td>3</td><td>2 / 2</td><td>5.0 s</td>" in html
    assert "<td>Crowd worker</td><td>6</td><td>0 / 3</td><td>0.0 s</td>" in html
    assert "gold accuracy 0/3 below 0.50" in html
    assert ('id="excluded">Excluded: 3 judgments (and 3 gold answers) by 1 blocked assessor;') in html
    assert 'value="unblock"' in html and 'value="block"' in html
    assert "stopped when their gold accuracy falls below 0.50 after 3 gold answers" in html


def test_results_page_shows_the_audit_log_escaped(client, campaign, bob_row, lead):
    client.force_login(lead)
    client.post(_block_url(campaign, bob_row), {"action": "block", "reason": "<script>alert(1)</script>"})
    html = client.get(reverse("pref-campaign-results", args=[campaign.pk])).content.decode()
    assert "<script>alert(1)" not in html
    assert "lead blocked bob: &lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_results_page_queries_do_not_grow_with_assessors(client, campaign, lead, collection):
    client.force_login(lead)
    url = reverse("pref-campaign-results", args=[campaign.pk])

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert client.get(url).status_code == 200
        return len(ctx.captured_queries)

    for row in campaign.assessors.all():
        answer(row, token=f"q{row.pk}")
    before = queries()
    for i in range(5):
        user = make_user(f"extra{i}")
        row = PrefAssessor.objects.create(campaign=campaign, kind=PrefAssessor.Kind.EXPERT, user=user)
        answer(row, token=f"x{i}")
        crowd_worker(campaign, worker_id=f"c{i}")
    assert queries() == before


def test_results_api_reports_exclusions_and_assessors(client, campaign, bob_row, alice, lead):
    a = PrefAssessor.objects.get(campaign=campaign, user=alice)
    for n in range(2):
        answer(a, outcome=1, token=f"a{n}", seconds=4.0)
        answer(bob_row, outcome=-1, token=f"b{n}", seconds=8.0)
    core_quality.assessor_block(assessor=bob_row, user=lead)
    client.force_login(lead)
    data = client.get(reverse("api-pref-results", args=[campaign.pk])).json()
    assert data["excluded"] == {"judgments": 2, "gold": 0, "assessors": 1}
    assert (data["overall"]["wins"], data["overall"]["losses"]) == (2, 0)
    assert data["assessors"] == [
        {"id": a.pk, "name": "alice", "kind": "Expert", "judgments": 2, "gold_correct": 0, "gold_answered": 0,
         "median_seconds": 4.0, "blocked": False, "blocked_reason": ""},
        {"id": bob_row.pk, "name": "bob", "kind": "Expert", "judgments": 2, "gold_correct": 0, "gold_answered": 0,
         "median_seconds": 8.0, "blocked": True, "blocked_reason": "blocked by lead"},
    ]


def _enter(client, campaign, query="?PROLIFIC_PID=p1"):
    entry = reverse("pref-crowd", args=[campaign.crowd_token])
    assert client.get(entry + query).status_code == 200
    client.post(entry, {"consent": "yes"})
    return reverse("pref-crowd-judge", args=[campaign.crowd_token])


def test_a_worker_failing_gold_through_the_page_is_stopped_without_a_code(client, make_sbs, sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=20, crowd_completion_code="C0DE",
                        gold_topics=sbs[0], gold_rate=0.5, gold_accuracy_threshold=0.5, gold_min_answers=3)
    judge = _enter(client, campaign)
    pages = 0
    while True:
        page = client.get(judge)
        if "item" not in page.context:
            break
        item = page.context["item"]
        wrong_gold = 1 if item.left_is_a else -1  # the degraded side B
        choice = wrong_gold if item.is_gold else 0
        assert client.post(judge, {"item": item.pk, "choice": str(choice), "token": f"t{pages}"}).status_code == 302
        pages += 1
    html = page.content.decode()
    assert pages == 6 and 'id="crowd-stopped"' in html and "C0DE" not in html
    worker = PrefAssessor.objects.get(campaign=campaign)
    assert worker.blocked and worker.completion_code == ""
    entry = reverse("pref-crowd", args=[campaign.crowd_token])
    assert 'id="crowd-stopped"' in client.get(entry + "?PROLIFIC_PID=p1").content.decode()
    assert 'id="crowd-stopped"' in client.post(entry, {"consent": "yes"}).content.decode()


def test_a_second_worker_on_the_same_browser_gets_their_own_row_and_a_new_session(client, make_sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True)
    _enter(client, campaign, "?PROLIFIC_PID=p1")
    binding = f"qs_crowd_preferences_{campaign.pk}"
    first_binding = client.cookies[binding].value
    _enter(client, campaign, "?PROLIFIC_PID=p2")
    assert client.cookies[binding].value != first_binding and client.cookies[binding]["httponly"]
    assert sorted(PrefAssessor.objects.values_list("worker_id", flat=True)) == ["p1", "p2"]
    item = client.get(reverse("pref-crowd-judge", args=[campaign.crowd_token])).context["item"]
    client.post(reverse("pref-crowd-judge", args=[campaign.crowd_token]), {"item": item.pk, "choice": "0", "token": "k"})
    assert PrefAssessor.objects.get(worker_id="p2").judgments.count() == 1
    assert PrefAssessor.objects.get(worker_id="p1").judgments.count() == 0


def test_a_closed_study_takes_nobody(client, make_sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True)
    PrefCampaign.objects.filter(pk=campaign.pk).update(status=PrefCampaign.Status.CLOSED)
    response = client.get(reverse("pref-crowd", args=[campaign.crowd_token]) + "?PROLIFIC_PID=p1")
    assert response.status_code == 403 and 'data-code="crowd_closed"' in response.content.decode()
    assert not PrefAssessor.objects.exists()


@pytest.mark.parametrize("query, expected", [
    ("?workerId=W1&assignmentId=A1&hitId=H&turkSubmitTo=https://workersandbox.mturk.com",
     'action="https://workersandbox.mturk.com/mturk/externalSubmit"'),
    ("?PROLIFIC_PID=p1", 'href="https://app.prolific.com/submissions/complete?cc=C0DE"'),
])
def test_the_completion_page_sends_workers_back_to_their_platform(client, make_sbs, query, expected):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=1, crowd_completion_code="C0DE",
                        crowd_completion_url="https://app.prolific.com/submissions/complete")
    judge = _enter(client, campaign, query)
    item = client.get(judge).context["item"]
    client.post(judge, {"item": item.pk, "choice": "0", "token": "one"})
    html = client.get(judge, follow=True).content.decode()
    code = PrefAssessor.objects.get(campaign=campaign).completion_code
    assert len(code) == 16 and f'id="completion-code">{code}<' in html and expected in html


def test_the_new_campaign_form_sets_the_quality_and_crowd_settings(client, sbs, lead, alice):
    topics, run_a, run_b = sbs
    client.force_login(lead)
    url = reverse("pref-campaign-new", args=["demo"])
    page = client.get(url).content.decode()
    for name in ("gold_accuracy_threshold", "gold_min_answers", "crowd_batch_size", "crowd_completion_url"):
        assert f'name="{name}"' in page
    data = {"name": "quality", "kind": "sbs", "run_a": run_a.pk, "run_b": run_b.pk, "topics": [t.pk for t in topics],
            "gold_topics": [topics[0].pk], "depth": 10, "judgments_per_item": 1, "seed": 1, "gold_rate": 0.2,
            "gold_accuracy_threshold": 0.7, "gold_min_answers": 4, "lease_seconds": 600, "crowd_enabled": "on",
            "crowd_batch_size": 12, "crowd_completion_url": "https://app.prolific.com/submissions/complete"}
    assert client.post(url, data).status_code == 302
    campaign = PrefCampaign.objects.get(name="quality")
    assert (campaign.gold_accuracy_threshold, campaign.gold_min_answers, campaign.crowd_batch_size) == (0.7, 4, 12)
    assert campaign.crowd_completion_url == "https://app.prolific.com/submissions/complete"
    response = client.post(url, {**data, "name": "no gold", "gold_topics": [], "gold_rate": 0})
    assert response.status_code == 200 and "needs gold items" in response.content.decode()
    assert not PrefCampaign.objects.filter(name="no gold").exists()


def test_the_new_campaign_form_takes_gold_pairs_for_document_pairs(client, sbs, lead):
    client.force_login(lead)
    response = client.post(reverse("pref-campaign-new", args=["demo"]), {
        "name": "pairs", "kind": "pair", "pairs": "501 T1-D1 T1-D2\n", "gold_pairs": "502 T2-D1 T2-D60\n",
        "depth": 10, "judgments_per_item": 1, "seed": 0, "gold_rate": 0.5, "gold_accuracy_threshold": 0.5,
        "gold_min_answers": 1, "lease_seconds": 600, "crowd_batch_size": 10})
    assert response.status_code == 302
    campaign = PrefCampaign.objects.get(name="pairs")
    assert list(campaign.items.values_list("is_gold", "a_docnos", "b_docnos").order_by("position")) == [
        (False, ["T1-D1"], ["T1-D2"]), (True, ["T2-D1"], ["T2-D60"])]
    bad = client.post(reverse("pref-campaign-new", args=["demo"]), {
        "name": "bad", "kind": "pair", "pairs": "501 T1-D1 T1-D2", "gold_pairs": "999 a b", "depth": 10,
        "judgments_per_item": 1, "seed": 0, "gold_rate": 0, "gold_accuracy_threshold": 0, "gold_min_answers": 3,
        "lease_seconds": 600, "crowd_batch_size": 10})
    assert "Gold pairs, line 1" in bad.content.decode()


def test_results_say_why_agreement_is_undefined(client, make_sbs, alice, bob, lead):
    campaign = make_sbs(judgments_per_item=2)
    for user in (alice, bob):
        row = PrefAssessor.objects.get(campaign=campaign, user=user)
        for n in range(4):
            answer(row, outcome=0, token=f"{user.username}{n}")
    client.force_login(lead)
    html = client.get(reverse("pref-campaign-results", args=[campaign.pk])).content.decode()
    assert "<strong>undefined</strong> (only one category used)" in html
    assert "over 4 items judged at least twice by 2 assessors; raw agreement 1.000." in html
    data = client.get(reverse("api-pref-results", args=[campaign.pk])).json()["agreement"]
    assert data == {"statistic": "krippendorff", "value": None, "n_items": 4, "raw_agreement": 1.0,
                    "ci_low": None, "ci_high": None, "undefined_reason": "only one category used"}


def test_results_show_alpha_with_its_interval_and_raw_agreement(client, make_sbs, alice, bob, lead):
    campaign = make_sbs(judgments_per_item=2)
    a, b = (PrefAssessor.objects.get(campaign=campaign, user=u) for u in (alice, bob))
    for n in range(4):
        answer(a, outcome=1, token=f"a{n}")
        answer(b, outcome=1 if n < 3 else -1, token=f"b{n}")
    client.force_login(lead)
    html = client.get(reverse("pref-campaign-results", args=[campaign.pk])).content.decode()
    # seven "A better" and one "B better" over four doubly judged items: D_o = 2/8 = D_e = 14/56, so α = 0
    assert "<strong>0.000</strong> (95% bootstrap interval over items" in html
    assert "over 4 items judged at least twice by 2 assessors; raw agreement 0.750." in html
