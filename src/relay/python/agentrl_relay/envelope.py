"""Envelope-first opening of an event file: one pass folds every scalar into its tag's min/max
envelope of at most `cap` step buckets (the width starts at 1 and doubles whenever the steps
seen span more than `cap` buckets), noting a sparse index of the file that a `detail` request
re-reads. The fold order (each bucket's sum, first / last point, the merges when the width
doubles) is the Node relay's (src/relay/envelope), so both send the same envelope bit for bit.
"""

from __future__ import annotations

import math
import os
import sys
from array import array
from bisect import bisect_left, bisect_right
from functools import reduce
from itertools import compress, repeat
from operator import add, lt
from typing import Any, Iterator

from .eventsource import RecordReader
from .files import file_id
from .points import Floats

INF = math.inf


def pow2_at_least(x: float) -> int:
    w = 1
    while w < x:
        w *= 2
    return w


def _zero_min(a: float, b: float) -> float:
    """Math.min of two equal values: -0 below +0."""
    return -0.0 if a == 0 and (math.copysign(1, a) < 0 or math.copysign(1, b) < 0) else a


def _zero_max(a: float, b: float) -> float:
    return 0.0 if a == 0 and (math.copysign(1, a) > 0 or math.copysign(1, b) > 0) else a


def js_min(a: float, b: float) -> float:
    """Math.min: -0 below +0."""
    return a if a < b else b if b < a else _zero_min(a, b)


def js_max(a: float, b: float) -> float:
    return a if a > b else b if b > a else _zero_max(a, b)


def _sum_in_order(values: list[float], start: float) -> float:
    """start + values[0] + values[1] + … added left to right, as JavaScript adds them."""
    return reduce(add, values, start)


if sys.version_info < (3, 12):
    # Before 3.12, sum() of floats is that same left-to-right addition in C (from 3.12 on it
    # compensates rounding, which would make the sums differ from the Node relay's).
    _sum_in_order = sum  # type: ignore[assignment]


# The per-bucket columns. An empty bucket holds count 0, min +Inf, max -Inf, sum 0, and first /
# last steps of +Inf / -Inf, so that merging it changes nothing.
FIELDS = ("count", "min", "max", "sum", "firstStep", "firstValue", "firstWall", "lastStep", "lastValue", "lastWall", "nan", "posInf", "negInf")
_EMPTY = (0, INF, -INF, 0.0, INF, 0.0, 0.0, -INF, 0.0, 0.0, 0, 0, 0)


# Bytes decoded between two yields of a pass or a detail read (tens of milliseconds in CPython),
# and so the grain of a file's index: a detail read of a few steps reads about this much.
SLICE_BYTES = 64 * 1024


