"""A relevance campaign's plan is one value, valid by construction, built alike from flat options and parts."""
from __future__ import annotations

import dataclasses

import pytest
from django.core.exceptions import ValidationError

from judging.plan import FLAT_NAMES, CampaignPlan, CrowdPlan, GoldPlan, OrderPlan, WorkPlan


def test_flat_options_land_in_their_parts():
    plan = CampaignPlan.of(overlap="replicate", judgments_per_pair=3, order="random", seed=7, crowd_enabled=True,
                           crowd_batch_size=5, gold_accuracy_threshold=0.6)
    assert plan == CampaignPlan(work=WorkPlan(overlap="replicate", judgments_per_pair=3),
                                order=OrderPlan(order="random", seed=7),
                                gold=GoldPlan(accuracy_threshold=0.6), crowd=CrowdPlan(enabled=True, batch_size=5))


def test_every_problem_is_listed_at_once_with_its_code():
    with pytest.raises(ValidationError) as caught:
        CampaignPlan.of(split="sideways", order="alphabetical", overlap_fraction=2.0, lease_seconds=1, gold_rate=0.9,
                        crowd_batch_size=0)
    codes = sorted(error.code for errors in caught.value.error_dict.values() for error in errors)
    assert codes == ["bad_fraction", "bad_fraction", "bad_gold", "bad_order", "bad_size", "bad_size", "bad_split"]


def test_each_problem_names_the_option_it_is_about():
    with pytest.raises(ValidationError) as caught:
        CampaignPlan.of(split="sideways", overlap_fraction=2.0, gold_rate=0.2, crowd_max_workers=-1, seed=-2**31 - 1)
    assert set(caught.value.error_dict) == {"split", "overlap_fraction", "gold_qrels", "crowd_max_workers", "seed"}
    assert set(caught.value.error_dict) <= set(FLAT_NAMES)


@pytest.mark.parametrize("option, good, bad", [
    ("judgments_per_pair", 20, 21), ("lease_seconds", 30, 29), ("lease_seconds", 86400, 86401),
    ("gold_rate", 0.5, 0.51), ("crowd_batch_size", 1000, 1001), ("seed", 2**31 - 1, 2**31),
    ("calibration_size", 0, -1),
])
def test_limits_are_inclusive(option, good, bad):
    extra = {"gold_qrels": object()} if option == "gold_rate" else {}
    CampaignPlan.of(**{option: good}, **extra)
    with pytest.raises(ValidationError) as caught:
        CampaignPlan.of(**{option: bad}, **extra)
    assert list(caught.value.error_dict) == [option]


def test_an_unknown_option_is_a_type_error_not_silently_ignored():
    with pytest.raises(TypeError, match="judgements_per_pair"):
        CampaignPlan.of(judgements_per_pair=2)


def test_a_plan_cannot_be_changed_after_it_was_validated():
    plan = CampaignPlan()
    with pytest.raises(dataclasses.FrozenInstanceError):
        plan.work = WorkPlan(overlap="replicate")  # type: ignore[misc]


def test_campaign_fields_reset_overlap_settings_that_do_not_apply():
    fields = CampaignPlan.of(overlap="fraction", overlap_fraction=0.3, judgments_per_pair=4,
                             calibration_size=9).campaign_fields()
    assert (fields["overlap_fraction"], fields["judgments_per_pair"], fields["calibration_size"]) == (0.3, 1, 0)
    assert set(fields) == set(FLAT_NAMES)
