"""``manage.py evaluate <slug> [--qrels-version N | --qrels-set NAME | --campaign ID --rule R] [-m M]... [-q] [--run TAG]...``

Scores the collection's stored runs and prints trec_eval's format (metrics.cli's formatter),
one block per run in tag order. Relevance threshold: the collection's.

When the labels are a sampled campaign's (live, or a version frozen from one), each run's block
is followed by the estimates ``infAP``, ``xinfAP`` and ``infNDCG_cut_10`` in the same format
(per topic too with ``-q``), and a note with the sample's size goes to stderr;
``--no-estimates`` prints the plain block only.
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from collections_app.management.commands._importing import get_collection
from collections_app.models import Collection, QrelsSet
from evaluation.estimates import ESTIMATE_NAMES, SampleEstimates
from evaluation.leaderboard import REQUESTS, score_runs
from evaluation.runs import collection_runs
from evaluation.selectors import estimates_from_prels
from evaluation.sources import QrelsCache, parse_source
from judging.services.qrels import RULES
from metrics import MetricsInputError
from metrics.cli import format_trec


class Command(BaseCommand):
    help = "Score a collection's runs against its qrels and print trec_eval-style output."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        which = parser.add_mutually_exclusive_group()
        which.add_argument("--qrels-version", type=int, metavar="N", help="a frozen qrels version number")
        which.add_argument("--qrels-set", metavar="NAME", help="an imported qrels set by name")
        which.add_argument("--campaign", type=int, metavar="ID", help="live final labels of a campaign (with --rule)")
        parser.add_argument("--rule", choices=RULES, default="majority", help="final-label rule for --campaign")
        parser.add_argument("-m", action="append", dest="measures", metavar="MEASURE",
                            help="trec_eval measure (repeatable); default: the leaderboard's six")
        parser.add_argument("-q", action="store_true", dest="per_topic", help="print per-topic values too")
        parser.add_argument("--run", action="append", dest="runs", metavar="TAG", help="only this run (repeatable)")
        parser.add_argument("--no-estimates", action="store_true",
                            help="for a sampled campaign's labels, leave out the infAP/xinfAP/infNDCG_cut_10 estimates")

    def handle(self, *args, **options):
        collection = get_collection(options["slug"])
        token = self._token(collection, options)
        try:
            source = parse_source(collection, token)
        except ValidationError as exc:
            raise CommandError(exc.messages[0]) from None
        if source is None:
            raise CommandError("The collection has no qrels: import a set, freeze a version or start a campaign.")
        runs = collection_runs(collection, tags=options["runs"])
        if options["runs"]:
            missing = sorted(set(options["runs"]) - {r.tag for r in runs})
            if missing:
                raise CommandError(f"No run(s) {', '.join(missing)} in the collection.")
        qrels_cache = QrelsCache(collection)
        try:
            results = score_runs(qrels_cache.qrels(source), runs,
                                 relevance_level=collection.relevant_threshold,
                                 measures=options["measures"] or list(REQUESTS))
            estimates = None if options["no_estimates"] else self._estimates(collection, source, qrels_cache,
                                                                             options["runs"])
        except (MetricsInputError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        for result in results:
            self.stdout.write(format_trec(result, per_topic=options["per_topic"]), ending="")
            if estimates is not None:
                self.stdout.write(self._estimate_lines(estimates, result.tag, per_topic=options["per_topic"]),
                                  ending="")

    def _estimates(self, collection, source, qrels_cache, tags) -> SampleEstimates | None:
        """Return the sampled campaign's estimates of the runs (None for other sources), noting the sample on stderr."""
        try:
            prels = qrels_cache.prels(source)
        except ValidationError as exc:
            raise CommandError(exc.messages[0]) from None
        if prels is None:
            return None
        self.stderr.write(
            f"Sampled pool: infAP, xinfAP and infNDCG_cut_10 are estimates from {prels.judged} judged of "
            f"{prels.sampled} sampled documents ({prels.pooled} pooled, {prels.topics} topics); the plain measures "
            "count undrawn and unjudged pooled documents as not relevant.")
        return estimates_from_prels(collection, prels, tags=tags)

    @staticmethod
    def _estimate_lines(estimates: SampleEstimates, tag: str, *, per_topic: bool) -> str:
        """Return a run's estimates in trec_eval's line format, per topic first with -q."""
        run = estimates.runs[tag]
        lines = []
        if per_topic:
            lines += [f"{name:<22}\t{qid}\t{values[name]:.4f}" for qid, values in run.per_topic.items()
                      for name in ESTIMATE_NAMES]
        lines += [f"{name:<22}\tall\t{run.scores[name]:.4f}" for name in ESTIMATE_NAMES]
        return "\n".join(lines) + "\n"

    @staticmethod
    def _token(collection: Collection, options: dict) -> str | None:
        if options["qrels_version"] is not None:
            return f"version:{options['qrels_version']}"
        if options["qrels_set"]:
            pk = QrelsSet.objects.filter(collection=collection, name=options["qrels_set"]).values_list("pk", flat=True).first()
            if pk is None:
                raise CommandError(f"No qrels set {options['qrels_set']!r} in the collection.")
            return f"set:{pk}"
        if options["campaign"] is not None:
            return f"campaign:{options['campaign']}:{options['rule']}"
        return None
