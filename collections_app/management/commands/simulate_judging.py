from django.core.management.base import BaseCommand

from collections_app.management.commands._importing import get_collection, refusals_as_command_errors
from collections_app.simulation import engine, report
from collections_app.simulation.service import planner_run


def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def _floats(text: str) -> list[float]:
    return [float(x) for x in text.split(",") if x.strip()]


class Command(BaseCommand):
    help = ("Budget planner: replay judging strategies on a qrels set's known labels and report, per budget, "
            "relevant found, judgments spent, MAP/nDCG@10 of every run and Kendall's tau vs complete qrels.")

    def add_arguments(self, parser):
        parser.add_argument("slug")
        parser.add_argument("--qrels-set", required=True, help="Name of the (complete or prior) qrels set.")
        parser.add_argument("--strategy", action="append", metavar="NAME",
                            help=f"Strategy to replay (repeatable; default all): {', '.join(engine.available_strategies())}")
        parser.add_argument("--budgets", type=_ints, default=list(engine.DEFAULT_BUDGETS),
                            help="Judgments per topic, comma-separated (default 10,20,50,100,200).")
        parser.add_argument("--depths", type=_ints, default=list(engine.DEFAULT_DEPTHS),
                            help="Pool depths k for depth-k pooling (default 1,2,5,10,20,50).")
        parser.add_argument("--sample-rates", type=_floats, default=list(engine.DEFAULT_SAMPLE_RATES),
                            help="Sampling rates below rank 10 for the sampled pool (default 0.05,0.1,0.2,0.4).")
        parser.add_argument("--max-depth", type=int, default=100, help="Only each run's top N is ever judged.")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--format", choices=["table", "json", "csv"], default="table")

    def handle(self, *args, slug, **o):
        collection = get_collection(slug)
        with refusals_as_command_errors():
            result = planner_run(collection=collection, qrels_set_name=o["qrels_set"], strategies=o["strategy"],
                                 depths=o["depths"], budgets=o["budgets"], sample_rates=o["sample_rates"],
                                 max_depth=o["max_depth"], seed=o["seed"])
        render = {"table": report.as_table, "json": report.as_json, "csv": report.as_csv}[o["format"]]
        self.stdout.write(render(result), ending="")
        if o["format"] == "table":
            self.stdout.write(f"simulated {len(result.points)} points over {result.topics} topics")
