"""The demo collection, written by the project itself: synthetic documents, topics and runs.

``corpus`` makes documents and topics from per-theme vocabularies; ``retrieval`` ranks them
with genuinely different retrieval models so the runs disagree the way real systems do;
``setup`` writes the files and loads them through the real importers.
"""
