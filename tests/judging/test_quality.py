"""Crowd quality in relevance campaigns: usable judgment counts, the gold stop and its waiver, a lead's block/unblock."""
from __future__ import annotations

import json
import threading
import uuid

import pytest
from django.contrib.admin.models import LogEntry
from django.core.exceptions import ValidationError
from django.db import connection, connections
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from campaign_core.services.quality import assessor_block, assessor_unblock, quality_log
from collections_app.models import Membership
from judging.dashboard.choices import choice
from judging.dashboard.selectors import campaign_dashboard
from judging.models import Assessor, Item, Judgment, Lease
from judging.selectors import campaign_progress
from judging.services.allocation import item_next
from judging.services.judgments import judgment_submit
from judging.services.rejudge import rejudge_request
from tests.conftest import make_user
from tests.judging.conftest import build_gold, build_pool, expert

pytestmark = pytest.mark.django_db


def judge(assessor, n: int, grade=lambda item: 1) -> list[Item]:
    """Let the assessor take and judge up to n items through allocation; return them in order."""
    judged = []
    for _ in range(n):
        item = item_next(assessor=assessor)
        if item is None:
            break
        judgment_submit(assessor=assessor, item=item, grade=grade(item), client_token=uuid.uuid4().hex)
        judged.append(item)
        assessor.refresh_from_db(fields=["blocked", "gold_check_waived"])
    return judged


def counts(items) -> list[int]:
    return list(Item.objects.filter(pk__in=[i.pk for i in items]).order_by("position")
                .values_list("judgment_count", flat=True))


def block_url(campaign, assessor) -> str:
    return reverse("campaign-assessor-block", args=[campaign.collection.slug, campaign.pk, assessor.pk])


def api_url(campaign, assessor) -> str:
    return reverse("api-campaign-assessor-block", args=[campaign.pk, assessor.pk])


@pytest.fixture
def gold_campaign(collection, make_campaign):
    """A crowd campaign, each pair judged once; every second item is gold (four pairs labelled 0)."""
    gold = build_gold(collection, [("401", "T1-D5", 0), ("402", "T2-D5", 0), ("403", "T3-D5", 0), ("404", "T4-D5", 0)])
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=8, gold_qrels=gold, gold_rate=0.5,
                             gold_accuracy_threshold=0.5)
    campaign.gold_min_answers = 1
    campaign.save(update_fields=["gold_min_answers"])
    return campaign


# --- automatic stop: recount and re-offer ---------------------------------------------------------

def test_an_auto_blocked_workers_items_are_offered_to_another_worker(gold_campaign, worker):
    bad = worker(gold_campaign, "bad")
    judged = judge(bad, 8, grade=lambda item: 3)  # "relevant" to a gold pair labelled 0: 0/1 on the first gold
    bad.refresh_from_db()
    assert bad.blocked and bad.blocked_at is not None and "gold accuracy 0/1" in bad.blocked_reason
    regular = [i for i in judged if not i.is_gold]
    assert len(regular) == 1 and counts(regular) == [0]  # the regular item they judged is free again
    assert Judgment.objects.filter(assessor=bad).count() == 2  # kept for audit
    good = worker(gold_campaign, "good")
    assert item_next(assessor=good) == regular[0]  # the first open item is the one the blocked worker judged


def test_the_gold_item_count_is_left_alone_by_a_block(gold_campaign, worker):
    bad = worker(gold_campaign, "bad")
    gold = [i for i in judge(bad, 8, grade=lambda item: 3) if i.is_gold]
    assert counts(gold) == [1]  # everyone answers gold; its count decides nothing


def test_a_lead_unblock_counts_the_judgments_again_and_waives_the_gold_check(gold_campaign, worker, lead):
    bad = worker(gold_campaign, "bad")
    judged = judge(bad, 8, grade=lambda item: 3)
    assert assessor_unblock(assessor=bad, user=lead) is True
    bad.refresh_from_db()
    assert not bad.blocked and bad.gold_check_waived and bad.blocked_at is None and bad.blocked_reason == ""
    assert counts([i for i in judged if not i.is_gold]) == [1]
    more = judge(bad, 8, grade=lambda item: 3)  # every further gold answer is wrong too
    bad.refresh_from_db()
    assert sum(i.is_gold for i in more) >= 2 and not bad.blocked  # the lead's decision stands
    assert assessor_unblock(assessor=bad, user=lead) is False  # not blocked: nothing to do


