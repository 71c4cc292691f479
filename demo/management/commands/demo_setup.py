"""manage.py demo_setup: load the demo collection and accounts (idempotent)."""
from django.core.management.base import BaseCommand

from demo.setup import demo_setup


class Command(BaseCommand):
    help = (
        "Create the demo collection 'demo' (synthetic documents, topics, 12 runs, prior-round qrels, "
        "a depth-10 pool) and the accounts lead, alice and bob. Running it again changes nothing."
    )

    def add_arguments(self, parser):
        parser.add_argument("--seed", type=int, default=42, help="Random seed of the synthetic corpus.")
        parser.add_argument("--documents", type=int, default=1200, help="Number of documents.")
        parser.add_argument("--topics", type=int, default=10, help="Number of topics (at most 12).")

    def handle(self, *args, seed: int, documents: int, topics: int, **options):
        report = demo_setup(seed=seed, num_documents=documents, num_topics=topics)
        for step in report.steps:
            self.stdout.write(f"  {step}")
        collection = report.collection
        self.stdout.write(
            f"demo collection '{collection.slug}': {collection.documents.count()} documents, "
            f"{collection.topics.count()} topics, {collection.runs.count()} runs, {collection.pools.count()} pools"
            + ("" if report.steps else " (already set up, nothing changed)")
        )
        self.stdout.write("Accounts (username / password / role):")
        for username, password, role in report.accounts:
            self.stdout.write(f"  {username} / {password} / {role} of demo")
