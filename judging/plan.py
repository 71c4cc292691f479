"""How a relevance campaign lays out its work, as one value validated once: a ``CampaignPlan``.

The lead's form (``CampaignCreateForm.campaign_plan``), the API's serializer
(``judging.plan_serializer``), scripts and tests all build it with :meth:`CampaignPlan.of` from
the same flat option names, and ``campaign_create`` takes it as it is: a plan that exists has
passed every rule that does not need the database, so the service only checks what does (the
pool's and the gold qrels' collection, the assessors' membership, the name). The form and the
serializer only parse types; ranges and combinations are checked here, once, and each problem
names the option it is about. Its parts are the decisions a lead makes, each in one place:

- ``work``: split (shared queue or by topic) and overlap (none, replicate r, a fraction judged
  twice, a calibration set judged by everyone);
- ``order``: the pool's order, a seeded shuffle or an adaptive order; the seed; lease length;
- ``gold``: the qrels whose labels serve as gold, the share of gold pairs, the accuracy
  threshold below which crowd workers are stopped;
- ``crowd``: the batch link's settings.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from campaign_core.plan_rules import (
    MAX_INT,
    Problem,
    crowd_problems,
    gold_problems,
    order_problems,
    problem,
    raise_problems,
)
from judging.models import Campaign

# The limits a lead may choose, enforced here only: the form and the API parse types and leave
# every rule to the plan (they read these numbers for the browser's hints and the API schema).
# The limits both campaign kinds share (lease, gold rate, crowd batch) are campaign_core's.
MAX_JUDGMENTS_PER_PAIR = 20
# Raising an existing campaign's required judgments (``items_send_to_more_assessors``) stops here.
MAX_REPLICATION = 50


@dataclass(frozen=True)
class WorkPlan:
    """Who judges which pair how often: the split and the overlap."""

    split: str = Campaign.Split.SHARED_QUEUE
    overlap: str = Campaign.Overlap.NONE
    judgments_per_pair: int = 1
    overlap_fraction: float = 0.0
    calibration_size: int = 0

    def errors(self) -> list[Problem]:
        found = []
        if self.split not in Campaign.Split.values:
            found.append(problem("split", f"Unknown split {self.split!r}.", "bad_split"))
        if self.overlap not in Campaign.Overlap.values:
            found.append(problem("overlap", f"Unknown overlap {self.overlap!r}.", "bad_overlap"))
        if not 1 <= self.judgments_per_pair <= MAX_JUDGMENTS_PER_PAIR:
            found.append(problem("judgments_per_pair",
                                 f"Judgments per pair must be between 1 and {MAX_JUDGMENTS_PER_PAIR}.", "bad_overlap"))
        if not 0.0 <= self.overlap_fraction <= 1.0:
            found.append(problem("overlap_fraction", "The fraction judged twice must lie in [0, 1].", "bad_fraction"))
        if not 0 <= self.calibration_size <= MAX_INT:
            found.append(problem("calibration_size", f"The calibration size must be between 0 and {MAX_INT}.",
                                 "bad_size"))
        return found


@dataclass(frozen=True)
class OrderPlan:
    """In what order pairs are handed out, the seed of every random choice, and how long a lease lasts."""

    order: str = Campaign.Order.POOL
    seed: int = 0
    lease_seconds: int = 600

    def errors(self) -> list[Problem]:
        found = []
        if self.order not in Campaign.Order.values:
            found.append(problem("order", f"Unknown order {self.order!r}.", "bad_order"))
        found.extend(order_problems(seed=self.seed, lease_seconds=self.lease_seconds))
        return found


@dataclass(frozen=True)
class GoldPlan:
    """Known-answer pairs: where their labels come from, how many are mixed in, when a worker is stopped."""

    qrels: Any = None  # a collections_app QrelsSet, or None
    rate: float = 0.0
    accuracy_threshold: float = 0.0

    def errors(self) -> list[Problem]:
        found = gold_problems(rate=self.rate, accuracy_threshold=self.accuracy_threshold)
        if self.rate > 0 and self.qrels is None:
            found.append(problem("gold_qrels", "A gold rate needs gold qrels.", "bad_gold"))
        return found


@dataclass(frozen=True)
class CrowdPlan:
    """The crowd batch link: whether it is open, the batch size, what workers read and get at the end."""

    enabled: bool = False
    batch_size: int = 20
    instructions: str = ""
    completion_code: str = ""
    completion_url: str = ""
    # Who may enter (campaign_core.crowd): expected platform ids, caps, anonymous entry.
    study_id: str = ""
    hit_id: str = ""
    max_workers: int = 0
    max_new_per_ip_hour: int = 5
    anonymous_allowed: bool = False

    def errors(self) -> list[Problem]:
        return crowd_problems(batch_size=self.batch_size, max_workers=self.max_workers,
                              max_new_per_ip_hour=self.max_new_per_ip_hour, unit="pairs")


# The flat option names (the form's fields, the model's columns) → (part, field of the part).
FLAT_NAMES = {
    "split": ("work", "split"), "overlap": ("work", "overlap"), "judgments_per_pair": ("work", "judgments_per_pair"),
    "overlap_fraction": ("work", "overlap_fraction"), "calibration_size": ("work", "calibration_size"),
    "order": ("order", "order"), "seed": ("order", "seed"), "lease_seconds": ("order", "lease_seconds"),
    "gold_qrels": ("gold", "qrels"), "gold_rate": ("gold", "rate"),
    "gold_accuracy_threshold": ("gold", "accuracy_threshold"),
    "crowd_enabled": ("crowd", "enabled"), "crowd_batch_size": ("crowd", "batch_size"),
    "crowd_instructions": ("crowd", "instructions"), "crowd_completion_code": ("crowd", "completion_code"),
    "crowd_completion_url": ("crowd", "completion_url"),
    "crowd_study_id": ("crowd", "study_id"), "crowd_hit_id": ("crowd", "hit_id"),
    "crowd_max_workers": ("crowd", "max_workers"), "crowd_max_new_per_ip_hour": ("crowd", "max_new_per_ip_hour"),
    "crowd_anonymous_allowed": ("crowd", "anonymous_allowed"),
}


@dataclass(frozen=True)
class CampaignPlan:
    """A relevance campaign's layout, valid by construction.

    A plan that breaks a rule is never made: construction raises one ValidationError whose
    ``error_dict`` lists every problem under the flat option name it is about (``gold_rate``,
    ``lease_seconds``...), so the form and the API can show each message beside its input.
    """

    work: WorkPlan = field(default_factory=WorkPlan)
    order: OrderPlan = field(default_factory=OrderPlan)
    gold: GoldPlan = field(default_factory=GoldPlan)
    crowd: CrowdPlan = field(default_factory=CrowdPlan)

    def __post_init__(self) -> None:
        raise_problems(self.work.errors() + self.order.errors() + self.gold.errors() + self.crowd.errors())

    @classmethod
    def of(cls, **options: Any) -> CampaignPlan:
        """Build a plan from flat option names (``overlap="replicate", judgments_per_pair=3, gold_rate=0.1``…).

        Raises TypeError for a name that is not an option, ValidationError for values that break a rule.
        """
        unknown = sorted(set(options) - set(FLAT_NAMES))
        if unknown:
            raise TypeError(f"Not campaign plan options: {', '.join(unknown)}.")
        parts: dict[str, dict[str, Any]] = {"work": {}, "order": {}, "gold": {}, "crowd": {}}
        for name, value in options.items():
            part, attribute = FLAT_NAMES[name]
            parts[part][attribute] = value
        return cls(work=WorkPlan(**parts["work"]), order=OrderPlan(**parts["order"]),
                   gold=GoldPlan(**parts["gold"]), crowd=CrowdPlan(**parts["crowd"]))

    def campaign_fields(self) -> dict[str, Any]:
        """Return the ``Campaign`` column values of this plan (overlap settings that do not apply are reset)."""
        work = self.work
        values = {name: getattr(getattr(self, part), attribute) for name, (part, attribute) in FLAT_NAMES.items()}
        values["judgments_per_pair"] = work.judgments_per_pair if work.overlap == Campaign.Overlap.REPLICATE else 1
        values["overlap_fraction"] = work.overlap_fraction if work.overlap == Campaign.Overlap.FRACTION else 0.0
        values["calibration_size"] = work.calibration_size if work.overlap == Campaign.Overlap.CALIBRATION else 0
        return values


