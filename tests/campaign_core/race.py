"""Many assessors asking for work at once: one thread per assessor over its own database connection.

Used by the PostgreSQL concurrency tests of both campaign kinds.
"""
from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable

from django.db import connections


def race(assessor_ids: list[int], load: Callable, take: Callable, answer: Callable) -> Counter:
    """Run one thread per assessor, all starting together; return how often each (item, assessor) was handed out."""
    start = threading.Barrier(len(assessor_ids))
    errors: list[BaseException] = []
    handed: Counter = Counter()
    lock = threading.Lock()

    def work(assessor_id: int) -> None:
        try:
            assessor = load(assessor_id)
            start.wait(timeout=60)
            for _ in range(200):
                item = take(assessor)
                if item is None:
                    return
                with lock:
                    handed[(item.pk, assessor_id)] += 1
                answer(assessor, item)
            errors.append(AssertionError(f"assessor {assessor_id} never ran out of work"))
        except BaseException as error:  # noqa: BLE001 - reported by the main thread
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=work, args=(pk,)) for pk in assessor_ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert not any(t.is_alive() for t in threads), "a worker thread hung"
    assert errors == [], errors[:3]
    return handed


def assert_filled_exactly(items, judgments, handed: Counter, *, expected_judgments: int) -> None:
    required = dict(items.values_list("pk", "required_judgments"))
    per_item = Counter(judgments.values_list("item_id", flat=True))
    assert all(per_item[pk] == r for pk, r in required.items())  # filled exactly, never beyond
    pairs = list(judgments.values_list("item_id", "assessor_id"))
    assert len(pairs) == len(set(pairs)) == expected_judgments
    assert max(handed.values()) == 1  # nobody was handed the same item twice
    assert dict(items.values_list("pk", "judgment_count")) == {pk: per_item[pk] for pk in required}
