"""One pass of the reaper: what a dead worker or an abandoned lease leaves behind.

Run by ``manage.py reap`` beside the task workers (``--loop`` repeats it). Each step calls the
owning app's own function, so the rules stay where the data lives:

- jobs whose worker died: ``collections_app.tasks.jobs_reap`` (retry an import once, else fail);
- expired leases of relevance and preference campaigns: each app's ``leases_expire``;
- upload folders no unfinished job refers to: ``collections_app.tasks.uploads_orphaned_remove``.
"""
from __future__ import annotations

import logging

audit = logging.getLogger("qrelsmith.audit")


def reap_once() -> dict[str, int]:
    """Run every step once and return what each did."""
    from collections_app.tasks import jobs_reap, uploads_orphaned_remove
    from judging.services.allocation import leases_expire as judging_leases_expire
    from preferences.services.allocation import leases_expire as preference_leases_expire

    counts = dict(jobs_reap())
    counts["judging_leases"] = judging_leases_expire()
    counts["preference_leases"] = preference_leases_expire()
    counts["orphaned_uploads"] = uploads_orphaned_remove()
    if any(counts.values()):
        audit.info("reaper: %s", ", ".join(f"{name}={value}" for name, value in counts.items()))
    return counts
