"""Lead form for a new preference campaign: it parses types, the ``PrefPlan`` holds the rules."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from campaign_core.plan_rules import LEASE_SECONDS, MAX_CROWD_BATCH, MAX_GOLD_RATE, number_input
from collections_app.models import Run, Topic
from preferences.models import PrefCampaign
from preferences.plan import (
    MAX_DEPTH,
    MAX_GOLD_MIN_ANSWERS,
    MAX_JUDGMENTS_PER_ITEM,
    OPTIONS,
    PrefPlan,
    pairs_from_rows,
    sides_problems,
)


class CampaignForm(forms.Form):
    """Start a side-by-side or document-pair campaign; problems land on the fields they are about."""

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
    depth = forms.IntegerField(initial=10, widget=number_input(1, MAX_DEPTH))
    judgments_per_item = forms.IntegerField(initial=1, widget=number_input(1, MAX_JUDGMENTS_PER_ITEM))
    seed = forms.IntegerField(initial=0)
    gold_rate = forms.FloatField(initial=0, widget=number_input(0, MAX_GOLD_RATE))
    gold_accuracy_threshold = forms.FloatField(
        initial=0.0, widget=number_input(0, 1),
        help_text="Crowd workers whose share of correct gold answers falls below this are stopped and their "
                  "judgments excluded (0: never).")
    gold_min_answers = forms.IntegerField(initial=3, widget=number_input(1, MAX_GOLD_MIN_ANSWERS),
                                          help_text="Gold answers a worker gives before the threshold applies.")
    lease_seconds = forms.IntegerField(initial=600, widget=number_input(*LEASE_SECONDS))
    crowd_enabled = forms.BooleanField(required=False, label="Open a crowd link")
    crowd_batch_size = forms.IntegerField(initial=10, widget=number_input(1, MAX_CROWD_BATCH),
                                          help_text="Items per crowd worker, gold included.")
    crowd_completion_code = forms.CharField(
        max_length=100, required=False, label="Platform completion code (Prolific study code)",
        help_text="Put in the completion URL's cc=; every worker is also shown a code of their own.")
    crowd_completion_url = forms.URLField(max_length=2000, required=False, label="Completion URL (Prolific)",
                                          assume_scheme="https")
    assessors = forms.ModelMultipleChoiceField(queryset=get_user_model().objects.none(), required=False)

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        self.collection = collection
        self.fields["run_a"].queryset = collection.runs.order_by("tag")
        self.fields["run_b"].queryset = collection.runs.order_by("tag")
        self.fields["topics"].queryset = collection.topics.order_by("qid")
        self.fields["gold_topics"].queryset = collection.topics.order_by("qid")
        self.fields["assessors"].queryset = get_user_model().objects.filter(
            memberships__collection=collection).order_by("username")

    def clean(self):
        """Check what is judged and build the plan; every problem goes to its field (``plan`` when all is well)."""
        data = super().clean() or {}
        if "kind" in data:
            for option, error in sides_problems(kind=data["kind"], run_a=data.get("run_a"), run_b=data.get("run_b"),
                                                topics=data.get("topics") or []):
                self.add_error(option, error)
        if data.get("kind") == PrefCampaign.Kind.DOC_PAIR:
            topics = {t.qid: t for t in self.collection.topics.all()}
            for option, label, parsed in (("pairs", "Pairs", "pair_list"), ("gold_pairs", "Gold pairs", "gold_pair_list")):
                rows = (line.split() for line in (data.get(option) or "").splitlines())
                try:
                    data[parsed] = pairs_from_rows(rows, topics, option=option, label=label)
                except ValidationError as error:
                    self.add_error(None, error)
        own = [name for name in OPTIONS if name in self.fields]  # crowd entry settings have their own form
        options = {name: data[name] for name in own if name in data}
        if len(options) == len(own):  # every option parsed: check the values
            try:
                data["plan"] = PrefPlan.of(**options)
            except ValidationError as error:
                self.add_error(None, error)  # a ValidationError with an error_dict lands on each named field
        return data
