"""Ray's timeline of a run (ray-timeline.ts and timeline-scan.ts): Trinity's
<job dir>/monitor/timeline.json (`ray.timeline(filename=...)` with monitor.enable_ray_timeline), a
JSON array of Chrome trace events read in chunks into columns (lane, start, duration, name) that
windows are cut from. The same rules as the Node relay, so both answer the same windows: the file
must start with `[` (not-array); each object in it is an event, other values are skipped; an object
longer than MAX_OBJECT_BYTES is skipped (too-long), one that is not JSON or is nested deeper than MAX_DEPTH is corrupt; the array not
closed at the end of the file is truncated (the events before the cut kept); reading stops after
MAX_EVENTS events (capped). An event is kept when ph is "X"; then ts must be a finite number and dur
a number >= 0 finite as a 32-bit float, or absent (0), else it is corrupt; pid / tid are strings, or integers as their
digits, anything else "". Each object is parsed by the json module (the Node relay reads the common
shape in place; the answers are the same).
"""

from __future__ import annotations

import codecs
import json
import math
import os
import re
from array import array
from typing import Any, Generator

from .protocol import MAX_SAFE_INTEGER

CHUNK_BYTES = 4 * 1024 * 1024
MAX_OBJECT_BYTES = 1024 * 1024
MAX_EVENTS = 8_000_000
MAX_DEPTH = 64

_ACTOR = re.compile(r"^task::(?:([^:]+):)?([A-Za-z_]\w*)\.__init__\Z", re.ASCII)
_CLASS = re.compile(r"^task::(?:[^:]+:)?([A-Za-z_]\w*)\.", re.ASCII)
_STRUCTURAL = re.compile(r'["{}\[\]]')
_IN_STRING = re.compile(r'["\\]')
_SPACE = " \t\n\r"


def _reject_trace_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_DECODER = json.JSONDecoder(parse_constant=_reject_trace_constant)


def js_round_tenth(v: float) -> float:
    """JavaScript's Math.round(v * 10) / 10 (halves toward +inf)."""
    x = v * 10
    r = math.floor(x)
    return (r + 1 if x - r >= 0.5 else r) / 10


def _byte_length(text: str, s: int, e: int) -> int:
    if (e - s) * 4 <= MAX_OBJECT_BYTES:
        return e - s  # short enough either way: only compared with MAX_OBJECT_BYTES
    return len(text[s:e].encode("utf-8", "replace"))


class _SkipValue:
    """Where a value skipped by brackets and strings stands (it may span chunks)."""

    def __init__(self) -> None:
        self.depth = 0
        self.max_depth = 0
        self.in_string = False
        self.escape = False

    def run(self, text: str, i: int, n: int) -> int:
        """The value's end in text[i:n], or -1 (the state kept for the next chunk)."""
        while i < n:
            if self.in_string:
                if self.escape:
                    self.escape = False
                    i += 1
                    continue
                m = _IN_STRING.search(text, i, n)
                if m is None:
                    return -1
                i = m.start()
                if text[i] == "\\":
                    self.escape = True
                else:
                    self.in_string = False
                    if self.depth == 0:
                        return i + 1
                i += 1
                continue
            if self.depth == 0:
                c = text[i]
                if c == '"':
                    self.in_string = True
                elif c in "{[":
                    self.depth += 1
                    self.max_depth = max(self.max_depth, self.depth)
                else:
                    return i + 1
                i += 1
                continue
            m = _STRUCTURAL.search(text, i, n)
            if m is None:
                return -1
            i = m.start()
            c = text[i]
            if c == '"':
                self.in_string = True
            elif c in "{[":
                self.depth += 1
                self.max_depth = max(self.max_depth, self.depth)
            else:
                self.depth -= 1
                if self.depth <= 0:
                    return i + 1
            i += 1
        return -1


def _too_deep(text: str, s: int, e: int) -> bool:
    if text.count("{", s, e) + text.count("[", s, e) <= MAX_DEPTH:
        return False
    skip = _SkipValue()
    skip.run(text, s, e)
    return skip.max_depth > MAX_DEPTH


