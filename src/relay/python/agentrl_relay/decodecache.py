"""One decode per event file, shared by every client of the relay (as the Node relay's
serve/decode-cache.ts): N viewers of a file must not cost N decodes. A decoded batch is kept
as its binary frame, keyed by the cursor it starts at, under one memory bound for the whole
relay (oldest dropped first). Sessions keep only cursors: the batch starting at a session's
cursor comes from the cache when some session decoded it already; otherwise the session decodes
it — with the reader parked at that position if there is one (viewers reading together drive
one reader between them), else a reader of its own — and the result joins the cache. A session
only ever gets the batch that starts exactly at its cursor, so every point arrives once, in order.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from typing import Any

from .points import PointsBatch
from .protocol import points_frame

MAX_PARKED = 16


def cursor_key(c: dict[str, Any] | None) -> str:
    return "" if not c else f"{c.get('fid', '')}@{c['offset']}"


class OwnFeed:
    """A session reading a source with a reader of its own (sources not shared)."""

    def __init__(self, src: Any, cursor: dict[str, Any] | None):
        self.info = src.info
        self.reader = src.open(cursor)

    def next(self, budget: int) -> Any:
        return self.reader.next(budget)

    def close(self) -> None:
        self.reader.close()


class _SourceCache:
    def __init__(self, owner: DecodeCache, src: Any):
        self.owner = owner
        self.src = src
        self.by_start: dict[str, tuple[dict[str, Any], bytes]] = {}
        self.parked: OrderedDict[str, Any] = OrderedDict()

    def at(self, cursor: dict[str, Any] | None, budget: int) -> tuple[dict[str, Any], bytes] | None:
        """The batch starting at `cursor` as (its end cursor, its frame); None when nothing is new."""
        key = cursor_key(cursor)
        hit = self.by_start.get(key)
        if hit is not None:
            self.owner.stats["served"] += 1
            return hit
        reader = self.parked.pop(key, None)
        if reader is None:
            reader = self.src.open(cursor)
            self.owner.stats["opened"] += 1
        try:
            batch = reader.next(budget)
        except Exception:
            reader.close()
            raise
        if batch is None:
            self._park(key, reader)  # at the live edge: the next look reads on with it
            return None
        assert isinstance(batch, PointsBatch)
        info = self.src.info
        entry = (batch.cursor, points_frame(info["id"], info["run"], info["role"], batch.series, batch.cursor))
        self.owner.admit(self, key, entry)
        self._park(cursor_key(batch.cursor), reader)
        return entry

    def _park(self, key: str, reader: Any) -> None:
        if key in self.by_start or key in self.parked:
            reader.close()
            return
        self.parked[key] = reader
        if len(self.parked) > MAX_PARKED:
            _, old = self.parked.popitem(last=False)
            old.close()

    def close(self) -> None:
        for r in self.parked.values():
            r.close()
        self.parked.clear()


class SharedFeed:
    """One session's view of a shared source: nothing but its cursor."""

    def __init__(self, cache: _SourceCache, cursor: dict[str, Any] | None):
        self.info = cache.src.info
        self.cache = cache
        self.cursor = cursor

    def next(self, budget: int) -> bytes | None:
        entry = self.cache.at(self.cursor, budget)
        if entry is None:
            return None
        self.cursor = entry[0]
        return entry[1]

    def close(self) -> None:
        pass  # the readers belong to the source's cache


class DecodeCache:
    def __init__(self, bound_bytes: int):
        self.bound = bound_bytes
        self.caches: dict[str, _SourceCache] = {}
        self.queue: deque = deque()
        self.bytes = 0
        self.stats = {"decoded": 0, "served": 0, "opened": 0, "evicted": 0}

    def feed(self, src: Any, cursor: dict[str, Any] | None) -> Any:
        """A session's feed of `src` from `cursor`: shared for event files (the costly decode)."""
        if src.kind != "tfevents" or self.bound <= 0:
            return OwnFeed(src, cursor)
        cache = self.caches.get(src.info["id"])
        if cache is None:
            cache = self.caches[src.info["id"]] = _SourceCache(self, src)
        return SharedFeed(cache, cursor)

    def admit(self, cache: _SourceCache, key: str, entry: tuple[dict[str, Any], bytes]) -> None:
        self.stats["decoded"] += 1
        size = len(entry[1])
        if size > self.bound:
            return
        while self.bytes + size > self.bound and self.queue:
            old_cache, old_key, old_entry = self.queue.popleft()
            if old_cache.by_start.get(old_key) is old_entry:
                del old_cache.by_start[old_key]
                self.stats["evicted"] += 1
            self.bytes -= len(old_entry[1])
        cache.by_start[key] = entry
        self.queue.append((cache, key, entry))
        self.bytes += size

    def close(self) -> None:
        for c in self.caches.values():
            c.close()
        self.caches.clear()
        self.queue.clear()
        self.bytes = 0
