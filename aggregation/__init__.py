"""Crowd aggregation: turn several workers' labels per item into one final label with a confidence (no Django).

Three rules, all on plain ``(item_id, worker_id, label)`` triples and an ordered scale:

- :func:`majority_vote` — the most frequent label; confidence = its vote share
  (:func:`majority_grade` for one item's grades).
- :func:`gold_weighted_vote` — votes weighted by each worker's accuracy on gold items.
- :func:`dawid_skene` — Dawid & Skene (1979) EM with a full confusion matrix per worker;
  confidence = posterior probability of the chosen label.

Each returns an :class:`Aggregate` (:mod:`aggregation.result`): one :class:`ItemLabel` per
item, the ties, who was excluded and whether the labels collapsed onto one grade. The qrels
freeze (``judging.services.qrels``) calls these with the campaign's judgments.

>>> from aggregation import AGGREGATORS
>>> votes = [("d1", "w1", 2), ("d1", "w2", 2), ("d1", "w3", 0), ("d2", "w1", 0), ("d2", "w2", 1)]
>>> agg = AGGREGATORS["majority"](votes, categories=[0, 1, 2])
>>> {item: label.label for item, label in agg.labels.items()}, agg.ties  # d2 ties 0–1: the lower grade
({'d1': 2, 'd2': 0}, 1)
"""

from .dawid_skene import DS_MAX_ITER, DS_SMOOTHING, DS_TOL, dawid_skene
from .result import Aggregate, ItemLabel, TieRule
from .voting import gold_accuracy, gold_weighted_vote, majority_grade, majority_vote

AGGREGATORS = {
    "majority": majority_vote,
    "gold_weighted": gold_weighted_vote,
    "dawid_skene": dawid_skene,
}

__all__ = [
    "AGGREGATORS", "DS_MAX_ITER", "DS_SMOOTHING", "DS_TOL", "Aggregate", "ItemLabel", "TieRule", "dawid_skene",
    "gold_accuracy", "gold_weighted_vote", "majority_grade", "majority_vote",
]
