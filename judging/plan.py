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

from django.core.exceptions import ValidationError

from judging.models import Campaign

# The limits a lead may choose, enforced here only: the form and the API parse types and leave
# every rule to the plan (they read these numbers for the browser's hints and the API schema).
MAX_JUDGMENTS_PER_PAIR = 20
LEASE_SECONDS = (30, 24 * 3600)
MAX_GOLD_RATE = 0.5
MAX_CROWD_BATCH = 1000
MAX_INT = 2**31 - 1  # the columns are 32-bit integers: refuse what the database would refuse with a 500
# Raising an existing campaign's required judgments (``items_send_to_more_assessors``) stops here.
MAX_REPLICATION = 50

# A problem with one option: the flat option name it is about, and the error.
Problem = tuple[str, ValidationError]


def _problem(option: str, message: str, code: str) -> Problem:
    return option, ValidationError(message, code=code)


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
            found.append(_problem("split", f"Unknown split {self.split!r}.", "bad_split"))
        if self.overlap not in Campaign.Overlap.values:
            found.append(_problem("overlap", f"Unknown overlap {self.overlap!r}.", "bad_overlap"))
        if not 1 <= self.judgments_per_pair <= MAX_JUDGMENTS_PER_PAIR:
            found.append(_problem("judgments_per_pair",
                                  f"Judgments per pair must be between 1 and {MAX_JUDGMENTS_PER_PAIR}.", "bad_overlap"))
        if not 0.0 <= self.overlap_fraction <= 1.0:
            found.append(_problem("overlap_fraction", "The fraction judged twice must lie in [0, 1].", "bad_fraction"))
        if not 0 <= self.calibration_size <= MAX_INT:
            found.append(_problem("calibration_size", f"The calibration size must be between 0 and {MAX_INT}.",
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
            found.append(_problem("order", f"Unknown order {self.order!r}.", "bad_order"))
        if not -MAX_INT - 1 <= self.seed <= MAX_INT:
            found.append(_problem("seed", f"The seed must be between {-MAX_INT - 1} and {MAX_INT}.", "bad_size"))
        low, high = LEASE_SECONDS
        if not low <= self.lease_seconds <= high:
            found.append(_problem("lease_seconds", f"Leases last between {low} and {high} s.", "bad_size"))
        return found


@dataclass(frozen=True)
class GoldPlan:
    """Known-answer pairs: where their labels come from, how many are mixed in, when a worker is stopped."""

    qrels: Any = None  # a collections_app QrelsSet, or None
    rate: float = 0.0
    accuracy_threshold: float = 0.0

    def errors(self) -> list[Problem]:
        found = []
        if not 0.0 <= self.rate <= MAX_GOLD_RATE:
            found.append(_problem("gold_rate", f"The gold rate must lie in [0, {MAX_GOLD_RATE}].", "bad_fraction"))
        if not 0.0 <= self.accuracy_threshold <= 1.0:
            found.append(_problem("gold_accuracy_threshold", "The gold accuracy threshold must lie in [0, 1].",
                                  "bad_fraction"))
        if self.rate > 0 and self.qrels is None:
            found.append(_problem("gold_qrels", "A gold rate needs gold qrels.", "bad_gold"))
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
        found = []
        if not 1 <= self.batch_size <= MAX_CROWD_BATCH:
            found.append(_problem("crowd_batch_size", f"A crowd batch holds between 1 and {MAX_CROWD_BATCH} pairs.",
                                  "bad_size"))
        for option, value in (("crowd_max_workers", self.max_workers),
                              ("crowd_max_new_per_ip_hour", self.max_new_per_ip_hour)):
            if not 0 <= value <= MAX_INT:
                found.append(_problem(option, "Crowd caps cannot be negative (0 means no limit).", "bad_size"))
        return found


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
        by_option: dict[str, list[ValidationError]] = {}
        for option, error in self.work.errors() + self.order.errors() + self.gold.errors() + self.crowd.errors():
            by_option.setdefault(option, []).append(error)
        if by_option:
            raise ValidationError(by_option)

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


