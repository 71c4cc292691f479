"""Lead pages work for leads: they show the collection, accept uploads and build pools via jobs."""
from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from collections_app.models import Collection, Job, Membership, Pool, Run
from tests.collections.web_factories import RUN_LINES, seed


@pytest.fixture
def seeded(collection):
    return seed(collection)


@pytest.fixture
def as_lead(client, lead):
    client.force_login(lead)
    return client


def test_home_lists_the_users_collections_with_counts(as_lead, seeded, mallory):
    from tests.conftest import make_collection

    make_collection("secret", lead=mallory)
    page = as_lead.get("/").content.decode()
    assert "/c/demo/" in page and "secret" not in page


def test_home_uses_a_constant_number_of_queries(as_lead, seeded, lead, django_assert_num_queries):
    from tests.conftest import make_collection

    for slug in ("c1", "c2", "c3"):
        make_collection(slug, lead=lead)
    with django_assert_num_queries(4):  # session, user, collections, roles
        assert as_lead.get("/").status_code == 200


def test_overview_shows_topics_runs_pools_qrels_and_members(as_lead, seeded):
    page = as_lead.get("/c/demo/").content.decode()
    for text in ("first topic", "bm25", "p10", "round1", "alice", "/c/demo/upload/runs/"):
        assert text in page


def test_overview_uses_a_constant_number_of_queries(as_lead, seeded, collection, django_assert_max_num_queries):
    for i in range(5):
        Run.objects.create(collection=collection, tag=f"extra{i}", checksum="x")
        Pool.objects.create(collection=collection, name=f"pool{i}", strategy="depth")
    with django_assert_max_num_queries(16):
        assert as_lead.get("/c/demo/").status_code == 200


def test_assessor_sees_no_upload_links(client, alice, seeded):
    client.force_login(alice)
    assert "/c/demo/upload/" not in client.get("/c/demo/").content.decode()


def test_document_text_is_escaped_on_pages(as_lead, seeded):
    seeded["run"].collection.topics.filter(qid="101").update(title="<script>alert(1)</script>")
    page = as_lead.get("/c/demo/").content.decode()
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;" in page


def test_creating_a_collection_through_the_page(client, mallory):
    client.force_login(mallory)
    response = client.post("/collections/new/", {"slug": "fresh", "name": "Fresh", "scale": "binary"})
    assert response.status_code == 302 and response["Location"] == "/c/fresh/"
    assert Collection.objects.get(slug="fresh").memberships.get(user=mallory).role == Membership.Role.LEAD


def test_a_taken_slug_is_shown_as_a_form_error(as_lead, seeded):
    response = as_lead.post("/collections/new/", {"slug": "demo", "scale": "graded"})
    assert response.status_code == 200
    assert "A collection with this slug exists." in response.content.decode()


def test_uploading_a_run_redirects_to_its_job_which_shows_the_summary(as_lead, seeded):
    upload = SimpleUploadedFile("fresh.run", RUN_LINES.replace("bm25", "fresh").encode())
    response = as_lead.post("/c/demo/upload/runs/", {"files": [upload]})
    job = Job.objects.get()
    assert response.status_code == 302 and response["Location"] == f"/c/demo/jobs/{job.pk}/"
    assert job.status == Job.Status.SUCCEEDED
    assert Run.objects.filter(tag="fresh").exists()
    page = as_lead.get(response["Location"]).content.decode()
    assert job.result["summary"] in page


def test_a_bad_upload_shows_readable_problems_and_changes_nothing(as_lead, seeded):
    bad = SimpleUploadedFile("broken.run", b"101 Q0 D1 1 3.0 x\n101 Q0 D2 2\n")
    response = as_lead.post("/c/demo/upload/runs/", {"files": [bad]}, follow=True)
    page = response.content.decode()
    assert "broken.run:2:" in page and "nothing was changed" in page
    assert list(Run.objects.values_list("tag", flat=True)) == ["bm25"]
    assert Job.objects.get().status == Job.Status.FAILED


def test_uploading_topics_through_the_page(as_lead, seeded):
    upload = SimpleUploadedFile("topics.tsv", b"201\tnew topic\n")
    as_lead.post("/c/demo/upload/topics/", {"file": upload})
    assert seeded["run"].collection.topics.filter(qid="201").exists()


def test_an_upload_without_a_file_shows_the_form_error(as_lead, seeded):
    response = as_lead.post("/c/demo/upload/qrels/", {})
    assert response.status_code == 200 and "This field is required." in response.content.decode()
    assert Job.objects.count() == 0


def test_unknown_upload_kind_is_404(as_lead, seeded):
    assert as_lead.get("/c/demo/upload/nonsense/").status_code == 404


