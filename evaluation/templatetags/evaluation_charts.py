"""Template access to the evaluation pages' drawing helpers (``evaluation.charts``)."""
from django import template

from evaluation.charts import significance_class

register = template.Library()


@register.filter
def sig_class(cell, alpha) -> str:
    """CSS classes of a significance cell: direction and strength of the Holm-corrected difference."""
    return significance_class(cell, float(alpha))
