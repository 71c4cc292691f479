"""build_pool, pool_stats and export_pool through call_command."""
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from collections_app.models import Pool
from tests.collections.test_pool_factories import add_run, bare_collection, ranked


@pytest.fixture
def collection(db):
    collection = bare_collection("cmd")
    add_run(collection, "a", {"1": ranked("d1", "d2", "d3"), "2": ranked("e1", "e2")}, group="g")
    add_run(collection, "b", {"1": ranked("d3", "d4", "d1"), "10": ranked("f1")}, group="g")
    return collection


def run(*args):
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue()


def test_build_pool_prints_a_one_line_summary(collection):
    out = run("build_pool", "cmd", "--strategy", "depth", "--depth", "1", "--name", "p1")
    assert out.strip() == "pool p1: 4 pairs over 3 topics from 2 runs (depth)"
    assert Pool.objects.get(name="p1").parameters["depth"] == 1


def test_export_pool_prints_exactly_one_qid_tab_docno_line_per_pair_in_judging_order(collection):
    run("build_pool", "cmd", "--strategy", "depth", "--depth", "2", "--name", "p2")
    # topic 1 RRF at depth 2: d1 1/61 (a), d3 1/61 (b), d2 1/62, d4 1/62 -> ties by docno descending
    assert run("export_pool", "cmd", "p2") == "1\td3\n1\td1\n1\td4\n1\td2\n2\te1\n2\te2\n10\tf1\n"


def test_build_pool_options_reach_the_service(collection):
    run("build_pool", "cmd", "--strategy", "fusion", "--budget", "1", "--fusion", "borda", "--order", "random",
        "--seed", "5", "--runs", "a", "--include-judged", "--name", "f")
    pool = Pool.objects.get(name="f")
    assert pool.strategy == "fusion" and pool.parameters["fusion"] == "borda"
    assert pool.parameters["run_tags"] == ["a"] and pool.parameters["exclude_judged"] is False
    assert pool.parameters["seed"] == 5 and pool.parameters["order"] == "random"
    assert run("export_pool", "cmd", "f") == "1\td1\n2\te1\n"


def test_build_pool_deepen_appends_new_pairs(collection):
    run("build_pool", "cmd", "--depth", "1", "--name", "p")
    first = run("export_pool", "cmd", "p")
    out = run("build_pool", "cmd", "--depth", "3", "--name", "p", "--deepen")
    assert out.strip() == "pool p: deepened to depth 3, 3 pairs added, 7 pairs"
    assert run("export_pool", "cmd", "p").startswith(first)


def test_max_runs_per_group_keeps_the_first_tag(collection):
    run("build_pool", "cmd", "--depth", "1", "--name", "cap", "--max-runs-per-group", "1")
    assert list(Pool.objects.get(name="cap").runs.values_list("tag", flat=True)) == ["a"]


def test_pool_stats_prints_a_table(collection):
    run("build_pool", "cmd", "--depth", "2", "--name", "p")
    out = run("pool_stats", "cmd", "p", "--overlap")
    lines = out.splitlines()
    assert lines[0] == "pool p (depth): 7 pairs, 3 topics, 2 runs"
    assert any(line.split() == ["1", "4", "–"] for line in lines)
    # a: d1 d2 (topic 1), e1 e2 (topic 2), none shared with b's d3 d4 f1 at depth 2
    assert any(line.split() == ["a", "4", "4", "–"] for line in lines)
    assert any(line.split() == ["b", "3", "3", "–"] for line in lines)
    assert "jaccard" in out


@pytest.mark.parametrize("args, message", [
    (["build_pool", "nope", "--depth", "1", "--name", "x"], "No collection"),
    (["build_pool", "cmd", "--name", "x"], "needs a depth"),
    (["build_pool", "cmd", "--depth", "1", "--name", "x", "--runs", "zzz"], "zzz"),
    (["export_pool", "cmd", "missing"], "No pool"),
    (["pool_stats", "cmd", "missing"], "No pool"),
    (["build_pool", "cmd", "--depth", "2", "--name", "missing", "--deepen"], "No pool"),
])
def test_commands_fail_with_a_readable_error(collection, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


@pytest.mark.parametrize("command, option", [
    ("build_pool", "--max-runs-per-group"), ("pool_stats", "--overlap"), ("export_pool", "name"),
])
def test_commands_have_help(command, option, capsys):
    with pytest.raises(SystemExit):
        call_command(command, "--help")
    assert option in capsys.readouterr().out
