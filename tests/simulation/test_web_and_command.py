"""Planner page (permissions, job, table, escaped plots), report formats and the simulate_judging command."""
import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from collections_app.models import Job
from collections_app.simulation import report as report_mod
from collections_app.simulation.engine import Point, Report, simulate

from .conftest import QRELS, RANKINGS

FORM = {"qrels_set": "complete", "strategies": ["depth", "roundrobin", "sample"], "budgets": "1,3",
        "depths": "1,2,4", "sample_rates": "0.5", "max_depth": "4", "seed": "0"}


def _url(slug="demo"):
    return reverse("planner", kwargs={"slug": slug})


@pytest.mark.django_db
def test_lead_starts_a_simulation_and_sees_table_and_plots(client, lead, stored):
    client.force_login(lead)
    assert client.get(_url()).status_code == 200
    response = client.post(_url(), FORM)
    job = Job.objects.get(collection=stored, kind="simulate")
    assert response.status_code == 302 and response["Location"] == f"{_url()}?job={job.pk}"
    job.refresh_from_db()
    assert job.status == Job.Status.SUCCEEDED and job.created_by == lead
    depth2 = next(p for p in job.result["points"] if p["strategy"] == "depth" and p["setting"] == "k=2")
    assert (depth2["judgments"], depth2["relevant"]) == (7, 2)
    page = client.get(response["Location"]).content.decode()
    assert page.count("<svg") == 2 and "Relevant documents found vs judgments" in page
    assert "<td>k=2</td><td>7</td><td>2</td>" in page.replace("\n", "")


@pytest.mark.django_db
def test_a_failed_simulation_shows_its_problem(client, lead, stored):
    client.force_login(lead)
    client.post(_url(), {**FORM, "depths": "1", "budgets": "1", "strategies": ["depth"], "max_depth": "1"})
    job = Job.objects.get(kind="simulate")
    job.parameters["qrels_set"] = "gone"
    job.save()
    from collections_app.simulation.tasks import planner_job
    planner_job.call(job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.FAILED and "No qrels set" in job.errors[0]
    assert "No qrels set named" in client.get(f"{_url()}?job={job.pk}").content.decode()


@pytest.mark.django_db
def test_invalid_form_starts_nothing(client, lead, stored):
    client.force_login(lead)
    response = client.post(_url(), {**FORM, "budgets": "ten"})
    assert response.status_code == 200 and "comma-separated" in response.content.decode()
    assert not Job.objects.filter(kind="simulate").exists()


@pytest.mark.django_db
@pytest.mark.parametrize("who, status", [("alice", 403), ("mallory", 404)])
def test_assessors_and_outsiders_cannot_open_or_start_the_planner(client, who, status, stored, request):
    client.force_login(request.getfixturevalue(who))
    assert client.get(_url()).status_code == status
    assert client.post(_url(), FORM).status_code == status
    assert not Job.objects.filter(kind="simulate").exists()


@pytest.mark.django_db
def test_anonymous_is_sent_to_login(client, stored):
    response = client.get(_url())
    assert response.status_code == 302 and "login" in response["Location"]
    client.post(_url(), FORM)
    assert not Job.objects.filter(kind="simulate").exists()


@pytest.mark.django_db
def test_missing_collection_and_foreign_job_are_404(client, lead, stored):
    client.force_login(lead)
    assert client.get(_url("nope")).status_code == 404
    assert client.get(f"{_url()}?job=999999").status_code == 404
    other = Job.objects.create(collection=stored, kind="pool")
    assert client.get(f"{_url()}?job={other.pk}").status_code == 404


def test_plots_escape_strategy_names():
    point = Point("<script>x</script>", "B=1", 1, 1, 1.0, 1.0, 1.0, {"a": 0.1}, {"a": 0.1})
    rep = Report([point], {"<script>x</script>": [(1, 1)]}, {"a": 0.1}, {"a": 0.1}, 1, 1, 1, 0)
    for svg in (report_mod.discovery_svg(rep), report_mod.tau_svg(rep)):
        assert "<script>" not in svg and "&lt;script&gt;" in svg


def test_table_csv_and_json_hold_the_same_numbers():
    rep = simulate(RANKINGS, QRELS, strategies=["depth"], depths=[1, 2], max_depth=4)
    table = report_mod.as_table(rep)
    assert "2 topics, 2 runs, 3 findable relevant, seed 0" in table
    rows = list(csv.DictReader(io.StringIO(report_mod.as_csv(rep))))
    assert [(r["setting"], r["judgments"], r["relevant"]) for r in rows] == [("k=1", "4", "1"), ("k=2", "7", "2")]
    assert float(rows[1]["map:A"]) == pytest.approx(0.5)
    data = json.loads(report_mod.as_json(rep))
    assert data["points"][1]["map"]["B"] == pytest.approx(5 / 12)


@pytest.mark.django_db
def test_command_prints_table_json_and_csv(stored):
    out = io.StringIO()
    call_command("simulate_judging", "demo", "--qrels-set", "complete", "--strategy", "depth",
                 "--depths", "1,2,4", "--max-depth", "4", stdout=out)
    text = out.getvalue()
    rows = [line.split() for line in text.splitlines()[2:5]]
    assert [r[:4] for r in rows] == [["depth", "k=1", "4", "1"], ["depth", "k=2", "7", "2"], ["depth", "k=4", "9", "3"]]
    assert text.rstrip().endswith("simulated 3 points over 2 topics")
    out = io.StringIO()
    call_command("simulate_judging", "demo", "--qrels-set", "complete", "--strategy", "roundrobin",
                 "--budgets", "3", "--max-depth", "4", "--format", "json", stdout=out)
    point = json.loads(out.getvalue())["points"][0]
    assert (point["judgments"], point["relevant"]) == (6, 2)
    out = io.StringIO()
    call_command("simulate_judging", "demo", "--qrels-set", "complete", "--strategy", "depth", "--depths", "1",
                 "--format", "csv", stdout=out)
    assert out.getvalue().splitlines()[1].startswith("depth,k=1,4,1,")


@pytest.mark.django_db
def test_command_same_seed_same_output(stored):
    def run(seed):
        out = io.StringIO()
        call_command("simulate_judging", "demo", "--qrels-set", "complete", "--seed", str(seed), "--max-depth", "4",
                     "--budgets", "1,2", "--format", "json", stdout=out)
        return out.getvalue()
    assert run(5) == run(5)


@pytest.mark.django_db
@pytest.mark.parametrize("args, message", [
    (["nope", "--qrels-set", "complete"], "No collection"),
    (["demo", "--qrels-set", "missing"], "No qrels set"),
    (["demo", "--qrels-set", "complete", "--strategy", "bogus"], "unknown strategy"),
])
def test_command_errors_are_readable(stored, args, message):
    with pytest.raises(CommandError, match=message):
        call_command("simulate_judging", *args, stdout=io.StringIO())