def test_a_blocked_assessor_can_neither_revise_nor_bump_a_count_but_a_retry_is_answered(campaign, alice, lead):
    a = expert(campaign, alice)
    item = item_next(assessor=a)
    first = judgment_submit(assessor=a, item=item, grade=1, client_token="first")
    assessor_block(assessor=a, user=lead)
    assert counts([item]) == [0]
    stale = expert(campaign, alice)
    stale.blocked = False  # an object read before the block: the service re-reads it under lock
    with pytest.raises(ValidationError) as error:
        judgment_submit(assessor=stale, item=item, grade=2, client_token="revise")
    assert error.value.code == "blocked"
    assert judgment_submit(assessor=stale, item=item, grade=1, client_token="first") == first
    first.refresh_from_db()
    assert first.grade == 1 and counts([item]) == [0]


# --- a lead's block -----------------------------------------------------------------------------

def test_a_lead_block_drops_leases_recounts_and_is_audited(client, campaign, alice, bob, lead):
    a, b = expert(campaign, alice), expert(campaign, bob)
    done = judge(a, 3)
    leased = item_next(assessor=a)
    assert Lease.objects.filter(assessor=a).count() == 1
    client.force_login(lead)
    response = client.post(block_url(campaign, a), {"action": "block", "reason": "  random  clicks "})
    assert response.status_code == 302
    assert response["Location"].endswith(reverse("campaign-dashboard", args=[campaign.collection.slug, campaign.pk])
                                         + "#assessors")
    a.refresh_from_db()
    assert a.blocked and a.blocked_reason == "blocked by lead: random clicks" and a.blocked_at is not None
    assert not Lease.objects.filter(assessor=a).exists() and counts(done) == [0, 0, 0]
    entry = LogEntry.objects.get()
    assert entry.user == lead and entry.object_id == str(campaign.pk)
    assert json.loads(entry.change_message) == {"kind": "block", "assessor": a.pk, "name": "alice",
                                                "reason": "random clicks"}
    assert item_next(assessor=b) == done[0]  # bob is offered alice's first pair, not the one she held
    assert leased not in done and item_next(assessor=a) is None
    assert client.post(block_url(campaign, a), {"action": "block"}).status_code == 302  # already blocked
    assert LogEntry.objects.count() == 1


def test_a_lead_unblock_counts_again_and_is_audited(client, campaign, alice, bob, lead):
    a, b = expert(campaign, alice), expert(campaign, bob)
    done = judge(a, 2)
    assessor_block(assessor=a, user=lead, reason="check")
    judge(b, 1)  # bob takes alice's first pair
    client.force_login(lead)
    assert client.post(block_url(campaign, a), {"action": "unblock"}).status_code == 302
    a.refresh_from_db()
    assert not a.blocked and a.gold_check_waived
    assert counts(done) == [2, 1]  # the first pair now holds more than required: both count
    rejudge_request(campaign=campaign, user=lead, token="r1", topic="401")  # shares the campaign's log
    log = quality_log(campaign=campaign)
    assert [(row["kind"], row["reason"]) for row in log] == [("unblock", "blocked by lead: check"), ("block", "check")]
    assert item_next(assessor=b).position == 3  # alice's second pair is taken again


def test_an_unknown_action_changes_nothing(client, campaign, alice, lead):
    client.force_login(lead)
    assert client.post(block_url(campaign, expert(campaign, alice)), {"action": "delete"}).status_code == 400
    assert not expert(campaign, alice).blocked and not LogEntry.objects.exists()


def test_blocking_a_primary_assessor_frees_their_topics(make_campaign, alice, bob, lead):
    campaign = make_campaign(split="by_topic")
    a, b = expert(campaign, alice), expert(campaign, bob)
    Item.objects.filter(campaign=campaign, primary_assessor=b).update(required_judgments=0)  # bob's own topics done
    assert item_next(assessor=b) is None  # alice's pairs wait for alice
    assessor_block(assessor=a, user=lead)
    item = item_next(assessor=b)
    assert item is not None and item.primary_assessor_id == a.pk


