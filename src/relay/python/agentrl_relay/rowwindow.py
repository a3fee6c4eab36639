"""What a client holds of an experience table's most recent rows, carried in its cursor so that a
relay that did not send them (restarted, killed, the other runtime) re-sends only the rows that
changed since — the Node relay's src/relay/sources/row-window.ts, digest for digest.

The last BUCKET_ROWS × WINDOW_BUCKETS (1024) row ids up to the cursor's, in buckets of
BUCKET_ROWS ids, each summed up by FNV-1a (32 bit) over, for each row of the bucket in id order:
the id as int64 LE, the reward as float64 LE, consumed as int64 LE, a NULL as 8 bytes 0xff. A
bucket whose rows the client may not hold as they are (a change waiting to be re-sent) is
written as DIRTY, which never matches. Encoded `<first bucket, base 36>:<8 hex digits a bucket>`.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Iterable, NamedTuple

BUCKET_ROWS = 4
WINDOW_BUCKETS = 256
DIRTY = "xxxxxxxx"
_ROW_NULL8 = b"\xff" * 8
_WINDOW = re.compile(r"^([0-9a-z]{1,12}):((?:[0-9a-fx]{8}){0,256})\Z")
_ROW_I64 = struct.Struct("<q")
_ROW_F64 = struct.Struct("<d")


class RowState(NamedTuple):
    id: int
    reward: float | None
    consumed: float | None


def bucket_digest(rows: Iterable[RowState]) -> str:
    h = 0x811C9DC5
    for r in rows:
        b = (
            _ROW_I64.pack(r.id)
            + (_ROW_NULL8 if r.reward is None else _ROW_F64.pack(r.reward))
            + (_ROW_NULL8 if r.consumed is None else _ROW_I64.pack(math.trunc(r.consumed)))
        )
        for x in b:
            h = ((h ^ x) * 0x01000193) & 0xFFFFFFFF
    return f"{h:08x}"


def window_buckets(last: int) -> tuple[int, int]:
    """The buckets a cursor at row `last` describes: (first, end)."""
    end = last // BUCKET_ROWS
    return max(0, end - WINDOW_BUCKETS + 1), end


def _base36(n: int) -> str:
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        n, r = divmod(n, 36)
        out = digits[r] + out
        if not n:
            return out


class EncodedWindow(NamedTuple):
    first: int
    digests: list[str]


def parse_window(text: str) -> EncodedWindow | None:
    m = _WINDOW.match(text)
    if not m:
        return None
    d = m.group(2)
    return EncodedWindow(int(m.group(1), 36), [d[i : i + 8] for i in range(0, len(d), 8)])


def _by_bucket(rows: Iterable[RowState]) -> dict[int, list[RowState]]:
    by: dict[int, list[RowState]] = {}
    for r in rows:
        by.setdefault(r.id // BUCKET_ROWS, []).append(r)
    return by


def changed_buckets(w: EncodedWindow, rows: Iterable[RowState]) -> list[int]:
    """The buckets whose rows now (ids ≤ the cursor's) differ from what the window says the client holds."""
    by = _by_bucket(rows)
    return [w.first + i for i, d in enumerate(w.digests) if d != bucket_digest(by.get(w.first + i, []))]


class RowWindow:
    """One reader's record of the recent rows its client holds, as they were sent."""

    def __init__(self) -> None:
        self.rows: dict[int, RowState] = {}

    def hold(self, rows: Iterable[RowState], last: int) -> None:
        first = window_buckets(last)[0]
        for r in rows:
            if r.id // BUCKET_ROWS >= first:
                self.rows[r.id] = r
        self._prune(first)

    def encode(self, last: int, dirty: Iterable[int]) -> str:
        first, end = window_buckets(last)
        self._prune(first)
        by = _by_bucket(sorted((r for r in self.rows.values() if r.id <= last), key=lambda r: r.id))
        dirty_buckets = {i // BUCKET_ROWS for i in dirty}
        body = "".join(DIRTY if b in dirty_buckets else bucket_digest(by.get(b, [])) for b in range(first, end + 1))
        return f"{_base36(first)}:{body}"

    def _prune(self, first: int) -> None:
        for i in [i for i in self.rows if i // BUCKET_ROWS < first]:
            del self.rows[i]
