"""The crowd core's pure parts: identities from links, codes, completion URLs, CSV guarding, settings."""
from __future__ import annotations

import csv
import doctest
import io

import pytest

from campaign_core import crowd


def test_doctests():
    assert doctest.testmod(crowd).failed == 0


@pytest.mark.parametrize("params, mode, worker_id", [
    ({"PROLIFIC_PID": " p1 ", "STUDY_ID": "s"}, "prolific", "p1"),
    ({"workerId": "W", "assignmentId": "A", "hitId": "H"}, "mturk", "W"),
    ({"assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "workerId": ""}, "preview", ""),
    ({"PROLIFIC_PID": "x" * 500}, "prolific", "x" * 200),  # ids are capped, never stored whole
    ({"SESSION_ID": "only"}, "link", ""),
])
def test_links_identify_the_platform_and_worker(params, mode, worker_id):
    who = crowd.identify(params)
    assert (who.mode, who.worker_id) == (mode, worker_id)


def test_completion_codes_are_80_bit_base32_and_do_not_repeat():
    codes = {crowd.new_completion_code() for _ in range(2000)}
    assert len(codes) == 2000
    assert all(len(c) == 16 and set(c) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567") for c in codes)


def test_the_export_guards_every_cell_a_spreadsheet_would_run():
    rows = [{"platform": "prolific", "platform_id": "@SUM(A1)", "completion_code": "", "judged": 3,
             "gold_correct": 1, "gold_answered": 2, "gold_accuracy": 0.5, "status": "judging",
             "joined_at": "2026-01-01T00:00:00", "completed_at": None, "blocked_reason": "-bad"}]
    parsed = list(csv.DictReader(io.StringIO(crowd.rows_to_csv(rows))))
    assert parsed[0]["platform_id"] == "'@SUM(A1)" and parsed[0]["blocked_reason"] == "'-bad"
    assert parsed[0]["gold_accuracy"] == "0.5" and parsed[0]["completed_at"] == ""


def test_the_ip_fingerprint_is_stable_keyed_and_not_the_address(settings):
    settings.SECRET_KEY = "one"
    first = crowd.ip_fingerprint("192.0.2.7")
    assert first == crowd.ip_fingerprint("192.0.2.7") and "192" not in first
    settings.SECRET_KEY = "two"
    assert crowd.ip_fingerprint("192.0.2.7") != first


@pytest.mark.parametrize("hops, forwarded, expected", [
    (0, "1.1.1.1", "10.0.0.9"),  # no trusted proxy: the header is the client's claim, ignored
    (1, "6.6.6.6, 203.0.113.5", "203.0.113.5"),  # one proxy: its entry, not the forged one on the left
    (2, "6.6.6.6, 203.0.113.5, 10.0.0.2", "203.0.113.5"),
    (1, "", "10.0.0.9"),
])
def test_the_client_address_behind_trusted_proxies(settings, rf, hops, forwarded, expected):
    from campaign_core.crowd_binding import client_ip

    settings.PROXY_HOPS = hops
    request = rf.get("/", REMOTE_ADDR="10.0.0.9", HTTP_X_FORWARDED_FOR=forwarded)
    assert client_ip(request) == expected
