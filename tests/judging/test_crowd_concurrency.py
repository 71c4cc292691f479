"""Twenty workers joining at once never exceed the campaign's worker cap (PostgreSQL: real row locks).

The cap is "count, then create" under the campaign's row lock; without the lock, parallel joins
would all count the same number and all get in.
"""
from __future__ import annotations

import threading

import pytest
from django.core.exceptions import ValidationError
from django.db import connection, connections

from judging.models import Assessor, Campaign
from judging.services.crowd import crowd_join

THREADS = 20

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql",
                       reason="needs real row locks and parallel connections (PostgreSQL); SQLite serializes writers"),
]


def _join_at_once(campaign, ips):
    """Join one Prolific worker per address in ``ips``, all at once; return (joined ids, refusal codes)."""
    start = threading.Barrier(len(ips))
    joined, refused, errors = [], [], []
    lock = threading.Lock()

    def join(n: int) -> None:
        try:
            mine = Campaign.objects.get(pk=campaign.pk)
            start.wait(timeout=60)
            try:
                worker = crowd_join(campaign=mine, params={"PROLIFIC_PID": f"p{n}"}, ip=ips[n])
            except ValidationError as error:
                with lock:
                    refused.append(error.code)
            else:
                with lock:
                    joined.append(worker.pk)
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=join, args=(n,)) for n in range(len(ips))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors, errors
    return joined, refused


def test_twenty_joins_at_once_never_pass_the_worker_cap(make_campaign):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_max_workers=7, crowd_max_new_per_ip_hour=0)
    joined, refused = _join_at_once(campaign, [f"10.0.{n}.1" for n in range(THREADS)])
    assert len(joined) == 7 and refused == ["campaign_full"] * (THREADS - 7)
    assert Assessor.objects.filter(campaign=campaign, kind="crowd").count() == 7


def test_twenty_joins_at_once_from_one_address_never_pass_its_hourly_cap(make_campaign):
    campaign = make_campaign(assessors=[], crowd_enabled=True, crowd_max_new_per_ip_hour=5)
    joined, refused = _join_at_once(campaign, ["10.9.9.9"] * THREADS)
    assert len(joined) == 5 and refused == ["too_many_from_address"] * (THREADS - 5)
