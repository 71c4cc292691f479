"""qrelsmith.metrics: trec_eval-exact evaluation of IR runs (no Django).

>>> from metrics import evaluate, qrels_from_dict, run_from_dict
>>> res = evaluate(qrels_from_dict({"q": {"d1": 1}}), run_from_dict({"q": {"d1": 1.0}}), ["P.1"])
>>> res.aggregate["P_1"]
1.0

Every name is imported on first use (PEP 562), so ``import metrics`` costs nothing and the
command line can configure numpy's thread pool before numpy is loaded; ``correlation`` and
``significance`` import scipy.stats (0.5 s) and are loaded only when asked for.
"""

from __future__ import annotations

import importlib
import sys
import types
from typing import TYPE_CHECKING

_WHERE = {
    "EvaluationResult": "evaluate", "MissingTopicsWarning": "evaluate", "evaluate": "evaluate",
    "evaluate_many": "evaluate", "results_to_csv": "evaluate", "results_to_json": "evaluate",
    "MetricsInputError": "io", "Qrels": "io", "Run": "io", "qrels_from_dict": "io", "read_qrels": "io",
    "read_run": "io", "run_from_arrays": "io", "run_from_dict": "io",
    "qrels_without": "measures.batch", "ranked_docnos": "measures.batch",
    "qrels_from_text": "qrels_text", "qrels_to_text": "qrels_text",
    "Measure": "registry", "register": "registry", "registry": "registry", "resolve": "registry",
}
_MODULES = ("aliases", "cli", "correlation", "cparse", "curves", "evaluate", "io", "measures", "prefs", "qrels_text",
            "registry", "sampling", "significance")

__all__ = [
    "EvaluationResult", "correlation", "significance", "Measure", "MetricsInputError", "MissingTopicsWarning", "Qrels", "Run", "evaluate",
    "evaluate_many", "qrels_from_dict", "qrels_from_text", "qrels_to_text", "qrels_without", "ranked_docnos", "read_qrels", "read_run", "register", "registry", "resolve",
    "results_to_csv", "results_to_json", "run_from_arrays", "run_from_dict",
]

if TYPE_CHECKING:  # what the lazy names are, for type checkers and editors
    from . import correlation, significance
    from .evaluate import (
        EvaluationResult,
        MissingTopicsWarning,
        evaluate,
        evaluate_many,
        results_to_csv,
        results_to_json,
    )
    from .io import MetricsInputError, Qrels, Run, qrels_from_dict, read_qrels, read_run, run_from_arrays, run_from_dict
    from .measures.batch import qrels_without, ranked_docnos
    from .qrels_text import qrels_from_text, qrels_to_text
    from .registry import Measure, register, registry, resolve


def __getattr__(name: str):
    if name in _WHERE:
        value = getattr(importlib.import_module(f".{_WHERE[name]}", __name__), name)
    elif name in _MODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value  # later look-ups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_WHERE, *_MODULES})


class _Package(types.ModuleType):
    """Keep ``metrics.evaluate`` and ``metrics.registry`` the functions, as eager imports made them.

    Importing a submodule binds it as an attribute of its package; two submodules share a
    name with a function the package exports, and ``from metrics import evaluate`` must give
    the function whichever submodules happen to be loaded already.
    """

    def __setattr__(self, name: str, value: object) -> None:
        if name in ("evaluate", "registry") and isinstance(value, types.ModuleType):
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
