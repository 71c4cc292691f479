from django.core.management.base import BaseCommand

from collections_app.management.commands._importing import get_collection, run_import
from judging.services.imported import judgments_import


class Command(BaseCommand):
    help = ("Import per-assessor labels (CSV/TSV with a header row qid,docno,assessor,label[,timestamp,seconds,"
            "comment,gold], or JSONL with those keys) into an imported campaign, created if it does not exist.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("file")
        parser.add_argument("--campaign", required=True, metavar="NAME", help="Imported campaign to create or add to.")
        parser.add_argument("--format", choices=["csv", "tsv", "jsonl"], default=None,
                            help="File format (default: from the file name, else from the header line).")

    def handle(self, *args, slug, file, campaign, format, **options):
        collection = get_collection(slug)
        summary = run_import(self, lambda progress: judgments_import(
            collection=collection, source=file, campaign_name=campaign, format=format, progress=progress),
            unit="row")
        details = summary.details
        self.stdout.write(f"campaign {details['campaign']!r} (#{details['campaign_id']}): "
                          f"{details['new_pairs']} new pairs, {details['new_assessors']} new assessors, "
                          f"{details['revisions']} revisions")
