"""Leaderboard estimates for a campaign on a sampled pool: page, API and command agree with metrics.sampling.

The expected values are computed here straight from ``metrics.sampling`` on the prels the API
downloads, so the leaderboard, the prels export and the estimators are checked against each other;
one value is also worked by hand.
"""
from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse
from rest_framework.test import APIClient

from collections_app.models import Run
from evaluation.selectors import board
from judging.services.qrels import final_labels, qrels_freeze, qrels_text
from metrics import cli
from metrics.sampling import infap, infndcg, parse_prels, xinfap
from tests.evaluation.sampled_case import RUNS, build_sampled_case, write_run
from tests.judging.conftest import build_pool

pytestmark = pytest.mark.django_db

ESTIMATES = ("infAP", "xinfAP", "infNDCG_cut_10")


@pytest.fixture
def sampled(collection, lead, alice, tmp_path):
    collection.assessors_see_systems = True  # these tests show estimates to an assessor (blind by default)
    collection.save()
    return build_sampled_case(collection, lead=lead, assessors=[alice], tmp_path=tmp_path)


@pytest.fixture
def api():
    return APIClient()


def token(campaign, rule="majority"):
    return f"campaign:{campaign.pk}:{rule}"


def downloaded_prels(api, campaign, lead):
    api.force_authenticate(lead)
    response = api.get(reverse("api-campaign-prels", args=[campaign.pk]) + "?rule=majority")
    assert response.status_code == 200
    api.force_authenticate(None)
    return parse_prels(response.content.decode())


def expected(prels) -> dict[str, dict[str, float]]:
    """Return {tag: {estimate: mean}} over the judged prels topics each run retrieved for."""
    topics = [q for q, docs in prels.items() if any(p.judged for p in docs.values())]
    out = {}
    for tag, ranking in RUNS.items():
        mine = [q for q in topics if ranking.get(q)]
        values = {"infAP": [infap(ranking[q], prels[q], level=1) for q in mine],
                  "xinfAP": [xinfap(ranking[q], prels[q], level=1) for q in mine],
                  "infNDCG_cut_10": [infndcg(ranking[q], prels[q], k=10) for q in mine]}
        out[tag] = {name: sum(v) / len(v) for name, v in values.items()}
    return out


def test_board_estimates_equal_metrics_sampling_on_the_exported_prels(api, sampled, lead):
    want = expected(downloaded_prels(api, sampled, lead))
    scored = board(sampled.collection, source=token(sampled))
    assert scored.estimates is not None and scored.estimates_error == ""
    assert (scored.estimates.topics, scored.estimates.pooled, scored.estimates.sampled,
            scored.estimates.judged) == (2, 17, 11, 9)
    for row in scored.rows:
        for name in ESTIMATES:
            assert row.scores[name] == pytest.approx(want[row.tag][name], abs=1e-12), (row.tag, name)
    assert {r.tag: r.estimate_topics for r in scored.rows} == {"runA": 2, "runB": 2, "runC": 1}
    # By hand: runB on topic 12 ranks e1 (0), e7 (3, prob 1), e8, e3 (unjudged); R^ = 1/1 (e7) + 1/0.4 (e4)
    # = 3.5; at e7 (rank 2) the estimated precision is (1 + 1 * eps/(1 + 2 eps)) / 2, so xinfAP = 0.5/3.5.
    assert scored.estimates.runs["runB"].per_topic["12"]["xinfAP"] == pytest.approx(0.5 / 3.5, abs=1e-4)
    # The estimates are not the plain measures under another name.
    plain = {r.tag: r.scores["map"] for r in scored.rows}
    assert any(abs(plain[t] - want[t]["xinfAP"]) > 0.01 for t in RUNS)
    assert [r.tag for r in scored.rows] == sorted(want, key=lambda t: (-want[t]["xinfAP"], t))  # default sort


