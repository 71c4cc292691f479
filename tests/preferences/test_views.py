"""Pages and API: permissions, escaping and highlighting, judging through the page, export."""
from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from collections_app.models import Document, Topic
from collections_app.query_terms import query_terms
from metrics import prefs
from preferences.highlight import highlight
from preferences.models import PrefAssessor, PrefJudgment
from preferences.services import allocation, judgments
from preferences.services.campaigns import doc_pair_create
from preferences.services.export import prefs_lines

pytestmark = pytest.mark.django_db


@pytest.fixture
def carol(db, collection):
    """A member of the collection who is not an assessor of the campaign."""
    from collections_app.models import Membership

    user = get_user_model().objects.create_user("carol", password="pw")
    Membership.objects.create(collection=collection, user=user, role=Membership.Role.ASSESSOR)
    return user


def _get(client, user, url):
    if user is not None:
        client.force_login(user)
    return client.get(url)


@pytest.mark.parametrize("who, status", [("lead", 200), ("alice", 403), ("mallory", 404), (None, 302)])
def test_lead_pages_permissions(client, make_sbs, who, status, request, collection):
    campaign = make_sbs()
    user = request.getfixturevalue(who) if who else None
    for url in (reverse("pref-campaign-results", args=[campaign.pk]), reverse("pref-campaign-list", args=["demo"]),
                reverse("pref-campaign-new", args=["demo"])):
        assert _get(client, user, url).status_code == status, url


@pytest.mark.parametrize("who, status", [("lead", 200), ("alice", 403), ("mallory", 404), (None, 403)])
def test_results_api_permissions(client, make_sbs, who, status, request):
    campaign = make_sbs()
    user = request.getfixturevalue(who) if who else None
    response = _get(client, user, reverse("api-pref-results", args=[campaign.pk]))
    assert response.status_code in ((401, 403) if who is None else (status,))


@pytest.mark.parametrize("who, status", [("alice", 200), ("carol", 403), ("mallory", 404), ("lead", 403)])
def test_judge_page_permissions(client, make_sbs, who, status, request):
    campaign = make_sbs()
    user = request.getfixturevalue(who)
    assert _get(client, user, reverse("pref-judge", args=[campaign.pk])).status_code == status


def test_judge_page_anonymous_redirected(client, make_sbs):
    campaign = make_sbs()
    response = client.get(reverse("pref-judge", args=[campaign.pk]))
    assert response.status_code == 302 and "login" in response["Location"]


def test_judging_through_the_page_stores_the_system_outcome(client, make_sbs, alice):
    campaign = make_sbs()
    client.force_login(alice)
    url = reverse("pref-judge", args=[campaign.pk])
    page = client.get(url)
    item = page.context["item"]
    response = client.post(url, {"item": item.pk, "choice": "-1", "token": "p1", "seconds": "4.5", "strength": "2"})
    assert response.status_code == 302
    j = PrefJudgment.objects.get()
    assert (j.choice, j.outcome, j.strength, j.active_seconds) == (-1, 1 if item.left_is_a else -1, 2, 4.5)
    left_docnos = [d["docno"] for d in page.context["left"]]
    assert left_docnos == (item.a_docnos if item.left_is_a else item.b_docnos)


def test_page_post_on_an_item_of_another_campaign_is_404(client, make_sbs, alice):
    one, two = make_sbs(name="one"), make_sbs(name="two")
    client.force_login(alice)
    other = two.items.first()
    response = client.post(reverse("pref-judge", args=[one.pk]), {"item": other.pk, "choice": "0", "token": "z"})
    assert response.status_code == 404


def test_document_text_and_titles_are_escaped(client, collection, sbs, make_sbs, alice):
    Document.objects.filter(docno__startswith="T").update(title="<script>alert(1)</script> wind",
                                                        text="<img src=x onerror=alert(2)> turbine")
    Topic.objects.filter(collection=collection).update(title="wind <b>turbine</b>")
    campaign = make_sbs()
    client.force_login(alice)
    html = client.get(reverse("pref-judge", args=[campaign.pk])).content.decode()
    assert "<script>alert(1)" not in html and "<img src=x" not in html and "<b>turbine" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt; <mark>wind</mark>" in html


def test_highlighting_cannot_inject_markup():
    terms = query_terms('lt script gt mark "onerror" amp')
    out = str(highlight("<script>x</script> & <mark>", terms))
    assert "<script>" not in out and "<mark>x" not in out
    assert out.count("<mark>") == out.count("</mark>")
    assert str(highlight("Wind turbines; wind.", ["wind"])) == "<mark>Wind</mark> turbines; <mark>wind</mark>."


def test_crowd_flow_consent_judge_complete_and_token_of_other_campaign(client, make_sbs):
    campaign = make_sbs(crowd_enabled=True, crowd_completion_code="C0DE", assessors=())
    other = make_sbs(name="other", crowd_enabled=True, assessors=())
    entry = reverse("pref-crowd", args=[campaign.crowd_token])
    assert client.get(entry + "?PROLIFIC_PID=p1&STUDY_ID=s").status_code == 200
    worker = PrefAssessor.objects.get(campaign=campaign)
    assert (worker.platform, worker.worker_id) == ("prolific", "p1")
    judge = reverse("pref-crowd-judge", args=[campaign.crowd_token])
    assert client.get(judge).status_code == 302  # consent first
    client.post(entry, {"consent": "yes"})
    # this session is not a worker of the other campaign
    assert client.get(reverse("pref-crowd-judge", args=[other.crowd_token])).status_code == 404
    for n in range(campaign.items.count()):
        item = client.get(judge).context["item"]
        assert client.post(judge, {"item": item.pk, "choice": "0", "token": f"c{n}"}).status_code == 302
    done = client.get(judge, follow=True).content.decode()
    worker.refresh_from_db()
    assert worker.completion_code and f'id="completion-code">{worker.completion_code}<' in done
    assert client.get(reverse("pref-crowd", args=["nope"])).status_code == 404


