"""Dashboard pages: what a lead sees, who else is refused, bounded queries, conflicts filters."""
from __future__ import annotations

import re

import numpy as np
import pytest
from django.core.cache import cache
from django.urls import reverse

from agreement import cohen_kappa
from collections_app.models import Membership
from judging.dashboard.choices import CHOICES, choice
from judging.dashboard.selectors import campaign_dashboard
from judging.models import Item
from judging.services.judgments import judgment_submit
from tests.conftest import make_user
from tests.judging.conftest import build_pool, expert

pytestmark = pytest.mark.django_db

# positions 1–20: topics 401..404, five documents each
GRADES = {
    "alice": [0, 1, 2, 3, 0, 1, 1, 2, 3, 3, 0, 0, 1, 2, 2, 3, 1, 0, 2, 1],
    "bob":   [0, 1, 2, 3, 1, 1, 2, 2, 3, 2, 3, 0, 0, 1, 2, 3, 1, 0, 2, 1],
    "carol": [0, 1, 2, 2, 0, 3, 0, 1, 3, 3, 0, 3, 1, 0, 2, 3, 1, 1, 2, 0],
}


def judge_all(campaign, users, grades=GRADES):
    for user in users:
        assessor = expert(campaign, user)
        for position, grade in enumerate(grades[user.username], start=1):
            item = Item.objects.get(campaign=campaign, position=position)
            judgment_submit(assessor=assessor, item=item, grade=grade, active_seconds=10.0 + position,
                            client_token=f"{assessor.pk}-{position}")


@pytest.fixture
def carol(collection):
    carol = make_user("carol")
    Membership.objects.create(collection=collection, user=carol, role=Membership.Role.ASSESSOR)
    return carol


@pytest.fixture
def judged(make_campaign, alice, bob, carol):
    campaign = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=3)
    judge_all(campaign, [alice, bob, carol])
    return campaign


def url(name, campaign, **query):
    base = reverse(name, args=[campaign.collection.slug, campaign.pk])
    return base + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


def test_lead_sees_the_heatmap_with_one_cell_per_pair_of_assessors(client, judged, lead):
    client.force_login(lead)
    response = client.get(url("campaign-dashboard", judged))
    assert response.status_code == 200
    html = response.content.decode()
    heatmap = html[html.index('id="heatmap"'):html.index('id="topic-chart"')]
    assert len(re.findall(r'<rect class="cell"', heatmap)) == 9
    a = [g for g in GRADES["alice"]]
    b = [g for g in GRADES["bob"]]
    kappa = cohen_kappa(a, b, categories=[0, 1, 2, 3], ci=None).value
    assert f'data-row="0" data-col="1" data-value="{kappa:.2f}"' in heatmap
    assert "Send these pairs to one more assessor" in html
    for name in ("alice", "bob", "carol"):
        assert name in html
    topics = html[html.index('id="topic-agreement"'):]
    assert topics.count("too little overlap for an interval (10 items judged twice)") == 0
    assert re.search(r'<td class="topic-ci">(-?[01]\.\d{3} to -?[01]\.\d{3}|<span class="muted">too little overlap)',
                     topics)


@pytest.mark.parametrize("key", list(CHOICES))
def test_every_statistic_renders_binary_and_graded(client, judged, lead, key):
    client.force_login(lead)
    for binary in ("0", "1"):
        response = client.get(url("campaign-dashboard", judged, stat=key, binary=binary, rate="12.5"))
        assert response.status_code == 200
        assert CHOICES[key].label.replace("'", "&#x27;") in response.content.decode()


