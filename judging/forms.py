"""Forms of the leads' campaign pages."""
from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from campaign_core.plan_rules import LEASE_SECONDS, MAX_CROWD_BATCH, MAX_GOLD_RATE, number_input
from collections_app.models import Membership, Pool, QrelsSet
from judging.models import Campaign, QrelsVersion
from judging.plan import FLAT_NAMES, MAX_JUDGMENTS_PER_PAIR, CampaignPlan


class PlanChoiceField(forms.ChoiceField):
    """A select whose value the campaign plan checks (so the form and the API give the same message)."""

    def valid_value(self, value) -> bool:
        return True


class CampaignCreateForm(forms.Form):
    """Start a campaign from a pool: who judges, how work is split and overlapped, gold and crowd.

    The fields parse types and look up the collection's pool, qrels and members; every rule about
    the values (ranges, combinations) is the ``CampaignPlan``'s, whose problems land on their fields.
    """

    name = forms.CharField(max_length=200)
    pool = forms.ModelChoiceField(queryset=Pool.objects.none())
    assessors = forms.ModelMultipleChoiceField(
        queryset=get_user_model().objects.none(), required=False, widget=forms.CheckboxSelectMultiple
    )
    split = PlanChoiceField(choices=Campaign.Split.choices, initial=Campaign.Split.SHARED_QUEUE)
    overlap = PlanChoiceField(choices=Campaign.Overlap.choices, initial=Campaign.Overlap.NONE)
    judgments_per_pair = forms.IntegerField(initial=1, label="r (judgments per pair)",
                                            widget=number_input(1, MAX_JUDGMENTS_PER_PAIR))
    overlap_fraction = forms.FloatField(initial=0.0, label="Fraction judged twice", widget=number_input(0, 1))
    calibration_size = forms.IntegerField(initial=0, label="Calibration pairs (judged by everyone)",
                                          widget=number_input(0))
    order = PlanChoiceField(
        choices=Campaign.Order.choices, initial=Campaign.Order.POOL,
        help_text="Adaptive orders re-rank each topic's remaining pairs after every judgment; topics keep their order.",
    )
    seed = forms.IntegerField(initial=0)
    lease_seconds = forms.IntegerField(initial=600, label="Lease length (seconds)", widget=number_input(*LEASE_SECONDS))
    gold_qrels = forms.ModelChoiceField(queryset=QrelsSet.objects.none(), required=False, label="Gold qrels")
    gold_rate = forms.FloatField(initial=0.0, widget=number_input(0, MAX_GOLD_RATE))
    gold_accuracy_threshold = forms.FloatField(initial=0.0, widget=number_input(0, 1))
    crowd_enabled = forms.BooleanField(required=False, label="Open a crowd batch link")
    crowd_batch_size = forms.IntegerField(initial=20, widget=number_input(1, MAX_CROWD_BATCH))
    crowd_instructions = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), required=False)
    crowd_completion_code = forms.CharField(
        max_length=100, required=False, label="Platform completion code (Prolific study code)",
        help_text="Put in the completion URL's cc=; every worker is also shown a code of their own.")
    crowd_completion_url = forms.URLField(max_length=2000, required=False, label="Completion URL (Prolific)", assume_scheme="https")

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["pool"].queryset = Pool.objects.filter(collection=collection).order_by("name")
        self.fields["gold_qrels"].queryset = QrelsSet.objects.filter(collection=collection).order_by("name")
        self.fields["assessors"].queryset = (
            get_user_model().objects.filter(memberships__collection=collection).distinct().order_by("username")
        )
        self.fields["assessors"].initial = list(
            Membership.objects.filter(collection=collection, role=Membership.Role.ASSESSOR).values_list("user_id", flat=True)
        )

    def clean(self) -> dict:
        """Build the campaign plan once from the options; its problems go to the fields they are about."""
        data = super().clean() or {}
        own = [name for name in FLAT_NAMES if name in self.fields]  # crowd entry settings have their own form
        options = {name: data[name] for name in own if name in data}
        if len(options) == len(own):  # every option parsed: check the values and their combination
            try:
                self.campaign_plan = CampaignPlan.of(**options)
            except ValidationError as error:
                for option, problems in error.error_dict.items():
                    self.add_error(option if option in self.fields else None, problems)
        return data


