"""The planner page's form: which qrels set, strategies, budgets; validation only."""
from __future__ import annotations

from django import forms

from . import engine


def _numbers(text: str, kind, *, low, high, name: str) -> list:
    try:
        values = sorted({kind(x) for x in text.replace(" ", "").split(",") if x})
    except ValueError:
        raise forms.ValidationError(f"Give {name} as comma-separated numbers.") from None
    if not values or values[0] < low or values[-1] > high:
        raise forms.ValidationError(f"Each of the {name} must be between {low} and {high}.")
    return values


class PlannerForm(forms.Form):
    qrels_set = forms.ChoiceField(label="Qrels set (the known labels)")
    strategies = forms.MultipleChoiceField(widget=forms.CheckboxSelectMultiple)
    budgets = forms.CharField(initial="10,20,50,100,200", help_text="Judgments per topic, comma-separated.")
    depths = forms.CharField(initial="1,2,5,10,20,50", help_text="Depths k for depth-k pooling.")
    sample_rates = forms.CharField(initial="0.05,0.1,0.2,0.4", help_text="Sampling rates below rank 10.")
    max_depth = forms.IntegerField(initial=100, min_value=1, max_value=1000, help_text="Only each run's top N is judged.")
    seed = forms.IntegerField(initial=0, min_value=0, max_value=2**31 - 1)

    def __init__(self, *args, qrels_sets: list[str], **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["qrels_set"].choices = [(n, n) for n in qrels_sets]  # type: ignore[attr-defined]  # a ChoiceField
        available = engine.available_strategies()
        self.fields["strategies"].choices = [(n, f"{n} — {d}") for n, d in available.items()]  # type: ignore[attr-defined]  # a ChoiceField
        self.fields["strategies"].initial = list(available)

    def clean_budgets(self):
        return _numbers(self.cleaned_data["budgets"], int, low=1, high=5000, name="budgets")

    def clean_depths(self):
        return _numbers(self.cleaned_data["depths"], int, low=1, high=1000, name="depths")

    def clean_sample_rates(self):
        return _numbers(self.cleaned_data["sample_rates"], float, low=0.001, high=1.0, name="sampling rates")

    def parameters(self) -> dict:
        return dict(self.cleaned_data)
