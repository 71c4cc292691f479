"""Small helpers shared by the model-assessor tests."""
from __future__ import annotations

from judging.models import Assessor, Item, Judgment
from judging.services.allocation import item_next
from judging.services.judgments import judgment_submit


def human_judges(campaign, user, grades: dict[str, int]) -> None:
    """Let a human assessor judge the pairs named by docno, through the real lease-and-submit path."""
    assessor = Assessor.objects.select_related("campaign__collection").get(campaign=campaign, user=user)
    wanted = dict(grades)
    while wanted:
        item = item_next(assessor=assessor)
        assert item is not None, f"{user} ran out of work before judging {sorted(wanted)}"
        docno = item.pair.docno
        if docno in wanted:
            judgment_submit(assessor=assessor, item=item, grade=wanted.pop(docno), client_token=f"{user}-{docno}")
        else:
            judgment_submit(assessor=assessor, item=item, grade=None, skipped=True, skip_reason="not in this test",
                            client_token=f"{user}-{docno}-skip")


def model_grades(judge) -> dict[str, int | None]:
    """Return {docno: grade (None for a skip)} of the judge's judgments."""
    return {docno: grade for docno, grade in Judgment.objects.filter(assessor=judge.assessor)
            .values_list("item__pair__docno", "grade")}


def docnos(campaign) -> list[str]:
    return list(Item.objects.filter(campaign=campaign, is_gold=False).order_by("position")
                .values_list("pair__docno", flat=True))
