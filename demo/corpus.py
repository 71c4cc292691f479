"""Generate a deterministic synthetic corpus: themed documents, topics and graded gold labels.

Each theme has shared words and a few facets with their own words; a topic asks for one
facet of one theme. Documents mix their facet's words with theme words, words of a second
theme and common filler, so term matching alone ranks imperfectly and runs differ.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

FILLER = (
    "the of and to in for on with as by from at about into over after between under also more most "
    "new report study results data system people time year work group area local general public "
    "based several many often while during within among number level part case use"
).split()

# theme: (shared words, {facet: facet words}, topic descriptions per facet)
THEMES: dict[str, tuple[str, dict[str, str]]] = {
    "astronomy": ("telescope star galaxy orbit planet observatory light cosmic astronomer sky", {
        "exoplanets": "exoplanet transit habitable kepler atmosphere radial velocity",
        "blackholes": "black hole event horizon accretion quasar hawking",
    }),
    "cooking": ("recipe kitchen chef flavor ingredient dish oven sauce taste meal", {
        "fermentation": "ferment yeast sourdough kimchi bacteria culture brine",
        "baking": "flour bread pastry dough butter crust knead",
    }),
    "football": ("match team goal league player coach season stadium referee score", {
        "transfers": "transfer fee contract signing window agent loan",
        "tactics": "formation pressing midfield defensive counterattack possession",
    }),
    "medicine": ("patient doctor clinical treatment hospital disease therapy symptom health trial", {
        "vaccines": "vaccine immunity antibody dose booster mrna",
        "diabetes": "insulin glucose diabetes pancreas blood sugar",
    }),
    "climate": ("climate carbon emission warming temperature weather environment energy policy ocean", {
        "glaciers": "glacier ice melt arctic sheet retreat",
        "renewables": "solar wind turbine renewable panel grid battery",
    }),
    "computing": ("software computer code program algorithm developer hardware network processor memory", {
        "security": "encryption vulnerability malware password breach firewall",
        "databases": "database query index transaction sql schema",
    }),
}

TOPIC_TEXT = {
    "exoplanets": ("exoplanet atmosphere detection", "Find reports on detecting planets around other stars and studying their atmospheres."),
    "blackholes": ("black hole accretion", "Find documents about black holes, their event horizons and accretion discs."),
    "fermentation": ("fermented food culture", "Find documents about fermenting food with yeast or bacteria cultures."),
    "baking": ("bread dough baking", "Find documents about baking bread and pastry, kneading and crusts."),
    "transfers": ("football transfer fees", "Find reports on player transfers, fees and contract signings."),
    "tactics": ("pressing formation tactics", "Find analyses of team formations, pressing and possession tactics."),
    "vaccines": ("vaccine booster immunity", "Find documents about vaccine doses, boosters and antibody immunity."),
    "diabetes": ("insulin blood glucose", "Find documents about diabetes treatment with insulin and glucose control."),
    "glaciers": ("glacier ice melt", "Find reports on melting glaciers and retreating arctic ice sheets."),
    "renewables": ("solar wind renewable energy", "Find documents on solar panels, wind turbines and renewable grids."),
    "security": ("malware encryption breach", "Find reports on security breaches, malware and encryption flaws."),
    "databases": ("database query index", "Find documents about database queries, indexes and transactions."),
}


@dataclass
class Corpus:
    documents: list[dict] = field(default_factory=list)   # {"docno","title","text"}
    topics: list[dict] = field(default_factory=list)      # {"qid","title","description","narrative","facet"}
    gold: dict[str, dict[str, int]] = field(default_factory=dict)  # qid -> docno -> grade (0 omitted)


def generate(*, seed: int = 42, num_documents: int = 1200, num_topics: int = 10) -> Corpus:
    """Return a corpus; the same seed and sizes always give the same documents, topics and gold."""
    rng = np.random.default_rng(seed)
    themes = list(THEMES)
    facets = [(theme, facet) for theme in themes for facet in THEMES[theme][1]]
    corpus = Corpus()
    doc_facets: list[tuple[str, str]] = []
    for i in range(num_documents):
        theme, facet = facets[int(rng.integers(len(facets)))]
        other = themes[int(rng.integers(len(themes)))]
        shared = THEMES[theme][0].split()
        own = THEMES[theme][1][facet].split()
        # Noise words come from another theme's facet, often a sibling facet of the same theme.
        noise_theme = theme if rng.random() < 0.5 else other
        noise = THEMES[noise_theme][1][[f for f in THEMES[noise_theme][1] if f != facet][0]].split()
        # Facet strength varies: some documents barely mention their facet (hard to find),
        # some mention a sibling facet heavily (easy false positives).
        strength = float(rng.uniform(0.0, 0.2))
        length = int(rng.integers(40, 90))
        pools = [own, shared, noise, FILLER]
        weights = np.array([strength, 0.25, 0.15, 0.6 - strength])
        weights = weights / weights.sum()
        choice = rng.choice(len(pools), size=length, p=weights)
        words = [pools[c][int(rng.integers(len(pools[c])))] for c in choice]
        title_words = [own[int(rng.integers(len(own)))], shared[int(rng.integers(len(shared)))],
                       FILLER[int(rng.integers(len(FILLER)))]]
        docno = f"DEMO-{i:05d}"
        corpus.documents.append({"docno": docno, "title": " ".join(title_words).capitalize(), "text": " ".join(words) + "."})
        doc_facets.append((theme, facet))
        corpus.documents[-1]["_strength"] = strength
    chosen = [facets[int(j)] for j in sorted(rng.choice(len(facets), size=min(num_topics, len(facets)), replace=False))]
    for n, (theme, facet) in enumerate(chosen, start=1):
        qid = str(100 + n)
        title, description = TOPIC_TEXT[facet]
        corpus.topics.append({
            "qid": qid, "title": title, "description": description, "facet": facet,
            "narrative": f"A relevant document is mainly about {facet} in {theme}. "
                         f"Documents about {theme} in general are at most related.",
        })
        gold: dict[str, int] = {}
        for doc, (doc_theme, doc_facet) in zip(corpus.documents, doc_facets):
            if doc_facet == facet:
                gold[doc["docno"]] = 3 if doc["_strength"] > 0.14 else 2 if doc["_strength"] > 0.07 else 1 if doc["_strength"] > 0.02 else 0
            elif doc_theme == theme and doc["_strength"] > 0.15:
                gold[doc["docno"]] = 1
        corpus.gold[qid] = {docno: grade for docno, grade in gold.items() if grade > 0}
    for doc in corpus.documents:
        del doc["_strength"]
    return corpus
