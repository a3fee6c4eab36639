"""Envelope-first opening of an event file: one pass folds every scalar into its tag's min/max
envelope of at most `cap` step buckets (the width starts at 1 and doubles whenever the steps
seen span more than `cap` buckets), noting a sparse index of the file that a `detail` request
re-reads. The fold order (each bucket's sum, first / last point, the merges when the width
doubles) is the Node relay's (src/relay/envelope), so both send the same envelope bit for bit.
"""

from __future__ import annotations

import math
import os
from array import array
from typing import Any, Iterator

from .eventsource import RecordReader
from .files import file_id

INF = math.inf

# count, min, max, sum, first (step, value, wall), last (step, value, wall), nan, +inf, -inf
_C, _MIN, _MAX, _SUM, _FS, _FV, _FW, _LS, _LV, _LW, _NAN, _PI, _NI = range(13)
_WIRE = [
    (_C, "count"),
    (_MIN, "min"),
    (_MAX, "max"),
    (_SUM, "sum"),
    (_FS, "firstStep"),
    (_FV, "firstValue"),
    (_FW, "firstWall"),
    (_LS, "lastStep"),
    (_LV, "lastValue"),
    (_LW, "lastWall"),
    (_NAN, "nan"),
    (_PI, "posInf"),
    (_NI, "negInf"),
]


def pow2_at_least(x: float) -> int:
    w = 1
    while w < x:
        w *= 2
    return w


