from django.core.management.base import BaseCommand, CommandError

from collections_app.models import Pool
from collections_app.pool_stats import pool_stats


def _table(headers: list[str], rows: list[list]) -> list[str]:
    cells = [[str(h) for h in headers]] + [["–" if v is None else str(v) for v in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = ["  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))
             for row in cells]
    return [lines[0], "  ".join("-" * w for w in widths), *lines[1:]]


class Command(BaseCommand):
    help = ("Show a pool's statistics: pairs per topic (and relevant already known from imported qrels), "
            "pairs and unique pairs per run, and the runs' overlap (Jaccard of their pair sets).")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("name")
        parser.add_argument("--overlap", action="store_true", help="Also print the run × run Jaccard matrix.")

    def handle(self, *args, slug, name, overlap, **options):
        pool = Pool.objects.filter(collection__slug=slug, name=name).first()
        if pool is None:
            raise CommandError(f"No pool named {name!r} in collection {slug!r}.")
        stats = pool_stats(pool)
        out = self.stdout.write
        out(f"pool {pool.name} ({pool.strategy}): {stats['pairs']} pairs, {len(stats['topics'])} topics, "
            f"{len(stats['runs'])} runs")
        out("")
        for line in _table(["topic", "pairs", "relevant_known"],
                           [[t["qid"], t["pairs"], t["relevant_known"]] for t in stats["topics"]]):
            out(line)
        out("")
        for line in _table(["run", "pairs", "unique", "relevant_known"],
                           [[r["tag"], r["contributed"], r["unique"], r["relevant_known"]] for r in stats["runs"]]):
            out(line)
        if overlap:
            out("")
            tags = stats["overlap"]["tags"]
            rows = [[tag, *(f"{x:.2f}" for x in row)] for tag, row in zip(tags, stats["overlap"]["jaccard"])]
            for line in _table(["jaccard", *tags], rows):
                out(line)
