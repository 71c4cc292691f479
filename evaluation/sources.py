"""Qrels sources: which judgments a leaderboard scores against, and turning one into metrics Qrels.

A source is named by a short token so pages, the API and the command share one syntax:
``set:<id>`` (an imported QrelsSet), ``version:<number>`` (a frozen QrelsVersion) or
``campaign:<id>:<rule>`` (the live final labels of a campaign under a freeze rule).

A campaign on a sampled pool (and a version frozen from one) also has prels
(``QrelsCache.prels``): the same labels with every pooled document's stratum and inclusion
probability, from which the leaderboard estimates infAP, xinfAP and infNDCG@10.
"""
from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import ValidationError

from collections_app.models import Collection, Pool, QrelsEntry, QrelsSet
from judging.models import Campaign, QrelsVersion
from judging.services.prels import CampaignPrels, prels_from_labels
from judging.services.qrels import RULES, final_labels
from metrics import MetricsInputError, Qrels, qrels_from_dict, qrels_from_text

SAMPLE = Pool.Strategy.SAMPLE
SAMPLED_NOTE = " · sampled pool"


@dataclass(frozen=True)
class QrelsSource:
    """One choosable qrels source of a collection: its token and a human label."""

    kind: str  # "set" | "version" | "campaign"
    key: str  # set id, version number, or campaign id
    rule: str = ""
    label: str = ""
    # Id of the campaign on a sampled pool whose labels these are (live or frozen); None otherwise.
    sampled_campaign: int | None = None

    @property
    def token(self) -> str:
        return f"{self.kind}:{self.key}" + (f":{self.rule}" if self.rule else "")


def available_sources(collection: Collection) -> list[QrelsSource]:
    """Return the collection's sources, newest frozen version first (the default), then sets, then live campaigns."""
    sources = [_version_source(n, rule, campaign_id, strategy)
               for n, rule, campaign_id, strategy in QrelsVersion.objects.filter(collection=collection)
               .order_by("-number").values_list("number", "rule", "campaign_id", "campaign__pool__strategy")]
    sources += [QrelsSource("set", str(pk), label=f"Imported qrels {name}")
                for pk, name in QrelsSet.objects.filter(collection=collection).order_by("-imported_at", "-pk")
                .values_list("pk", "name")]
    for pk, name, strategy in Campaign.objects.filter(collection=collection).order_by("pk").values_list(
            "pk", "name", "pool__strategy"):
        sources += [_campaign_source(pk, name, rule, strategy) for rule in RULES]
    return sources


def _version_source(number: int, rule: str, campaign_id: int | None, strategy: str | None) -> QrelsSource:
    sampled = campaign_id if strategy == SAMPLE else None
    label = f"Frozen version {number} ({rule})" + (SAMPLED_NOTE if sampled else "")
    return QrelsSource("version", str(number), label=label, sampled_campaign=sampled)


def _campaign_source(pk: int, name: str, rule: str, strategy: str) -> QrelsSource:
    sampled = pk if strategy == SAMPLE else None
    label = f"Live labels of {name} ({rule})" + (SAMPLED_NOTE if sampled else "")
    return QrelsSource("campaign", str(pk), rule, label=label, sampled_campaign=sampled)


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
            rule, campaign_id, strategy = QrelsVersion.objects.values_list(
                "rule", "campaign_id", "campaign__pool__strategy").get(collection=collection, number=number)
            return _version_source(number, rule, campaign_id, strategy)
        if kind == "set" and len(parts) == 2:
            qrels_set = QrelsSet.objects.only("name").get(collection=collection, pk=int(parts[1]))
            return QrelsSource("set", str(qrels_set.pk), label=f"Imported qrels {qrels_set.name}")
        if kind == "campaign" and len(parts) == 3 and parts[2] in RULES:
            pk, name, strategy = Campaign.objects.values_list("pk", "name", "pool__strategy").get(
                collection=collection, pk=int(parts[1]))
            return _campaign_source(pk, name, parts[2], strategy)
    except (ValueError, QrelsVersion.DoesNotExist, QrelsSet.DoesNotExist, Campaign.DoesNotExist):
        pass
    raise ValidationError(f"No qrels source {token!r} in this collection.", code="bad_source")


def parse_trec_qrels(text: str, *, name: str = "qrels") -> dict[str, dict[str, int]]:
    """Parse TREC qrels text (``qid iter docno grade``) into ``{qid: {docno: grade}}``.

    Strict (``metrics.qrels_from_text``): a malformed line raises ``MetricsInputError`` naming
    ``name`` and the line instead of being dropped.

    >>> parse_trec_qrels("1 0 d1 2\\n1 0 d2 0\\n")
    {'1': {'d1': 2, 'd2': 0}}
    """
    data: dict[str, dict[str, int]] = {}
    for (qid, docno), grade in qrels_from_text(text, name=name).items():
        data.setdefault(qid, {})[docno] = grade
    return data


def source_dict(collection: Collection, source: QrelsSource) -> dict[str, dict[str, int]]:
    """Return the judgments of a source as ``{qid: {docno: grade}}`` (one or two queries)."""
    if source.kind == "version":
        content = QrelsVersion.objects.filter(collection=collection, number=int(source.key)).values_list("content", flat=True).get()
        try:
            return parse_trec_qrels(content, name=f"qrels v{source.key}")
        except MetricsInputError as error:  # a version edited outside the app; never written by a freeze
            raise ValidationError(str(error), code="bad_qrels") from None
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
        self._prels: dict[str, CampaignPrels] = {}

    def as_dict(self, source: QrelsSource) -> dict[str, dict[str, int]]:
        if source.token not in self._dicts:
            self._dicts[source.token] = source_dict(self.collection, source)
        return self._dicts[source.token]

    def qrels(self, source: QrelsSource) -> Qrels:
        if source.token not in self._qrels:
            self._qrels[source.token] = qrels_from_dict(self.as_dict(source), name=source.token)
        return self._qrels[source.token]

    def prels(self, source: QrelsSource) -> CampaignPrels | None:
        """Return the prels of a sampled campaign's labels (exactly the labels ``as_dict`` gives), else None.

        Raises ValidationError ``sample_changed`` when the pool's runs changed after the build.
        """
        if source.sampled_campaign is None:
            return None
        if source.token not in self._prels:
            campaign = Campaign.objects.select_related("pool").get(collection=self.collection,
                                                                   pk=source.sampled_campaign)
            labels = {(q, d): g for q, docs in self.as_dict(source).items() for d, g in docs.items()}
            self._prels[source.token] = prels_from_labels(campaign=campaign, labels=labels)
        return self._prels[source.token]


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
