"""A small hand-made sampled pool and a campaign judging it, shared by the prels and estimate tests.

Two topics, "7" and "12" (so string order, "12" < "7", shows in the prels), three runs; the
pool is built by the real service from ``runA`` and ``runB`` with strata ``2:1,6:0.5`` (ranks
1-2 judged fully, ranks 3-6 half) and seed 0; ``runC`` did not contribute to the pool.

Bands by best rank over runA and runB:

- topic 7: 1-2 = {d01, d02, d07} (prob 1); 3-6 = {d03, d04, d05, d06, d08, d09}, 3 of 6 drawn
  (prob 0.5).
- topic 12: 1-2 = {e1, e2, e7} (prob 1); 3-6 = {e3, e4, e5, e6, e8}, round(2.5) = 2 of 5
  drawn (prob 0.4).

The seeded draw picks d05, d06, d08 and e4, e6 in the 3-6 bands (``DRAWN``; the pool test
checks the stored pairs against it). ``LABELS`` is what the campaign's assessor gives (one label
each, so every rule agrees); d06 and e2 are drawn but left unjudged.
"""
from __future__ import annotations

from collections_app.models import QrelsEntry, QrelsSet, Topic
from collections_app.services.imports import runs_import
from collections_app.services.pools import pool_build
from judging.models import Assessor, Item
from judging.plan import CampaignPlan
from judging.services.campaigns import campaign_create
from judging.services.judgments import judgment_submit

RUNS = {
    "runA": {"7": ["d01", "d02", "d03", "d04", "d05", "d06"], "12": ["e1", "e2", "e3", "e4", "e5", "e6"]},
    "runB": {"7": ["d02", "d07", "d03", "d08", "d09", "d01"], "12": ["e1", "e7", "e8", "e3"]},
    "runC": {"7": ["d09", "d10", "d04", "d01", "d03", "d06", "d05"]},
}
STRATA = "2:1,6:0.5"
DRAWN = {"7": {"d01", "d02", "d07", "d05", "d06", "d08"}, "12": {"e1", "e2", "e7", "e4", "e6"}}
LABELS = {("7", "d01"): 2, ("7", "d02"): 0, ("7", "d07"): 1, ("7", "d05"): 1, ("7", "d08"): 0,
          ("12", "e1"): 0, ("12", "e7"): 3, ("12", "e4"): 1, ("12", "e6"): 0}

# Written by hand from the bands, DRAWN and LABELS (sorted by qid as strings, then docno).
PRELS_TEXT = """\
12 e1 0 1-2 1
12 e2 -1 1-2 1
12 e3 -1 3-6 0.4
12 e4 1 3-6 0.4
12 e5 -1 3-6 0.4
12 e6 0 3-6 0.4
12 e7 3 1-2 1
12 e8 -1 3-6 0.4
7 d01 2 1-2 1
7 d02 0 1-2 1
7 d03 -1 3-6 0.5
7 d04 -1 3-6 0.5
7 d05 1 3-6 0.5
7 d06 -1 3-6 0.5
7 d07 1 1-2 1
7 d08 0 3-6 0.5
7 d09 -1 3-6 0.5
"""


def write_run(path, tag: str, ranking: dict[str, list[str]]):
    path.write_text("".join(f"{qid} Q0 {docno} {rank} {100 - rank} {tag}\n"
                            for qid, docnos in ranking.items() for rank, docno in enumerate(docnos, 1)))
    return path


def build_sampled_case(collection, *, lead, assessors, tmp_path, labels=LABELS, name: str = "sampled",
                       imported: dict[tuple[str, str], int] | None = None, exclude_judged: bool = True,
                       **campaign_options):
    """Import the runs, build the sampled pool, start a campaign on it and record ``labels``; return the campaign.

    ``imported`` ({(qid, docno): grade}) becomes an imported qrels set "prior" before the pool is built.
    """
    topics = {qid: Topic.objects.get_or_create(collection=collection, qid=qid, defaults={"title": f"topic {qid}"})[0]
              for qid in ("7", "12")}
    runs_import(collection=collection, sources=[write_run(tmp_path / f"{tag}.run", tag, ranking)
                                                for tag, ranking in RUNS.items()])
    if imported:
        prior = QrelsSet.objects.create(collection=collection, name="prior", checksum="0" * 64,
                                        num_judgments=len(imported))
        QrelsEntry.objects.bulk_create(QrelsEntry(qrels_set=prior, topic=topics[qid], docno=docno, grade=grade)
                                       for (qid, docno), grade in imported.items())
        campaign_options = {k: (prior if v == "prior" else v) for k, v in campaign_options.items()}
    pool = pool_build(collection=collection, name=name, strategy="sample", strata=STRATA, seed=0,
                      run_tags=["runA", "runB"], exclude_judged=exclude_judged)
    campaign = campaign_create(collection=collection, pool=pool, name=name, created_by=lead, assessors=list(assessors),
                               plan=CampaignPlan.of(**campaign_options))
    assessor = Assessor.objects.get(campaign=campaign, user=assessors[0])
    items = {(i.pair.topic.qid, i.pair.docno): i for i in Item.objects.filter(campaign=campaign)
             .select_related("pair__topic")}
    for n, (key, grade) in enumerate(sorted(labels.items()), start=1):
        judgment_submit(assessor=assessor, item=items[key], grade=grade, active_seconds=5.0,
                        client_token=f"{name}-{n}")
    return campaign
