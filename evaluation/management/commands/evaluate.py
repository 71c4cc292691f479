"""``manage.py evaluate <slug> [--qrels-version N | --qrels-set NAME | --campaign ID --rule R] [-m M]... [-q] [--run TAG]...``

Scores the collection's stored runs and prints trec_eval's format (metrics.cli's formatter),
one block per run in tag order. Relevance threshold: the collection's.
"""
from __future__ import annotations

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from collections_app.models import Collection, QrelsSet
from evaluation.leaderboard import REQUESTS, score_runs
from evaluation.runs import collection_runs
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

    def handle(self, *args, **options):
        try:
            collection = Collection.objects.get(slug=options["slug"])
        except Collection.DoesNotExist:
            raise CommandError(f"No collection {options['slug']!r}.") from None
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
        try:
            results = score_runs(QrelsCache(collection).qrels(source), runs,
                                 relevance_level=collection.relevant_threshold,
                                 measures=options["measures"] or list(REQUESTS))
        except (MetricsInputError, ValueError) as exc:
            raise CommandError(str(exc)) from None
        for result in results:
            self.stdout.write(format_trec(result, per_topic=options["per_topic"]), ending="")

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
