from django.core.management.base import BaseCommand

from collections_app.management.commands._importing import get_collection, progress_bar, refusals_as_command_errors
from collections_app.services.irds import irds_import


class Command(BaseCommand):
    help = ("Load topics, documents and qrels of a standard collection by its ir_datasets id (e.g. cranfield, "
            "msmarco-passage/trec-dl-2019/judged), all-or-nothing. Data lives under IR_DATASETS_HOME.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("dataset_id")
        parser.add_argument("--topics-field", default=None,
                            help="Query field used as the topic title (default: title if the queries have one, "
                                 "else text).")
        parser.add_argument("--qrels-name", default=None, help="Name of the qrels set (default: the data set id).")
        parser.add_argument("--no-docs", action="store_true", help="Skip documents (topics and qrels only).")

    def handle(self, *args, slug, dataset_id, topics_field, qrels_name, no_docs, **options):
        collection = get_collection(slug)
        with progress_bar(unit="doc") as progress, refusals_as_command_errors():
            summaries = irds_import(collection=collection, dataset_id=dataset_id, topics_field=topics_field,
                                    qrels_name=qrels_name, docs=not no_docs, progress=progress)
        for summary in summaries:
            self.stdout.write(summary.line())
