from django.core.management.base import BaseCommand

from collections_app.management.commands._importing import get_collection, run_import
from collections_app.services.imports import runs_import


class Command(BaseCommand):
    help = ("Import TREC run files (qid Q0 docno rank score tag; one tag per file; .gz accepted). "
            "All files are stored or none; an existing tag is refused unless --replace.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("files", nargs="+", metavar="FILE")
        parser.add_argument("--replace", action="store_true", help="Replace runs whose tag already exists.")
        parser.add_argument("--group", default="", help="Group (team) the runs belong to.")

    def handle(self, *args, slug, files, replace, group, **options):
        collection = get_collection(slug)
        run_import(self, lambda progress: runs_import(collection=collection, sources=files, replace=replace,
                                                      group=group, progress=progress))
