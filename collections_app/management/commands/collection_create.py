from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError

from collections_app import scales
from collections_app.services.collections import collection_create


class Command(BaseCommand):
    help = "Create a collection with a relevance scale preset; --lead makes an existing user its lead."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", default=None, help="Display name (default: the slug).")
        parser.add_argument("--scale", choices=list(scales.PRESETS), default=scales.GRADED)
        parser.add_argument("--lead", default=None, metavar="USERNAME", help="User who becomes the lead.")

    def handle(self, *args, slug, name, scale, lead, **options):
        user = None
        if lead:
            user = get_user_model().objects.filter(username=lead).first()
            if user is None:
                raise CommandError(f"No user named {lead!r}.")
        try:
            collection = collection_create(slug=slug, name=name, scale=scale, created_by=user)
        except ValidationError as exc:
            raise CommandError("; ".join(exc.messages)) from None
        self.stdout.write(f"collection {collection.slug}: created ({scale} scale"
                          + (f", lead {lead})" if lead else ")"))