def test_heatmap_values_equal_cohen_kappa_and_topics_light_kappa(judged):
    data = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    names = data["matrix"]["names"]
    k = len(names)
    cells = {(names[i // k], names[i % k]): c["value"] for i, c in enumerate(data["matrix"]["cells"])}
    for x, y in (("alice", "bob"), ("alice", "carol"), ("bob", "carol")):
        expected = cohen_kappa(GRADES[x], GRADES[y], categories=[0, 1, 2, 3], ci=None).value
        assert cells[(x, y)] == pytest.approx(expected) and cells[(y, x)] == pytest.approx(expected)
    from sklearn.metrics import cohen_kappa_score
    light = np.mean([cohen_kappa_score(GRADES[x][:5], GRADES[y][:5], labels=[0, 1, 2, 3])
                     for x, y in (("alice", "bob"), ("alice", "carol"), ("bob", "carol"))])
    assert data["topics"][0]["qid"] == "401" and data["topics"][0]["value"] == pytest.approx(light)
    for t in data["topics"]:  # each topic's interval contains its value, or the page says why there is none
        assert (t["ci_low"] <= t["value"] <= t["ci_high"]) if t["ci_low"] is not None else "too little" in t["ci_reason"]
    binary = campaign_dashboard(campaign=judged, stat=choice("cohen"), binary=True)
    rel = [[int(g >= judged.collection.relevant_threshold) for g in GRADES[n]] for n in ("alice", "bob")]
    assert binary["matrix"]["cells"][1]["value"] == pytest.approx(
        cohen_kappa(rel[0], rel[1], categories=[0, 1], ci=None).value)


def test_progress_cost_and_assessor_rows(judged):
    data = campaign_dashboard(campaign=judged, stat=choice("cohen"), rate=20.0)
    assert data["progress"]["required"] == 60 and data["progress"]["judged"] == 60
    assert data["estimate"]["remaining"] == 0 and data["estimate"]["cost"] == 0.0
    assert data["estimate"]["median_seconds"] == pytest.approx(np.median([10.0 + p for p in range(1, 21)]))
    alice = next(r for r in data["assessors"] if r["name"] == "alice")
    assert alice["judgments"] == 20 and alice["skips"] == 0
    assert [d["count"] for d in alice["distribution"]] == [GRADES["alice"].count(g) for g in range(4)]
    assert data["throughput"]["total"] == 60


def test_page_queries_do_not_grow_with_the_data(client, collection, make_campaign, alice, bob, carol, lead,
                                               django_assert_max_num_queries):
    small = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=3)
    judge_all(small, [alice, bob])
    big_pool = build_pool(collection, name="big", topics=8, docs=10)
    big = make_campaign(assessors=[alice, bob, carol], overlap="replicate", judgments_per_pair=3, pool=big_pool)
    grades = {n: [(p * (k + 2)) % 4 for p in range(80)] for k, n in enumerate(("alice", "bob", "carol"))}
    judge_all(big, [alice, bob, carol], grades)
    client.force_login(lead)
    client.get(url("campaign-dashboard", small))  # warms per-process caches (ContentType) so both counts compare
    cache.clear()  # both computed afresh, not one from the dashboard cache
    with django_assert_max_num_queries(20) as small_ctx:
        assert client.get(url("campaign-dashboard", small)).status_code == 200
    with django_assert_max_num_queries(20) as big_ctx:
        assert client.get(url("campaign-dashboard", big)).status_code == 200
    assert len(big_ctx.captured_queries) == len(small_ctx.captured_queries)


def test_collection_overview_lists_campaigns_with_cost_and_agreement(client, judged, lead):
    from agreement import agreement

    client.force_login(lead)
    response = client.get(reverse("collection-dashboard", args=[judged.collection.slug]) + "?rate=10&stat=fleiss")
    assert response.status_code == 200
    html = response.content.decode()
    assert judged.name in html and 'id="total-judged">60 / 60' in html
    triples = [(p, name, g) for name, row in GRADES.items() for p, g in enumerate(row)]
    fleiss = agreement(triples, statistic="fleiss", categories=[0, 1, 2, 3], ci=None).value
    assert f'<td class="agreement">{fleiss:.3f} <span class="muted">(20 pairs)' in html
    data = campaign_dashboard(campaign=judged, stat=choice("fleiss"))
    overall = data["overall"]
    assert (overall["value"], overall["n_items"], overall["reason"]) == (pytest.approx(fleiss), 20, None)
    expected = agreement(triples, statistic="fleiss", categories=[0, 1, 2, 3], ci="bootstrap", n_boot=200, seed=0)
    assert (overall["ci_low"], overall["ci_high"]) == (pytest.approx(expected.ci_low), pytest.approx(expected.ci_high))
    assert overall["ci_low"] <= overall["value"] <= overall["ci_high"]


@pytest.mark.parametrize("name", ["campaign-dashboard", "collection-dashboard"])
def test_dashboard_pages_refuse_everyone_but_leads(client, judged, alice, mallory, name):
    target = (reverse(name, args=[judged.collection.slug, judged.pk]) if name == "campaign-dashboard"
              else reverse(name, args=[judged.collection.slug]))
    response = client.get(target)
    assert response.status_code == 302 and "/login" in response["Location"]
    client.force_login(alice)
    assert client.get(target).status_code == 403
    client.force_login(mallory)
    assert client.get(target).status_code == 404


def test_dashboard_404s_a_campaign_of_another_collection(client, judged, lead):
    from tests.conftest import make_collection
    other = make_collection("other", lead=lead)
    client.force_login(lead)
    assert client.get(reverse("campaign-dashboard", args=[other.slug, judged.pk])).status_code == 404
    assert client.get(reverse("campaign-dashboard", args=[judged.collection.slug, 99999])).status_code == 404


def test_conflicts_filter_by_topic_and_by_assessor_pair(client, judged, lead, alice, bob):
    client.force_login(lead)
    html = client.get(url("campaign-conflicts", judged, topic="402")).content.decode()
    assert "Topic 402" in html and "Topic 401" not in html and 'id="conflict-filter"' in html
    a, b = expert(judged, alice), expert(judged, bob)
    html = client.get(url("campaign-conflicts", judged) + f"?assessor={a.pk}&assessor={b.pk}").content.decode()
    # every listed item is disputed; alice and bob both judged everything, so all disputes show
    assert html.count('class="card conflict"') == sum(
        1 for p in range(20) if len({GRADES[n][p] for n in GRADES}) > 1)
    html = client.get(url("campaign-conflicts", judged) + "?assessor=999999").content.decode()
    assert 'class="card conflict"' not in html


def test_untrusted_titles_are_escaped_in_the_dashboard(client, judged, lead):
    from collections_app.models import Topic
    Topic.objects.filter(collection=judged.collection, qid="401").update(title='<script>alert("x")</script>')
    client.force_login(lead)
    html = client.get(url("campaign-dashboard", judged)).content.decode()
    assert "<script>alert" not in html and "&lt;script&gt;alert" in html


def test_a_campaign_without_judgments_renders_with_undefined_figures(client, campaign, lead):
    client.force_login(lead)
    response = client.get(url("campaign-dashboard", campaign, rate="10"))
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="judged">0 / 20' in html and "No pair judged twice yet." in html
    data = campaign_dashboard(campaign=campaign, stat=choice("fleiss"), rate=10.0)
    assert data["estimate"]["median_seconds"] is None and data["estimate"]["cost"] is None
    assert data["matrix"]["cells"] == [] and data["over_time"]["points"] == []
    assert client.get(reverse("api-campaign-dashboard", args=[campaign.pk])).status_code == 200


def test_skips_count_as_work_but_not_as_labels(client, judged, lead, alice):
    from judging.models import Judgment
    Judgment.objects.filter(assessor__user=alice, item__position=1).update(grade=None, skipped=True)
    data = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    row = next(r for r in data["assessors"] if r["name"] == "alice")
    assert (row["judgments"], row["skips"]) == (19, 1)
    assert sum(d["count"] for d in row["distribution"]) == 19


def test_loaded_arrays_match_the_rows(judged):
    from judging.dashboard.selectors import load_campaign_arrays
    from judging.models import Judgment

    data = load_campaign_arrays(judged)
    rows = {(j.item_id, j.assessor_id): j for j in Judgment.objects.filter(item__campaign=judged)}
    assert len(rows) == data.j_item.size == 60
    for n in range(data.j_item.size):
        j = rows[(int(data.item_ids[data.j_item[n]]), data.assessors[data.j_assessor[n]]["id"])]
        assert data.scale[data.j_grade[n]] == j.grade and data.j_seconds[n] == j.active_seconds
        assert data.j_time[n] == pytest.approx(j.created_at.timestamp(), abs=1e-3)
    assert [qid for qid, _ in data.topics] == ["401", "402", "403", "404"]
    assert data.item_topic.tolist() == [0] * 5 + [1] * 5 + [2] * 5 + [3] * 5
    assert np.isnan(data.gold_grade).all() and not data.is_gold.any()


def test_dashboard_shows_relevant_found_and_remaining_per_topic(client, make_campaign, alice, bob, lead, collection):
    campaign = make_campaign(assessors=[alice, bob], overlap="replicate", judgments_per_pair=2)
    judge_all(campaign, [alice], {"alice": GRADES["alice"][:7]})  # topic 401 done, 402 two of five
    client.force_login(lead)
    html = client.get(url("campaign-dashboard", campaign)).content.decode()
    table = html[html.index('id="stopping"'):]
    table = table[:table.index("</table>")]
    rows = re.findall(r"<tr><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td><td>(\d+)</td>\s*<td>(.*?)</td></tr>", table)
    threshold = collection.relevant_threshold
    found_401 = sum(g >= threshold for g in GRADES["alice"][:5])
    found_402 = sum(g >= threshold for g in GRADES["alice"][5:7])
    assert rows[0][:4] == ("401", "5", str(found_401), "0") and rows[0][4].startswith("0.0 (0.0")
    assert rows[1][:4] == ("402", "2", str(found_402), "3") and "not enough judgments" in rows[1][4]
    assert [r[0] for r in rows] == ["401", "402", "403", "404"]
    assert reverse("campaign-stopping", args=[collection.slug, campaign.pk]) in html


def test_a_campaign_nobody_has_judged_says_so_instead_of_drawing_empty_charts(client, make_campaign, lead):
    campaign = make_campaign()
    client.force_login(lead)
    html = client.get(url("campaign-dashboard", campaign)).content.decode()
    assert 'id="heatmap-empty"' in html and 'id="time-chart-empty"' in html
    assert 'id="heatmap"' not in html and 'id="topic-chart"' not in html and "No pair judged twice yet." in html


def test_dashboard_and_assessor_pages_name_every_kind_as_assessor_label(client, judged, lead,
                                                                       django_assert_max_num_queries):
    """A model assessor is ``model:<id>`` (never ``crowd:<id>``), an imported one ``imported:<id>``,
    a crowd worker ``<platform>:<id>`` — the same names as Assessor.label, with no query per row."""
    from judging.models import Assessor, Judgment

    others = [Assessor.objects.create(campaign=judged, kind="model", worker_id="gpt-judge"),
              Assessor.objects.create(campaign=judged, kind="imported", worker_id="w7"),
              Assessor.objects.create(campaign=judged, kind="crowd", platform="prolific", worker_id="p9")]
    items = list(Item.objects.filter(campaign=judged).order_by("position")[:3])
    for assessor in others:
        for item in items:
            Judgment.objects.create(item=item, assessor=assessor, grade=1, client_token=f"t-{assessor.pk}-{item.pk}")
    want = {"model:gpt-judge", "imported:w7", "prolific:p9"}
    assert {a.label for a in others} == want
    data = campaign_dashboard(campaign=judged, stat=choice("cohen"))
    assert want <= {row["name"] for row in data["assessors"]}
    assert not any(row["name"].startswith("crowd:") for row in data["assessors"])
    client.force_login(lead)
    html = client.get(url("campaign-assessors", judged)).content.decode()
    assert "model:gpt-judge" in html and "crowd:gpt-judge" not in html
    conflicts = client.get(url("campaign-conflicts", judged, assessor=others[0].pk)).content.decode()
    assert "model:gpt-judge" in conflicts
    cache.clear()
    with django_assert_max_num_queries(20) as with_three:
        client.get(url("campaign-assessors", judged))
    for n in range(10):
        extra = Assessor.objects.create(campaign=judged, kind="model", worker_id=f"m{n}")
        Judgment.objects.create(item=items[0], assessor=extra, grade=2, client_token=f"x-{n}")
    cache.clear()
    with django_assert_max_num_queries(20) as with_thirteen:
        assert "model:m9" in client.get(url("campaign-assessors", judged)).content.decode()
    assert len(with_thirteen.captured_queries) == len(with_three.captured_queries)


def test_could_not_judge_grades_are_left_out_of_agreement_by_a_visible_option(client, judged, lead, alice, carol):
    """Scale with -2 "could not judge": left out by default (the page says so), counted with the checkbox
    or ?cannot_judge=true in the API; the cache keeps the two apart."""
    from django.utils import timezone

    from collections_app import scales
    from judging.models import Judgment

    collection = judged.collection
    collection.scale, _ = scales.parse_spec("-2:broken,0,1,2,3", relevant_threshold=1, cannot_judge=[-2])
    collection.save()
    positions = [2, 5, 9, 13, 17]  # carol could not judge these pages
    Judgment.objects.filter(item__campaign=judged, item__position__in=positions,
                            assessor=expert(judged, carol)).update(grade=-2, updated_at=timezone.now())
    cache.clear()
    client.force_login(lead)
    api = reverse("api-campaign-dashboard", args=[judged.pk])
    default = client.get(api).json()
    counted = client.get(api + "?cannot_judge=true").json()
    again = client.get(api).json()
    assert default["statistic"]["cannot_judge"] == {"grades": [-2], "left_out": True}
    assert counted["statistic"]["cannot_judge"] == {"grades": [-2], "left_out": False}
    ids = {r["name"]: r["id"] for r in default["assessors"]}

    def cell(data, a, b):
        return next(c["value"] for c in data["matrix"]["cells"] if (c["row"], c["col"]) == (ids[a], ids[b]))

    carol_grades = [-2 if p in positions else g for p, g in enumerate(GRADES["carol"], start=1)]
    kept = [k for k, g in enumerate(carol_grades) if g != -2]
    expected = cohen_kappa([GRADES["alice"][k] for k in kept], [carol_grades[k] for k in kept],
                           categories=[0, 1, 2, 3], ci=None).value
    everything = cohen_kappa(GRADES["alice"], carol_grades, categories=[-2, 0, 1, 2, 3], ci=None).value
    assert cell(default, "alice", "carol") == pytest.approx(expected)
    assert cell(counted, "alice", "carol") == pytest.approx(everything) and everything != pytest.approx(expected)
    assert cell(again, "alice", "carol") == pytest.approx(expected)  # not the counted figures from the cache
    html = client.get(url("campaign-dashboard", judged)).content.decode()
    form = html[html.index('id="dashboard-options"'):html.index("</form>", html.index('id="dashboard-options"'))]
    assert '<input type="checkbox" name="cannot_judge" value="1">' in form
    assert "are left out of agreement" in html[html.index('id="cannot-judge-note"'):]
    ticked = client.get(url("campaign-dashboard", judged, cannot_judge=1)).content.decode()
    assert 'name="cannot_judge" value="1" checked' in ticked and "are counted in agreement" in ticked
    assert '<input type="hidden" name="cannot_judge" value="1">' in ticked  # the heatmap form keeps the choice


def test_no_could_not_judge_option_when_the_scale_has_no_such_grade(client, judged, lead):
    client.force_login(lead)
    html = client.get(url("campaign-dashboard", judged)).content.decode()
    assert 'name="cannot_judge"' not in html and 'id="cannot-judge-note"' not in html
    data = client.get(reverse("api-campaign-dashboard", args=[judged.pk])).json()
    assert data["statistic"]["cannot_judge"] == {"grades": [], "left_out": False}