class EnvelopeBuilder:
    """The envelope of one tag, built in one pass over its points in any order."""

    def __init__(self, cap: int, width: float = 1):
        self.cap = cap
        self.width = pow2_at_least(max(1, width))
        self.lo = 0
        self.first = INF
        self.last = -INF
        self.points = 0
        self.cols = [[v] * cap for v in _EMPTY]

    def add(self, step: float, wall: float, value: float) -> None:
        k = math.floor(step / self.width) - self.lo
        if k < 0 or k >= self.cap:
            k = self._fit(step)
        a = self.lo + k
        if a < self.first:  # noqa: PLR1730 (per point: a call to min() costs)
            self.first = a
        if a > self.last:  # noqa: PLR1730
            self.last = a
        cnt, mn, mx, sm, fs, fv, fw, ls, lv, lw, nan, pi, ni = self.cols
        n = cnt[k]
        cnt[k] = n + 1
        if n == 0 or step < fs[k]:
            fs[k], fv[k], fw[k] = step, value, wall
        if n == 0 or step >= ls[k]:
            ls[k], lv[k], lw[k] = step, value, wall
        if value - value == 0:
            if value < mn[k]:  # noqa: PLR1730
                mn[k] = value
            if value > mx[k]:  # noqa: PLR1730
                mx[k] = value
            sm[k] += value
        elif value == INF:
            pi[k] += 1
        elif value == -INF:
            ni[k] += 1
        else:
            nan[k] += 1
        self.points += 1

    def add_many(self, steps: array, walls: array, values: Floats, ascending: bool) -> None:
        """add() of each point in order; where the steps ascend, every bucket's run of points is
        folded at once (the same result bit for bit: sums are added in order, ties keep the first
        min / max), and the runs of all buckets the width holds go through C-level maps together."""
        n = len(steps)
        if not ascending:
            for m in range(n):
                self.add(steps[m], walls[m], values[m])
            return
        i = 0
        while i < n:
            s = steps[i]
            k = math.floor(s / self.width) - self.lo
            if k < 0 or k >= self.cap:
                self.add(s, walls[i], values[i])  # may double the width (_fit)
                i += 1
                continue
            # The points from i that the buckets hold as they are (the next one makes room).
            j = bisect_left(steps, (self.lo + self.cap) * self.width, i + 1, n)
            self._runs(k, steps, walls, values, i, j)
            i = j

    def _runs(self, k0: int, steps: array, walls: array, values: Floats, i: int, j: int) -> None:
        """Folds the ascending points [i, j), all inside the current buckets, from bucket k0 on."""
        w, lo = self.width, self.lo
        k1 = math.floor(steps[j - 1] / w) - lo
        if k1 == k0:
            ks: Any = (k0,)
            starts: Any = (i,)
            ends: Any = (j,)
        else:
            edges = [(lo + k + 1) * w for k in range(k0, k1)]
            ends = list(map(bisect_left, repeat(steps), edges, repeat(i), repeat(j)))
            ends.append(j)
            starts = [i, *ends[:-1]]
            ks = range(k0, k1 + 1)
            if not all(map(lt, starts, ends)):  # buckets no point falls in
                held = list(map(lt, starts, ends))
                ks, starts, ends = list(compress(ks, held)), list(compress(starts, held)), list(compress(ends, held))
        cnt, mn, mx, sm, fs, fv, fw, ls, lv, lw = self.cols[:10]
        # Lists of floats: min, max and the sum then walk them without boxing each value anew.
        runs = list(map((values if isinstance(values, list) else values.tolist()).__getitem__, map(slice, starts, ends)))
        totals = list(map(_sum_in_order, runs, map(sm.__getitem__, ks)))
        lows = list(map(min, runs))
        highs = list(map(max, runs))
        folded = 0
        for k, a, b, total, low, high in zip(ks, starts, ends, totals, lows, highs):
            if total - total != 0:  # NaN / ±Infinity among them (or an overflow): point by point
                for m in range(a, b):
                    self.add(steps[m], walls[m], values[m])
                continue
            c = cnt[k]
            if c == 0 or steps[a] < fs[k]:
                fs[k], fv[k], fw[k] = steps[a], values[a], walls[a]
            if c == 0 or steps[b - 1] >= ls[k]:
                ls[k], lv[k], lw[k] = steps[b - 1], values[b - 1], walls[b - 1]
            if low < mn[k]:  # noqa: PLR1730 (ties keep the first, as add() does)
                mn[k] = low
            if high > mx[k]:  # noqa: PLR1730
                mx[k] = high
            sm[k] = total
            cnt[k] = c + (b - a)
            folded += b - a
        if folded:
            # Every bucket from the first to the last run holds points now (add() noted its own).
            a, b = lo + ks[0], lo + ks[-1]
            if a < self.first:  # noqa: PLR1730
                self.first = a
            if b > self.last:  # noqa: PLR1730
                self.last = b
            self.points += folded

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
        if shift == 1:
            self._halve(lowest)
        else:
            self._relayout(shift, lowest)
        self.first = lowest
        self.last = highest
        return math.floor(idx / 2**shift) - self.lo

    def _halve(self, lo: int) -> None:
        """The width doubles: buckets merge pairwise, every column at once (merging the pair's
        first bucket into an empty one is a copy; the second is folded in as add() would)."""
        pad = (self.lo - 2 * lo) & 1  # an odd old start: its first bucket pairs with an empty one
        cols = [([e] * pad + c + [e] * ((pad + self.cap) & 1)) for e, c in zip(_EMPTY, self.cols)]
        cnt, mn, mx, sm, fs, fv, fw, ls, lv, lw, nan, pi, ni = ([c[0::2], c[1::2]] for c in cols)
        first = [b < a for a, b in zip(fs[0], fs[1])]
        last = [b >= a and n > 0 for a, b, n in zip(ls[0], ls[1], cnt[1])]
        merged = [
            [a + b for a, b in zip(*cnt)],
            [a if a < b else b if b < a else _zero_min(a, b) for a, b in zip(*mn)],
            [a if a > b else b if b > a else _zero_max(a, b) for a, b in zip(*mx)],
            [a + b for a, b in zip(*sm)],
            [b if t else a for a, b, t in zip(fs[0], fs[1], first)],
            [b if t else a for a, b, t in zip(fv[0], fv[1], first)],
            [b if t else a for a, b, t in zip(fw[0], fw[1], first)],
            [b if t else a for a, b, t in zip(ls[0], ls[1], last)],
            [b if t else a for a, b, t in zip(lv[0], lv[1], last)],
            [b if t else a for a, b, t in zip(lw[0], lw[1], last)],
            [a + b for a, b in zip(*nan)],
            [a + b for a, b in zip(*pi)],
            [a + b for a, b in zip(*ni)],
        ]
        at = (self.lo - pad) // 2 - lo  # the new slot of the first pair (< 0: pairs below lo are empty)
        cap = self.cap
        cols = []
        for e, m in zip(_EMPTY, merged):
            c = [e] * at + m[: cap - at] if at >= 0 else m[-at : cap - at]
            cols.append(c + [e] * (cap - len(c)))
        self.cols = cols
        self.lo = lo
        self.width *= 2

    def _relayout(self, shift: int, lo: int) -> None:
        """Moves every bucket to width·2^shift with slot 0 at absolute index `lo`, folding the
        buckets of each new one in order."""
        f = 2**shift
        old = self.cols
        cnt = old[0]
        new = [[e] * self.cap for e in _EMPTY]
        for j in range(self.cap):
            if cnt[j] == 0:
                continue
            k = math.floor((self.lo + j) / f) - lo
            if new[0][k] == 0:
                for c, o in zip(new, old):
                    c[k] = o[j]
                continue
            if old[4][j] < new[4][k]:
                new[4][k], new[5][k], new[6][k] = old[4][j], old[5][j], old[6][j]
            if old[7][j] >= new[7][k]:
                new[7][k], new[8][k], new[9][k] = old[7][j], old[8][j], old[9][j]
            new[0][k] += cnt[j]
            new[1][k] = js_min(new[1][k], old[1][j])
            new[2][k] = js_max(new[2][k], old[2][j])
            new[3][k] += old[3][j]
            for c in (10, 11, 12):
                new[c][k] += old[c][j]
        self.cols = new
        self.lo = lo
        self.width *= f

    def arrays(self) -> tuple[int, dict[str, array]]:
        """(width, the non-empty buckets as float64 columns by wire name, ascending)."""
        keys = [k for k, n in enumerate(self.cols[0]) if n]
        out = {"bucket": array("d", [float(self.lo + k) for k in keys])}
        for name, col in zip(FIELDS, self.cols):
            out[name] = array("d", [float(col[k]) for k in keys])
        return self.width, out

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

    def __init__(self, path: str, buckets: int, slice_bytes: int = SLICE_BYTES):
        self.path = path
        self.buckets = buckets
        self.slice_bytes = slice_bytes
        self.tags: dict[str, EnvelopeBuilder] = {}
        self.index = FileIndex()
        self.offset = 0
        self.fid = ""
        self._lo = INF
        self._hi = -INF
        self._sorted: dict[int, tuple[array, bool, float, float]] = {}

    def add(self, tag: str, step: float, wall: float, value: float) -> None:
        b = self.tags.get(tag)
        if b is None:
            b = self.tags[tag] = EnvelopeBuilder(self.buckets)
        b.add(step, wall, value)
        if step < self._lo:  # noqa: PLR1730 (per point: a call to min() costs)
            self._lo = step
        if step > self._hi:  # noqa: PLR1730
            self._hi = step

    def extend(self, tag: str, steps: array, walls: array, values: Floats) -> None:
        b = self.tags.get(tag)
        if b is None:
            b = self.tags[tag] = EnvelopeBuilder(self.buckets)
        ascending, lo, hi = _column_facts(steps, self._sorted)
        b.add_many(steps, walls, values, ascending)
        if lo < self._lo:  # noqa: PLR1730
            self._lo = lo
        if hi > self._hi:  # noqa: PLR1730
            self._hi = hi

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


