"""The lead's form for who may enter a campaign's crowd link (the same for both campaign kinds)."""
from __future__ import annotations

from collections.abc import Callable

from django import forms
from django.contrib import messages
from django.http import HttpRequest

ENTRY_FIELDS = ("crowd_study_id", "crowd_hit_id", "crowd_max_workers", "crowd_max_new_per_ip_hour",
                "crowd_anonymous_allowed")


class CrowdEntryForm(forms.Form):
    """Expected platform ids, caps and anonymous entry of a campaign's crowd link."""

    crowd_study_id = forms.CharField(max_length=200, required=False, label="Expected Prolific STUDY_ID",
                                     help_text="Links for another study are refused (empty: not checked).")
    crowd_hit_id = forms.CharField(max_length=200, required=False, label="Expected MTurk hitId",
                                   help_text="Links for another HIT are refused (empty: not checked).")
    crowd_max_workers = forms.IntegerField(min_value=0, max_value=1_000_000, label="Most workers",
                                           help_text="0: no limit.")
    crowd_max_new_per_ip_hour = forms.IntegerField(min_value=0, max_value=10_000,
                                                   label="Most new workers per IP address and hour",
                                                   help_text="0: no limit (a lab behind one address may need more).")
    crowd_anonymous_allowed = forms.BooleanField(required=False, label="Let the link without platform ids in",
                                                 help_text="Each new browser becomes a new anonymous worker.")

    @classmethod
    def for_campaign(cls, campaign, data=None) -> CrowdEntryForm:
        return cls(data, initial={name: getattr(campaign, name) for name in ENTRY_FIELDS})


def crowd_entry_save(request: HttpRequest, campaign, *, update: Callable[..., list[str]]) -> None:
    """Apply the lead's posted crowd entry settings with ``update`` (the kind's ``crowd_settings_update``).

    Says on the next page what changed, or which field was refused and why.
    """
    form = CrowdEntryForm.for_campaign(campaign, request.POST)
    if form.is_valid():
        changed = update(campaign=campaign, user=request.user, **form.cleaned_data)
        messages.success(request, f"Crowd settings saved ({', '.join(changed) or 'nothing changed'}).")
    else:
        messages.error(request, "Crowd settings not saved: " + "; ".join(
            f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in form.errors.items()))
