"""Forms of the model-assessor pages: a judge's configuration and its prompt."""
from __future__ import annotations

from django import forms

from model_assessors.models import ModelJudge

CONFIG_FIELDS = (
    "base_url", "model", "api_key_env", "prompting", "temperature", "max_output_tokens", "max_document_chars",
    "request_logprobs", "max_pairs", "max_tokens", "concurrency", "requests_per_minute", "timeout_seconds",
    "max_attempts", "backoff_seconds", "input_price_per_million", "output_price_per_million",
)


class JudgeForm(forms.ModelForm):
    """Where and how to call a judge. The key is never asked for: only the variable that holds it."""

    base_url = forms.URLField(max_length=500, assume_scheme="https", label="Base URL",
                              widget=forms.URLInput(attrs={"size": 50, "placeholder": "http://127.0.0.1:8000/v1"}),
                              help_text="OpenAI-compatible API root, e.g. https://api.openai.com/v1.")

    class Meta:
        model = ModelJudge
        fields = ("name",) + CONFIG_FIELDS
        labels = {"api_key_env": "API key environment variable"}

    def __init__(self, *args, editing: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        if editing:
            del self.fields["name"]
            del self.fields["prompting"]  # the prompt follows it; change the prompt text instead

    def options(self) -> dict:
        """Return the cleaned options the services take as keyword arguments."""
        data = dict(self.cleaned_data)
        for name in ("name", "base_url", "model", "api_key_env"):
            data.pop(name, None)
        return data


class PromptForm(forms.Form):
    """A new version of the judge's prompt."""

    system = forms.CharField(widget=forms.Textarea(attrs={"rows": 3, "cols": 100}), required=False)
    user = forms.CharField(widget=forms.Textarea(attrs={"rows": 24, "cols": 100}), label="User message")
    note = forms.CharField(max_length=300, required=False, label="What changed")
