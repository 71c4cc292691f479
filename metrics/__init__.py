"""qrelsmith.metrics: trec_eval-exact evaluation of IR runs (no Django).

>>> from metrics import evaluate, qrels_from_dict, run_from_dict
>>> res = evaluate(qrels_from_dict({"q": {"d1": 1}}), run_from_dict({"q": {"d1": 1.0}}), ["P.1"])
>>> res.aggregate["P_1"]
1.0
"""

import importlib

from .evaluate import EvaluationResult, MissingTopicsWarning, evaluate, evaluate_many, results_to_csv, results_to_json
from .io import MetricsInputError, Qrels, Run, qrels_from_dict, read_qrels, read_run, run_from_arrays, run_from_dict
from .measures.batch import qrels_without, ranked_docnos
from .qrels_text import qrels_from_text, qrels_to_text
from .registry import Measure, register, registry, resolve

__all__ = [
    "EvaluationResult", "correlation", "significance", "Measure", "MetricsInputError", "MissingTopicsWarning", "Qrels", "Run", "evaluate",
    "evaluate_many", "qrels_from_dict", "qrels_from_text", "qrels_to_text", "qrels_without", "ranked_docnos", "read_qrels", "read_run", "register", "registry", "resolve",
    "results_to_csv", "results_to_json", "run_from_arrays", "run_from_dict",
]

_LAZY = ("correlation", "significance")  # they import scipy.stats (0.5 s): loaded on first use


def __getattr__(name: str):
    if name in _LAZY:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
