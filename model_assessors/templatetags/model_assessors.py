"""Template tags: the model-judges panel on the campaign page (progress of live runs, links)."""
from __future__ import annotations

from django import template

from model_assessors.models import ModelJudge
from model_assessors.selectors import live_runs

register = template.Library()


@register.inclusion_tag("model_assessors/_campaign_panel.html")
def model_judges_panel(campaign, collection):
    """Render the campaign page's model-judges box: how many judges, live runs with a progress bar, links."""
    return {"campaign": campaign, "collection": collection, "runs": live_runs(campaign),
            "count": ModelJudge.objects.filter(campaign=campaign).count()}


@register.filter
def cell(matrix, index):
    """Return row or cell ``index`` of a list (for the confusion matrix)."""
    return matrix[index]


@register.filter
def stat(result):
    """Format an agreement result as ``value [low, high]`` or ``undefined (reason)``."""
    if result is None:
        return "–"
    if result.value is None:
        return f"undefined ({result.undefined_reason})" if result.undefined_reason else "undefined"
    if result.ci_low is None or result.ci_high is None:
        return f"{result.value:.3f}"
    return f"{result.value:.3f} [{result.ci_low:.3f}, {result.ci_high:.3f}]"


@register.filter
def get_item(mapping, key):
    """Return ``mapping[key]`` (None when absent)."""
    return mapping.get(key)