def js_min(a: float, b: float) -> float:
    """Math.min: -0 below +0."""
    if a < b:
        return a
    if b < a:
        return b
    return -0.0 if a == 0 and (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else a


def js_max(a: float, b: float) -> float:
    if a > b:
        return a
    if b > a:
        return b
    return 0.0 if a == 0 and (math.copysign(1, a) > 0 or math.copysign(1, b) > 0) else a


def _empty_slot() -> list[float]:
    return [0, INF, -INF, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0, 0, 0]


class EnvelopeBuilder:
    """The envelope of one tag, built in one pass over its points in any order."""

    def __init__(self, cap: int, width: float = 1):
        self.cap = cap
        self.width = pow2_at_least(max(1, width))
        self.lo = 0
        self.first = INF
        self.last = -INF
        self.points = 0
        self.slots: dict[int, list[float]] = {}

    def add(self, step: float, wall: float, value: float) -> None:
        k = math.floor(step / self.width) - self.lo
        if k < 0 or k >= self.cap:
            k = self._fit(step)
        a = self.lo + k
        if a < self.first:  # noqa: PLR1730 (per point: a call to min() costs)
            self.first = a
        if a > self.last:  # noqa: PLR1730
            self.last = a
        c = self.slots.get(k)
        if c is None:
            c = self.slots[k] = _empty_slot()
        n = c[_C]
        c[_C] = n + 1
        if n == 0 or step < c[_FS]:
            c[_FS], c[_FV], c[_FW] = step, value, wall
        if n == 0 or step >= c[_LS]:
            c[_LS], c[_LV], c[_LW] = step, value, wall
        if value - value == 0:
            if value < c[_MIN]:  # noqa: PLR1730 (per point: a call to min() costs)
                c[_MIN] = value
            if value > c[_MAX]:  # noqa: PLR1730
                c[_MAX] = value
            c[_SUM] += value
        elif value == INF:
            c[_PI] += 1
        elif value == -INF:
            c[_NI] += 1
        else:
            c[_NAN] += 1
        self.points += 1

    def _fit(self, step: float) -> int:
        """Makes room for `step` (doubling the width as needed); returns its slot."""
        idx = math.floor(step / self.width)
        if self.points == 0:
            self.lo = idx
            self.first = self.last = idx
            return 0
        lowest = min(self.first, idx)
        highest = max(self.last, idx)
        shift = 0
        while math.floor(highest / 2**shift) - math.floor(lowest / 2**shift) + 1 > self.cap:
            shift += 1
        lowest = math.floor(lowest / 2**shift)
        highest = math.floor(highest / 2**shift)
        self._relayout(shift, lowest)
        self.first = lowest
        self.last = highest
        return math.floor(idx / 2**shift) - self.lo

    def _relayout(self, shift: int, lo: int) -> None:
        f = 2**shift
        nxt: dict[int, list[float]] = {}
        for j in sorted(self.slots):
            src = self.slots[j]
            if src[_C] == 0:
                continue
            k = math.floor((self.lo + j) / f) - lo
            to = nxt.get(k)
            if to is None:
                to = nxt[k] = _empty_slot()
            empty = to[_C] == 0
            if empty or src[_FS] < to[_FS]:
                to[_FS], to[_FV], to[_FW] = src[_FS], src[_FV], src[_FW]
            if empty or src[_LS] >= to[_LS]:
                to[_LS], to[_LV], to[_LW] = src[_LS], src[_LV], src[_LW]
            to[_C] += src[_C]
            to[_MIN] = js_min(to[_MIN], src[_MIN])
            to[_MAX] = js_max(to[_MAX], src[_MAX])
            to[_SUM] += src[_SUM]
            to[_NAN] += src[_NAN]
            to[_PI] += src[_PI]
            to[_NI] += src[_NI]
        self.slots = nxt
        self.lo = lo
        self.width *= f

    def arrays(self) -> tuple[int, dict[str, array]]:
        """(width, the non-empty buckets as float64 columns by wire name, ascending)."""
        keys = [k for k in sorted(self.slots) if self.slots[k][_C] != 0]
        cols = {"bucket": array("d", [float(self.lo + k) for k in keys])}
        for i, name in _WIRE:
            cols[name] = array("d", [float(self.slots[k][i]) for k in keys])
        return self.width, cols

    @property
    def bytes(self) -> int:
        return 13 * 8 * self.cap


class FileIndex:
    """Per stretch of records [start, end) of a file, its lowest and highest step; bounded by
    merging neighbours pairwise past `cap` entries."""

    def __init__(self, cap: int = 4096):
        self.cap = cap
        self.start: list[int] = []
        self.end: list[int] = []
        self.lo: list[float] = []
        self.hi: list[float] = []

    def add(self, start: int, end: int, lo: float, hi: float) -> None:
        if end <= start:
            return
        self.start.append(start)
        self.end.append(end)
        self.lo.append(lo)
        self.hi.append(hi)
        if len(self.start) > self.cap:
            n = len(self.start)
            pairs = [(i, min(i + 1, n - 1)) for i in range(0, n, 2)]
            self.start = [self.start[i] for i, _ in pairs]
            self.end = [self.end[j] for _, j in pairs]
            self.lo = [min(self.lo[i], self.lo[j]) for i, j in pairs]
            self.hi = [max(self.hi[i], self.hi[j]) for i, j in pairs]

    def regions(self, lo: float, hi: float, before: float = INF) -> list[list[int]]:
        """The byte regions (adjacent stretches joined) that may hold steps in [lo, hi], below `before`."""
        out: list[list[int]] = []
        for i in range(len(self.start)):
            if self.start[i] >= before:
                break
            if self.hi[i] < lo or self.lo[i] > hi:
                continue
            end = int(min(self.end[i], before))
            if out and out[-1][1] == self.start[i]:
                out[-1][1] = end
            else:
                out.append([self.start[i], end])
        return out


class EnvelopePass:
    """Reads one event file from its start to its current end, folding every scalar into its
    tag's envelope; a later call reads on from where it stopped (sessions share one pass)."""

    def __init__(self, path: str, buckets: int, slice_bytes: int = 1024 * 1024):
        self.path = path
        self.buckets = buckets
        self.slice_bytes = slice_bytes
        self.tags: dict[str, EnvelopeBuilder] = {}
        self.index = FileIndex()
        self.offset = 0
        self.fid = ""
        self._lo = INF
        self._hi = -INF

    def add(self, tag: str, step: float, wall: float, value: float) -> None:
        b = self.tags.get(tag)
        if b is None:
            b = self.tags[tag] = EnvelopeBuilder(self.buckets)
        b.add(step, wall, value)
        if step < self._lo:  # noqa: PLR1730 (per point: a call to min() costs)
            self._lo = step
        if step > self._hi:  # noqa: PLR1730
            self._hi = step

    def extend(self, tag: str, steps, walls, values) -> None:
        for s, w, v in zip(steps, walls, values):
            self.add(tag, s, w, v)

    def advance(self, yield_every: callable | None = None) -> Iterator[None]:
        """Reads on to the file's end; a generator that yields between slices (the caller may
        let other clients run)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return  # gone: what was read stays valid for its fid
        if file_id(st) != self.fid or st.st_size < self.offset:
            self.fid = file_id(st)
            self.offset = 0
            self.tags = {}
            self.index = FileIndex()
        if st.st_size == self.offset:
            return
        reader = RecordReader(self.path, self.offset)
        try:
            while True:
                self._lo, self._hi = INF, -INF
                start = reader.offset
                _, more = reader.read(self, self.slice_bytes)  # type: ignore[arg-type]
                self.index.add(start, reader.offset, self._lo, self._hi)
                self.offset = reader.offset
                if not more:
                    break
                yield None
        finally:
            reader.close()

    def cursor(self, source: str) -> dict[str, Any]:
        return {"source": source, "fid": self.fid, "offset": self.offset}

    @property
    def bytes(self) -> int:
        return len(self.index.start) * 32 + sum(b.bytes for b in self.tags.values())


class EnvelopeCache:
    """Envelope passes by source and bucket count, least recently used dropped past the bound."""

    def __init__(self, bound_bytes: int = 128 * 1024 * 1024):
        self.bound = bound_bytes
        self.passes: dict[str, tuple[str, EnvelopePass]] = {}
        self.running: dict[str, Any] = {}

    def get(self, source: str, path: str, buckets: int) -> EnvelopePass:
        key = f"{source}#{buckets}"
        entry = self.passes.pop(key, None)
        p = entry[1] if entry else EnvelopePass(path, buckets)
        self.passes[key] = (source, p)
        return p

    def indexed(self, source: str, fid: str | None) -> EnvelopePass | None:
        found = None
        for sid, p in self.passes.values():
            if sid == source and p.fid == fid and (found is None or p.offset > found.offset):
                found = p
        return found

    def enforce(self, keep: EnvelopePass) -> None:
        for key in list(self.passes):
            if sum(p.bytes for _, p in self.passes.values()) <= self.bound:
                return
            if self.passes[key][1] is not keep:
                del self.passes[key]


class DetailSink:
    """The points of a `detail` query: exactly while they fit, then a finer envelope of the range."""

    def __init__(self, tag: str, lo: float, hi: float, max_points: int):
        self.tag, self.lo, self.hi, self.max_points = tag, lo, hi, max_points
        self.step: list[float] = []
        self.wall: list[float] = []
        self.value: list[float] = []
        self.envelope: EnvelopeBuilder | None = None

    def add(self, tag: str, step: float, wall: float, value: float) -> None:
        if tag != self.tag or step < self.lo or step > self.hi:
            return
        if self.envelope is not None:
            self.envelope.add(step, wall, value)
            return
        self.step.append(step)
        self.wall.append(wall)
        self.value.append(value)
        if len(self.step) > self.max_points:
            self._spill()

    def extend(self, tag: str, steps, walls, values) -> None:
        for s, w, v in zip(steps, walls, values):
            self.add(tag, s, w, v)

    def _spill(self) -> None:
        lo, hi, n = self.lo, self.hi, self.max_points
        width = pow2_at_least(max(1, (hi - lo + 1) / n))
        while math.floor(hi / width) - math.floor(lo / width) + 1 > n:
            width *= 2
        b = EnvelopeBuilder(n, width)
        for s, w, v in zip(self.step, self.wall, self.value):
            b.add(s, w, v)
        self.envelope = b
        self.step, self.wall, self.value = [], [], []


def read_detail(path: str, regions: list[list[int]], sink: DetailSink) -> Iterator[None]:
    """Reads `regions` of an event file into the sink; yields between regions."""
    for start, end in regions:
        reader = RecordReader(path, start, end=end)
        try:
            while reader.offset < end:
                consumed, _ = reader.read(sink, end - reader.offset)  # type: ignore[arg-type]
                if consumed == 0:
                    break
        finally:
            reader.close()
        yield None
