"""Shared plumbing for the commands: the collection by slug, a tqdm progress bar, refusals as CommandError."""
from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError
from tqdm import tqdm

from collections_app.importers.errors import ImportFailed
from collections_app.models import Collection

Progress = Callable[..., None]  # progress(done, total=None), as services and tasks call it


def get_collection(slug: str) -> Collection:
    """Return the collection or raise CommandError naming the missing slug."""
    try:
        return Collection.objects.get(slug=slug)
    except Collection.DoesNotExist:
        raise CommandError(f"No collection with slug {slug!r}.") from None


@contextmanager
def progress_bar(*, unit: str = "B", unit_scale: bool = False) -> Iterator[Progress]:
    """Yield a ``progress(done, total=None)`` callback drawing a stderr bar (off when stderr is not a terminal)."""
    bar = tqdm(total=None, unit=unit, unit_scale=unit_scale, file=sys.stderr, disable=None, leave=False)

    def progress(done: int, total: int | None = None) -> None:
        if total and bar.total != total:
            bar.total = total
        bar.n = done
        bar.refresh()

    try:
        yield progress
    finally:
        bar.close()


@contextmanager
def refusals_as_command_errors() -> Iterator[None]:
    """Turn a service's refusal (ImportFailed, ValidationError) into a CommandError that says what was wrong."""
    try:
        yield
    except ImportFailed as exc:
        raise CommandError(f"import refused ({exc.code}), nothing was changed:\n{exc}") from None
    except ValidationError as exc:
        raise CommandError("; ".join(exc.messages)) from None


def run_import(command, action: Callable, *, unit: str = "B"):
    """Call ``action(progress)`` with a stderr progress bar; print its summary or raise CommandError."""
    with progress_bar(unit=unit, unit_scale=True) as progress, refusals_as_command_errors():
        summary = action(progress)
    for warning in summary.warnings:
        command.stderr.write(f"warning: {warning}")
    command.stdout.write(summary.line())
    return summary
