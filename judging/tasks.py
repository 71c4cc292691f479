"""Background work of judging: an adaptive campaign's first priorities, and CAL retraining after judgments."""
from __future__ import annotations

from django_tasks import task


@task()
def adaptive_refresh(campaign_id: int, topic_id: int) -> int:
    """Retrain the campaign's strategy for one topic and rewrite that topic's item priorities."""
    from judging.models import Campaign
    from judging.services.adaptive import priorities_refresh

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        return 0
    return priorities_refresh(campaign=campaign, topic_id=topic_id)


@task()
def adaptive_init(campaign_id: int) -> None:
    """Compute every topic's priorities of a newly started adaptive campaign."""
    from judging.models import Campaign
    from judging.services.adaptive import priorities_init

    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is not None:
        priorities_init(campaign=campaign)
