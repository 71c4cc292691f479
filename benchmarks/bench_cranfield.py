"""Benchmark: how many judgments each strategy needs on Cranfield, against depth-k pooling.

Generates a few dozen diverse runs on ../shared/data/cranfield (BM25 with several k1/b,
TF-IDF variants, query likelihood with several mu, title-only document fields, noisy and
truncated variants; seeded, never written to disk), replays every planner strategy judging
from the Cranfield qrels (graded; relevant = grade >= 1), and prints per strategy the
judgments needed to find 80% and 90% of the relevant documents the runs retrieve in their
top ``--max-depth`` and Kendall's tau (MAP ranking vs complete qrels) at those budgets.
Skips cleanly when ../shared is absent.

Run: .venv/bin/python benchmarks/bench_cranfield.py [--strategies depth,fused,mtf] [--seed 0]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "cranfield"


def load():
    docs = [json.loads(line) for line in (DATA / "docs.jsonl").open(encoding="utf-8")]
    topics = []
    for line in (DATA / "topics.tsv").open(encoding="utf-8"):
        qid, _orig, text = line.rstrip("\n").split("\t")
        topics.append({"qid": qid, "title": text, "description": ""})
    qrels: dict[str, dict[str, int]] = {}
    for line in (DATA / "qrels.graded.txt").open(encoding="utf-8"):
        qid, _it, docno, grade = line.split()
        qrels.setdefault(qid, {})[docno] = int(grade)
    return docs, topics, qrels


def variants():
    """Return (tag, Variant, document field, depth) for every run to generate."""
    from demo.retrieval import Variant

    out = []
    for k1 in (0.5, 0.9, 1.2, 1.6, 2.0):
        for b in (0.3, 0.75, 0.9):
            out.append((f"bm25-k{k1}-b{b}", Variant("", "bm25", "", "bm25", "title", (("k1", k1), ("b", b))), "all", 100))
    for mu in (50.0, 200.0, 500.0, 1000.0, 2000.0):
        out.append((f"ql-mu{mu:g}", Variant("", "lm", "", "ql", "title", (("mu", mu),)), "all", 100))
    tfidf = [("tfidf", (("sublinear_tf", False),)), ("tfidf-sub", (("sublinear_tf", True),)),
             ("tfidf-bigram", (("ngram_range", (1, 2)),)), ("tf-noidf", (("use_idf", False),))]
    for tag, params in tfidf:
        out.append((tag, Variant("", "vsm", "", "tfidf", "title", params), "all", 100))
    for tag, v in (("bm25-titles", Variant("", "bm25", "", "bm25", "title", (("k1", 1.2), ("b", 0.75)))),
                   ("ql-titles", Variant("", "lm", "", "ql", "title", (("mu", 200.0),))),
                   ("tfidf-titles", Variant("", "vsm", "", "tfidf", "title", (("sublinear_tf", True),)))):
        out.append((tag, v, "title", 100))
    for sigma in (0.5, 1.0, 2.0, 4.0):
        out.append((f"bm25-noise{sigma:g}", Variant("", "noise", "", "noise", "title", (("sigma", sigma),)), "all", 100))
    for depth in (10, 30):
        out.append((f"bm25-trunc{depth}", Variant("", "bm25", "", "bm25", "title", (("k1", 1.2), ("b", 0.75))), "all",
                    depth))
    return out


def make_runs(docs, topics, seed: int):
    from demo.retrieval import run_variant

    title_docs = [{**d, "text": ""} for d in docs]
    rankings: dict[str, dict[str, list[str]]] = {}
    for n, (tag, variant, field, depth) in enumerate(variants()):
        rows = run_variant(variant, docs if field == "all" else title_docs, topics, depth=depth, seed=seed + n)
        for qid, docno, _score in rows:
            rankings.setdefault(qid, {}).setdefault(tag, []).append(docno)
    return rankings


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strategies", default="", help="Comma-separated (default: every available strategy).")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-depth", type=int, default=100)
    args = parser.parse_args()
    if not DATA.is_dir():
        print(f"skipped: {DATA} is absent")
        return 0
    from collections_app.simulation.engine import available_strategies, judgments_to_reach, simulate

    docs, topics, qrels = load()
    started = time.perf_counter()
    rankings = make_runs(docs, topics, args.seed)
    print(f"{len(docs)} documents, {len(topics)} topics, {len(variants())} runs generated "
          f"in {time.perf_counter() - started:.1f} s")
    names = [s for s in args.strategies.split(",") if s] or list(available_strategies())
    texts = {d["docno"]: f"{d['title']}\n{d['text']}" for d in docs}
    queries = {t["qid"]: t["title"] for t in topics}
    budgets = (2, 5, 10, 15, 20, 25, 30, 40, 50, 60, 70, 80, 90, 100, 115, 130, 150, 175, 200, 250, 300, 400, 600)
    depths = (1, 2, 3, 5, 7, 10, 15, 20, 25, 30, 40, 50, 60, 75, 100)
    rates = (0.02, 0.05, 0.1, 0.2, 0.4, 0.7, 1.0)
    rows = []
    for name in names:
        started = time.perf_counter()
        report = simulate(rankings, qrels, strategies=[name], budgets=budgets, depths=depths, sample_rates=rates,
                          max_depth=args.max_depth, seed=args.seed, queries=queries, texts=texts)
        seconds = time.perf_counter() - started
        cells = [name]
        for fraction in (0.8, 0.9):
            p = judgments_to_reach(report, name, fraction)
            cells += ["-", "-"] if p is None else [f"{p.judgments} ({p.setting})", f"{p.tau_map:.3f}"]
        rows.append(cells + [f"{seconds:.1f}"])
    print(f"findable relevant (in the runs' top {args.max_depth}): {report.findable_relevant}; "
          f"all relevant in qrels: {sum(1 for g in qrels.values() for x in g.values() if x >= 1)}")
    header = ["strategy", "judgments for 80%", "tau@80%", "judgments for 90%", "tau@90%", "replay s"]
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
    print("| " + " | ".join(h.ljust(w) for h, w in zip(header, widths)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for r in rows:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |")
    print("Judgments are totals over all topics; a budgeted strategy's setting B is per topic. The needed count is "
          "the cheapest simulated budget reaching the fraction (budget grid, so an upper bound).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
