"""The crowd-integrity migrations keep existing campaigns and workers working.

Campaigns that already took anonymous link workers keep taking them, workers who finished
keep their stored code (and count as having seen it), gold companion pools learn their judged
pool, and a worker bound by the old session entry (before the signed cookie) keeps their batch.
"""
from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.urls import reverse
from django.utils import timezone

from judging.models import Assessor
from judging.services import crowd

# collections_app is pinned too: its later migrations (other features) would otherwise stay applied
# under a historical Collection model that lacks their columns.
BEFORE = [("collections_app", "0004_job_kind_simulate"), ("judging", "0004_assessor_blocked_at_gold_check_waived"),
          ("preferences", "0002_crowd_quality")]
AFTER = [("judging", "0005_i19_crowd_integrity"), ("preferences", "0003_i19_crowd_integrity")]


@pytest.mark.django_db(transaction=True)
def test_existing_campaigns_and_workers_keep_working_after_the_migration():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    old = executor.loader.project_state(BEFORE).apps
    collection = old.get_model("collections_app", "Collection").objects.create(name="Old", slug="old", scale=[])
    pools = old.get_model("collections_app", "Pool")
    pool = pools.objects.create(collection=collection, name="p", strategy="depth")
    campaigns = old.get_model("judging", "Campaign")
    with_links = campaigns.objects.create(collection=collection, pool=pool, name="links", crowd_enabled=True)
    prolific_only = campaigns.objects.create(collection=collection, pool=pool, name="prolific", crowd_enabled=True)
    pools.objects.create(collection=collection, name="p · gold · links", strategy="depth",
                         parameters={"gold_for_campaign": with_links.pk, "gold_qrels": None})
    assessors = old.get_model("judging", "Assessor")
    assessors.objects.create(campaign=with_links, kind="crowd", platform="link", worker_id="anon-1", session_key="k1")
    done_at = timezone.now()
    assessors.objects.create(campaign=prolific_only, kind="crowd", platform="prolific", worker_id="p1",
                             session_key="k2", completed_at=done_at, completion_code="OLDCODE")
    pref_campaigns = old.get_model("preferences", "PrefCampaign")
    pref = pref_campaigns.objects.create(collection=collection, name="sbs", kind="sbs", crowd_enabled=True)
    old.get_model("preferences", "PrefAssessor").objects.create(campaign=pref, kind="crowd", platform="link",
                                                                session_key="k3")

    executor.loader.build_graph()
    executor.migrate(AFTER)
    new = executor.loader.project_state(AFTER).apps
    judging_campaigns = new.get_model("judging", "Campaign").objects
    assert judging_campaigns.get(name="links").crowd_anonymous_allowed
    assert not judging_campaigns.get(name="prolific").crowd_anonymous_allowed
    assert judging_campaigns.get(name="links").crowd_max_new_per_ip_hour == 5
    assert new.get_model("preferences", "PrefCampaign").objects.get(name="sbs").crowd_anonymous_allowed
    finished = new.get_model("judging", "Assessor").objects.get(worker_id="p1")
    assert finished.completion_code == "OLDCODE" and finished.completion_code_shown_at == done_at
    companion = new.get_model("collections_app", "Pool").objects.get(name="p · gold · links")
    assert companion.parameters["gold_for_pool"] == pool.pk

    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


def test_a_worker_bound_by_the_old_session_entry_keeps_their_batch(client, make_campaign):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_batch_size=3)
    worker = Assessor.objects.create(campaign=campaign, kind="crowd", platform="prolific", worker_id="p-old",
                                     consented_at=timezone.now())
    session = client.session
    session[crowd.legacy_session_name(campaign)] = worker.session_key
    session.save()
    state = client.get(reverse("crowd-state", args=[campaign.crowd_token]))
    assert state.status_code == 200 and state.json()["current"] is not None
    entry = client.get(reverse("crowd-entry", args=[campaign.crowd_token]), {"PROLIFIC_PID": "p-old"})
    assert entry["Location"] == reverse("crowd-judge", args=[campaign.crowd_token])
