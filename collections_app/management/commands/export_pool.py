from django.core.management.base import BaseCommand, CommandError

from collections_app.models import Pool


class Command(BaseCommand):
    help = "Print a pool's pairs, one 'qid<TAB>docno' line each, in judging order."

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("name")

    def handle(self, *args, slug, name, **options):
        pool = Pool.objects.filter(collection__slug=slug, name=name).first()
        if pool is None:
            raise CommandError(f"No pool named {name!r} in collection {slug!r}.")
        rows = pool.pairs.order_by("judging_order").values_list("topic__qid", "docno")
        write = self.stdout.write
        for qid, docno in rows.iterator(chunk_size=5000):
            write(f"{qid}\t{docno}")
