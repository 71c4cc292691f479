"""Pooling: choose (topic, document) pairs from runs and give them a judging order.

Everything here except ``stats`` is pure Python/numpy over plain dicts and lists, so it can
be tested by hand and reused outside Django. ``collections_app.services.pools`` loads the
rankings, calls these functions and persists the result.
"""
