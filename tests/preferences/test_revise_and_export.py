"""Changing an earlier answer from the page, the judgments export, and prefs read back by metrics."""
from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaign_core.services import quality as core_quality
from metrics.io import run_from_dict
from metrics.prefs import evaluate_prefs, read_prefs
from preferences.models import PrefAssessor, PrefCampaign, PrefJudgment
from preferences.services import allocation, judgments
from preferences.services.campaigns import doc_pair_create
from preferences.services.export import judgments_export
from tests.preferences.conftest import answer

pytestmark = pytest.mark.django_db


def _assessor(campaign, user):
    return PrefAssessor.objects.get(campaign=campaign, user=user)


@pytest.fixture
def judged(make_sbs, alice):
    """Alice has answered the first two items (seed 1: A left on 501, B left on 502): left, then same."""
    campaign = make_sbs(seed=1)
    me = _assessor(campaign, alice)
    first = allocation.item_next(assessor=me)
    judgments.judgment_submit(assessor=me, item=first, choice=-1, strength=2, comment="first", token="j1")
    second = allocation.item_next(assessor=me)
    judgments.judgment_submit(assessor=me, item=second, choice=0, token="j2")
    return campaign, first, second


def test_the_back_link_walks_through_my_earlier_answers(client, judged, alice):
    campaign, first, second = judged
    client.force_login(alice)
    url = reverse("pref-judge", args=[campaign.pk])
    page = client.get(url)
    assert page.context["back_url"] == f"{url}?revise={second.pk}" and page.context["revising"] is None
    on_second = client.get(url, {"revise": second.pk})
    assert on_second.context["item"] == second and on_second.context["back_url"] == f"{url}?revise={first.pk}"
    on_first = client.get(url, {"revise": first.pk})
    html = on_first.content.decode()
    assert on_first.context["back_url"] == ""
    assert 'id="pref-revising"' in html and "You answered <strong>left better</strong>" in html
    assert 'id="pref-left-better" class="chosen"' in html and '<option value="2" selected>clearly</option>' in html
    assert 'value="first"' in html


def test_answering_again_from_the_back_page_records_a_revision(client, judged, alice):
    campaign, first, _ = judged
    client.force_login(alice)
    url = reverse("pref-judge", args=[campaign.pk])
    token = client.get(url, {"revise": first.pk}).context["token"]
    response = client.post(url, {"item": first.pk, "choice": "1", "token": token, "comment": "changed my mind"})
    assert response.status_code == 302 and response["Location"] == url
    j = PrefJudgment.objects.get(item=first, assessor__user=alice)
    assert (j.choice, j.outcome, j.strength, j.comment, j.revision_count) == (1, -1, None, "changed my mind", 1)
    assert list(j.revisions.values_list("old_choice", "new_choice")) == [(-1, 1)]
    first.refresh_from_db()
    assert first.judgment_count == 1


def test_the_same_answer_again_is_not_a_revision(judged, alice):
    campaign, first, _ = judged
    me = _assessor(campaign, alice)
    j = judgments.judgment_submit(assessor=me, item=first, choice=-1, comment="same, with a note", token="j3")
    assert (j.revision_count, j.comment, j.revisions.count()) == (0, "same, with a note", 0)


@pytest.mark.parametrize("revise", ["notanumber", "999999", "theirs"])
def test_only_my_own_answers_can_be_reopened(client, judged, bob, revise):
    campaign, first, _ = judged
    client.force_login(bob)  # bob judged nothing: alice's items are not his to reopen
    value = first.pk if revise == "theirs" else revise
    assert client.get(reverse("pref-judge", args=[campaign.pk]), {"revise": value}).status_code == 404


def test_a_closed_campaign_takes_no_answers_nor_revisions(judged, alice):
    campaign, first, _ = judged
    me = _assessor(campaign, alice)
    PrefCampaign.objects.filter(pk=campaign.pk).update(status=PrefCampaign.Status.CLOSED)
    me = PrefAssessor.objects.select_related("campaign").get(pk=me.pk)
    with pytest.raises(ValidationError) as error:
        judgments.judgment_submit(assessor=me, item=first, choice=1, token="late")
    assert error.value.code == "campaign_closed"


@pytest.fixture
def two_judgments(make_sbs, alice, bob, lead):
    """Seed 1: A is left on 501 and right on 502. Alice: 501 left better; bob (blocked): 502 left better."""
    campaign = make_sbs(seed=1)
    a, b = _assessor(campaign, alice), _assessor(campaign, bob)
    item = allocation.item_next(assessor=a)
    judgments.judgment_submit(assessor=a, item=item, choice=-1, strength=2, comment='=HYPERLINK("http://x")',
                              seconds=4.5, token="a")
    item = allocation.item_next(assessor=b)
    judgments.judgment_submit(assessor=b, item=item, choice=-1, comment="ok, fine", seconds=2, token="b")
    core_quality.assessor_block(assessor=b, user=lead)
    return campaign, a, b


