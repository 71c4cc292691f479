"""Rank the demo corpus with several retrieval models, one TREC run per variant.

TF-IDF comes from scikit-learn's TfidfVectorizer (cosine similarity), BM25 and
query-likelihood with Dirichlet smoothing are computed with numpy over a term-count matrix.
Variants differ in model, parameters and query field, so their rankings genuinely disagree.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.feature_extraction.text import CountVectorizer, TfidfVectorizer


@dataclass(frozen=True)
class Variant:
    tag: str
    group: str
    description: str
    model: str                 # "tfidf" | "bm25" | "ql" | "noise"
    query: str = "title"       # "title" | "title+desc"
    params: tuple = ()


VARIANTS: list[Variant] = [
    Variant("tfidf-t", "vsm", "TF-IDF cosine, title queries", "tfidf", "title", (("sublinear_tf", False),)),
    Variant("tfidf-sub-td", "vsm", "TF-IDF sublinear tf, title+description", "tfidf", "title+desc", (("sublinear_tf", True),)),
    Variant("tfidf-bigram-t", "vsm", "TF-IDF unigrams+bigrams, title", "tfidf", "title", (("ngram_range", (1, 2)),)),
    Variant("tfidf-noidf-td", "vsm", "TF without IDF, title+description", "tfidf", "title+desc", (("use_idf", False),)),
    Variant("bm25-t", "bm25", "BM25 k1=1.2 b=0.75, title", "bm25", "title", (("k1", 1.2), ("b", 0.75))),
    Variant("bm25-td", "bm25", "BM25 k1=1.2 b=0.75, title+description", "bm25", "title+desc", (("k1", 1.2), ("b", 0.75))),
    Variant("bm25-k09-b04-t", "bm25", "BM25 k1=0.9 b=0.4, title", "bm25", "title", (("k1", 0.9), ("b", 0.4))),
    Variant("bm25-k2-b03-td", "bm25", "BM25 k1=2.0 b=0.3, title+description", "bm25", "title+desc", (("k1", 2.0), ("b", 0.3))),
    Variant("bm25-b0-t", "bm25", "BM25 k1=1.2 b=0 (no length normalisation), title", "bm25", "title", (("k1", 1.2), ("b", 0.0))),
    Variant("ql-dir500-t", "lm", "Query likelihood, Dirichlet mu=500, title", "ql", "title", (("mu", 500.0),)),
    Variant("ql-dir2000-td", "lm", "Query likelihood, Dirichlet mu=2000, title+description", "ql", "title+desc", (("mu", 2000.0),)),
    Variant("bm25-noisy-td", "baseline", "BM25 title+description with Gaussian noise added (a weak run)", "noise", "title+desc", (("sigma", 2.0),)),
]


def query_text(topic: dict, field: str) -> str:
    return topic["title"] if field == "title" else f"{topic['title']} {topic['description']}"


def run_variant(variant: Variant, documents: list[dict], topics: list[dict], *, depth: int = 100,
                seed: int = 0) -> list[tuple[str, str, float]]:
    """Return (qid, docno, score) rows: each topic's top ``depth`` documents, best first."""
    texts = [f"{doc['title']} {doc['text']}" for doc in documents]
    queries = [query_text(topic, variant.query) for topic in topics]
    params = dict(variant.params)
    if variant.model == "tfidf":
        scores = _tfidf(texts, queries, **params)
    elif variant.model == "bm25":
        scores = _bm25(texts, queries, **params)
    elif variant.model == "ql":
        scores = _query_likelihood(texts, queries, **params)
    else:
        rng = np.random.default_rng(seed)
        scores = _bm25(texts, queries, k1=1.2, b=0.75)
        scores = scores + rng.normal(0.0, params["sigma"], size=scores.shape)
    docnos = np.array([doc["docno"] for doc in documents])
    rows: list[tuple[str, str, float]] = []
    for topic, row in zip(topics, scores):
        # Stable order for equal scores (docno descending, as trec_eval would break them).
        order = np.lexsort((-np.arange(len(docnos)), -row))[:depth]
        rows.extend((topic["qid"], str(docnos[i]), round(float(row[i]), 6)) for i in order)
    return rows


def _tfidf(texts: list[str], queries: list[str], **options) -> np.ndarray:
    vectorizer = TfidfVectorizer(**options)
    doc_matrix = vectorizer.fit_transform(texts)
    query_matrix = vectorizer.transform(queries)
    # Rows are L2-normalised, so the dot product is the cosine similarity.
    return (query_matrix @ doc_matrix.T).toarray()


def _counts(texts: list[str], queries: list[str]):
    vectorizer = CountVectorizer()
    tf = vectorizer.fit_transform(texts).tocsc().astype(np.float64)
    q = vectorizer.transform(queries).toarray()
    return tf, q


def _bm25(texts: list[str], queries: list[str], *, k1: float, b: float) -> np.ndarray:
    tf, q = _counts(texts, queries)
    n_docs = tf.shape[0]
    doc_len = np.asarray(tf.sum(axis=1)).ravel()
    df = np.diff(tf.indptr)
    idf = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    norm = k1 * (1.0 - b + b * doc_len / doc_len.mean())
    dense = tf.toarray()
    weights = dense * (k1 + 1.0) / (dense + norm[:, None]) * idf[None, :]
    return (q > 0).astype(np.float64) @ weights.T


def _query_likelihood(texts: list[str], queries: list[str], *, mu: float) -> np.ndarray:
    tf, q = _counts(texts, queries)
    dense = tf.toarray()
    doc_len = dense.sum(axis=1)
    collection_prob = (dense.sum(axis=0) + 1.0) / (dense.sum() + dense.shape[1])
    log_probs = np.log((dense + mu * collection_prob[None, :]) / (doc_len + mu)[:, None])
    return q @ log_probs.T
