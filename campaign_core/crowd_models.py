"""The crowd settings every campaign kind carries: one abstract model, so both kinds read them alike.

``campaign_core.crowd`` reads these fields only, whatever the campaign kind, so a rule about
who may join (the expected study, the caps, anonymous entry) is written once.
"""
from __future__ import annotations

from django.db import models


class CrowdSettings(models.Model):
    """Crowd link settings of a campaign: completion, expected platform ids and entry limits.

    Limits are off at 0. Anonymous entry (the link opened without ``PROLIFIC_PID`` or
    ``workerId``) is off by default: anyone could otherwise make a new worker per browser.
    """

    crowd_enabled = models.BooleanField(default=False)
    crowd_batch_size = models.PositiveIntegerField(default=20)
    crowd_completion_code = models.CharField(
        max_length=100, blank=True,
        help_text="The platform's code for a finished submission (Prolific's study code), put in the "
                  "completion URL. Each worker is also shown a code of their own.",
    )
    crowd_completion_url = models.URLField(max_length=2000, blank=True, help_text="Prolific completion redirect.")
    crowd_study_id = models.CharField(
        max_length=200, blank=True, help_text="Prolific STUDY_ID the link must carry (empty: not checked).",
    )
    crowd_hit_id = models.CharField(
        max_length=200, blank=True, help_text="MTurk hitId the link must carry (empty: not checked).",
    )
    crowd_max_workers = models.PositiveIntegerField(
        default=0, help_text="At most this many crowd workers join (0: no limit).",
    )
    crowd_max_new_per_ip_hour = models.PositiveIntegerField(
        default=5, help_text="At most this many new workers per IP address and hour (0: no limit).",
    )
    crowd_anonymous_allowed = models.BooleanField(
        default=False, help_text="Let the link without platform ids in (each new browser is a new worker).",
    )

    class Meta:
        abstract = True