class AdjudicateForm(forms.Form):
    """Set the final label of one disagreed pair."""

    item = forms.IntegerField(widget=forms.HiddenInput)
    grade = forms.TypedChoiceField(coerce=int, choices=())
    note = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)

    def __init__(self, *args, scale, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["grade"].choices = [(g["grade"], f"{g['grade']} — {g['name']}") for g in scale]


class FreezeForm(forms.Form):
    """Freeze a qrels version under a rule."""

    rule = forms.ChoiceField(choices=QrelsVersion.Rule.choices)
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 2}), required=False)
    ds_smoothing = forms.FloatField(
        required=False, min_value=1e-6, max_value=100.0, label="Dawid–Skene smoothing",
        help_text="Pseudo-count added to every cell of each assessor's confusion matrix (default 0.01); larger "
                  "values keep assessors with few labels close to uniform.")
    ds_max_iter = forms.IntegerField(required=False, min_value=1, max_value=5000, label="Dawid–Skene rounds at most",
                                     help_text="Default 500.")
    ds_tol = forms.FloatField(required=False, min_value=1e-12, max_value=1.0, label="Dawid–Skene tolerance",
                              help_text="Stop when the log-likelihood per item changes by less (default 1e-5).")

    def freeze_options(self) -> dict:
        """Return the cleaned data as qrels_freeze's keyword arguments."""
        data = self.cleaned_data
        options = {"smoothing": data.get("ds_smoothing"), "max_iter": data.get("ds_max_iter"), "tol": data.get("ds_tol")}
        return {"rule": data["rule"], "description": data["description"],
                "ds_options": {k: v for k, v in options.items() if v is not None}}


class CampaignKeysForm(forms.Form):
    """A campaign's key per grade and its Markdown guidelines; keys that clash are refused with the reason."""

    guidelines = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}), required=False, label="Campaign guidelines (Markdown)",
        help_text="Shown to assessors beside every topic. Markdown: **bold**, lists, links, tables; raw HTML is shown as text.",
    )

    def __init__(self, *args, campaign: Campaign, **kwargs):
        from campaign_core.keys import labels_with_keys

        super().__init__(*args, **kwargs)
        self.scale = campaign.collection.scale
        for label in labels_with_keys(self.scale, campaign.keys):
            self.fields[f"key_{label['grade']}"] = forms.CharField(
                max_length=1, min_length=1, initial=label["key"], label=f"Key for “{label['name']}” (grade {label['grade']})",
                widget=forms.TextInput(attrs={"size": 2, "autocomplete": "off", "class": "key-input"}),
            )
        self.fields["guidelines"].initial = campaign.guidelines
        self.order_fields([name for name in self.fields if name.startswith("key_")] + ["guidelines"])

    def keys(self) -> dict[str, str]:
        return {name[4:]: value for name, value in self.cleaned_data.items() if name.startswith("key_")}

    def clean(self):
        from campaign_core.keys import keys_problems

        cleaned = super().clean()
        if not any(name.startswith("key_") and name in self.errors for name in self.fields):
            for problem in keys_problems(self.scale, self.keys()):
                self.add_error(None, problem)
        return cleaned


class JudgmentsImportForm(forms.Form):
    """Upload a file of per-assessor labels into a new or existing imported campaign."""

    campaign = forms.CharField(
        max_length=200, label="Campaign name",
        help_text="A new name creates an imported campaign; the name of an imported campaign adds to it.",
    )
    file = forms.FileField(help_text="CSV or TSV with a header row (qid, docno, assessor, label; optional timestamp, "
                                     "seconds, comment, gold), or JSONL with the same keys. Gzip is fine.")
    format = forms.ChoiceField(choices=[("", "From the file name / header"), ("csv", "CSV"), ("tsv", "TSV"),
                                        ("jsonl", "JSONL")], required=False)
