"""The ``qrelsmith`` console script: Django's management commands for an installed qrelsmith.

``qrelsmith migrate``, ``qrelsmith import_runs ...``, ``qrelsmith evaluate ...`` do what
``python manage.py ...`` does in a checkout. Set ``DATABASE_URL`` (and the other settings of
docs/deployment) for an installed copy; without it the SQLite file sits beside the package.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "qrelsmith.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