def test_ordinary_sources_have_no_estimates(sampled, collection, lead):
    plain = build_pool(collection, name="depth", topics=1, docs=2)
    from judging.services.campaigns import campaign_create

    ordinary = campaign_create(collection=collection, pool=plain, name="plain", created_by=lead, assessors=[])
    scored = board(collection, source=token(ordinary))
    assert scored.estimates is None and scored.estimates_error == "" and scored.sort == "map"
    assert all(r.estimate_topics is None and "xinfAP" not in r.scores for r in scored.rows)
    assert board(collection, source=token(ordinary), sort="xinfAP").sort == "map"


def test_leaderboard_page_shows_labelled_estimates_with_the_sample_size(client, sampled, lead, alice):
    url = reverse("evaluation-leaderboard", kwargs={"slug": sampled.collection.slug}) + f"?source={token(sampled)}"
    want = expected(parse_prels(_prels_text(sampled)))
    client.force_login(alice)  # a member (assessor) sees the leaderboard
    body = client.get(url).content.decode()
    assert 'id="sample-estimates"' in body
    assert "<strong>9 judged</strong> of\n    11 sampled documents, out of 17 pooled documents on 2 topics" in body
    headings = re.findall(r'data-measure="(\w+)"><a href="[^"]*" title="Estimated from the sample">', body)
    assert headings == ["infAP", "xinfAP", "infNDCG_cut_10"]  # each beside the measure it estimates
    assert body.index('data-measure="map"') < body.index('data-measure="infAP"') < body.index('data-measure="ndcg_cut_10"')
    assert re.search(r'<th class="num sorted estimate" data-measure="xinfAP">', body)  # sorted by xinfAP
    for tag in RUNS:
        row = re.search(rf'<tr data-run="{tag}">(.*?)</tr>', body, re.S).group(1)
        for name in ESTIMATES:
            cell = re.search(rf'data-measure="{name}">([0-9.]+)<', row).group(1)
            assert cell == f"{want[tag][name]:.4f}", (tag, name)
    by_map = client.get(url + "&sort=map&order=desc").content.decode()
    assert '<th class="num sorted" data-measure="map">' in by_map


def _prels_text(campaign):
    from judging.services.prels import campaign_prels

    return campaign_prels(campaign=campaign, rule="majority").text


def test_leaderboard_page_of_an_imported_set_is_unchanged(client, scored, lead):
    client.force_login(lead)
    body = client.get(reverse("evaluation-leaderboard", kwargs={"slug": scored.slug})).content.decode()
    assert "sample-estimates" not in body and "est." not in body and 'data-measure="xinfAP"' not in body
    assert '<th class="num sorted" data-measure="map">' in body


def test_leaderboard_page_explains_missing_estimates(client, sampled, lead):
    Run.objects.get(collection=sampled.collection, tag="runB").delete()
    client.force_login(lead)
    url = reverse("evaluation-leaderboard", kwargs={"slug": sampled.collection.slug}) + f"?source={token(sampled)}"
    body = client.get(url).content.decode()
    assert 'id="estimates-error"' in body and "changed after it was built" in body
    assert 'data-run="runA"' in body  # the plain measures are still shown
    assert board(sampled.collection, source=token(sampled)).estimates is None


def test_leaderboard_api_carries_estimates_and_the_sample(api, sampled, lead, alice):
    want = expected(downloaded_prels(api, sampled, lead))
    api.force_authenticate(alice)
    url = reverse("api-evaluation-leaderboard", kwargs={"slug": sampled.collection.slug})
    data = api.get(url + f"?source={token(sampled)}").json()
    assert data["sort"] == "xinfAP" and data["estimates_error"] == ""
    assert {k: data["sample"][k] for k in ("topics", "pooled", "sampled", "judged")} == {
        "topics": 2, "pooled": 17, "sampled": 11, "judged": 9}
    assert "xinfAP estimates MAP" in data["sample"]["note"]
    for row in data["runs"]:
        for name in ESTIMATES:
            assert row["estimates"][name] == pytest.approx(want[row["tag"]][name], abs=1e-12)
    assert [r["estimates"]["num_topics"] for r in data["runs"] if r["tag"] == "runC"] == [1]
    by_infap = api.get(url + f"?source={token(sampled)}&sort=infAP&order=asc").json()
    assert [r["tag"] for r in by_infap["runs"]] == sorted(want, key=lambda t: (want[t]["infAP"], t))


