"""What a relevance campaign exports: every judgment, the final labels, frozen qrels versions — CSV or JSONL.

Rows are generated lazily (judgments are read in chunks) and written by the one export writer
(``campaign_core.exports``), so downloads stream with flat memory and every CSV carries the
spreadsheet-formula guard. Column names are stable and documented in docs/formats.md:

- judgments: one row per judgment (blocked assessors' too, for audit) — ``kind`` says whether
  the label came from an expert, a crowd worker or an imported file (``imported``), and
  ``active_seconds`` is empty/null when unknown (imported labels without timings);
- final labels: ``qid, docno, grade, confidence`` under a rule, in qrels order (a Dawid–Skene
  CSV opens with one ``# dawid_skene: rounds=… converged=… log_likelihood=…`` line);
- qrels: ``qid, iteration, docno, grade`` of a frozen version, exactly its lines.
"""
from __future__ import annotations

from collections.abc import Iterator

from campaign_core.exports import export_lines, export_text
from judging.models import Campaign, Judgment, QrelsVersion
from judging.services.qrels import final_labels_detail, qid_key

JUDGMENT_FIELDS = (
    "judgment_id", "assessor_id", "assessor", "kind", "platform", "blocked", "qid", "docno", "grade", "skipped",
    "skip_reason", "comment", "active_seconds", "is_gold", "gold_grade", "created_at", "updated_at", "revision_count",
)
FINAL_LABEL_FIELDS = ("qid", "docno", "grade", "confidence")
QRELS_FIELDS = ("qid", "iteration", "docno", "grade")


def judgment_rows(campaign: Campaign) -> Iterator[dict]:
    """Yield every judgment of the campaign in item order, then time."""
    judgments = (
        Judgment.objects.filter(item__campaign=campaign)
        .select_related("assessor__user", "item__pair__topic")
        .order_by("item__position", "created_at", "pk")
    )
    for j in judgments.iterator(chunk_size=2000):
        yield {
            "judgment_id": j.pk, "assessor_id": j.assessor_id, "assessor": str(j.assessor), "kind": j.assessor.kind,
            "platform": j.assessor.platform, "blocked": j.assessor.blocked, "qid": j.item.pair.topic.qid,
            "docno": j.item.pair.docno, "grade": j.grade, "skipped": j.skipped, "skip_reason": j.skip_reason,
            "comment": j.comment, "active_seconds": None if j.active_seconds is None else round(j.active_seconds, 3),
            "is_gold": j.item.is_gold, "gold_grade": j.item.gold_grade, "created_at": j.created_at.isoformat(),
            "updated_at": j.updated_at.isoformat(), "revision_count": j.revision_count,
        }


def judgments_lines(*, campaign: Campaign, fmt: str) -> Iterator[str]:
    """Yield the judgments export line by line (raises ValidationError(code="bad_format") first)."""
    return export_lines(judgment_rows(campaign), fields=JUDGMENT_FIELDS, fmt=fmt)


def judgments_export(*, campaign: Campaign, fmt: str) -> str:
    """Return every judgment of the campaign (blocked workers' too, for audit) as CSV or JSONL text."""
    return export_text(judgment_rows(campaign), fields=JUDGMENT_FIELDS, fmt=fmt)


def final_label_rows(*, campaign: Campaign, rule: str, report: dict | None = None) -> list[dict]:
    """Return the final labels under a rule with their confidence, in qrels order (qid, then docno).

    ``report`` (a dict) is filled with how an aggregating rule ended (Dawid–Skene: rounds,
    converged, log-likelihood; see ``judging.services.qrels.dawid_skene_report``).
    """
    detail = final_labels_detail(campaign=campaign, rule=rule, report=report)
    all_numeric = all(qid.isascii() and qid.isdigit() for qid, _ in detail)
    return [{"qid": qid, "docno": docno, "grade": grade, "confidence": round(confidence, 4)}
            for (qid, docno), (grade, confidence) in sorted(detail.items(), key=qid_key(all_numeric))]


def aggregation_comment(report: dict) -> str:
    """Return one line saying how a Dawid–Skene run ended ("" for a rule without a report).

    A lead who downloads the labels must see that a run stopped without converging (its labels
    may still change with more rounds), not only the frozen version's page.

    >>> ended = {"method": "dawid_skene", "iterations": 3, "converged": True, "log_likelihood": -12.3456789,
    ...          "tolerance": 1e-05, "smoothing": 0.01}
    >>> aggregation_comment(ended)
    'dawid_skene: rounds=3 converged=true log_likelihood=-12.345679 tolerance=1e-05 smoothing=0.01'
    >>> aggregation_comment({**ended, "converged": False}).split(" — ")[1]
    'NOT CONVERGED: stopped after 3 rounds without converging; its labels may still change with more rounds'
    """
    if report.get("method") != "dawid_skene":
        return ""
    converged = bool(report.get("converged"))
    loglik = report.get("log_likelihood")
    text = (f"dawid_skene: rounds={report.get('iterations')} converged={'true' if converged else 'false'} "
            f"log_likelihood={'' if loglik is None else f'{loglik:.6f}'} tolerance={report.get('tolerance')} "
            f"smoothing={report.get('smoothing')}")
    if not converged:
        text += (f" — NOT CONVERGED: stopped after {report.get('iterations')} rounds without converging; "
                 "its labels may still change with more rounds")
    if report.get("collapsed"):
        text += f" — labels collapsed: {report.get('collapse_reason')}"
    return text


def final_labels_lines(*, campaign: Campaign, rule: str, fmt: str) -> Iterator[str]:
    """Yield the final-labels export; a Dawid–Skene CSV starts with one ``#`` line on how the run ended."""
    report: dict = {}
    rows = final_label_rows(campaign=campaign, rule=rule, report=report)
    comment = aggregation_comment(report)
    return export_lines(rows, fields=FINAL_LABEL_FIELDS, fmt=fmt, comments=[comment] if comment else [])


def final_labels_csv(*, campaign: Campaign, rule: str) -> str:
    """Return the final labels as CSV (qid, docno, grade, confidence)."""
    return "".join(final_labels_lines(campaign=campaign, rule=rule, fmt="csv"))


def qrels_rows(version: QrelsVersion) -> Iterator[dict]:
    """Yield a frozen version's lines as rows (its text is ``qid iteration docno grade`` per line)."""
    for line in version.content.splitlines():
        qid, iteration, docno, grade = line.split()
        yield {"qid": qid, "iteration": iteration, "docno": docno, "grade": int(grade)}


def qrels_lines(*, version: QrelsVersion, fmt: str) -> Iterator[str]:
    return export_lines(qrels_rows(version), fields=QRELS_FIELDS, fmt=fmt)
