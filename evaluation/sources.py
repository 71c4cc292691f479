"""Qrels sources: which judgments a leaderboard scores against, and turning one into metrics Qrels.

A source is named by a short token so pages, the API and the command share one syntax:
``set:<id>`` (an imported QrelsSet), ``version:<number>`` (a frozen QrelsVersion) or
``campaign:<id>:<rule>`` (the live final labels of a campaign under a freeze rule).
"""
from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError

from collections_app.models import Collection, QrelsEntry, QrelsSet
from judging.models import Campaign, QrelsVersion
from judging.services.qrels import RULES, final_labels
from metrics import Qrels, qrels_from_dict


@dataclass(frozen=True)
class QrelsSource:
    """One choosable qrels source of a collection: its token and a human label."""

    kind: str  # "set" | "version" | "campaign"
    key: str  # set id, version number, or campaign id
    rule: str = ""
    label: str = ""

    @property
    def token(self) -> str:
        return f"{self.kind}:{self.key}" + (f":{self.rule}" if self.rule else "")


def available_sources(collection: Collection) -> list[QrelsSource]:
    """Return the collection's sources, newest frozen version first (the default), then sets, then live campaigns."""
    sources = [QrelsSource("version", str(n), label=f"Frozen version {n} ({rule})")
               for n, rule in QrelsVersion.objects.filter(collection=collection).order_by("-number")
               .values_list("number", "rule")]
    sources += [QrelsSource("set", str(pk), label=f"Imported qrels {name}")
                for pk, name in QrelsSet.objects.filter(collection=collection).order_by("-imported_at", "-pk")
                .values_list("pk", "name")]
    for pk, name in Campaign.objects.filter(collection=collection).order_by("pk").values_list("pk", "name"):
        sources += [QrelsSource("campaign", str(pk), rule, label=f"Live labels of {name} ({rule})") for rule in RULES]
    return sources


def parse_source(collection: Collection, token: str | None) -> QrelsSource | None:
    """Return the source a token names (the default source when empty), or None if the collection has none.

    Raises ValidationError(code="bad_source") for a token naming nothing in this collection,
    so one collection's qrels can never be read through another's URL.
    """
    if not token:
        sources = available_sources(collection)
        return sources[0] if sources else None
    parts = token.split(":")
    kind = parts[0]
    try:
        if kind == "version" and len(parts) == 2:
            number = int(parts[1])
            version = QrelsVersion.objects.only("rule").get(collection=collection, number=number)
            return QrelsSource("version", str(number), label=f"Frozen version {number} ({version.rule})")
        if kind == "set" and len(parts) == 2:
            qrels_set = QrelsSet.objects.only("name").get(collection=collection, pk=int(parts[1]))
            return QrelsSource("set", str(qrels_set.pk), label=f"Imported qrels {qrels_set.name}")
        if kind == "campaign" and len(parts) == 3 and parts[2] in RULES:
            campaign = Campaign.objects.only("name").get(collection=collection, pk=int(parts[1]))
            return QrelsSource("campaign", str(campaign.pk), parts[2], label=f"Live labels of {campaign.name} ({parts[2]})")
    except (ValueError, QrelsVersion.DoesNotExist, QrelsSet.DoesNotExist, Campaign.DoesNotExist):
        pass
    raise ValidationError(f"No qrels source {token!r} in this collection.", code="bad_source")


def parse_trec_qrels(text: str) -> dict[str, dict[str, int]]:
    """Parse TREC qrels text (``qid iter docno grade``) into ``{qid: {docno: grade}}``.

    >>> parse_trec_qrels("1 0 d1 2\\n1 0 d2 0\\n")
    {'1': {'d1': 2, 'd2': 0}}
    """
    data: dict[str, dict[str, int]] = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 4:
            continue
        data.setdefault(fields[0], {})[fields[2]] = int(fields[3])
    return data


def source_dict(collection: Collection, source: QrelsSource) -> dict[str, dict[str, int]]:
    """Return the judgments of a source as ``{qid: {docno: grade}}`` (one or two queries)."""
    if source.kind == "version":
        content = QrelsVersion.objects.filter(collection=collection, number=int(source.key)).values_list("content", flat=True).get()
        return parse_trec_qrels(content)
    if source.kind == "set":
        data: dict[str, dict[str, int]] = {}
        rows = QrelsEntry.objects.filter(qrels_set_id=int(source.key), qrels_set__collection=collection).values_list(
            "topic__qid", "docno", "grade")
        for qid, docno, grade in rows.iterator(chunk_size=20_000):
            data.setdefault(qid, {})[docno] = grade
        return data
    campaign = Campaign.objects.get(collection=collection, pk=int(source.key))
    data = {}
    for (qid, docno), grade in final_labels(campaign=campaign, rule=source.rule).items():
        data.setdefault(qid, {})[docno] = grade
    return data


class QrelsCache:
    """Turn sources into metrics Qrels at most once per request (or command run)."""

    def __init__(self, collection: Collection):
        self.collection = collection
        self._dicts: dict[str, dict] = {}
        self._qrels: dict[str, Qrels] = {}

    def as_dict(self, source: QrelsSource) -> dict[str, dict[str, int]]:
        if source.token not in self._dicts:
            self._dicts[source.token] = source_dict(self.collection, source)
        return self._dicts[source.token]

    def qrels(self, source: QrelsSource) -> Qrels:
        if source.token not in self._qrels:
            self._qrels[source.token] = qrels_from_dict(self.as_dict(source), name=source.token)
        return self._qrels[source.token]


def source_fingerprint(collection: Collection, source: QrelsSource) -> str | None:
    """Return a string that changes whenever the source's judgments can, or None when it cannot be cached.

    Frozen versions never change and imported sets are replaced only by deleting them, so their
    SHA-256 identifies their content; live campaign labels change with every judgment and are never cached.
    """
    if source.kind == "version":
        checksum = QrelsVersion.objects.filter(collection=collection, number=int(source.key)).values_list(
            "checksum", flat=True).first()
    elif source.kind == "set":
        checksum = QrelsSet.objects.filter(collection=collection, pk=int(source.key)).values_list(
            "checksum", flat=True).first()
    else:
        return None
    return None if checksum is None else f"{source.token}:{checksum}"