def test_building_a_pool_through_the_page(as_lead, seeded):
    response = as_lead.post("/c/demo/pools/new/", {"name": "d2", "strategy": "depth", "depth": 2,
                                                   "fusion": "rrf", "order": "fused", "seed": 0})
    assert response.status_code == 302
    assert Job.objects.get().status == Job.Status.SUCCEEDED, Job.objects.get().errors
    assert Pool.objects.filter(name="d2").exists()


def test_the_pool_form_requires_a_depth_for_depth_pools(as_lead, seeded):
    response = as_lead.post("/c/demo/pools/new/", {"name": "d2", "strategy": "depth", "fusion": "rrf",
                                                   "order": "fused", "seed": 0})
    assert "A depth pool needs a depth." in response.content.decode()
    assert Job.objects.count() == 0


def test_pool_page_shows_per_topic_and_per_run_figures_and_pairs(as_lead, seeded):
    page = as_lead.get("/c/demo/pools/p10/").content.decode()
    assert "Per topic" in page and "Per run" in page and "D3" in page
    filtered = as_lead.get("/c/demo/pools/p10/?qid=101").content.decode()
    assert "D1" in filtered and "<code>D3</code>" not in filtered


def test_missing_pool_and_job_pages_are_404(as_lead, seeded):
    assert as_lead.get("/c/demo/pools/nope/").status_code == 404
    assert as_lead.get("/c/demo/jobs/999/").status_code == 404
    assert as_lead.get("/c/nope/").status_code == 404


def test_lead_deletes_a_run_and_a_pool_through_the_pages(as_lead, seeded):
    as_lead.post("/c/demo/pools/p10/delete/")
    as_lead.post("/c/demo/runs/bm25/delete/")
    assert not Pool.objects.exists() and not Run.objects.exists()


def test_the_page_refuses_to_delete_a_run_of_a_frozen_pool_with_the_services_message(as_lead, seeded):
    Pool.objects.filter(name="p10").update(frozen=True)
    page = as_lead.post("/c/demo/runs/bm25/delete/", follow=True).content.decode()
    assert "Run bm25 contributed to a frozen pool and cannot be deleted." in page
    assert Run.objects.filter(tag="bm25").exists()


def test_lead_adds_a_member_through_the_page(as_lead, seeded, mallory):
    response = as_lead.post("/c/demo/members/", {"username": "mallory", "role": "assessor"})
    assert response.status_code == 302
    assert Membership.objects.get(user=mallory).role == "assessor"


def test_adding_an_unknown_username_shows_an_error(as_lead, seeded):
    response = as_lead.post("/c/demo/members/", {"username": "ghost", "role": "assessor"})
    assert "No user with this username." in response.content.decode()


def test_pool_page_uses_a_constant_number_of_queries(as_lead, seeded, django_assert_max_num_queries):
    with django_assert_max_num_queries(14):
        assert as_lead.get("/c/demo/pools/p10/").status_code == 200


def test_an_unfinished_job_page_polls_the_job_endpoint(as_lead, seeded, collection):
    job = Job.objects.create(collection=collection, kind=Job.Kind.RUNS, progress_done=30, progress_total=120,
                             status=Job.Status.RUNNING)
    page = as_lead.get(f"/c/demo/jobs/{job.pk}/").content.decode()
    assert f'data-url="/api/collections/demo/jobs/{job.pk}/"' in page
    assert "<progress" in page and 'value="25"' in page and "30 / 120" in page


def test_another_collections_job_is_404(as_lead, seeded, mallory):
    from tests.conftest import make_collection

    other = make_collection("other", lead=mallory)
    job = Job.objects.create(collection=other, kind=Job.Kind.RUNS)
    assert as_lead.get(f"/c/demo/jobs/{job.pk}/").status_code == 404
    assert as_lead.get(f"/api/collections/demo/jobs/{job.pk}/").status_code == 404


def test_lead_deepens_a_pool_through_the_page(as_lead, seeded):
    as_lead.post("/c/demo/pools/new/", {"name": "d1", "strategy": "depth", "depth": 1, "fusion": "rrf",
                                        "order": "fused", "seed": 0})
    response = as_lead.post("/c/demo/pools/d1/deepen/", {"depth": 2})
    job = Job.objects.latest("pk")
    assert response["Location"] == f"/c/demo/jobs/{job.pk}/"
    assert job.status == Job.Status.SUCCEEDED, job.errors
    assert Pool.objects.get(name="d1").pairs.count() == 3


def test_a_bad_depth_is_refused_on_the_pool_page(as_lead, seeded):
    response = as_lead.post("/c/demo/pools/p10/deepen/", {"depth": "deep"}, follow=True)
    assert "Give a whole depth" in response.content.decode()
    assert Job.objects.count() == 0
