from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from collections_app import scales
from collections_app.management.commands._importing import refusals_as_command_errors
from collections_app.models import Collection
from collections_app.services.collections import collection_create


def _grades(text: str) -> list[int]:
    try:
        return [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise CommandError(f"--cannot-judge takes comma-separated integer grades, not {text!r}.") from None


class Command(BaseCommand):
    help = ("Create a collection with a relevance scale (binary, graded, or a custom spec such as "
            "\"-2:broken,0:not relevant,1:relevant,2:highly relevant\"); --lead makes an existing user its lead "
            "(create one with `manage.py createsuperuser`).")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", default=None, help="Display name (default: the slug).")
        parser.add_argument("--scale", default=scales.GRADED, metavar="SPEC", help=f"The scale: {scales.SPEC_HELP}.")
        parser.add_argument("--relevant-threshold", type=int, default=None, metavar="N",
                            help="Lowest grade counted as relevant (trec_eval -l); default: the preset's, else the "
                                 "lowest grade above 0.")
        parser.add_argument("--cannot-judge", default="", metavar="GRADES",
                            help="Comma list of grades that mean 'could not judge' (e.g. -2).")
        parser.add_argument("--lead", default=None, metavar="USERNAME", help="User who becomes the lead.")

    def handle(self, *args, slug, name, scale, relevant_threshold, cannot_judge, lead, **options):
        # A database that was never migrated has no tables: say what to do instead of a traceback.
        if Collection._meta.db_table not in connection.introspection.table_names():
            raise CommandError("The database has no tables yet: run `manage.py migrate` first.")
        user = None
        if lead:
            user = get_user_model().objects.filter(username=lead).first()
            if user is None:
                raise CommandError(f"No user named {lead!r}. Create one with `manage.py createsuperuser` "
                                   "(or `manage.py createsuperuser --username NAME --email ''`).")
        with refusals_as_command_errors():
            collection = collection_create(slug=slug, name=name, scale=scale, relevant_threshold=relevant_threshold,
                                           cannot_judge=_grades(cannot_judge), created_by=user)
        grades = ", ".join(f"{g['grade']} {g['name']} [{g['key']}]" + (" (could not judge)" if g.get("cannot_judge")
                                                                        else "") for g in collection.scale)
        self.stdout.write(f"collection {collection.slug}: created (scale {grades}; relevant from "
                          f"{collection.relevant_threshold}" + (f"; lead {lead})" if lead else ")"))
