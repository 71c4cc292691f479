"""Print (or write) a collection's qrels: a campaign's current final labels, a frozen version, every judgment,
or the prels of a campaign on a sampled pool."""
from __future__ import annotations

import sys

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from collections_app.models import Collection
from judging.models import Campaign, QrelsVersion
from judging.services.exports import final_labels_lines, judgments_export, qrels_lines
from judging.services.prels import campaign_prels
from judging.services.qrels import RULES, final_labels, qrels_text


class Command(BaseCommand):
    help = (
        "Export qrels of a collection in TREC format (qid 0 docno grade): a campaign's final labels under a "
        "rule (default: the newest campaign), a frozen version (--version N, byte for byte), or every "
        "individual judgment as CSV or JSONL (--judgments csv|jsonl), or, for a campaign on a sampled pool, its prels "
        "(--prels: qid docno grade stratum prob, grade -1 for pooled documents not drawn or not judged yet)."
    )

    def add_base_argument(self, parser, *args, **kwargs):
        """Leave out Django's own --version flag: here --version N names a frozen qrels version."""
        if "--version" in args:
            return
        super().add_base_argument(parser, *args, **kwargs)

    def add_arguments(self, parser):
        parser.add_argument("slug", help="Collection slug.")
        parser.add_argument("--campaign", type=int, help="Campaign id (default: the collection's newest).")
        parser.add_argument("--rule", choices=RULES, default="adjudicated", help="Final-label rule (default adjudicated).")
        parser.add_argument("--version", type=int, help="Print frozen qrels version N instead of current labels.")
        parser.add_argument("--judgments", choices=("csv", "jsonl"), help="Export individual judgments instead.")
        parser.add_argument("--format", choices=("trec", "csv", "jsonl"), default="trec", dest="table",
                            help="Qrels (final labels or --version) as TREC text (default), or as CSV/JSONL with the "
                                 "columns of docs/formats.md (final labels add their confidence).")
        parser.add_argument("--prels", action="store_true",
                            help="Export the campaign's prels under --rule (campaigns on a sampled pool only).")
        parser.add_argument("--output", "-o", help="Write to this file instead of standard output.")

    def handle(self, *args, slug, campaign, rule, version, judgments, prels, output, table, **options):
        if prels and (version is not None or judgments):
            raise CommandError("--prels cannot be combined with --version or --judgments.")
        collection = Collection.objects.filter(slug=slug).first()
        if collection is None:
            raise CommandError(f"No collection {slug!r}.")
        if version is not None:
            frozen = QrelsVersion.objects.filter(collection=collection, number=version).first()
            if frozen is None:
                raise CommandError(f"Collection {slug!r} has no qrels version {version}.")
            text = frozen.content if table == "trec" else "".join(qrels_lines(version=frozen, fmt=table))
            summary = f"qrels v{version} ({frozen.num_judgments} labels, sha256 {frozen.checksum[:12]}…)"
        else:
            campaigns = Campaign.objects.filter(collection=collection).order_by("-created_at", "-id")
            chosen = campaigns.filter(pk=campaign).first() if campaign else campaigns.first()
            if chosen is None:
                raise CommandError(f"No campaign {'#' + str(campaign) if campaign else ''} in collection {slug!r}.")
            try:
                if judgments:
                    text = judgments_export(campaign=chosen, fmt=judgments)
                    summary = f"judgments of campaign {chosen.name!r} as {judgments}"
                elif prels:
                    sample = campaign_prels(campaign=chosen, rule=rule)
                    text = sample.text
                    summary = (f"prels of campaign {chosen.name!r} by rule {rule} ({sample.pooled} pooled documents, "
                               f"{sample.sampled} sampled, {sample.judged} judged, {sample.topics} topics)")
                elif table != "trec":
                    text = "".join(final_labels_lines(campaign=chosen, rule=rule, fmt=table))
                    summary = f"final labels of campaign {chosen.name!r} by rule {rule} as {table}"
                else:
                    labels = final_labels(campaign=chosen, rule=rule)
                    text, summary = qrels_text(labels), f"{len(labels)} labels of campaign {chosen.name!r} by rule {rule}"
            except ValidationError as error:
                raise CommandError("; ".join(error.messages)) from error
        if output:
            with open(output, "w", encoding="utf-8", newline="") as handle:
                handle.write(text)
            self.stderr.write(f"Wrote {summary} to {output}.")
        else:
            self.stdout.write(text, ending="")
            if not sys.stdout.isatty():
                self.stderr.write(f"Exported {summary}.")
