"""Inter-assessor agreement on an ordered scale of grades (no Django: plain Python, numpy and scipy).

The campaign dashboards, the API, model calibration and preference results all compute
agreement here, from plain data: ``(item_id, rater_id, label)`` triples or two label
sequences aligned by item. The Django side only turns querysets into those triples.

* :mod:`agreement.data` — the scale, deduplication, the binary collapse at a relevance
  threshold, the sparse items × raters :class:`RatingTable`, confusion matrices.
* :mod:`agreement.coefficients` — percent agreement, Cohen's κ (unweighted, linear,
  quadratic), Scott's π, Fleiss' κ, Krippendorff's α, Gwet's AC1/AC2, each an
  :class:`AgreementResult` with its raw and chance agreement, prevalence and interval.
* :mod:`agreement.by_name` — one statistic chosen by name, the rater × rater matrix, per group.
* :mod:`agreement.mean_pairwise` — the mean of a two-rater statistic over every pair of raters
  of a group (Light's κ), and every pair's value, computed sparse for crowd-sized tables.

>>> from agreement import cohen_kappa, krippendorff_alpha
>>> round(cohen_kappa([1, 1, 0, 0], [1, 0, 0, 0], categories=[0, 1], ci=None).value, 4)
0.5
>>> judgments = [("d1", "ann", 1), ("d1", "bob", 1), ("d2", "ann", 0), ("d2", "bob", 0), ("d3", "ann", 1), ("d3", "bob", 0)]
>>> round(krippendorff_alpha(judgments, categories=[0, 1], ci=None).value, 4)  # 1 − (2/6) / (18/30) = 4/9
0.4444
"""

from .by_name import CI, PAIR_ONLY, STATISTICS, PairwiseMatrix, agreement, pairwise_matrix, per_group
from .coefficients import (
    NO_OVERLAP,
    ONE_CATEGORY,
    AgreementResult,
    Level,
    Weights,
    agreement_weights,
    as_rating_table,
    cohen_kappa,
    cohen_standard_error,
    fleiss_kappa,
    gwet_ac,
    krippendorff_alpha,
    krippendorff_distances,
    percent_agreement,
    scott_pi,
)
from .data import (
    BINARY_CATEGORIES,
    Judgment,
    RatingTable,
    binarize,
    binarize_labels,
    binarize_table,
    check_categories,
    confusion_matrix,
    dedupe_judgments,
    encode,
    rating_table,
    table_to_labels,
)
from .mean_pairwise import (
    MIN_CI_ITEMS,
    NO_PAIR,
    PAIR_STATISTICS,
    PAIRWISE_STATISTICS,
    TOO_LITTLE_OVERLAP,
    MeanPairwise,
    PairValues,
    label_pairs,
    mean_pairwise,
    pair_values,
)

__all__ = [
    "BINARY_CATEGORIES", "CI", "MIN_CI_ITEMS", "NO_OVERLAP", "NO_PAIR", "ONE_CATEGORY", "PAIRWISE_STATISTICS",
    "PAIR_ONLY", "PAIR_STATISTICS", "STATISTICS", "TOO_LITTLE_OVERLAP", "AgreementResult", "Judgment", "Level",
    "MeanPairwise", "PairValues", "PairwiseMatrix", "RatingTable", "Weights", "agreement", "agreement_weights",
    "as_rating_table", "binarize", "binarize_labels", "binarize_table", "check_categories", "cohen_kappa",
    "cohen_standard_error", "confusion_matrix", "dedupe_judgments", "encode", "fleiss_kappa", "gwet_ac",
    "krippendorff_alpha", "krippendorff_distances", "label_pairs", "mean_pairwise", "pair_values",
    "pairwise_matrix", "per_group", "percent_agreement", "rating_table", "scott_pi", "table_to_labels",
]