def _normalized(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        if isinstance(v, float) and not (math.isfinite(v) and v.is_integer()):
            return ""
        if abs(v) <= MAX_SAFE_INTEGER:
            return str(int(v))
    return ""


def _trace_number(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    try:
        f = float(v)
    except OverflowError:
        return None
    return f if math.isfinite(f) else None


class TimelineIndex:
    def __init__(self, path: str, size: int) -> None:
        self.path = path
        self.bytes = size
        self.lane = array("I")
        self.start = array("d")
        self.dur = array("f")
        self.name = array("I")
        self.lane_ids: dict[tuple[str, str], int] = {}
        self.lane_labels: list[str] = []
        self.lane_class: dict[int, str] = {}
        self.name_ids: dict[str, int] = {}
        self.names: list[str] = []
        self.cat_info: dict[str, tuple[str | None, str | None]] = {}
        self.corrupt = 0
        self.too_long = 0
        self.truncated = False
        self.not_array = False
        self.capped = False
        self.origin = math.inf
        self.end = -math.inf

    @property
    def events(self) -> int:
        return len(self.lane)

    def read(self, chunk_bytes: int = CHUNK_BYTES) -> Generator[None, None, TimelineIndex]:
        """Reads the file chunk by chunk (a slice of work each: run_sliced lets other clients run)."""
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        text = ""
        started = closed = eof = False
        skipping: _SkipValue | None = None
        with open(self.path, "rb") as f:
            while not eof and not closed:
                data = f.read(chunk_bytes)
                eof = not data
                text += decoder.decode(data, final=eof)
                n = len(text)
                i = 0
                if skipping is not None:
                    end = skipping.run(text, 0, n)
                    if end < 0:
                        text = ""
                        yield
                        continue
                    skipping = None
                    i = end
                if not started:
                    while i < n and text[i] in _SPACE:
                        i += 1
                    if i >= n:
                        text = ""
                        continue
                    if text[i] != "[":
                        self.not_array = True
                        return self
                    started = True
                    i += 1
                pending = -1
                while i < n:
                    c = text[i]
                    if c in _SPACE or c == ",":
                        i += 1
                        continue
                    if c == "]":
                        closed = True
                        break
                    if c == "{":
                        try:
                            ev, end = _DECODER.raw_decode(text, i)
                        except (ValueError, RecursionError):
                            end = _SkipValue().run(text, i, n)
                            if end < 0:
                                pending = i
                                break
                            ev = None
                        if _byte_length(text, i, end) > MAX_OBJECT_BYTES:
                            self.too_long += 1
                        elif ev is None or _too_deep(text, i, end):
                            self.corrupt += 1
                        elif not self._take(ev):
                            return self
                        i = end
                        continue
                    end = _SkipValue().run(text, i, n)
                    if end < 0:
                        pending = i
                        break
                    i = end
                if closed:
                    break
                if pending < 0:
                    text = ""
                elif eof or _byte_length(text, pending, n) > MAX_OBJECT_BYTES:
                    if text[pending] == "{" and _byte_length(text, pending, n) > MAX_OBJECT_BYTES:
                        self.too_long += 1
                    if eof:
                        break
                    skipping = _SkipValue()
                    skipping.run(text, pending, n)
                    text = ""
                else:
                    text = text[pending:]
                yield
        if not started:
            self.not_array = True
        elif not closed:
            self.truncated = True
        return self

    def _take(self, ev: Any) -> bool:
        """An event JSON read; False: the cap is reached (stop reading)."""
        if ev.get("ph") != "X":
            return True
        ts = _trace_number(ev.get("ts"))
        dur = _trace_number(ev["dur"]) if "dur" in ev else 0.0
        if ts is None or dur is None or dur < 0 or math.isinf(array("f", [dur])[0]):
            self.corrupt += 1
            return True
        if len(self.lane) >= MAX_EVENTS:
            self.capped = True
            return False
        pid = _normalized(ev.get("pid"))
        tid = _normalized(ev.get("tid"))
        lane = self.lane_ids.get((pid, tid))
        if lane is None:
            lane = len(self.lane_labels)
            self.lane_ids[(pid, tid)] = lane
            self.lane_labels.append(f"driver · {pid}" if tid.startswith("driver:") else f"{tid[:15]} · {pid}")
        cat = ev.get("cat")
        cat = cat if isinstance(cat, str) else ""
        info = self.cat_info.get(cat)
        if info is None:
            m = _ACTOR.match(cat)
            if m:
                info = (f"{m.group(1)} ({m.group(2)})" if m.group(1) else m.group(2), None)
            else:
                c = _CLASS.match(cat)
                info = (None, c.group(1) if c else None)
            self.cat_info[cat] = info
        if info[0]:
            self.lane_labels[lane] = f"{info[0]} · {pid}"
        elif info[1] and lane not in self.lane_class:
            self.lane_class[lane] = info[1]
        name = ev.get("name")
        label = cat[6:] if cat.startswith("task::") else name if isinstance(name, str) else cat
        name_id = self.name_ids.get(label)
        if name_id is None:
            name_id = len(self.names)
            self.name_ids[label] = name_id
            self.names.append(label)
        self.lane.append(lane)
        self.start.append(ts)
        self.dur.append(dur)
        self.name.append(name_id)
        self.origin = min(self.origin, ts)
        self.end = max(self.end, ts + dur)
        return True

    def lanes(self) -> list[str]:
        return [
            f"{self.lane_class[i]} · {label.split(' · ')[1]}" if label.startswith("worker:") and i in self.lane_class else label
            for i, label in enumerate(self.lane_labels)
        ]

    def problems(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        if self.not_array:
            out.append({"kind": "not-array", "count": 0})
        if self.corrupt:
            out.append({"kind": "corrupt", "count": self.corrupt})
        if self.too_long:
            out.append({"kind": "too-long", "count": self.too_long})
        if self.truncated:
            out.append({"kind": "truncated", "count": self.events})
        if self.capped:
            out.append({"kind": "capped", "count": MAX_EVENTS})
        return out

    def window(self, lo: float | None, hi: float | None, max_events: int) -> dict[str, Any]:
        """The events overlapping [lo, hi] (µs since the first event), in file order; over max_events the longest (a stable sort)."""
        origin = self.origin if math.isfinite(self.origin) else 0.0
        span = self.end - origin if math.isfinite(self.end) else 0.0
        lo = 0 if lo is None else lo
        hi = span if hi is None else hi
        start, dur = self.start, self.dur
        hits = [i for i in range(len(start)) if start[i] - origin <= hi and start[i] - origin + dur[i] >= lo]
        kept = hits if len(hits) <= max_events else sorted(hits, key=lambda i: -dur[i])[:max_events]
        return {
            "from": lo,
            "to": hi,
            "origin": origin,
            "span": span,
            "lanes": self.lanes(),
            "lane": [self.lane[i] for i in kept],
            "start": [js_round_tenth(start[i] - origin) for i in kept],
            "dur": [js_round_tenth(dur[i]) for i in kept],
            "name": [self.name[i] for i in kept],
            "names": self.names,
            "dropped": len(hits) - len(kept),
            "problems": self.problems(),
        }


def timeline_file(mode: str, root_dir: str, root_run: str | None, run: str) -> str | None:
    """Where a run's timeline.json would be: the job dir's (job mode: its root run), or <logdir>/<run>/."""
    if mode == "job":
        name = root_run if root_run is not None else os.path.basename(os.path.normpath(root_dir))
        return os.path.join(root_dir, "monitor", "timeline.json") if run == name else None
    parts = run.split("/")
    if not run or any(p in ("..", "", ".") for p in parts):
        return None
    return os.path.join(root_dir, *parts, "monitor", "timeline.json")


class TimelineCache:
    """One index per file, read again when the file changes (Ray writes it once, at the run's end)."""

    def __init__(self) -> None:
        self.key: tuple[str, int, int] | None = None
        self.index: TimelineIndex | None = None

    def steps(self, path: str) -> Generator[None, None, TimelineIndex | None]:
        try:
            st = os.stat(path)
        except OSError:
            return None
        if not os.path.isfile(path):
            return None
        key = (path, st.st_size, st.st_mtime_ns)
        if key != self.key or self.index is None:
            self.key = None
            self.index = yield from TimelineIndex(path, st.st_size).read()
            self.key = key
        return self.index


def timeline_reply_steps(cache: TimelineCache, mode: str, root_dir: str, root_run: str | None, m: dict[str, Any]) -> Generator[None, None, dict[str, Any]]:
    """The relay's answer to a `timeline` request."""
    request = int(m["request"])
    path = timeline_file(mode, root_dir, root_run, m["run"])
    index = (yield from cache.steps(path)) if path else None
    if index is None:
        return {"type": "timeline", "request": request, "none": True}
    return {"type": "timeline", "request": request, "window": {**index.window(m["from"], m["to"], int(m["maxEvents"])), "bytes": index.bytes}}
