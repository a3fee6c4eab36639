"""Serve mode: the explorer writes its URL to `<job_dir>/<explorer>_server_url.txt`; its
`GET /metrics` returns a flat JSON object of counters. The relay polls it and streams each
changed sample as points at step = `explore_step_num`. Samples persist like every other
series, one JSON line each in `<job_dir>/monitor/agentrl/<explorer>_metrics.jsonl` (cursor =
byte offset, fid = that file's identity). One relay polls per file (a lock file with its pid,
shared with the Node relay); others only read. Where the job dir is not writable, samples stay
in a ring of this process (cursor fid = the relay instance)."""

from __future__ import annotations

import asyncio
import json
import math
import os
import random
import re
import time
import urllib.error
import urllib.request
from typing import Any, Callable

from .points import PointCollector, PointsBatch, points_batch
from .protocol import cursor_dict, is_number, js_entries, parse_json, to_float
from .textsources import LineFile

RING = 1000
READ_BYTES = 256 * 1024
_HELD_HERE: set = set()


def samples_file(url_file: str) -> str:
    role = re.sub(r"_server_url\.txt$", "", os.path.basename(url_file))
    return os.path.join(os.path.dirname(url_file), "monitor", "agentrl", f"{role}_metrics.jsonl")


def explorer_url_in(path: str) -> str | None:
    """The explorer URL in `<explorer>_server_url.txt`, if it is one yet."""
    try:
        with open(path, "r", encoding="utf-8", errors="replace") as f:
            words = f.read(4096).strip().split()
    except OSError:
        return None
    text = words[0] if words else ""
    return text.rstrip("/") if re.match(r"^https?://\S+\Z", text) else None


def get_json(url: str, timeout: float) -> Any:
    """GETs a small JSON document (≤ 1 MiB)."""
    req = urllib.request.Request(url, headers={"Accept": "application/json"})
    with urllib.request.urlopen(req, timeout=timeout) as res:
        if res.status != 200:
            raise RuntimeError(f"HTTP {res.status}")
        body = res.read(1024 * 1024 + 1)
    if len(body) > 1024 * 1024:
        raise RuntimeError("response too large")
    return parse_json(body.decode("utf-8", "replace"))


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except PermissionError:
        return True
    except OSError:
        return False


