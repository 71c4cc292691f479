"""``manage.py evaluate`` prints exactly what ``python -m metrics`` prints for the same qrels and runs."""
from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from evaluation.leaderboard import REQUESTS
from metrics import cli
from tests.evaluation.conftest import QRELS, RUNS, write_qrels, write_run

pytestmark = pytest.mark.django_db


def reference(tmp_path, capsys, args, tags=None):
    qrels = write_qrels(tmp_path / "ref.qrels", QRELS)
    runs = [str(write_run(tmp_path / f"ref-{t}.run", t, RUNS[t])) for t in sorted(tags or RUNS)]
    capsys.readouterr()
    assert cli.main([*args, "-l", "1", str(qrels), *runs]) == 0
    return capsys.readouterr().out


def command(*args):
    out = io.StringIO()
    call_command("evaluate", *args, stdout=out)
    return out.getvalue()


def test_default_measures_match_the_metrics_cli(scored, tmp_path, capsys):
    got = command(scored.slug, "--qrels-set", "official")
    want = reference(tmp_path, capsys, [f"-m{m}" for m in REQUESTS])
    assert got == want
    assert got.count("runid") == 4 and "map                   \tall\t" in got


def test_per_topic_chosen_measures_and_runs(scored, tmp_path, capsys):
    got = command(scored.slug, "-q", "-m", "P.5", "-m", "recip_rank", "--run", "dense", "--run", "bm25")
    want = reference(tmp_path, capsys, ["-q", "-mP.5", "-mrecip_rank"], tags=["bm25", "dense"])
    assert got == want
    assert "P_5                   \t401\t" in got


def test_errors(scored):
    with pytest.raises(CommandError, match="No collection"):
        command("nope")
    with pytest.raises(CommandError, match="No qrels set"):
        command(scored.slug, "--qrels-set", "missing")
    with pytest.raises(CommandError, match="No qrels source"):
        command(scored.slug, "--qrels-version", "7")
    with pytest.raises(CommandError, match="No run"):
        command(scored.slug, "--run", "ghost")
    with pytest.raises(CommandError):
        command(scored.slug, "-m", "not_a_measure")
