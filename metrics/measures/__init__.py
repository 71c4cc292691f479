"""Measure implementations, vectorised over all topics of one run (see ``batch.Batch``)."""
