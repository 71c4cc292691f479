"""The lead's loop in headless Chromium: dashboard → low-agreement topic → conflicts → adjudicate → freeze → download."""
from __future__ import annotations

import pytest
from django.urls import NoReverseMatch, reverse

from judging.models import Adjudication, Assessor, Item, QrelsVersion
from judging.services.judgments import judgment_submit
from tests.browser.factories import make_campaign, make_pool

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# positions 1–4: topic 401 (D1-1..D1-4), 5–8: topic 402 (D2-1..D2-4)
ALICE = [0, 1, 2, 3, 0, 3, 1, 2]
BOB = [0, 1, 2, 3, 3, 0, 2, 1]
# adjudicated rule: topic 401 agrees; D2-1 adjudicated to 2; the rest majority, ties to the lowest grade
EXPECTED_QRELS = (
    "401 0 D1-1 0\n401 0 D1-2 1\n401 0 D1-3 2\n401 0 D1-4 3\n"
    "402 0 D2-1 2\n402 0 D2-2 0\n402 0 D2-3 1\n402 0 D2-4 1\n"
)


def seed_runs(collection, folder):
    """Import two runs over the pool's documents (runA ranks them in pool order, runB in reverse)."""
    from collections_app.services.imports import runs_import

    paths = []
    for tag, reverse_order in (("runA", False), ("runB", True)):
        lines = []
        for t in (1, 2):
            docs = [f"D{t}-{d}" for d in range(1, 5)]
            for rank, docno in enumerate(reversed(docs) if reverse_order else docs, start=1):
                lines.append(f"{400 + t} Q0 {docno} {rank} {10 - rank} {tag}\n")
        path = folder / f"{tag}.run"
        path.write_text("".join(lines))
        paths.append(path)
    runs_import(collection=collection, sources=paths)


def seed(collection, lead, alice, bob):
    campaign = make_campaign(collection, lead=lead, assessors=[alice, bob], overlap="replicate", judgments_per_pair=2,
                             pool=make_pool(collection, topics=2, docs_per_topic=4))
    for user, grades in ((alice, ALICE), (bob, BOB)):
        assessor = Assessor.objects.get(campaign=campaign, user=user)
        for position, grade in enumerate(grades, start=1):
            item = Item.objects.get(campaign=campaign, position=position)
            judgment_submit(assessor=assessor, item=item, grade=grade, active_seconds=12.0,
                            client_token=f"{user.username}-{position}")
    return campaign


def test_lead_follows_a_low_agreement_topic_resolves_freezes_and_downloads(page, login, live_server, collection,
                                                                            lead, alice, bob, tmp_path):
    campaign = seed(collection, lead, alice, bob)
    seed_runs(collection, tmp_path)
    dashboard = reverse("campaign-dashboard", args=[collection.slug, campaign.pk])
    login(lead, dashboard)
    page.wait_for_selector("#heatmap svg")
    # two assessors → a 2 × 2 heatmap; the off-diagonal cells hold Cohen's κ over all eight pairs
    assert page.locator("#heatmap svg rect.cell").count() == 4
    assert page.get_attribute("#heatmap rect.cell[data-row='0'][data-col='0']", "data-value") == "1.00"
    assert page.get_attribute("#heatmap rect.cell[data-row='0'][data-col='1']", "data-value") != "undefined"
    assert page.text_content("#judged").strip() == "16 / 16"

    try:
        leaderboard = reverse("evaluation-leaderboard", kwargs={"slug": collection.slug})
    except NoReverseMatch:
        leaderboard = None  # built by the evaluation app; the dashboard links to it once it exists
    if leaderboard is not None:
        assert page.get_attribute("#leaderboard-link", "href") == leaderboard
        page.click("#leaderboard-link")
        page.wait_for_load_state()
        assert page.url.endswith(leaderboard)
        board = page.locator("table").first.text_content()
        assert "runA" in board and "runB" in board
        page.goto(live_server.url + dashboard)
        page.wait_for_selector("#heatmap svg")

    # topic 402 disagrees everywhere: flagged low; topic 401 agrees perfectly
    low = page.locator("#topic-agreement tr.low")
    assert low.count() == 1 and low.get_attribute("data-qid") == "402"
    assert page.locator("#topic-agreement tr[data-qid='401'].low").count() == 0
    low.locator("a.topic-conflicts").click()
    page.wait_for_selector("#conflict-filter")
    assert "402" in page.text_content("#conflict-filter")
    cards = page.locator("section.conflict")
    assert cards.count() == 4
    assert all("Topic 402" in text for text in cards.all_text_contents())

    first = cards.first
    assert "D2-1" in first.text_content()
    first.locator("select[name=grade]").select_option("2")
    first.locator("textarea[name=note]").fill("the narrative asks for storage")
    first.locator("button[type=submit]").click()
    page.wait_for_selector("#conflict-filter")  # the filter survives the adjudication
    adjudication = Adjudication.objects.get(campaign=campaign)
    assert adjudication.grade == 2 and adjudication.item.pair.docno == "D2-1"

    page.goto(live_server.url + reverse("campaign-qrels", args=[collection.slug, campaign.pk]))
    page.select_option("select[name=rule]", "adjudicated")
    page.fill("textarea[name=description]", "after adjudicating topic 402")
    page.click("form.card button[type=submit]")
    page.wait_for_selector("text=download .txt")
    version = QrelsVersion.objects.get(collection=collection)
    with page.expect_download() as info:
        page.click("text=download .txt")
    path = info.value.path()
    with open(path, "rb") as handle:
        downloaded = handle.read()
    assert downloaded == EXPECTED_QRELS.encode()
    assert version.content == EXPECTED_QRELS and version.rule == "adjudicated"