def test_calibration_items_still_go_to_everyone_after_a_block(make_campaign, alice, bob, lead, collection):
    carol = make_user("carol")
    Membership.objects.create(collection=collection, user=carol, role=Membership.Role.ASSESSOR)
    campaign = make_campaign(assessors=[alice, bob, carol], overlap="calibration", calibration_size=2)
    calibration = list(Item.objects.filter(campaign=campaign, is_calibration=True).order_by("position"))
    judge(expert(campaign, alice), 2)
    judge(expert(campaign, bob), 2)
    assert counts(calibration) == [2, 2]
    assessor_block(assessor=expert(campaign, alice), user=lead)
    assert counts(calibration) == [1, 1]  # only usable labels count
    assert judge(expert(campaign, bob), 1)[0] not in calibration  # bob judged them: never again
    assert judge(expert(campaign, carol), 2) == calibration  # carol still gets them first


# --- permissions: page and API ----------------------------------------------------------------

def test_the_page_refuses_everyone_but_a_lead_and_get(client, campaign, alice, mallory, lead):
    a = expert(campaign, alice)
    target = block_url(campaign, a)
    response = client.post(target, {"action": "block"})
    assert response.status_code == 302 and "/login" in response["Location"]
    client.force_login(alice)
    assert client.post(target, {"action": "block"}).status_code == 403
    client.force_login(mallory)
    assert client.post(target, {"action": "block"}).status_code == 404
    client.force_login(lead)
    assert client.get(target).status_code == 405
    missing = reverse("campaign-assessor-block", args=[campaign.collection.slug, campaign.pk, 999999])
    assert client.post(missing, {"action": "block"}).status_code == 404
    a.refresh_from_db()
    assert not a.blocked and not LogEntry.objects.exists()


def test_the_page_404s_an_assessor_of_another_campaign(client, make_campaign, alice, lead):
    one, other = make_campaign(), make_campaign()
    client.force_login(lead)
    assert client.post(block_url(one, expert(other, alice)), {"action": "block"}).status_code == 404
    assert not Assessor.objects.filter(blocked=True).exists()


def test_the_page_needs_the_csrf_token(campaign, alice, lead):
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(lead)
    assert strict.post(block_url(campaign, expert(campaign, alice)), {"action": "block"}).status_code == 403
    assert not expert(campaign, alice).blocked


def test_the_api_blocks_and_unblocks_for_a_lead_only(campaign, alice, bob, mallory, lead):
    a = expert(campaign, alice)
    done = judge(a, 2)
    target = api_url(campaign, a)
    api = APIClient()
    assert api.post(target, {"action": "block"}, format="json").json()["code"] == "not_authenticated"
    api.force_authenticate(bob)
    assert api.post(target, {"action": "block"}, format="json").status_code == 403
    api.force_authenticate(mallory)
    assert api.post(target, {"action": "block"}, format="json").status_code == 404
    assert not expert(campaign, alice).blocked and counts(done) == [1, 1]
    api.force_authenticate(lead)
    assert api.post(target, {"action": "pause"}, format="json").status_code == 400
    assert api.post(api_url(campaign, a).replace(f"/{a.pk}/", "/999999/"), {"action": "block"},
                    format="json").status_code == 404
    blocked = api.post(target, {"action": "block", "reason": "bot"}, format="json")
    body = blocked.json()
    assert blocked.status_code == 200 and body["blocked"] and body["changed"] and body["name"] == "alice"
    assert body["blocked_reason"] == "blocked by lead: bot" and body["blocked_at"] and counts(done) == [0, 0]
    assert api.post(target, {"action": "block"}, format="json").json()["changed"] is False
    unblocked = api.post(target, {"action": "unblock"}, format="json").json()
    assert unblocked["blocked"] is False and unblocked["gold_check_waived"] is True and counts(done) == [1, 1]
    assert [json.loads(e.change_message)["kind"] for e in LogEntry.objects.order_by("pk")] == ["block", "unblock"]


