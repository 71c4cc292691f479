"""Many assessors claiming preference items at once, over parallel PostgreSQL connections.

Checks the lease invariant directly: while everyone holds the item they were just given, no
item has more live leases + judgments than r, and at the end each item has exactly r
judgments, none twice by one assessor. PostgreSQL only (SQLite serializes writers).
"""
from __future__ import annotations

import threading
import uuid
from collections import Counter

import pytest
from django.db import connection, connections

from preferences.models import PrefAssessor, PrefCampaign, PrefItem, PrefJudgment
from preferences.services.allocation import item_next
from preferences.services.judgments import judgment_submit
from tests.conftest import make_user

THREADS = 16
R = 2

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="needs row locks and parallel connections"),
]


def test_parallel_claims_respect_overlap_and_never_double_judge(collection, sbs):
    topics, run_a, run_b = sbs
    campaign = PrefCampaign.objects.create(collection=collection, name="race", kind="sbs", run_a=run_a,
                                           run_b=run_b, judgments_per_item=R)
    for n in range(12):
        PrefItem.objects.create(campaign=campaign, topic=topics[n % 4], position=n + 1, a_docnos=["T1-D1"],
                                b_docnos=["T1-D2"], left_is_a=bool(n % 2), required_judgments=R)
    ids = [PrefAssessor.objects.create(campaign=campaign, kind="expert", user=make_user(f"p{i}")).pk
           for i in range(THREADS)]
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []
    handed = Counter()
    lock = threading.Lock()

    def work(assessor_id):
        try:
            assessor = PrefAssessor.objects.select_related("campaign").get(pk=assessor_id)
            start.wait(timeout=60)
            for _ in range(50):
                item = item_next(assessor=assessor)
                if item is None:
                    return
                with lock:
                    handed[(item.pk, assessor_id)] += 1
                judgment_submit(assessor=assessor, item=item, choice=0, token=uuid.uuid4().hex)
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i,)) for i in ids]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert all(n == 1 for n in handed.values())
    per_item = Counter(PrefJudgment.objects.values_list("item_id", flat=True))
    assert len(per_item) == 12 and set(per_item.values()) == {R}
    assert PrefJudgment.objects.values("item_id", "assessor_id").distinct().count() == 12 * R
    assert set(PrefItem.objects.values_list("judgment_count", flat=True)) == {R}


def test_blocking_while_others_judge_keeps_counts_equal_to_usable_judgments(collection, sbs, lead):
    """A lead blocks assessors while everyone judges: no deadlock, and judgment_count = unblocked judgments ≤ r."""
    from django.core.exceptions import ValidationError
    from django.db.models import Count, Q

    from campaign_core.services.quality import assessor_block

    topics, run_a, run_b = sbs
    campaign = PrefCampaign.objects.create(collection=collection, name="race-block", kind="sbs", run_a=run_a,
                                           run_b=run_b, judgments_per_item=R)
    for n in range(24):
        PrefItem.objects.create(campaign=campaign, topic=topics[n % 4], position=n + 1, a_docnos=["T1-D1"],
                                b_docnos=["T1-D2"], left_is_a=bool(n % 2), required_judgments=R)
    ids = [PrefAssessor.objects.create(campaign=campaign, kind="expert", user=make_user(f"q{i}")).pk
           for i in range(THREADS)]
    victims = ids[::4]
    start = threading.Barrier(THREADS + 1)
    errors: list[BaseException] = []

    def work(assessor_id):
        try:
            assessor = PrefAssessor.objects.select_related("campaign").get(pk=assessor_id)
            start.wait(timeout=60)
            for _ in range(50):
                assessor.refresh_from_db(fields=["blocked"])
                item = item_next(assessor=assessor)
                if item is None:
                    return
                try:
                    judgment_submit(assessor=assessor, item=item, choice=0, token=uuid.uuid4().hex)
                except ValidationError as exc:
                    if exc.code not in ("blocked", "no_lease"):
                        raise
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connections.close_all()

    def block():
        try:
            start.wait(timeout=60)
            for assessor_id in victims:
                assessor_block(assessor=PrefAssessor.objects.get(pk=assessor_id), user=lead, reason="race")
        except BaseException as exc:  # noqa: BLE001 (reported below)
            errors.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(i,)) for i in ids] + [threading.Thread(target=block)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not errors, errors[:3]
    assert set(PrefAssessor.objects.filter(blocked=True).values_list("pk", flat=True)) == set(victims)
    rows = PrefItem.objects.filter(campaign=campaign).annotate(
        usable=Count("judgments", filter=Q(judgments__assessor__blocked=False)))
    assert all(item.judgment_count == item.usable <= R for item in rows)
