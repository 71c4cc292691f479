from django.core.management.base import BaseCommand

from collections_app.management.commands._importing import get_collection, run_import
from collections_app.services.imports import qrels_import


class Command(BaseCommand):
    help = "Import a TREC qrels file (qid iter docno rel) as a named set of existing judgments."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--name", default=None, help="Name of the qrels set (default: the file name).")
        parser.add_argument("--allow-off-scale", action="store_true",
                            help="Accept grades outside the collection's relevance scale (refused by default).")

    def handle(self, *args, slug, file, name, allow_off_scale, **options):
        collection = get_collection(slug)
        run_import(self, lambda progress: qrels_import(collection=collection, source=file, name=name,
                                                       progress=progress, allow_off_scale=allow_off_scale))