def test_leaderboard_api_without_a_sample_is_as_before(api, scored, lead):
    api.force_authenticate(lead)
    data = api.get(reverse("api-evaluation-leaderboard", kwargs={"slug": scored.slug})).json()
    assert data["sort"] == "map" and data["sample"] is None and data["estimates_error"] == ""
    assert all(r["estimates"] is None for r in data["runs"])
    assert api.get(reverse("api-evaluation-leaderboard", kwargs={"slug": scored.slug}) + "?sort=xinfAP").json()[
        "sort"] == "map"


def test_leaderboard_permissions_with_a_sampled_source(client, api, sampled, alice, mallory):
    slug = sampled.collection.slug
    page = reverse("evaluation-leaderboard", kwargs={"slug": slug}) + f"?source={token(sampled)}"
    endpoint = reverse("api-evaluation-leaderboard", kwargs={"slug": slug}) + f"?source={token(sampled)}"
    response = client.get(page)
    assert response.status_code == 302 and "login" in response["Location"]
    assert api.get(endpoint).status_code in (401, 403)
    client.force_login(mallory)
    api.force_authenticate(mallory)
    assert client.get(page).status_code == 404
    assert api.get(endpoint).status_code == 404
    client.force_login(alice)
    api.force_authenticate(alice)
    assert client.get(page).status_code == 200
    assert api.get(endpoint).status_code == 200


def test_a_frozen_version_of_a_sampled_campaign_is_estimated_too(sampled, lead):
    qrels_freeze(campaign=sampled, rule="majority", description="v1", user=lead)
    live = board(sampled.collection, source=token(sampled))
    frozen = board(sampled.collection)  # the default source: the newest frozen version
    assert frozen.source.token == "version:1" and frozen.source.label.endswith("sampled pool")
    assert frozen.estimates is not None
    assert {r.tag: r.scores for r in frozen.rows} == {r.tag: r.scores for r in live.rows}
    again = board(sampled.collection)  # from the cache
    assert {r.tag: r.scores for r in again.rows} == {r.tag: r.scores for r in frozen.rows}


# --- manage.py evaluate --------------------------------------------------------------------------

