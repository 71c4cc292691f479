"""Deploy checks (``manage.py check --deploy``): the same start-up refusals the WSGI entry point makes."""
from __future__ import annotations

from django.conf import settings
from django.core.checks import Error, Tags, register

from qrelsmith.startup import static_problems


@register(Tags.staticfiles, deploy=True)
def static_files_collected(app_configs, **kwargs):
    return [Error(problem, id="ops.E001") for problem in static_problems(settings)]
