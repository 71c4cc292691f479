from django.core.management.base import BaseCommand

from collections_app.importers.topics import FORMATS
from collections_app.management.commands._importing import get_collection, run_import
from collections_app.services.imports import documents_import


class Command(BaseCommand):
    help = ("Import documents (TREC SGML <DOC>, JSONL or TSV; .gz accepted), streamed, all or nothing. "
            "Docnos already in the collection are refused unless --replace.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--format", choices=FORMATS, default=None, help="Default: detect from name and content.")
        parser.add_argument("--replace", action="store_true", help="Update documents whose docno already exists.")

    def handle(self, *args, slug, file, format, replace, **options):
        collection = get_collection(slug)
        run_import(self, lambda progress: documents_import(collection=collection, source=file, format=format,
                                                           replace=replace, progress=progress))
