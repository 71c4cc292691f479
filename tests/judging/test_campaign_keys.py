"""Campaign keys and guidelines: clash detection, the lead's page, sanitised Markdown."""
from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from campaign_core.guidelines import render_markdown
from campaign_core.keys import keys_problems, labels_with_keys
from collections_app import scales
from collections_app.models import Topic
from judging.services.guidelines import campaign_set_keys_and_guidelines
from tests.browser.factories import make_campaign, make_pool

GRADED, _ = scales.preset(scales.GRADED)


def test_default_keys_come_from_the_scale_and_fall_back_to_the_grade_number():
    assert [label["key"] for label in labels_with_keys(GRADED)] == ["0", "1", "2", "3"]
    keyless = [{"grade": 0, "name": "No"}, {"grade": 1, "name": "Yes", "key": "y"}, {"grade": 10, "name": "Ten"}]
    assert [label["key"] for label in labels_with_keys(keyless)] == ["0", "y", ""]
    assert [label["key"] for label in labels_with_keys(GRADED, {"2": "n"})] == ["0", "1", "n", "3"]


@pytest.mark.parametrize(("keys", "needle"), [
    ({"1": "0"}, "given to both"),
    ({"1": "A", "2": "a"}, "given to both"),
    ({"2": "s"}, "can't judge"),
    ({"3": "?"}, "help"),
    ({"1": "j"}, "return to current"),
    ({"1": "ab"}, "exactly one character"),
    ({"7": "x"}, "not on this collection's scale"),
])
def test_clashing_or_malformed_keys_are_named(keys, needle):
    problems = keys_problems(GRADED, keys)
    assert problems and any(needle in p for p in problems), problems


def test_keys_that_do_not_clash_pass():
    assert keys_problems(GRADED, {"0": "a", "1": "b", "2": "n", "3": "m"}) == []
    assert keys_problems(GRADED, {}) == []


def test_markdown_is_formatted_and_never_passes_html_or_script_links():
    html = str(render_markdown(
        "## Rules\n\n* **relevant** if on topic\n* [doc](https://example.org) [x](javascript:alert(1))\n\n"
        "<script>alert(1)</script><img src=x onerror=alert(2)>\n\n<a href='javascript:alert(3)'>y</a>"
    ))
    assert "<h2>Rules</h2>" in html and "<strong>relevant</strong>" in html
    assert '<a href="https://example.org" rel="noopener noreferrer nofollow">doc</a>' in html
    assert "<script" not in html and "<img" not in html
    assert 'href="javascript' not in html and "<a href='" not in html  # raw HTML links stay text
    assert "&lt;script&gt;" in html
    assert str(render_markdown("  ")) == ""


@pytest.mark.django_db
def test_service_refuses_a_clash_and_changes_nothing(collection, lead, alice):
    campaign = make_campaign(collection, lead=lead, assessors=[alice], pool=make_pool(collection, topics=1))
    with pytest.raises(ValidationError) as error:
        campaign_set_keys_and_guidelines(campaign=campaign, keys={"1": "2"}, guidelines="new")
    assert error.value.code == "key_clash"
    campaign.refresh_from_db()
    assert campaign.keys == {} and campaign.guidelines == ""


@pytest.mark.django_db
def test_lead_sets_keys_and_guidelines_on_the_page_and_assessors_may_not(client, collection, lead, alice):
    campaign = make_campaign(collection, lead=lead, assessors=[alice], pool=make_pool(collection, topics=2))
    url = reverse("campaign-settings", args=[collection.slug, campaign.pk])
    topic = Topic.objects.get(collection=collection, qid="401")
    client.force_login(alice)
    assert client.get(url).status_code == 403
    assert client.post(url, {"key_0": "a"}).status_code == 403
    client.force_login(lead)
    assert client.get(url).status_code == 200
    clash = {"key_0": "a", "key_1": "a", "key_2": "2", "key_3": "3", "guidelines": "x"}
    response = client.post(url, clash)
    assert response.status_code == 200 and "given to both" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.keys == {}
    good = {"key_0": "a", "key_1": "b", "key_2": "2", "key_3": "3", "guidelines": "**Be strict.**",
            f"topic_{topic.pk}": "Only *batteries*."}
    assert client.post(url, good).status_code == 302
    campaign.refresh_from_db()
    topic.refresh_from_db()
    assert campaign.keys == {"0": "a", "1": "b"} and campaign.guidelines == "**Be strict.**"
    assert topic.guidelines == "Only *batteries*."
    client.force_login(alice)
    page = client.get(reverse("judge", args=[campaign.pk])).content.decode()
    assert 'data-key="a"' in page and "<strong>Be strict.</strong>" in page and "<em>batteries</em>" in page


@pytest.mark.django_db
@pytest.mark.parametrize("blank", [True, False])
def test_a_campaign_on_a_pool_without_document_text_warns_the_lead(client, collection, lead, alice, blank):
    from collections_app.models import Document

    pool = make_pool(collection, topics=1, docs_per_topic=3)
    if blank:
        Document.objects.filter(collection=collection).update(text="  \n")
    client.force_login(lead)
    response = client.post(reverse("campaign-new", args=[collection.slug]), {
        "name": "round", "pool": pool.pk, "assessors": [alice.pk], "split": "shared_queue", "overlap": "none",
        "judgments_per_pair": 1, "overlap_fraction": 0, "calibration_size": 0, "order": "pool", "seed": 0,
        "lease_seconds": 300, "gold_rate": 0, "gold_accuracy_threshold": 0, "crowd_batch_size": 10,
    }, follow=True)
    body = response.content.decode()
    assert ("3 of the pool&#x27;s pairs have no document text" in body) == blank