def test_results_page_and_api_figures(client, make_sbs, alice, lead):
    campaign = make_sbs()
    me = PrefAssessor.objects.get(campaign=campaign, user=alice)
    for n in range(4):
        item = allocation.item_next(assessor=me)
        judgments.judgment_submit(assessor=me, item=item, choice=-1 if item.left_is_a else 1, token=f"r{n}")
    client.force_login(lead)
    data = client.get(reverse("api-pref-results", args=[campaign.pk])).json()
    assert data["overall"]["wins"] == 4 and data["system_a"] == "alpha"
    assert data["overall"]["p_value"] == pytest.approx(0.125)
    assert client.get(reverse("pref-campaign-results", args=[campaign.pk])).status_code == 200


def _pair_campaign(collection, sbs, users):
    topics = sbs[0]
    return doc_pair_create(collection=collection, name="pairs", assessors=users, judgments_per_item=2,
                           pairs=[(topics[0], "T1-D1", "T1-D2"), (topics[0], "T1-D3", "T1-D4"),
                                  (topics[1], "T2-D1", "T2-D9")])


def test_export_prefs_format_and_read_back(client, collection, sbs, alice, bob, lead, tmp_path):
    campaign = _pair_campaign(collection, sbs, (alice, bob))
    for user, choices in ((alice, {0: 1, 1: -1, 2: 0}), (bob, {0: 1, 1: 1, 2: 1})):
        me = PrefAssessor.objects.get(campaign=campaign, user=user)
        for n in range(3):
            item = allocation.item_next(assessor=me)
            outcome = choices[item.position - 1]
            judgments.judgment_submit(assessor=me, item=item, choice=judgments.choice_of(outcome, item.left_is_a),
                                      token=f"{user.username}{n}")
    a = PrefAssessor.objects.get(campaign=campaign, user=alice).pk
    lines = prefs_lines(campaign)
    assert lines[:6] == [f"501 a{a} 1 T1-D1 1", f"501 a{a} 1 T1-D2 0", f"501 a{a} 2 T1-D3 0", f"501 a{a} 2 T1-D4 1",
                         ] + lines[4:6]
    assert f"502 a{a} 3 T2-D1 1" in lines and f"502 a{a} 3 T2-D9 1" in lines
    assert all(len(line.split()) == 5 for line in lines) and len(lines) == 12
    client.force_login(lead)
    body = client.get(reverse("pref-campaign-export", args=[campaign.pk])).content.decode()
    assert body.splitlines() == lines
    path = tmp_path / "prefs.txt"
    path.write_text(body)
    read = prefs.read_prefs(path)
    assert sorted(read.topics) == ["501", "502"]
    assert len(read.records()) == 12


def test_export_forbidden_to_assessors_and_404_for_side_by_side(client, collection, sbs, make_sbs, alice, lead):
    campaign = _pair_campaign(collection, sbs, (alice,))
    client.force_login(alice)
    assert client.get(reverse("pref-campaign-export", args=[campaign.pk])).status_code == 403
    client.force_login(lead)
    assert client.get(reverse("pref-campaign-export", args=[make_sbs().pk])).status_code == 404


def test_lead_creates_a_campaign_with_the_form(client, sbs, lead, alice):
    topics, run_a, run_b = sbs
    client.force_login(lead)
    response = client.post(reverse("pref-campaign-new", args=["demo"]), {
        "name": "via form", "kind": "sbs", "run_a": run_a.pk, "run_b": run_b.pk,
        "topics": [t.pk for t in topics[:3]], "depth": 10, "judgments_per_item": 1, "seed": 5, "gold_rate": 0,
        "gold_accuracy_threshold": 0, "gold_min_answers": 3, "crowd_batch_size": 10, "lease_seconds": 600,
        "assessors": [alice.pk]})
    assert response.status_code == 302
    from preferences.models import PrefCampaign

    campaign = PrefCampaign.objects.get(name="via form")
    assert campaign.items.count() == 3 and campaign.assessors.get().user == alice


def test_results_page_shows_gold_accuracy_per_assessor(client, make_sbs, sbs, alice, lead):
    campaign = make_sbs(gold_topics=sbs[0][:1], gold_rate=0.5)
    me = PrefAssessor.objects.get(campaign=campaign, user=alice)
    for n in range(2):
        item = allocation.item_next(assessor=me)
        wrong = 1 if item.left_is_a else -1  # prefers B: wrong on gold
        judgments.judgment_submit(assessor=me, item=item, choice=wrong, token=f"w{n}")
    client.force_login(lead)
    html = client.get(reverse("pref-campaign-results", args=[campaign.pk])).content.decode()
    assert "<td>alice</td><td>Expert</td><td>2</td><td>0 / 1</td>" in html


@pytest.mark.parametrize("who, status", [("lead", 200), ("alice", 403), ("mallory", 404)])
def test_campaign_list_api_permissions(client, make_sbs, who, status, request):
    make_sbs()
    client.force_login(request.getfixturevalue(who))
    response = client.get(reverse("api-pref-campaigns", args=["demo"]))
    assert response.status_code == status
    if status == 200:
        assert [c["name"] for c in response.json()] == ["sbs"]
