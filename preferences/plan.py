"""A preference campaign's options as one value validated once: a ``PrefPlan``.

The lead's form (``preferences.forms.CampaignForm``) and the API's serializer
(``preferences.plan_serializer``) parse types and build the plan; the services
(``side_by_side_create``, ``doc_pair_create``) take it (scripts and tests may pass the flat
options instead, which build the same plan). A plan that exists has passed every rule that
does not need the database, and each problem names the option it is about, so the form and
the API show the same message beside the same input. What is judged has its own small rules
here too (``sides_problems``: two runs and some topics; ``pairs_from_rows``: known topics).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.core.exceptions import ValidationError

from campaign_core.plan_rules import Problem, crowd_problems, gold_problems, order_problems, problem, raise_problems
from preferences.models import PrefCampaign

# The limits a lead may choose beyond those both kinds share (campaign_core.plan_rules); the
# form's and the API's inputs read them for hints and the schema.
MAX_DEPTH = 20
MAX_JUDGMENTS_PER_ITEM = 10
MAX_GOLD_MIN_ANSWERS = 50


@dataclass(frozen=True)
class PrefPlan:
    """How a preference campaign is judged: panel depth, judgments per item, seed, lease, gold and crowd.

    Valid by construction: a plan that breaks a rule is never made (construction raises one
    ValidationError whose ``error_dict`` lists every problem under its option's name).
    """

    depth: int = 10
    judgments_per_item: int = 1
    seed: int = 0
    lease_seconds: int = 600
    gold_rate: float = 0.0
    gold_accuracy_threshold: float = 0.0
    gold_min_answers: int = 3
    crowd_enabled: bool = False
    crowd_batch_size: int = 10
    crowd_completion_code: str = ""
    crowd_completion_url: str = ""
    # Who may enter (campaign_core.crowd; the lead's crowd settings form sets them after creation).
    crowd_study_id: str = ""
    crowd_hit_id: str = ""
    crowd_max_workers: int = 0
    crowd_max_new_per_ip_hour: int = 5
    crowd_anonymous_allowed: bool = False

    def __post_init__(self) -> None:
        raise_problems(self.errors())

    def errors(self) -> list[Problem]:
        found = []
        if not 1 <= self.depth <= MAX_DEPTH:
            found.append(problem("depth", f"Panels show between 1 and {MAX_DEPTH} results.", "bad_size"))
        if not 1 <= self.judgments_per_item <= MAX_JUDGMENTS_PER_ITEM:
            found.append(problem("judgments_per_item",
                                 f"Judgments per item must be between 1 and {MAX_JUDGMENTS_PER_ITEM}.", "bad_overlap"))
        found.extend(order_problems(seed=self.seed, lease_seconds=self.lease_seconds))
        found.extend(gold_problems(rate=self.gold_rate, accuracy_threshold=self.gold_accuracy_threshold))
        if not 1 <= self.gold_min_answers <= MAX_GOLD_MIN_ANSWERS:
            found.append(problem("gold_min_answers",
                                 f"Gold answers before the threshold applies: 1 to {MAX_GOLD_MIN_ANSWERS}.", "bad_size"))
        found.extend(crowd_problems(batch_size=self.crowd_batch_size, max_workers=self.crowd_max_workers,
                                    max_new_per_ip_hour=self.crowd_max_new_per_ip_hour, unit="items"))
        return found

    @classmethod
    def of(cls, **options: Any) -> PrefPlan:
        """Build a plan from option names; TypeError for a name that is not an option."""
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise TypeError(f"Not preference campaign options: {', '.join(unknown)}.")
        return cls(**options)

    def campaign_fields(self) -> dict[str, Any]:
        """Return the ``PrefCampaign`` column values of this plan."""
        return asdict(self)


OPTIONS = tuple(PrefPlan.__dataclass_fields__)


def sides_problems(*, kind: str, run_a: Any, run_b: Any, topics: Sequence[Any]) -> list[Problem]:
    """Return what is missing for a campaign of ``kind`` to have something to judge (side by side: runs, topics)."""
    if kind not in PrefCampaign.Kind.values:
        return [problem("kind", f"Unknown kind {kind!r}.", "bad_kind")]
    found: list[Problem] = []
    if kind == PrefCampaign.Kind.SIDE_BY_SIDE:
        for option, run in (("run_a", run_a), ("run_b", run_b)):
            if run is None:
                found.append(problem(option, "Choose two runs.", "bad_runs"))
        if run_a is not None and run_b is not None and run_a.pk == run_b.pk:
            found.append(problem("run_b", "Choose two different runs.", "bad_runs"))
        if not topics:
            found.append(problem("topics", "Choose at least one topic.", "no_topics"))
    return found


def pairs_from_rows(rows: Iterable[Sequence[str]], topics: Mapping[str, Any], *, option: str,
                    label: str) -> list[tuple[Any, str, str]]:
    """Return (topic, docno A, docno B) per row of ``(qid, docno A, docno B)``; blank rows are skipped.

    Raises ValidationError under ``option`` naming the first row that is not three fields with a known qid.
    """
    pairs = []
    for n, row in enumerate(rows, 1):
        if not row:
            continue
        if len(row) != 3 or row[0] not in topics:
            raise ValidationError({option: [ValidationError(
                f"{label}, line {n}: expected 'qid docnoA docnoB' with a known qid.", code="bad_pair")]})
        pairs.append((topics[row[0]], row[1], row[2]))
    return pairs
