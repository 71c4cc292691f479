"""Command line: ``python -m metrics [-q] [-c] [-l L] [-M N] [-J] [-m MEASURE]... QRELS RUN [RUN ...]``.

Prints trec_eval's format (``%-22s\\t%s\\t%6.4f``; counts as integers), one block per run,
each block opening with ``runid  all  <tag>`` as trec_eval prints it. ``--format json|csv``
gives machine-readable output instead.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .evaluate import EvaluationResult

# numpy, the measures and the preference formats are imported inside main(): a one-run call
# spends a third of its time on imports, so it loads only what its options need.


def format_value(value, kind: str) -> str:
    """Format one value as trec_eval prints it.

    >>> format_value(0.123456, "float"), format_value(12, "int"), format_value("10-", "str"), format_value(float("nan"), "float")
    ('0.1235', '12', "'10-'", '-nan')
    """
    if kind == "int":
        return str(int(value))
    if kind == "str":
        return f"'{value}'"
    if value != value:
        return "-nan"  # what trec_eval's printf shows for its 0/0 (Rndcg with -l 0 and no positive gain)
    return f"{value:6.4f}"


_SPEC = {"float": "%6.4f", "int": "%d", "str": "'%s'"}  # what format_value gives, as printf conversions


def format_trec(result: EvaluationResult, *, per_topic: bool = False, runid: bool = True,
                summary: bool = True) -> str:
    """Render one result block in trec_eval's text format: per-topic lines first with -q, then the summary.

    As trec_eval 10.0 prints them: per topic, every requested measure but runid, num_q and
    the geometric means (summary-only); in the summary, runid (when asked for) then all.
    Each topic is rendered by one printf-style template (a -q block of 100 topics and 110
    measures is 11,000 lines); a topic whose text shows "nan" is rendered value by value,
    so that NaN prints as trec_eval's "-nan".
    """
    lines = []
    skip = result.summary_only | {"num_q"}
    if per_topic:
        names = [n for n in result.names if n not in skip]
        template = "".join(f"{n:<22}".replace("%", "%%") + f"\t\0\t{_SPEC[result.kinds[n]]}\n" for n in names)
        for q, vals in result.per_topic.items():
            text = None
            try:
                text = template.replace("\0", q.replace("%", "%%")) % tuple([vals[n] for n in names])
            except KeyError:  # a measure without a value for this topic: no line for it
                pass
            if text is None or "nan" in text:
                text = "".join(f"{n:<22}\t{q}\t{format_value(vals[n], result.kinds[n])}\n" for n in names if n in vals)
            lines.append(text)
    if summary:
        if runid:
            lines.append(f"{'runid':<22}\tall\t{result.tag}\n")
        for n in result.names:
            if n in result.aggregate:
                lines.append(f"{n:<22}\tall\t{format_value(result.aggregate[n], result.kinds[n])}\n")
    return "".join(lines)


def format_ir_measures(result: EvaluationResult, aliases: dict[str, str], *, per_topic: bool = False) -> str:
    """Render ``qid<TAB>measure<TAB>value`` lines (``all`` for the summary), measures under ir_measures names."""
    lines = []
    if per_topic:
        for q, vals in result.per_topic.items():
            for n in result.names:
                if n in vals and n not in result.summary_only and n != "num_q":
                    lines.append(f"{q}\t{aliases.get(n, n)}\t{_plain(vals[n])}")
    for n in result.names:
        if n in result.aggregate:
            lines.append(f"all\t{aliases.get(n, n)}\t{_plain(result.aggregate[n])}")
    return "".join(line + "\n" for line in lines)


def _plain(value) -> str:
    return str(value) if isinstance(value, (int, str)) else repr(float(value))


USAGE_ERROR, INPUT_ERROR, TOPIC_ERROR = 1, 2, 4  # trec_eval's exit statuses for the same failures


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, sized without importing shutil (argparse builds one per option to
    check its metavar; shutil's import is 3 ms of a 0.25 s one-run call)."""

    def __init__(self, prog: str) -> None:
        try:
            columns = int(os.environ["COLUMNS"])
        except (KeyError, ValueError):
            try:
                columns = os.get_terminal_size(sys.__stdout__.fileno()).columns if sys.__stdout__ else 80
            except (OSError, ValueError):
                columns = 80
        super().__init__(prog, width=columns - 2)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="qrelsmith-eval", formatter_class=_HelpFormatter, description="trec_eval 10.0-exact evaluation of TREC runs "
                                "(also: python -m metrics). Options as trec_eval's.")
    p.add_argument("-q", action="store_true", help="print per-topic values as well as the summary")
    p.add_argument("-c", action="store_true", help="average over all qrels topics (missing ones score 0)")
    p.add_argument("-l", type=int, default=1, metavar="LEVEL", help="minimum grade counted relevant (default 1)")
    p.add_argument("-M", type=int, default=None, metavar="N", help="keep only the top N documents per topic")
    p.add_argument("-J", action="store_true", help="drop unjudged documents before evaluating")
    p.add_argument("-n", action="store_true", help="no summary: per-topic lines only (with -q)")
    p.add_argument("-N", type=int, default=0, metavar="N",
                   help="number of documents in the collection (default 0; utility's fourth coefficient weighs "
                        "N - retrieved - relevant + relevant retrieved, as trec_eval's)")
    p.add_argument("-D", default=None, metavar="LEVEL",
                   help="trec_eval's debug level (accepted; no debugging output is printed)")
    p.add_argument("-T", default="trec_results", metavar="FORMAT", help="results format: trec_results (the only one)")
    p.add_argument("-Z", default=None, metavar="FILE", help="z-score file (not supported: refused)")
    p.add_argument("-v", action="store_true", help="print the version and exit")
    p.add_argument("-m", action="append", default=None, metavar="MEASURE",
                   help="measure, e.g. map, P.5,10, ndcg_cut.10, ndcg.1=0.5,2=2, official, all_trec, "
                        "or an ir_measures name: nDCG@10, P@5, AP, RR, R@100, RBP(p=0.8)")
    p.add_argument("-R", choices=("trec_qrels", "prefs", "qrels_prefs"), default="trec_qrels", dest="rel_format",
                   help="judgment file format: trec_qrels (default), prefs (qid jg jsg docno rel_level) or "
                        "qrels_prefs (a qrels file read as preferences); prefs formats take the prefs_* measures")
    p.add_argument("--skip-missing", action="store_true",
                   help="skip qrels topics the run lacks, with a warning (trec_eval refuses the run without -c)")
    p.add_argument("--format", choices=("trec", "json", "csv", "ir_measures"), default="trec")
    p.add_argument("--list", action="store_true", help="list the registered measures and exit")
    p.add_argument("qrels", nargs="?")
    p.add_argument("runs", nargs="*")
    return p