def _column_facts(steps: array, seen: dict[int, tuple[array, bool, float, float]]) -> tuple[bool, float, float]:
    """Whether the steps never go down, and their lowest and highest (remembered per column: the
    tags of a stretch share one, so it is walked once, not once per tag)."""
    got = seen.get(id(steps))
    if got is not None and got[0] is steps:
        return got[1], got[2], got[3]
    if len(seen) > 256:
        seen.clear()
    ordered = sorted(steps)
    flag = steps.tolist() == ordered
    lo, hi = (ordered[0], ordered[-1]) if ordered else (INF, -INF)
    seen[id(steps)] = (steps, flag, lo, hi)
    return flag, lo, hi


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

    def extend(self, tag: str, steps: array, walls: array, values: Floats) -> None:
        if tag != self.tag:
            return
        if self.envelope is None and _column_facts(steps, {})[0]:
            # Only the points in [lo, hi]: where the ascending steps enter and leave the range.
            i, j = bisect_left(steps, self.lo), bisect_right(steps, self.hi)
            steps, walls, values = steps[i:j], walls[i:j], values[i:j]
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
    """Reads `regions` of an event file into the sink; yields every SLICE_BYTES (a region joins
    adjacent stretches: the whole file, for a range that spans it)."""
    for start, end in regions:
        reader = RecordReader(path, start, end=end)
        try:
            while reader.offset < end:
                consumed, _ = reader.read(sink, min(SLICE_BYTES, end - reader.offset))  # type: ignore[arg-type]
                if consumed == 0:
                    break
                yield None
        finally:
            reader.close()
