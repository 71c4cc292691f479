"""Lead form for a new preference campaign."""
from __future__ import annotations

from typing import Any

from django import forms

from collections_app.models import Run, Topic
from preferences.models import PrefCampaign


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=200)
    kind = forms.ChoiceField(choices=PrefCampaign.Kind.choices)
    run_a = forms.ModelChoiceField(queryset=Run.objects.none(), required=False)
    run_b = forms.ModelChoiceField(queryset=Run.objects.none(), required=False)
    topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none(), required=False)
    gold_topics = forms.ModelMultipleChoiceField(queryset=Topic.objects.none(), required=False,
                                                 help_text="Side by side: topics also shown as gold items.")
    pairs = forms.CharField(widget=forms.Textarea, required=False,
                            help_text="Document pairs: one 'qid docnoA docnoB' per line.")
    gold_pairs = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False,
                                 help_text="Document pairs: gold pairs, one 'qid better_docno worse_docno' per line.")
    depth = forms.IntegerField(min_value=1, max_value=20, initial=10)
    judgments_per_item = forms.IntegerField(min_value=1, max_value=10, initial=1)
    seed = forms.IntegerField(initial=0)
    gold_rate = forms.FloatField(min_value=0, max_value=0.5, initial=0)
    gold_accuracy_threshold = forms.FloatField(
        min_value=0.0, max_value=1.0, initial=0.0,
        help_text="Crowd workers whose share of correct gold answers falls below this are stopped and their "
                  "judgments excluded (0: never).")
    gold_min_answers = forms.IntegerField(min_value=1, max_value=50, initial=3,
                                          help_text="Gold answers a worker gives before the threshold applies.")
    lease_seconds = forms.IntegerField(min_value=30, max_value=86400, initial=600)
    crowd_enabled = forms.BooleanField(required=False, label="Open a crowd link")
    crowd_batch_size = forms.IntegerField(min_value=1, max_value=1000, initial=10,
                                          help_text="Items per crowd worker, gold included.")
    crowd_completion_code = forms.CharField(
        max_length=100, required=False, label="Platform completion code (Prolific study code)",
        help_text="Put in the completion URL's cc=; every worker is also shown a code of their own.")
    crowd_completion_url = forms.URLField(max_length=2000, required=False, label="Completion URL (Prolific)",
                                          assume_scheme="https")
    assessors: forms.ModelMultipleChoiceField[Any] = forms.ModelMultipleChoiceField(queryset=None, required=False)

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        from django.contrib.auth import get_user_model

        self.collection = collection
        self.fields["run_a"].queryset = collection.runs.order_by("tag")
        self.fields["run_b"].queryset = collection.runs.order_by("tag")
        self.fields["topics"].queryset = collection.topics.order_by("qid")
        self.fields["gold_topics"].queryset = collection.topics.order_by("qid")
        self.fields["assessors"].queryset = get_user_model().objects.filter(
            memberships__collection=collection).order_by("username")

    def clean(self):
        data = super().clean()
        if data.get("kind") == PrefCampaign.Kind.SIDE_BY_SIDE:
            if not data.get("run_a") or not data.get("run_b"):
                raise forms.ValidationError("Choose two runs.")
            if not data.get("topics"):
                raise forms.ValidationError("Choose at least one topic.")
        elif data.get("kind") == PrefCampaign.Kind.DOC_PAIR:
            topics = {t.qid: t for t in self.collection.topics.all()}
            data["pair_list"] = _parse_pairs(data.get("pairs"), topics, "Pairs")
            data["gold_pair_list"] = _parse_pairs(data.get("gold_pairs"), topics, "Gold pairs")
        return data


def _parse_pairs(text: str | None, topics: dict, label: str) -> list:
    """Return (topic, docno A, docno B) for each non-blank line of ``text``."""
    pairs = []
    for n, line in enumerate((text or "").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        if len(parts) != 3 or parts[0] not in topics:
            raise forms.ValidationError(f"{label}, line {n}: expected 'qid docnoA docnoB' with a known qid.")
        pairs.append((topics[parts[0]], parts[1], parts[2]))
    return pairs
