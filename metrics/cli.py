"""Command line: ``python -m metrics [-q] [-c] [-l L] [-M N] [-J] [-m MEASURE]... QRELS RUN [RUN ...]``.

Prints trec_eval's format (``%-22s\\t%s\\t%6.4f``; counts as integers), one block per run,
each block opening with ``runid  all  <tag>`` as trec_eval prints it. ``--format json|csv``
gives machine-readable output instead.
"""

from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Sequence

from .evaluate import EvaluationResult, MissingTopicsWarning, evaluate_many, results_to_csv, results_to_json
from .io import MetricsInputError, read_qrels, read_run
from .prefs import PREFS_MEASURES, PREFS_NICKNAMES, evaluate_prefs, read_prefs, read_qrels_prefs
from .registry import NICKNAMES, registry


def format_value(value, kind: str) -> str:
    """Format one value as trec_eval prints it.

    >>> format_value(0.123456, "float"), format_value(12, "int"), format_value("10-", "str")
    ('0.1235', '12', "'10-'")
    """
    if kind == "int":
        return str(int(value))
    if kind == "str":
        return f"'{value}'"
    return f"{value:6.4f}"


def format_trec(result: EvaluationResult, *, per_topic: bool = False, runid: bool = True) -> str:
    """Render one result block in trec_eval's text format (per-topic lines first with -q)."""
    lines = []
    if per_topic:
        for q, vals in result.per_topic.items():
            for n in result.names:
                if n == "num_q" or n not in vals:
                    continue
                lines.append(f"{n:<22}\t{q}\t{format_value(vals[n], result.kinds[n])}")
    if runid:
        lines.append(f"{'runid':<22}\tall\t{result.tag}")
    for n in result.names:
        if n in result.aggregate:
            lines.append(f"{n:<22}\tall\t{format_value(result.aggregate[n], result.kinds[n])}")
    return "\n".join(lines) + "\n"


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m metrics", description="trec_eval 10.0-exact evaluation of TREC runs.")
    p.add_argument("-q", action="store_true", help="print per-topic values as well as the summary")
    p.add_argument("-c", action="store_true", help="average over all qrels topics (missing ones score 0)")
    p.add_argument("-l", type=int, default=1, metavar="LEVEL", help="minimum grade counted relevant (default 1)")
    p.add_argument("-M", type=int, default=None, metavar="N", help="keep only the top N documents per topic")
    p.add_argument("-J", action="store_true", help="drop unjudged documents before evaluating")
    p.add_argument("-m", action="append", default=None, metavar="MEASURE",
                   help="measure, e.g. map, P.5,10, ndcg_cut.10, ndcg.1=0.5,2=2, official, all_trec")
    p.add_argument("-R", choices=("trec_qrels", "prefs", "qrels_prefs"), default="trec_qrels", dest="rel_format",
                   help="judgment file format: trec_qrels (default), prefs (qid jg jsg docno rel_level) or "
                        "qrels_prefs (a qrels file read as preferences); prefs formats take the prefs_* measures")
    p.add_argument("--format", choices=("trec", "json", "csv"), default="trec")
    p.add_argument("--list", action="store_true", help="list the registered measures and exit")
    p.add_argument("qrels", nargs="?")
    p.add_argument("runs", nargs="*")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status (0 ok, 1 bad input, 2 usage)."""
    args = build_parser().parse_args(argv)
    if args.list:
        for m in registry().values():
            params = ",".join(str(p) for p in m.defaults)
            flag = "" if m.trec else "  [not trec_eval]"
            sys.stdout.write(f"{m.name:<22}\t{params}\t{m.description}{flag}\n")
        for n, pm in PREFS_MEASURES.items():
            if n != "num_q":
                sys.stdout.write(f"{n:<22}\t\t{pm.description}  [-R prefs|qrels_prefs]\n")
        sys.stdout.write("nicknames: " + ", ".join((*NICKNAMES, *PREFS_NICKNAMES)) + "\n")
        return 0
    if not args.qrels or not args.runs:
        sys.stderr.write("usage: python -m metrics [options] QRELS RUN [RUN ...]\n")
        return 2
    prefs_mode = args.rel_format != "trec_qrels"
    default = "prefs" if prefs_mode else "official"
    nicknames = (*NICKNAMES, *PREFS_NICKNAMES) if prefs_mode else tuple(NICKNAMES)
    measures = [m for m in (args.m or [default]) if m != "runid"]
    # trec_eval prints runid when asked for it (official and all_trec include it); with
    # several runs in one call it is always printed so that the blocks can be told apart.
    show_runid = len(args.runs) > 1 or any(m in ("runid", *nicknames) for m in (args.m or [default]))
    try:
        if prefs_mode:
            prefs = (read_prefs if args.rel_format == "prefs" else read_qrels_prefs)(args.qrels)
        else:
            qrels = read_qrels(args.qrels)
        runs = [read_run(path) for path in args.runs]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", MissingTopicsWarning)
            if prefs_mode:
                results = [evaluate_prefs(prefs, r, measures, complete=args.c, max_docs=args.M) for r in runs]
            else:
                results = evaluate_many(qrels, runs, measures, relevance_level=args.l, complete=args.c,
                                        max_docs=args.M, judged_only=args.J)
        for w in caught:
            sys.stderr.write(f"metrics: warning: {w.message}\n")
    except MetricsInputError as exc:
        sys.stderr.write(f"metrics: error: {exc}\n")
        return 1
    except (ValueError, OSError) as exc:
        sys.stderr.write(f"metrics: error: {exc}\n")
        return 2 if isinstance(exc, ValueError) else 1
    if args.format == "json":
        sys.stdout.write(results_to_json(results, per_topic=args.q) + "\n")
    elif args.format == "csv":
        sys.stdout.write(results_to_csv(results, per_topic=args.q))
    else:
        for r in results:
            sys.stdout.write(format_trec(r, per_topic=args.q, runid=show_runid))
    return 0