def test_judgments_csv_has_every_judgment_with_formulas_defused(two_judgments):
    campaign, a, b = two_judgments
    rows = list(csv.DictReader(io.StringIO(judgments_export(campaign=campaign, fmt="csv"))))
    for row in rows:
        assert row.pop("created_at") and row.pop("updated_at") and row.pop("judgment_id")
    assert rows == [
        {"assessor_id": str(a.pk), "assessor": "alice", "kind": "expert", "platform": "", "blocked": "false",
         "qid": "501", "item": "1", "is_gold": "false", "left_is_a": "true", "answer": "left", "outcome": "A",
         "strength": "2", "comment": "'=HYPERLINK(\"http://x\")", "active_seconds": "4.5", "revision_count": "0"},
        {"assessor_id": str(b.pk), "assessor": "bob", "kind": "expert", "platform": "", "blocked": "true",
         "qid": "502", "item": "2", "is_gold": "false", "left_is_a": "false", "answer": "left", "outcome": "B",
         "strength": "", "comment": "ok, fine", "active_seconds": "2.0", "revision_count": "0"},
    ]


def test_judgments_jsonl_keeps_values_as_stored(two_judgments):
    campaign, _, _ = two_judgments
    rows = [json.loads(line) for line in judgments_export(campaign=campaign, fmt="jsonl").splitlines()]
    assert [(r["comment"], r["strength"], r["blocked"], r["outcome"]) for r in rows] == [
        ('=HYPERLINK("http://x")', 2, False, "A"), ("ok, fine", None, True, "B")]
    with pytest.raises(ValidationError):
        judgments_export(campaign=campaign, fmt="xlsx")


@pytest.mark.parametrize("who, fmt, status", [("lead", "csv", 200), ("lead", "jsonl", 200), ("lead", "xlsx", 404),
                                              ("alice", "csv", 403), ("mallory", "csv", 404)])
def test_judgments_download_is_for_leads(client, two_judgments, request, who, fmt, status):
    campaign, _, _ = two_judgments
    client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("pref-campaign-judgments", args=[campaign.pk, fmt]))
    assert response.status_code == status
    if status == 200:
        assert response["Content-Disposition"] == f'attachment; filename="preferences-{campaign.pk}-judgments.{fmt}"'
        assert response.content.decode().count("\n") == (3 if fmt == "csv" else 2)


def test_exported_prefs_score_a_run_as_trec_eval_would(client, collection, sbs, alice, lead, tmp_path):
    """Alice prefers D1 over D2 and D4 over D3, and finds D5 and D6 about the same.

    A run ranking D1 > D2 > … > D6 fulfils D1 > D2 and fails D4 > D3; the tie is no preference,
    so prefs_simp = 1 / 2 and 2 preferences are possible.
    """
    topic = sbs[0][0]
    campaign = doc_pair_create(collection=collection, name="pairs", assessors=(alice,), pairs=[
        (topic, "T1-D1", "T1-D2"), (topic, "T1-D3", "T1-D4"), (topic, "T1-D5", "T1-D6")])
    me = _assessor(campaign, alice)
    for n, outcome in enumerate((1, -1, 0)):
        answer(me, outcome=outcome, token=f"p{n}")
    client.force_login(lead)
    path = tmp_path / "prefs.txt"
    path.write_text(client.get(reverse("pref-campaign-export", args=[campaign.pk])).content.decode())
    prefs = read_prefs(path)
    run = run_from_dict({"501": {f"T1-D{d}": float(10 - d) for d in range(1, 7)}})
    result = evaluate_prefs(prefs, run, ["prefs_simp", "prefs_num_prefs_poss", "prefs_num_prefs_ful"])
    assert result.aggregate["prefs_simp"] == pytest.approx(0.5)
    assert (result.aggregate["prefs_num_prefs_poss"], result.aggregate["prefs_num_prefs_ful"]) == (2, 1)


def test_the_judging_page_needs_the_same_queries_however_much_was_judged(client, make_sbs, alice):
    campaign = make_sbs(judgments_per_item=1)
    me = _assessor(campaign, alice)
    client.force_login(alice)
    url = reverse("pref-judge", args=[campaign.pk])

    def queries():
        with CaptureQueriesContext(connection) as ctx:
            assert "item" in client.get(url).context
        return len(ctx.captured_queries)

    answer(me, token="q0")
    one = queries()
    answer(me, token="q1")
    answer(me, token="q2")
    assert queries() == one


def test_crowd_workers_see_their_batch_size(client, make_sbs):
    campaign = make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=3)
    entry = reverse("pref-crowd", args=[campaign.crowd_token])
    client.get(entry + "?PROLIFIC_PID=p1")
    client.post(entry, {"consent": "yes"})
    html = client.get(reverse("pref-crowd-judge", args=[campaign.crowd_token])).content.decode()
    assert 'id="pref-done">0</span> of <span id="pref-batch">3</span>' in html
