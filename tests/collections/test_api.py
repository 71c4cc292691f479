"""The collections API does what it says for leads: reads, writes, uploads as jobs, errors."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from collections_app.models import Collection, Job, Membership, Pool, PoolPair, Run
from tests.collections.web_factories import RUN_LINES, seed


@pytest.fixture
def seeded(collection):
    return seed(collection)


@pytest.fixture
def api(lead):
    client = APIClient()
    client.force_authenticate(lead)
    return client


def test_collections_list_shows_only_the_users_collections_with_their_role(api, seeded, mallory):
    from tests.conftest import make_collection

    make_collection("secret", lead=mallory)
    body = api.get("/api/collections/").json()
    assert [row["slug"] for row in body["results"]] == ["demo"]
    assert body["results"][0]["role"] == "lead"


def test_token_authentication_works(lead, seeded):
    token = Token.objects.create(user=lead)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert client.get("/api/collections/demo/").status_code == 200


def test_creating_a_collection_makes_the_creator_its_lead(mallory):
    client = APIClient()
    client.force_authenticate(mallory)
    response = client.post("/api/collections/", {"slug": "mine", "name": "Mine", "scale": "binary"}, format="json")
    assert response.status_code == 201, response.json()
    collection = Collection.objects.get(slug="mine")
    assert collection.memberships.get(user=mallory).role == Membership.Role.LEAD
    assert [grade["grade"] for grade in collection.scale] == [0, 1]
    assert response.json()["role"] == "lead"


def test_creating_a_collection_with_a_taken_slug_is_refused(api, seeded):
    response = api.post("/api/collections/", {"slug": "demo"}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "slug_taken"
    assert Collection.objects.count() == 1


def test_lead_updates_the_collection(api, seeded):
    response = api.patch("/api/collections/demo/", {"guidelines": "Be strict."}, format="json")
    assert response.status_code == 200
    collection = seeded["run"].collection
    collection.refresh_from_db()
    assert collection.guidelines == "Be strict."


def test_lead_adds_a_member(api, seeded, mallory):
    response = api.post("/api/collections/demo/members/", {"username": "mallory", "role": "assessor"}, format="json")
    assert response.status_code == 200
    assert Membership.objects.get(user=mallory).role == "assessor"


def test_adding_an_unknown_user_is_refused(api, seeded):
    response = api.post("/api/collections/demo/members/", {"username": "nobody", "role": "assessor"}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "unknown_user"


def test_documents_filter_by_docno_search_and_pooled_topic(api, seeded):
    def docnos(query):
        return [row["docno"] for row in api.get(f"/api/collections/demo/documents/?{query}").json()["results"]]

    assert docnos("") == ["D1", "D2", "D3"]
    assert docnos("docno=D2") == ["D2"]
    assert docnos("search=text 3") == ["D3"]
    assert docnos("qid=101") == ["D1", "D2"]


def test_document_text_is_returned_verbatim(api, seeded):
    assert api.get("/api/collections/demo/documents/D1/").json()["text"] == "text 1 <b>x</b>"


@pytest.mark.parametrize("url", [
    "/api/collections/nope/", "/api/collections/demo/documents/NOPE/", "/api/collections/demo/runs/nope/",
    "/api/collections/demo/pools/nope/", "/api/collections/demo/pools/nope/pairs/",
    "/api/collections/demo/pools/nope/stats/", "/api/collections/demo/jobs/999/",
])
def test_missing_objects_are_404_with_the_error_shape(api, seeded, url):
    response = api.get(url)
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_pool_pairs_come_in_judging_order_and_filter_by_topic(api, seeded):
    rows = api.get("/api/collections/demo/pools/p10/pairs/").json()["results"]
    assert [(row["judging_order"], row["qid"], row["docno"]) for row in rows] == [
        (1, "101", "D1"), (2, "101", "D2"), (3, "102", "D3")]
    rows = api.get("/api/collections/demo/pools/p10/pairs/?qid=102").json()["results"]
    assert [row["docno"] for row in rows] == ["D3"]


def test_pool_detail_counts_its_pairs_and_names_its_runs(api, seeded):
    body = api.get("/api/collections/demo/pools/p10/").json()
    assert body["num_pairs"] == 3 and body["runs"] == ["bm25"] and body["frozen"] is False


def test_lead_deletes_a_run(api, seeded):
    assert api.delete("/api/collections/demo/runs/bm25/").status_code == 204
    assert not Run.objects.filter(tag="bm25").exists()


def test_a_run_of_a_frozen_pool_cannot_be_deleted(api, seeded):
    Pool.objects.filter(name="p10").update(frozen=True)
    response = api.delete("/api/collections/demo/runs/bm25/")
    assert response.status_code == 400
    assert response.json() == {"detail": "Run bm25 contributed to a frozen pool and cannot be deleted.",
                               "code": "run_in_frozen_pool"}
    assert Run.objects.filter(tag="bm25").exists()


def test_lead_deletes_a_pool_that_is_not_frozen(api, seeded):
    assert api.delete("/api/collections/demo/pools/p10/").status_code == 204
    assert not Pool.objects.filter(name="p10").exists()
    assert not PoolPair.objects.exists()


def test_a_frozen_pool_cannot_be_deleted(api, seeded):
    Pool.objects.filter(name="p10").update(frozen=True)
    response = api.delete("/api/collections/demo/pools/p10/")
    assert response.status_code == 400
    assert Pool.objects.filter(name="p10").exists()
    assert PoolPair.objects.count() == 3


def test_pool_stats_reports_sizes_per_topic_and_run(api, seeded):
    body = api.get("/api/collections/demo/pools/p10/stats/").json()
    assert body["pairs"] == 3
    assert {row["qid"]: row["pairs"] for row in body["topics"]} == {"101": 2, "102": 1}
    assert body["runs"][0]["tag"] == "bm25"


def test_uploading_runs_starts_a_job_that_imports_them(api, seeded):
    files = [SimpleUploadedFile("new.run", RUN_LINES.replace("bm25", "new").encode())]
    response = api.post("/api/collections/demo/runs/", {"files": files, "group": "g2"}, format="multipart")
    assert response.status_code == 202
    body = response.json()
    assert body["kind"] == "runs" and body["status"] == "succeeded", body
    assert body["file_names"] == ["new.run"]
    run = Run.objects.get(tag="new")
    assert run.group == "g2" and run.num_lines == 3
    assert api.get(f"/api/collections/demo/jobs/{body['id']}/").json()["status"] == "succeeded"


def test_a_bad_run_file_ends_in_a_failed_job_listing_file_and_line(api, seeded):
    bad = SimpleUploadedFile("bad.run", b"101 Q0 D1 1 3.0 other\n101 Q0 D2 2 notascore other\n")
    body = api.post("/api/collections/demo/runs/", {"files": [bad]}, format="multipart").json()
    assert body["status"] == "failed"
    assert any(error.startswith("bad.run:2:") for error in body["errors"]), body["errors"]
    assert not Run.objects.filter(tag="other").exists()


def test_building_a_pool_starts_a_job_that_builds_it(api, seeded):
    response = api.post("/api/collections/demo/pools/", {"name": "d1", "strategy": "depth", "depth": 1}, format="json")
    assert response.status_code == 202
    body = response.json()
    assert body["status"] == "succeeded", body
    pool = Pool.objects.get(name="d1")
    assert body["result"]["pool_name"] == "d1" and body["result"]["pairs"] == pool.pairs.count() > 0


def test_pool_build_parameters_are_validated_before_a_job_starts(api, seeded):
    response = api.post("/api/collections/demo/pools/", {"name": "d1", "strategy": "depth"}, format="json")
    assert response.status_code == 400
    assert response.json()["code"] == "depth_required"
    assert Job.objects.count() == 0


def test_a_pool_build_the_service_refuses_fails_with_its_reason(api, seeded):
    body = api.post("/api/collections/demo/pools/", {"name": "p10", "strategy": "depth", "depth": 3},
                    format="json").json()
    assert body["status"] == "failed" and body["errors"]
    assert Pool.objects.filter(name="p10").get().parameters == {"depth": 10}


def test_jobs_list_is_newest_first(api, seeded):
    for name in ("a", "b"):
        api.post("/api/collections/demo/pools/", {"name": name, "strategy": "depth", "depth": 1}, format="json")
    rows = api.get("/api/collections/demo/jobs/").json()["results"]
    assert [row["parameters"]["name"] for row in rows] == ["b", "a"]


def test_list_endpoints_use_a_constant_number_of_queries(api, seeded, django_assert_max_num_queries):
    for url in ("/api/collections/", "/api/collections/demo/runs/", "/api/collections/demo/pools/",
                "/api/collections/demo/pools/p10/pairs/", "/api/collections/demo/documents/"):
        with django_assert_max_num_queries(8):
            assert api.get(url).status_code == 200


def test_openapi_schema_generates_without_warnings():
    from drf_spectacular.drainage import GENERATOR_STATS
    from drf_spectacular.generators import SchemaGenerator

    GENERATOR_STATS.reset()
    schema = SchemaGenerator().get_schema(request=None, public=True)
    assert "/api/collections/{slug}/pools/{name}/pairs/" in schema["paths"]
    assert not GENERATOR_STATS._warn_cache and not GENERATOR_STATS._error_cache


def test_several_run_files_and_gzip_are_imported_in_one_job(api, seeded):
    import gzip

    files = [SimpleUploadedFile("a.run", RUN_LINES.replace("bm25", "a").encode()),
             SimpleUploadedFile("b.run.gz", gzip.compress(RUN_LINES.replace("bm25", "b").encode()))]
    body = api.post("/api/collections/demo/runs/", {"files": files}, format="multipart").json()
    assert body["status"] == "succeeded", body["errors"]
    assert body["file_names"] == ["a.run", "b.run.gz"]
    assert set(Run.objects.values_list("tag", flat=True)) == {"bm25", "a", "b"}


def test_reuploading_a_run_tag_is_refused_unless_replacing(api, seeded):
    def upload(**extra):
        files = [SimpleUploadedFile("again.run", RUN_LINES.replace("D2", "D3").encode())]
        return api.post("/api/collections/demo/runs/", {"files": files, **extra}, format="multipart").json()

    refused = upload()
    assert refused["status"] == "failed" and refused["errors"]
    run = Run.objects.get(tag="bm25")
    checksum = run.checksum
    assert upload(replace=True)["status"] == "succeeded"
    run = Run.objects.get(tag="bm25")
    assert run.checksum != checksum


def test_uploading_without_files_is_a_validation_error(api, seeded):
    response = api.post("/api/collections/demo/runs/", {}, format="multipart")
    assert response.status_code == 400 and response.json()["code"] == "required"
    assert Job.objects.count() == 0


def test_uploading_topics_and_qrels_through_the_api(api, seeded):
    topics = SimpleUploadedFile("more.tsv", b"301\tthird topic\n")
    assert api.post("/api/collections/demo/topics/", {"file": topics}, format="multipart").json()["status"] == "succeeded"
    qrels = SimpleUploadedFile("r2.qrels", b"301 0 D1 2\n")
    body = api.post("/api/collections/demo/qrels/", {"file": qrels, "name": "round2"}, format="multipart").json()
    assert body["status"] == "succeeded", body["errors"]
    names = [row["name"] for row in api.get("/api/collections/demo/qrels/").json()["results"]]
    assert names == ["round1", "round2"]


def test_deepening_a_pool_adds_only_the_new_pairs(api, seeded):
    api.post("/api/collections/demo/pools/", {"name": "d1", "strategy": "depth", "depth": 1}, format="json")
    pool = Pool.objects.get(name="d1")
    before = {(pair.topic.qid, pair.docno): pair.judging_order for pair in pool.pairs.select_related("topic")}
    body = api.post("/api/collections/demo/pools/d1/deepen/", {"depth": 2}, format="json").json()
    assert body["status"] == "succeeded", body["errors"]
    after = {(pair.topic.qid, pair.docno): pair.judging_order for pair in pool.pairs.select_related("topic")}
    assert set(after) == set(before) | {("101", "D2")}
    assert all(after[key] == order for key, order in before.items())


def test_deepening_a_frozen_pool_fails_and_changes_nothing(api, seeded):
    Pool.objects.filter(name="p10").update(frozen=True)
    body = api.post("/api/collections/demo/pools/p10/deepen/", {"depth": 20}, format="json").json()
    assert body["status"] == "failed" and body["error_code"] == "frozen"
    assert PoolPair.objects.filter(pool__name="p10").count() == 3


def test_deepening_a_missing_pool_is_404(api, seeded):
    assert api.post("/api/collections/demo/pools/nope/deepen/", {"depth": 2}, format="json").status_code == 404
    assert Job.objects.count() == 0
