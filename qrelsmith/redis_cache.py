"""Django's Redis cache with one client object per server instead of one per call.

Django's ``RedisCacheClient.get_client`` builds a new ``redis.Redis`` on every cache call (the
connection pool is shared; the client object is not), and building one sets up its table of
response callbacks. On the judging round each API request makes two cache calls for its rate
limit, and those client constructions were about 8 % of the web process's CPU at saturation.
A ``redis.Redis`` is safe to share between threads (each command borrows a pooled connection),
so one per pool is kept. Everything else is Django's backend.
"""
from __future__ import annotations

from django.core.cache.backends import redis as django_redis


class _SharedClient(django_redis.RedisCacheClient):
    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, object] = {}

    def get_client(self, key=None, *, write=False):
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class RedisCache(django_redis.RedisCache):
    def __init__(self, server, params) -> None:
        super().__init__(server, params)
        self._class = _SharedClient

    def count(self, key: str, previous_key: str, *, timeout: int) -> tuple[int, int]:
        """Increment counter ``key`` (kept ``timeout`` seconds) and read counter ``previous_key``: one round trip.

        For the API's rate limits (``qrelsmith.throttles``). Counters are plain Redis integers,
        which Django's Redis serializer also stores integers as, so ``get`` reads them too.
        """
        current, previous = self.make_and_validate_key(key), self.make_and_validate_key(previous_key)
        pipe = self._cache.get_client(current, write=True).pipeline(transaction=False)  # type: ignore[attr-defined]
        pipe.incr(current)
        pipe.expire(current, timeout)
        pipe.get(previous)
        count, _, before = pipe.execute()
        return int(count), int(before or 0)
