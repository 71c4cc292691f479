from django.core.management.base import BaseCommand

from collections_app.importers.topics import FORMATS
from collections_app.management.commands._importing import get_collection, run_import
from collections_app.services.imports import topics_import


class Command(BaseCommand):
    help = "Import topics (TREC SGML, TSV or JSONL; .gz accepted) into a collection, all or nothing."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--format", choices=FORMATS, default=None, help="Default: detect from name and content.")

    def handle(self, *args, slug, file, format, **options):
        collection = get_collection(slug)
        run_import(self, lambda progress: topics_import(collection=collection, source=file, format=format,
                                                        progress=progress))
