"""Forms of the lead pages; they validate input only, services do the work."""
from __future__ import annotations

from collections.abc import Sequence

from django import forms
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from collections_app import scales
from collections_app.models import Collection, Membership, Pool, QrelsSet


class MultipleFileInput(forms.ClearableFileInput):
    allow_multiple_selected = True


class MultipleFileField(forms.FileField):
    """A file field that accepts several files (run uploads)."""

    widget = MultipleFileInput

    def clean(self, data, initial=None):
        single = super().clean
        if isinstance(data, (list, tuple)):
            return [single(item, initial) for item in data]
        return [single(data, initial)]


class CollectionCreateForm(forms.Form):
    slug = forms.SlugField(max_length=100, help_text="Short name used in URLs and commands, e.g. trec-2026.")
    name = forms.CharField(max_length=200, required=False)
    scale = forms.ChoiceField(choices=[(key, value["label"]) for key, value in scales.PRESETS.items()]
                              + [("custom", "Custom (below)")], initial=scales.GRADED)
    custom_scale = forms.CharField(
        max_length=2000, required=False, label="Custom scale",
        help_text="Comma list of GRADE[:NAME[:KEY]], e.g. -2:broken,0:not relevant,1:relevant,2:highly relevant. "
                  "KEY is the judging page's key for the grade (default: the digit for 0–9, else a free letter).",
    )
    relevant_threshold = forms.IntegerField(
        required=False, help_text="Lowest grade that counts as relevant (trec_eval -l); default: the lowest grade "
                                  "above 0.")
    cannot_judge = forms.CharField(
        max_length=200, required=False, label="'Could not judge' grades",
        help_text="Comma list of grades meaning 'could not judge' (e.g. -2): kept in exports and qrels, "
                  "left out of agreement when the lead asks.")
    description = forms.CharField(widget=forms.Textarea(attrs={"rows": 3}), required=False)
    guidelines = forms.CharField(widget=forms.Textarea(attrs={"rows": 5}), required=False,
                                 help_text="Shown to assessors while they judge.")

    def clean_slug(self) -> str:
        slug = self.cleaned_data["slug"]
        if Collection.objects.filter(slug=slug).exists():
            raise forms.ValidationError("A collection with this slug exists.", code="slug_taken")
        return slug

    def clean_cannot_judge(self) -> list[int]:
        text = self.cleaned_data.get("cannot_judge") or ""
        try:
            return [int(part) for part in text.replace(" ", "").split(",") if part]
        except ValueError:
            raise forms.ValidationError("List integer grades separated by commas.", code="scale_spec") from None

    def clean(self) -> dict:
        """Turn the preset or custom spec into the service's ``scale`` and check it as the service will."""
        data = super().clean() or {}
        if data.get("scale") == "custom":
            if not data.get("custom_scale", "").strip():
                self.add_error("custom_scale", "Write the custom scale, or choose a preset.")
                return data
            data["scale"] = data["custom_scale"]
        data.pop("custom_scale", None)
        if "scale" in data and "cannot_judge" in data:
            try:
                scales.parse_spec(data["scale"], relevant_threshold=data.get("relevant_threshold"),
                                  cannot_judge=data["cannot_judge"])
            except ValidationError as error:
                self.add_error("custom_scale" if data["scale"] not in scales.PRESETS else "relevant_threshold", error)
        return data


FORMAT_CHOICES = [("", "Detect from the file"), ("trec", "TREC"), ("tsv", "TSV"), ("jsonl", "JSONL")]


class SingleUploadForm(forms.Form):
    """Topics, documents or qrels: one file (plain or .gz)."""

    file = forms.FileField()
    format = forms.ChoiceField(choices=FORMAT_CHOICES, required=False)
    name = forms.CharField(max_length=200, required=False, help_text="Qrels only: name of the qrels set.")
    allow_off_scale = forms.BooleanField(
        required=False, label="Accept grades outside the scale",
        help_text="Qrels only: import grades the collection's scale does not have (refused otherwise).",
    )


class RunsUploadForm(forms.Form):
    files = MultipleFileField(help_text="One or many TREC run files (6 columns; .gz accepted).")  # type: ignore[assignment]  # a field named "files", as the API names it
    group = forms.CharField(max_length=200, required=False, help_text="Team or owner of these runs.")
    description = forms.CharField(required=False)
    replace = forms.BooleanField(required=False, help_text="Replace runs whose tag already exists.")


