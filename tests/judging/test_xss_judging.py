"""Document and topic text is untrusted: it reaches the page only as escaped JSON, shown as text."""
from __future__ import annotations

import pytest
from django.urls import reverse

from collections_app.models import Document, Topic
from tests.browser.factories import SCRIPT_DOC, make_campaign
from tests.conftest import PASSWORD


@pytest.fixture
def campaign(collection, lead, alice):
    campaign = make_campaign(collection, lead=lead, assessors=[alice])
    Document.objects.filter(collection=collection).update(text=SCRIPT_DOC, title="<b>bold</b></script>")
    Topic.objects.filter(collection=collection).update(narrative="</script><script>alert(1)</script>")
    return campaign


def test_script_in_a_document_is_never_markup_on_the_judging_page(client, campaign, alice):
    client.login(username=alice.username, password=PASSWORD)
    body = client.get(reverse("judge", args=[campaign.pk])).content.decode()
    assert "<script>window.__pwned" not in body
    assert "</script><script>alert(1)" not in body
    assert "<b>bold</b>" not in body
    assert "\\u003Cscript\\u003Ewindow.__pwned" in body  # json_script escapes <, > and &


def test_state_json_carries_the_text_verbatim_for_textcontent(client, campaign, alice):
    client.login(username=alice.username, password=PASSWORD)
    state = client.get(reverse("judge-state", args=[campaign.pk])).json()
    assert state["current"]["doc"]["text"] == SCRIPT_DOC


def test_judging_script_never_uses_innerhtml():
    from pathlib import Path

    source = (Path(__file__).resolve().parents[2] / "static" / "judging" / "judge.js").read_text()
    assert "innerHTML" not in source
    assert "insertAdjacentHTML" not in source and "outerHTML" not in source
