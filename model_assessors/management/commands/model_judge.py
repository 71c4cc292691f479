"""Run a campaign's model judge from the command line, in this process (no worker needed)."""
from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError

from collections_app.management.commands._importing import refusals_as_command_errors
from model_assessors.models import ModelJudge
from model_assessors.services.runs import run_create, run_execute


class Command(BaseCommand):
    help = (
        "Judge the pairs a model judge has not answered yet, here and now (the same run the pages start in a "
        "worker). Pairs already answered are never asked again; with --resume a run left running by a stopped "
        "worker is replaced."
    )

    def add_arguments(self, parser):
        parser.add_argument("campaign", type=int, help="Campaign id.")
        parser.add_argument("judge", help="The judge's name in that campaign.")
        parser.add_argument("--resume", action="store_true", help="Replace a run left running by a stopped worker.")

    def handle(self, *args, campaign, judge, resume, **options):
        found = ModelJudge.objects.filter(campaign_id=campaign, name=judge).first()
        if found is None:
            raise CommandError(f"Campaign {campaign} has no model judge named {judge!r}.")
        with refusals_as_command_errors():
            run = run_create(judge=found, resume=resume)
        run = run_execute(run=run)
        self.stdout.write(f"run {run.pk}: {run.get_status_display().lower()}, {run.done} of {run.total} pairs answered, "
                          f"{run.failed} failed" + (f"; {run.message}" if run.message else ""))
