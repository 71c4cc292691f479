"""The stopping-aid page: leads only, document-derived text escaped."""
from __future__ import annotations

from django.urls import reverse

from judging.models import Assessor
from judging.services.allocation import item_next
from judging.services.judgments import judgment_submit


def url(campaign):
    return reverse("campaign-stopping", kwargs={"slug": campaign.collection.slug, "campaign_id": campaign.pk})


def test_lead_sees_the_table(client, start, lead, alice):
    campaign = start(order="mtf", assessors=[alice])
    a = Assessor.objects.get(campaign=campaign, user=alice)
    item = item_next(assessor=a)
    judgment_submit(assessor=a, item=item, grade=2, client_token="s1")
    client.force_login(lead)
    response = client.get(url(campaign))
    assert response.status_code == 200
    body = response.content.decode()
    assert "501" in body and "502" in body and "not enough data" in body


def test_assessor_gets_403(client, start, alice):
    client.force_login(alice)
    assert client.get(url(start(order="mtf"))).status_code == 403


def test_outsider_gets_404(client, start, mallory):
    client.force_login(mallory)
    assert client.get(url(start(order="mtf"))).status_code == 404


def test_anonymous_is_redirected(client, start):
    response = client.get(url(start(order="mtf")))
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_campaign_of_another_collection_is_404(client, start, lead):
    from tests.conftest import make_collection

    other = make_collection("other", lead=lead)
    campaign = start(order="mtf")
    client.force_login(lead)
    bad = reverse("campaign-stopping", kwargs={"slug": other.slug, "campaign_id": campaign.pk})
    assert client.get(bad).status_code == 404


def test_topic_id_is_escaped(client, start, lead, collection):
    from collections_app.models import Topic

    campaign = start(order="mtf")
    Topic.objects.filter(collection=collection, qid="501").update(qid="<b>x</b>")
    client.force_login(lead)
    body = client.get(url(campaign)).content.decode()
    assert "<b>x</b>" not in body and "&lt;b&gt;x&lt;/b&gt;" in body


def test_form_offers_adaptive_orders():
    from judging.forms import CampaignCreateForm

    values = [v for v, _ in CampaignCreateForm.base_fields["order"].choices]
    assert {"mtf", "mm_ns", "ucb", "thompson", "cal", "rank"} <= set(values)