def take_lock(lock: str) -> str | None:
    """Takes `<file>.lock` (replacing a dead holder's); its contents when taken, None when another relay polls."""
    mine = f"{os.getpid()} {random.getrandbits(48):x}"
    for _ in range(2):
        try:
            fd = os.open(lock, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError:
            try:
                with open(lock, "r", encoding="utf-8", errors="replace") as f:
                    held = f.read(256).strip()
            except OSError:
                held = ""
            first = held.split(" ")[0]
            pid = int(first) if first.isdigit() else 0
            alive = held in _HELD_HERE if pid == os.getpid() else pid > 0 and _pid_alive(pid)
            if alive:
                return None
            try:
                os.unlink(lock)
            except OSError:
                pass
            continue
        with os.fdopen(fd, "w") as f:
            f.write(mine)
        _HELD_HERE.add(mine)
        return mine
    return None


def _last_line_key(path: str) -> str:
    """The dedupe key of the file's last sample, so a restarted relay does not repeat it."""
    try:
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            n = min(size, 64 * 1024)
            if n == 0:
                return ""
            f.seek(size - n)
            text = f.read(n).decode("utf-8", "replace")
        o = parse_json(text.rstrip().split("\n")[-1])
        vals = o.get("values") if isinstance(o, dict) else None
        return _sample_key([(k, v) for k, v in js_entries(vals if isinstance(vals, dict) else {}) if is_number(v)])
    except (OSError, ValueError, RecursionError, AttributeError):
        return ""


def _sample_key(values: list[tuple[str, Any]]) -> str:
    return json.dumps([[k, to_float(v)] for k, v in values], separators=(",", ":"))


def _read_url(url_file: str) -> str:
    with open(url_file, "r", encoding="utf-8", errors="replace") as f:
        url = f.read(4096).strip().rstrip("/")
    if not re.match(r"^https?://", url):
        raise ValueError(f"not an http(s) URL: {url[:80]}")
    return url


def _append_line(path: str, line: str) -> None:
    with open(path, "a", encoding="utf-8") as f:
        f.write(line + "\n")


def _finite_or_none(v: float) -> float | None:
    return v if math.isfinite(v) else None


class ServeMetricsSource:
    kind = "serve"

    def __init__(self, info: dict[str, Any], url_file: str, instance: str, poll_s: float, on_change: Callable[[], None], log: Callable[[str, str], None]):
        self.info = info
        self.data_files: list[str] = []
        self.url_file = url_file
        self.instance = instance
        self.poll_s = poll_s
        self.on_change = on_change
        self.log = log
        self.samples: list[tuple[int, float, float, list[tuple[str, float]]]] = []
        self.seq = 0
        self.last_key = ""
        self.failing = False
        self.file: str | None = None
        self.lock: tuple[str, str] | None = None
        self.polls = True
        self.task: asyncio.Task | None = None
        path = samples_file(url_file)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644))
            mine = take_lock(f"{path}.lock")
            self.polls = mine is not None
            if mine:
                self.lock = (f"{path}.lock", mine)
            self.file = path
            self.last_key = _last_line_key(path)
        except OSError as e:
            self.log("warn", f"serve: cannot keep samples in {path} ({e.strerror or e}); they live in this relay only")
        if not self.polls:
            self.log("info", f"serve: another relay polls {info['role']}; reading its samples from {path}")

    def start(self) -> None:
        if self.polls and self.task is None:
            self.task = asyncio.ensure_future(self._run())

    async def _run(self) -> None:
        while True:
            await self.poll()
            await asyncio.sleep(self.poll_s)

    def _fail(self, message: str) -> None:
        if not self.failing:
            self.log("warn", message)
        self.failing = True

    async def poll(self) -> None:
        try:
            url = _read_url(self.url_file)
        except (OSError, ValueError) as e:
            return self._fail(f"serve: {self.url_file}: {e}")
        loop = asyncio.get_event_loop()
        try:
            body = await loop.run_in_executor(None, get_json, f"{url}/metrics", max(1.0, self.poll_s))
        except (OSError, ValueError, RuntimeError, urllib.error.URLError) as e:
            return self._fail(f"serve: {url}/metrics: {getattr(e, 'reason', None) or e}")
        if self.failing:
            self.log("info", f"serve: {url}/metrics answers again")
        self.failing = False
        if not isinstance(body, dict):
            return
        values = [(k, v) for k, v in js_entries(body) if is_number(v)]
        key = _sample_key(values)
        if key == self.last_key or self.task is None:
            return
        self.last_key = key
        step = body.get("explore_step_num", 0)
        step = int(step) if is_number(step) and float(step).is_integer() and abs(step) <= 2**53 - 1 else 0
        wall = time.time()
        self.seq += 1
        if self.file:
            line = {"step": step, "wall_time": wall, "values": {k: _finite_or_none(to_float(v)) for k, v in values}}
            try:
                _append_line(self.file, json.dumps(line, separators=(",", ":")))
            except OSError as e:
                return self._fail(f"serve: cannot append to {self.file}: {e.strerror or e}")
        else:
            self.samples.append((self.seq, wall, float(step), [(k, to_float(v)) for k, v in values]))
            del self.samples[:-RING]
        self.on_change()

    def open(self, cursor: dict[str, Any] | None):
        return ServeFileReader(self, self.file, cursor) if self.file else ServeRingReader(self, cursor)

    def close(self) -> None:
        if self.task:
            self.task.cancel()
        self.task = None
        if self.lock:
            lock, mine = self.lock
            _HELD_HERE.discard(mine)
            try:
                with open(lock, "r", encoding="utf-8") as f:
                    if f.read(256).strip() == mine:
                        os.unlink(lock)
            except OSError:
                pass
        self.lock = None


class ServeFileReader:
    def __init__(self, src: ServeMetricsSource, path: str, cursor: dict[str, Any] | None):
        self.src = src
        self.lines = LineFile(path, cursor, src.log, max_line=READ_BYTES, report=None)

    def next(self, budget: int) -> PointsBatch | None:
        got = self.lines.lines(READ_BYTES)
        if got is None:
            return None
        batch = PointCollector()
        for _, raw in got:
            _add_line(batch, raw)
        f = self.lines.file
        cursor = cursor_dict(self.src.info["id"], f.offset, f.fid)
        return points_batch(batch, cursor) or PointsBatch([], cursor)

    def close(self) -> None:
        self.lines.close()


def _add_line(batch: PointCollector, raw: bytes) -> None:
    """One sample line into points (a torn or foreign line is skipped)."""
    if not raw:
        return
    try:
        o = parse_json(raw.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return
    if not isinstance(o, dict):
        return
    step, wall, vals = o.get("step"), o.get("wall_time"), o.get("values")
    if not (is_number(step) and is_number(wall) and isinstance(vals, (dict, list))):
        return
    entries = js_entries(vals) if isinstance(vals, dict) else [(str(i), v) for i, v in enumerate(vals)]
    for k, v in entries:
        if is_number(v):
            batch.add(k, to_float(step), to_float(wall), to_float(v))


class ServeRingReader:
    def __init__(self, src: ServeMetricsSource, cursor: dict[str, Any] | None):
        self.src = src
        self.after = cursor["offset"] if cursor and cursor.get("fid") == src.instance else 0

    def next(self, budget: int) -> PointsBatch | None:
        fresh = [s for s in self.src.samples if s[0] > self.after]
        if not fresh:
            return None
        batch = PointCollector()
        for _, wall, step, values in fresh:
            for k, v in values:
                batch.add(k, step, wall, v)
        self.after = fresh[-1][0]
        return points_batch(batch, cursor_dict(self.src.info["id"], self.after, self.src.instance)) or PointsBatch(
            [], cursor_dict(self.src.info["id"], self.after, self.src.instance)
        )

    def close(self) -> None:
        pass
