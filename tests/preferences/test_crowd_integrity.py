"""Crowd integrity in preference campaigns: the same rules as relevance campaigns, through the same core."""
from __future__ import annotations

import csv
import io

import pytest
from django.test import Client
from django.urls import reverse

from campaign_core.services.audit import audit_entries, audit_messages
from preferences.models import PrefAssessor, PrefJudgment
from preferences.services import crowd

pytestmark = pytest.mark.django_db


def _entry(campaign):
    return reverse("pref-crowd", args=[campaign.crowd_token])


def _judge(campaign):
    return reverse("pref-crowd-judge", args=[campaign.crowd_token])


def _start(client, campaign, pid="victim", ip="10.0.0.1", **extra):
    response = client.get(_entry(campaign), {"PROLIFIC_PID": pid, "STUDY_ID": "study-1", **extra}, REMOTE_ADDR=ip)
    if response.status_code == 200:
        client.post(_entry(campaign), {"consent": "yes"})
    return response


def _refusals(campaign):
    return [d["code"] for _, d in audit_messages(audit_entries(campaign=campaign, kinds=["crowd_refused"]), ["crowd_refused"])]


@pytest.fixture
def campaign(make_sbs):
    return make_sbs(assessors=(), crowd_enabled=True, crowd_batch_size=2, crowd_study_id="study-1")


def test_a_second_browser_with_someone_elses_id_is_refused_and_sees_nothing_of_theirs(campaign):
    victim = Client()
    _start(victim, campaign)
    item = victim.get(_judge(campaign)).context["item"]
    victim.post(_judge(campaign), {"item": item.pk, "choice": "-1", "token": "v1"})
    intruder = Client()
    refused = intruder.get(_entry(campaign), {"PROLIFIC_PID": "victim", "STUDY_ID": "study-1"})
    assert refused.status_code == 403 and 'data-code="bound_elsewhere"' in refused.content.decode()
    assert intruder.get(_judge(campaign)).status_code == 404
    assert intruder.get(_judge(campaign) + f"?revise={item.pk}").status_code == 404  # no history either
    assert intruder.post(_judge(campaign), {"item": item.pk, "choice": "1", "token": "i1"}).status_code == 404
    assert list(PrefJudgment.objects.values_list("choice", flat=True)) == [-1]
    assert _refusals(campaign) == ["bound_elsewhere"]


def test_the_resume_link_on_the_consent_page_moves_the_worker_to_another_browser(campaign):
    first = Client()
    page = first.get(_entry(campaign), {"PROLIFIC_PID": "p1", "STUDY_ID": "study-1"}).content.decode()
    worker = PrefAssessor.objects.get(worker_id="p1")
    resume = reverse("pref-crowd-resume", args=[campaign.crowd_token, worker.session_key])
    assert resume in page
    first.post(_entry(campaign), {"consent": "yes"})
    other = Client()
    assert other.get(resume)["Location"] == _judge(campaign)
    assert other.get(_judge(campaign)).status_code == 200
    assert Client().get(reverse("pref-crowd-resume", args=[campaign.crowd_token, "guess"])).status_code == 403


def test_wrong_study_and_anonymous_links_are_refused(campaign):
    wrong = Client().get(_entry(campaign), {"PROLIFIC_PID": "p", "STUDY_ID": "other"})
    anonymous = Client().get(_entry(campaign))
    assert wrong.status_code == anonymous.status_code == 403
    assert not PrefAssessor.objects.exists()
    assert sorted(_refusals(campaign)) == ["anonymous_off", "wrong_study"]


def test_a_flood_of_made_up_ids_is_capped(campaign):
    statuses = [_start(Client(), campaign, pid=f"fake-{n}").status_code for n in range(8)]
    assert statuses == [200] * 5 + [403] * 3 and PrefAssessor.objects.count() == 5


def test_codes_are_per_worker_shown_once_valid_only_for_their_worker_and_exported(client, campaign, lead, alice):
    codes = {}
    for pid in ("w1", "w2"):
        worker = Client()
        _start(worker, campaign, pid=pid)
        for n in range(2):
            item = worker.get(_judge(campaign)).context["item"]
            worker.post(_judge(campaign), {"item": item.pk, "choice": "0", "token": f"{pid}{n}"})
        page = worker.get(_judge(campaign), follow=True).content.decode()
        codes[pid] = PrefAssessor.objects.get(worker_id=pid).completion_code
        assert f'id="completion-code">{codes[pid]}<' in page
        again = worker.get(reverse("pref-crowd-complete", args=[campaign.crowd_token])).content.decode()
        assert codes[pid] not in again and 'id="code-already-shown"' in again
    assert codes["w1"] != codes["w2"]
    assert crowd.crowd_code_check(campaign=campaign, worker_id="w1", code=codes["w1"])
    assert not crowd.crowd_code_check(campaign=campaign, worker_id="w2", code=codes["w1"])
    url = reverse("pref-crowd-workers", args=[campaign.pk])
    client.force_login(alice)
    assert client.get(url).status_code in (403, 404)
    client.force_login(lead)
    rows = list(csv.DictReader(io.StringIO(client.get(url).content.decode())))
    assert [(r["platform_id"], r["completion_code"], r["judged"], r["status"]) for r in rows] == [
        ("w1", codes["w1"], "2", "completed"), ("w2", codes["w2"], "2", "completed")]


def test_the_lead_changes_crowd_settings_of_a_preference_campaign(client, campaign, lead):
    client.force_login(lead)
    response = client.post(reverse("pref-crowd-settings", args=[campaign.pk]), {
        "crowd_study_id": "", "crowd_hit_id": "H", "crowd_max_workers": "3", "crowd_max_new_per_ip_hour": "0"})
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.crowd_study_id, campaign.crowd_hit_id, campaign.crowd_max_workers,
            campaign.crowd_max_new_per_ip_hour, campaign.crowd_anonymous_allowed) == ("", "H", 3, 0, False)


def test_the_lead_sees_refused_entries_on_the_results_page(client, campaign, lead):
    Client().get(_entry(campaign), {"PROLIFIC_PID": "p", "STUDY_ID": "other"})
    client.force_login(lead)
    page = client.get(reverse("pref-campaign-results", args=[campaign.pk])).content.decode()
    assert 'id="crowd-refusals"' in page and "wrong_study" in page