def _fail(message: str, status: int) -> int:
    sys.stderr.write(f"metrics: error: {message}\n")
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; return the exit status (0 ok; as trec_eval: 1 usage or unknown measure, 2 bad input, 4 topics)."""
    args = build_parser().parse_args(argv)
    from .aliases import output_name
    from .evaluate import MissingTopicsWarning, evaluate_many
    from .io import MetricsInputError, read_qrels, read_run
    from .registry import NICKNAMES

    if args.v:
        sys.stdout.write("qrelsmith-eval (trec_eval 10.0 measures)\n")
        return 0
    if args.list:
        return _list_measures()
    if not args.qrels or not args.runs:
        sys.stderr.write("usage: qrelsmith-eval [options] QRELS RUN [RUN ...]\n")
        return USAGE_ERROR
    if args.Z is not None:
        return _fail("-Z (z-scores) is not supported: trec_eval 10.0's look-up of the z-score file reads past the "
                     "end of its tables, so its output cannot be reproduced exactly (see docs/metrics.md)", USAGE_ERROR)
    if args.T != "trec_results":
        return _fail(f"illegal results format {args.T!r} (only trec_results)", INPUT_ERROR)
    prefs_mode = args.rel_format != "trec_qrels"
    if prefs_mode:
        from .prefs import PREFS_NICKNAMES, evaluate_prefs, read_prefs, read_qrels_prefs
    default = "prefs" if prefs_mode else "official"
    nicknames = (*NICKNAMES, *PREFS_NICKNAMES) if prefs_mode else tuple(NICKNAMES)
    given = args.m or [default]
    measures = [m for m in given if m != "runid"]
    aliases = {out: spec for spec in given if (out := output_name(spec)) is not None}
    # trec_eval prints runid when asked for it (official and all_trec include it); with
    # several runs in one call it is always printed so that the blocks can be told apart.
    show_runid = len(args.runs) > 1 or any(m in ("runid", *nicknames) for m in given)
    try:
        requests_ok = prefs_mode or _check_measures(measures)
    except ValueError as exc:
        return _fail(str(exc), USAGE_ERROR if "unknown measure" in str(exc) else INPUT_ERROR)
    del requests_ok
    try:
        if prefs_mode:
            prefs = (read_prefs if args.rel_format == "prefs" else read_qrels_prefs)(args.qrels)
        else:
            qrels = read_qrels(args.qrels)
    except (MetricsInputError, OSError) as exc:
        return _fail(str(exc), INPUT_ERROR)
    # One run at a time: read, check, score, render, and let the run go before the next is read,
    # so that memory holds one run however many are given. Output is written only when every
    # run has been scored: a refused run leaves stdout empty, as a refused call of trec_eval does.
    results, texts = [], []
    for path in args.runs:
        try:
            run = read_run(path)
        except (MetricsInputError, OSError) as exc:
            return _fail(str(exc), INPUT_ERROR)
        if not prefs_mode and not args.c and not args.skip_missing:
            lacking = [q for q in sorted(qrels.topics) if q not in run.topics]
            if lacking:
                shown = ", ".join(repr(q) for q in lacking[:5]) + (" …" if len(lacking) > 5 else "")
                return _fail(f"{path}: run lacks {len(lacking)} qrels topic(s): {shown} (trec_eval 10.0 refuses "
                             "this too; -c scores them as 0, --skip-missing leaves them out)", TOPIC_ERROR)
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", MissingTopicsWarning)
                if prefs_mode:
                    result = evaluate_prefs(prefs, run, measures, complete=args.c, max_docs=args.M)
                else:
                    result = evaluate_many(qrels, [run], measures, relevance_level=args.l, complete=args.c,
                                           max_docs=args.M, judged_only=args.J, num_docs=args.N)[0]
            for w in caught:
                sys.stderr.write(f"metrics: warning: {w.message}\n")
        except ValueError as exc:
            return _fail(str(exc), INPUT_ERROR)
        del run
        if args.format in ("json", "csv"):
            results.append(result)
        elif args.format == "ir_measures":
            texts.append(format_ir_measures(result, aliases, per_topic=args.q))
        else:
            texts.append(format_trec(result, per_topic=args.q, runid=show_runid, summary=not args.n))
    from .evaluate import results_to_csv, results_to_json

    if args.format == "json":
        sys.stdout.write(results_to_json(results, per_topic=args.q) + "\n")
    elif args.format == "csv":
        sys.stdout.write(results_to_csv(results, per_topic=args.q))
    else:
        sys.stdout.write("".join(texts))
    return 0


def single_threaded_numpy() -> None:
    """Ask numpy's BLAS for one thread, before numpy is first imported (no effect after).

    The command line does no linear algebra; OpenBLAS's idle thread pool costs a one-run
    call about 0.03 s wall and 0.06 s CPU at import. The environment can still override it.
    """
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")


def run() -> None:
    """Entry point of the ``qrelsmith-eval`` console script."""
    single_threaded_numpy()
    exit_now(main())


def exit_now(status: int) -> None:
    """Flush the output and end the process without tearing the interpreter down.

    Freeing the docno vocabulary and unloading numpy at exit took 13 ms of a 0.23 s one-run
    call; the command line writes nothing but stdout and stderr, flushed here, and registers
    no exit handlers.
    """
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):  # the reader went away (``| head``): nothing left to say
        os._exit(1)
    os._exit(status)


def _check_measures(measures: list[str]) -> bool:
    """Resolve the measure names and parameters before any file is read (raises ValueError)."""
    from .registry import resolve

    resolve(measures)
    return True


def _list_measures() -> int:
    from .aliases import NAMES as ALIAS_NAMES
    from .prefs import PREFS_MEASURES, PREFS_NICKNAMES
    from .registry import NICKNAMES, registry

    for m in registry().values():
        params = ",".join(str(p) for p in m.defaults)
        flag = "" if m.trec else "  [not trec_eval]"
        sys.stdout.write(f"{m.name:<22}\t{params}\t{m.description}{flag}\n")
    for n, pm in PREFS_MEASURES.items():
        if n != "num_q":
            sys.stdout.write(f"{n:<22}\t\t{pm.description}  [-R prefs|qrels_prefs]\n")
    sys.stdout.write("nicknames: " + ", ".join((*NICKNAMES, *PREFS_NICKNAMES)) + "\n")
    sys.stdout.write("ir_measures names: " + ", ".join(k + ("k" if k.endswith("@") else "") for k in ALIAS_NAMES) + "\n")
    return 0
