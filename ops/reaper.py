"""One pass of the reaper: what a dead worker or an abandoned lease leaves behind.

Run by ``manage.py reap`` beside the task workers (``--loop`` repeats it). Each step calls the
owning app's own function, so the rules stay where the data lives:

- jobs whose worker died: ``collections_app.tasks.jobs_reap`` (retry an import once, else fail);
- expired leases of every campaign kind: the campaign core's ``leases_expire``;
- upload folders no unfinished job refers to: ``collections_app.tasks.uploads_orphaned_remove``.
"""
from __future__ import annotations

import logging

audit = logging.getLogger("qrelsmith.audit")


def reap_once() -> dict[str, int]:
    """Run every step once and return what each did."""
    from campaign_core.services.leases import leases_expire
    from collections_app.tasks import jobs_reap, uploads_orphaned_remove

    counts = dict(jobs_reap())
    counts["expired_leases"] = leases_expire()
    counts["orphaned_uploads"] = uploads_orphaned_remove()
    if any(counts.values()):
        audit.info("reaper: %s", ", ".join(f"{name}={value}" for name, value in counts.items()))
    return counts
