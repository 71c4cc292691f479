from django.core.management.base import BaseCommand, CommandError

from collections_app.management.commands._importing import get_collection, refusals_as_command_errors
from collections_app.models import QrelsSet
from collections_app.services.pools import pool_from_pairs


class Command(BaseCommand):
    help = ("Create a pool from a list of pairs: 'qid docno [order]' lines, or TREC qrels lines (labels ignored); "
            "or from an imported qrels set with --from-qrels NAME instead of FILE.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file", nargs="?", default=None)
        parser.add_argument("--name", required=True, help="Pool name (unique in the collection).")
        parser.add_argument("--from-qrels", default=None, metavar="QRELS_NAME",
                            help="Pool every pair of this imported qrels set (instead of a file).")

    def handle(self, *args, slug, file, name, from_qrels, **options):
        collection = get_collection(slug)
        qrels_set = None
        if from_qrels is not None:
            qrels_set = QrelsSet.objects.filter(collection=collection, name=from_qrels).first()
            if qrels_set is None:
                raise CommandError(f"No qrels set named {from_qrels!r} in {slug}.")
        with refusals_as_command_errors():
            pool = pool_from_pairs(collection=collection, name=name, source=file, qrels_set=qrels_set)
        topics = pool.pairs.values("topic").distinct().count()
        self.stdout.write(f"pool {pool.name}: {pool.pairs.count()} pairs over {topics} topics (listed pairs)")
