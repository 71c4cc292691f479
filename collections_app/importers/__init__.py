"""Streaming parsers and validators for topics, documents, runs and qrels files.

Parsers never load a whole file: they read it in blocks or lines, name every problem
by file and line, and leave writing to ``collections_app.services.imports``.
"""
