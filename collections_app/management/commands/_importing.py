"""Shared plumbing for the import commands: a tqdm progress bar and error translation."""
from __future__ import annotations

import sys
from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from tqdm import tqdm

from collections_app.importers.errors import ImportFailed
from collections_app.models import Collection


def get_collection(slug: str) -> Collection:
    """Return the collection or raise CommandError naming the missing slug."""
    try:
        return Collection.objects.get(slug=slug)
    except Collection.DoesNotExist:
        raise CommandError(f"No collection with slug {slug!r}.") from None


def run_import(command, action: Callable, *, unit: str = "B"):
    """Call ``action(progress)`` with a stderr progress bar; print its summary or raise CommandError."""
    bar = tqdm(total=None, unit=unit, unit_scale=True, file=sys.stderr, disable=None, leave=False)

    def progress(done: int, total: int | None = None) -> None:
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        summary = action(progress)
    except ImportFailed as exc:
        raise CommandError(f"import refused ({exc.code}), nothing was changed:\n{exc}") from None
    except ValidationError as exc:
        raise CommandError("; ".join(exc.messages)) from None
    finally:
        bar.close()
    for warning in summary.warnings:
        command.stderr.write(f"warning: {warning}")
    command.stdout.write(summary.line())
    return summary
