"""The demo: its own app at the top of the dependency order, owning ``manage.py demo_setup``.

The demo collection is written by the project itself: synthetic documents, topics and runs.
It may import every other app (it starts a relevance and a preference campaign); no app
imports it.

``corpus`` makes documents and topics from per-theme vocabularies; ``retrieval`` ranks them
with genuinely different retrieval models so the runs disagree the way real systems do;
``setup`` writes the files and loads them through the real importers.
"""
