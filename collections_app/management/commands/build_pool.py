from django.core.management.base import BaseCommand, CommandError

from collections_app.management.commands._importing import get_collection, progress_bar, refusals_as_command_errors
from collections_app.models import Pool
from collections_app.services.pools import pool_build, pool_deepen


class Command(BaseCommand):
    help = ("Build a pool of (topic, document) pairs from the collection's runs, or deepen a depth pool "
            "with --deepen. Prints one summary line; the judging order is fixed at build time.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--name", required=True, help="Pool name (unique in the collection).")
        parser.add_argument("--strategy", choices=["depth", "budget", "fusion", "sample"], default="depth")
        parser.add_argument("--strata", default=None,
                            help="Sample strategy: LASTRANK:RATE bands by best rank, e.g. 10:1,30:0.5,100:0.2 "
                                 "(the default); each pair records its stratum and inclusion probability.")
        parser.add_argument("--depth", type=int, help="Depth k: each run's top k per topic (depth strategy).")
        parser.add_argument("--budget", type=int, help="Pairs per topic (budget and fusion strategies).")
        parser.add_argument("--fusion", choices=["rrf", "combsum", "borda"], default="rrf",
                            help="Fused score for the fusion strategy (default rrf).")
        parser.add_argument("--order", choices=["fused", "random"], default="fused",
                            help="Judging order: by fused score (RRF unless --fusion) or seeded random.")
        parser.add_argument("--seed", type=int, default=0, help="Seed of the random judging order.")
        parser.add_argument("--runs", nargs="+", metavar="TAG", help="Contributing run tags (default: all).")
        parser.add_argument("--max-runs-per-group", type=int, help="At most N runs per group (first by tag).")
        parser.add_argument("--include-judged", action="store_true",
                            help="Keep pairs that imported qrels already judge (excluded by default).")
        parser.add_argument("--deepen", action="store_true",
                            help="Deepen the existing depth pool NAME to --depth, appending only new pairs.")

    def handle(self, *args, slug, name, **options):
        collection = get_collection(slug)
        with progress_bar(unit="ranking") as progress, refusals_as_command_errors():
            if options["deepen"]:
                pool = Pool.objects.filter(collection=collection, name=name).first()
                if pool is None:
                    raise CommandError(f"No pool named {name!r} in {slug}.")
                before = pool.pairs.count()
                if options["depth"] is None:
                    raise CommandError("--deepen needs --depth.")
                pool = pool_deepen(pool=pool, depth=options["depth"], progress=progress)
                added = pool.pairs.count() - before
                self.stdout.write(f"pool {pool.name}: deepened to depth {options['depth']}, {added} pairs added, "
                                  f"{before + added} pairs")
                return
            pool = pool_build(
                collection=collection, name=name, strategy=options["strategy"], depth=options["depth"],
                budget=options["budget"], fusion=options["fusion"], order=options["order"], seed=options["seed"],
                run_tags=options["runs"], max_runs_per_group=options["max_runs_per_group"],
                exclude_judged=not options["include_judged"], strata=options["strata"], progress=progress,
            )
        topics = pool.pairs.values("topic").distinct().count()
        self.stdout.write(f"pool {pool.name}: {pool.pairs.count()} pairs over {topics} topics "
                          f"from {pool.runs.count()} runs ({pool.strategy})")
        left_out = pool.parameters.get("left_out_judged", 0)
        if left_out:
            self.stdout.write(f"left out {left_out} pairs that imported qrels already judge "
                              "(--include-judged keeps them)")
