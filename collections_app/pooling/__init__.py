"""Pooling: choose (topic, document) pairs from runs and give them a judging order.

Everything here is pure Python/numpy over plain dicts and lists, with no Django import (a
test checks), so it can be tested by hand and reused outside Django; the pool statistics that
read the database are ``collections_app.pool_stats``. ``collections_app.services.pools`` loads the
rankings, calls these functions and persists the result.
"""