# --- the dashboard ----------------------------------------------------------------------------

def test_the_dashboard_progress_leaves_out_a_blocked_assessors_work(client, campaign, alice, bob, lead):
    judge(expert(campaign, alice), 4)
    judge(expert(campaign, bob), 2)
    stat = choice("percent")
    assert campaign_dashboard(campaign=campaign, stat=stat)["progress"]["judged"] == 6
    assessor_block(assessor=expert(campaign, alice), user=lead, reason="<script>alert(1)</script>")
    assert campaign_dashboard(campaign=campaign, stat=stat)["progress"]["judged"] == 2
    assert campaign_progress(campaign=campaign)["judged"] == 2
    client.force_login(lead)
    html = client.get(reverse("campaign-dashboard", args=[campaign.collection.slug, campaign.pk])).content.decode()
    assert "2 / 20" in html
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert 'id="quality-log"' in html
    html = client.get(reverse("campaign-assessors", args=[campaign.collection.slug, campaign.pk])).content.decode()
    rows = html[html.index('id="assessors"'):html.index("</table>")]
    assert 'value="unblock"' in rows and 'value="block"' in rows and "csrfmiddlewaretoken" in rows
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assessor_unblock(assessor=expert(campaign, alice), user=lead)
    assert campaign_dashboard(campaign=campaign, stat=stat)["progress"]["judged"] == 6


# --- concurrency (PostgreSQL) -------------------------------------------------------------------

@pytest.mark.django_db(transaction=True)
@pytest.mark.skipif(connection.vendor != "postgresql",
                    reason="needs real row locks and parallel connections (PostgreSQL); SQLite serializes writers")
def test_blocks_during_judging_keep_the_counts_exact_and_never_deadlock(collection, lead):
    from judging.plan import CampaignPlan
    from judging.services.campaigns import campaign_create

    users = [make_user(f"racer{i}") for i in range(8)]
    Membership.objects.bulk_create(Membership(collection=collection, user=u, role=Membership.Role.ASSESSOR)
                                   for u in users)
    campaign = campaign_create(collection=collection, pool=build_pool(collection, topics=4, docs=6), name="race",
                               created_by=lead, assessors=users,
                               plan=CampaignPlan.of(overlap="replicate", judgments_per_pair=2))
    ids = list(Assessor.objects.filter(campaign=campaign).order_by("pk").values_list("pk", flat=True))
    start = threading.Barrier(len(ids) + 1)
    errors: list[BaseException] = []

    def work(assessor_id: int) -> None:
        try:
            assessor = Assessor.objects.select_related("campaign__collection").get(pk=assessor_id)
            start.wait(timeout=60)
            for _ in range(100):
                item = item_next(assessor=assessor)
                if item is None:
                    return
                try:
                    judgment_submit(assessor=assessor, item=item, grade=1, client_token=uuid.uuid4().hex)
                except ValidationError as error:
                    if error.code != "blocked":
                        raise
                    return
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    def lead_acts() -> None:
        try:
            start.wait(timeout=60)
            for pk in ids[:3]:
                assessor_block(assessor=Assessor.objects.get(pk=pk), user=lead, reason="race")
            assessor_unblock(assessor=Assessor.objects.get(pk=ids[2]), user=lead)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(pk,)) for pk in ids] + [threading.Thread(target=lead_acts)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    assert errors == []
    blocked = set(Assessor.objects.filter(campaign=campaign, blocked=True).values_list("pk", flat=True))
    assert blocked == set(ids[:2]) and not Lease.objects.filter(assessor_id__in=blocked).exists()
    for item in Item.objects.filter(campaign=campaign):
        usable = Judgment.objects.filter(item=item).exclude(assessor_id__in=blocked).count()
        assert item.judgment_count == usable
    for pk in ids[2:]:  # whoever stopped early finishes now: every pair gets its usable judgments
        judge(Assessor.objects.select_related("campaign__collection").get(pk=pk), 100)
    assert all(n >= 2 for n in Item.objects.filter(campaign=campaign).values_list("judgment_count", flat=True))