def evaluate(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("evaluate", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_evaluate_appends_estimates_to_each_run_block(api, sampled, lead, tmp_path, capsys):
    want = expected(downloaded_prels(api, sampled, lead))
    slug = sampled.collection.slug
    out, err = evaluate(slug, "--campaign", str(sampled.pk), "--rule", "majority")
    assert "estimates from 9 judged of 11 sampled documents (17 pooled, 2 topics)" in err
    blocks = out.split("runid                 \tall\t")[1:]
    assert [b.split("\n", 1)[0] for b in blocks] == sorted(RUNS)
    for block in blocks:
        tag = block.split("\n", 1)[0]
        for name in ESTIMATES:
            assert f"{name:<22}\tall\t{want[tag][name]:.4f}\n" in block, (tag, name)
    plain, plain_err = evaluate(slug, "--campaign", str(sampled.pk), "--rule", "majority", "--no-estimates")
    assert plain_err == "" and plain == "".join(line for line in out.splitlines(keepends=True)
                                                  if not line.startswith(ESTIMATES))
    # the plain part is still byte-identical to the metrics CLI on the same qrels and runs
    qrels = tmp_path / "labels.qrels"
    qrels.write_text(qrels_text(final_labels(campaign=sampled, rule="majority")))
    runs = [str(write_run(tmp_path / f"ref-{tag}.run", tag, RUNS[tag])) for tag in sorted(RUNS)]
    capsys.readouterr()
    assert cli.main(["--skip-missing", "-mmap", "-mndcg_cut.10", "-mP.10", "-mRprec", "-mbpref", "-mjudged.10", "-l", "1",
                     str(qrels), *runs]) == 0
    assert capsys.readouterr().out == plain


def test_evaluate_per_topic_estimates_and_chosen_runs(api, sampled, lead):
    prels = downloaded_prels(api, sampled, lead)
    out, _ = evaluate(sampled.collection.slug, "--campaign", str(sampled.pk), "-q", "-m", "P.5", "--run", "runC")
    assert out.count("runid") == 1
    assert f"xinfAP                \t7\t{xinfap(RUNS['runC']['7'], prels['7'], level=1):.4f}\n" in out
    assert "xinfAP                \t12\t" not in out  # runC retrieved nothing for topic 12


def test_evaluate_reports_a_changed_pool(sampled):
    Run.objects.get(collection=sampled.collection, tag="runB").delete()
    with pytest.raises(CommandError, match="changed after it was built"):
        evaluate(sampled.collection.slug, "--campaign", str(sampled.pk))
    out, _ = evaluate(sampled.collection.slug, "--campaign", str(sampled.pk), "--no-estimates")
    assert out.count("runid") == 2


def per_topic_want(prels, tag) -> dict[str, dict[str, float]]:
    """Return {qid: {estimate: value}} of one run on the judged prels topics it retrieved for."""
    ranking = RUNS[tag]
    return {q: {"infAP": infap(ranking[q], prels[q], level=1), "xinfAP": xinfap(ranking[q], prels[q], level=1),
                "infNDCG_cut_10": infndcg(ranking[q], prels[q], k=10)}
            for q, docs in prels.items() if any(p.judged for p in docs.values()) and ranking.get(q)}


def test_run_topics_page_and_api_carry_each_topics_estimates(client, api, sampled, alice):
    prels = parse_prels(_prels_text(sampled))
    slug = sampled.collection.slug
    client.force_login(alice)
    api.force_authenticate(alice)
    for tag in RUNS:
        want = per_topic_want(prels, tag)
        url = reverse("evaluation-run-topics", kwargs={"slug": slug, "tag": tag}) + f"?source={token(sampled)}"
        body = client.get(url).content.decode()
        assert body.count('<th class="num estimate"') == 3
        for qid, values in want.items():
            row = re.search(rf'<tr data-qid="{qid}">(.*?)</tr>', body, re.S).group(1)
            cells = re.findall(r'<td class="num estimate">([0-9.]*)</td>', row)
            assert cells == [f"{values[name]:.4f}" for name in ESTIMATES], (tag, qid)
        data = api.get(reverse("api-evaluation-run-topics", kwargs={"slug": slug, "tag": tag}),
                       {"source": token(sampled)}).json()
        got = {t["qid"]: t["estimates"] for t in data["topics"] if t["estimates"] is not None}
        assert got.keys() == want.keys(), tag
        for qid, values in want.items():
            for name in ESTIMATES:
                assert got[qid][name] == pytest.approx(values[name], abs=1e-12)


def test_run_topics_without_a_sample_have_no_estimate_columns(client, api, scored, lead):
    tag = Run.objects.filter(collection=scored).values_list("tag", flat=True).first()
    client.force_login(lead)
    body = client.get(reverse("evaluation-run-topics", kwargs={"slug": scored.slug, "tag": tag})).content.decode()
    assert "estimate" not in body.split('id="run-topics"')[1]
    api.force_authenticate(lead)
    data = api.get(reverse("api-evaluation-run-topics", kwargs={"slug": scored.slug, "tag": tag})).json()
    assert data["topics"] and all(t["estimates"] is None for t in data["topics"])