class PoolBuildForm(forms.Form):
    name = forms.CharField(max_length=200)
    strategy = forms.ChoiceField(choices=[c for c in Pool.Strategy.choices if c[0] != Pool.Strategy.PAIRS],
                                 initial=Pool.Strategy.DEPTH)
    depth = forms.IntegerField(min_value=1, required=False, initial=10)
    budget = forms.IntegerField(min_value=1, required=False, help_text="Pairs per topic (budget and fusion).")
    fusion = forms.ChoiceField(choices=[("rrf", "Reciprocal rank fusion"), ("combsum", "CombSUM"), ("borda", "Borda")])
    order = forms.ChoiceField(choices=[("fused", "Fused score (likely relevant first)"), ("random", "Random")])
    seed = forms.IntegerField(initial=0)
    run_tags = forms.MultipleChoiceField(required=False, widget=forms.SelectMultiple(attrs={"size": 8}),
                                         help_text="Leave empty for all runs.")
    max_runs_per_group = forms.IntegerField(min_value=1, required=False)
    exclude_judged = forms.BooleanField(required=False, initial=True, help_text="Leave out pairs already in imported qrels.")
    strata = forms.CharField(
        required=False, initial="10:1,30:0.5,100:0.2",
        help_text="Sampled pool: bands by best rank as LASTRANK:RATE (ranks 1-10 fully, 11-30 half, 31-100 a fifth).",
    )

    def __init__(self, *args, run_tags: Sequence[str] = (), **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.fields["run_tags"].choices = [(tag, tag) for tag in run_tags]  # type: ignore[attr-defined]  # a ChoiceField

    def clean(self):
        data = super().clean()
        if data.get("strategy") == Pool.Strategy.DEPTH and not data.get("depth"):
            self.add_error("depth", "A depth pool needs a depth.")
        if data.get("strategy") in (Pool.Strategy.BUDGET, Pool.Strategy.FUSION) and not data.get("budget"):
            self.add_error("budget", "This strategy needs a budget per topic.")
        if data.get("strategy") == Pool.Strategy.SAMPLE:
            from collections_app.pooling.sampling import parse_strata

            try:
                parse_strata(data.get("strata") or "10:1,30:0.5,100:0.2")
            except ValueError as error:
                self.add_error("strata", str(error))
        else:
            data.pop("strata", None)
        return data

    def parameters(self) -> dict:
        """Return the keyword arguments for pool_build, leaving out what was not given."""
        data = {key: value for key, value in self.cleaned_data.items() if value not in (None, "", [])}
        data.setdefault("exclude_judged", False)
        return data


class PoolDeepenForm(forms.Form):
    depth = forms.IntegerField(min_value=1)


class MemberForm(forms.Form):
    username = forms.CharField(max_length=150)
    role = forms.ChoiceField(choices=Membership.Role.choices, initial=Membership.Role.ASSESSOR)

    def clean_username(self):
        user = get_user_model().objects.filter(username=self.cleaned_data["username"]).first()
        if user is None:
            raise forms.ValidationError("No user with this username.", code="unknown_user")
        return user


class PoolFromPairsForm(forms.Form):
    """A pool from a list of pairs: an imported qrels set (to re-judge it) or a file of pairs."""

    name = forms.CharField(max_length=200)
    qrels_set = forms.ModelChoiceField(queryset=QrelsSet.objects.none(), required=False, label="Qrels set",
                                       help_text="Every pair the qrels set judges (its labels are not shown).")
    file = forms.FileField(required=False, help_text="Or a file of 'qid docno [order]' lines, or TREC qrels "
                                                     "lines (labels ignored). Gzip is fine.")

    def __init__(self, *args, collection, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["qrels_set"].queryset = QrelsSet.objects.filter(collection=collection).order_by("name")

    def clean(self) -> dict:
        data = super().clean() or {}
        if bool(data.get("qrels_set")) == bool(data.get("file")):
            raise forms.ValidationError("Choose a qrels set or upload a file of pairs (one of the two).",
                                        code="bad_source")
        return data

