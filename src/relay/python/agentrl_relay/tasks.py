"""The tasks tables of the relay's experience sources (task-cache.ts, and the fold of the library
`src/tasks/task-table.ts`): each source's rows folded once into a table of tasks × model versions
by a reader of its own, kept at the end of what it read; a later ask folds only the rows that came
or changed since (an `updated` row takes back what its first delivery added), then the table goes
out as its wire form (`src/relay-protocol/tasks.ts`): a few thousand cells, never the rows.
"""

from __future__ import annotations

import asyncio
import math
import time
from typing import Any

from .protocol import wire_number

TASK_FOLD_BYTES = 4 * 1024 * 1024
TASK_SLICE_S = 0.02
_TASK_SKIPS = ("noTask", "noVersion", "noReward")
SAME_SLOTS = 32
SAME_TASKS = 64
SAME_EXAMPLES = 3


def _task_number(v: Any) -> float:
    if isinstance(v, str):
        return {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}.get(v, math.nan)
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return math.nan
    return v


def _task_finite(v: float) -> bool:
    return not (math.isnan(v) or math.isinf(v))


def _task_key(r: dict[str, Any]) -> tuple[str, bool] | None:
    ti = r.get("task_index")
    if ti is not None:
        ts = r.get("taskset_id")
        return (f"{ts}/{ti}" if ts else str(ti)), True
    tid = r.get("task_id")
    if tid is not None and tid != "":
        return f"eid {tid}", False
    return None


class _TaskCell:
    __slots__ = ("ex", "len_n", "len_sum", "max", "n", "parts", "sum")

    def __init__(self) -> None:
        self.n = 0
        self.sum: float = 0
        self.max = -math.inf
        self.len_n = 0
        self.len_sum: float = 0
        self.parts: dict[str, list[float]] = {}
        self.ex: list[float] | None = None  # best, bestReward, worst, worstReward, longest, longestLen


class TaskTable:
    """Rows folded into cells of task × model version (TaskTable of task-table.ts)."""

    def __init__(self) -> None:
        self.cells: dict[tuple[str, int], _TaskCell] = {}
        self.skipped = {k: 0 for k in _TASK_SKIPS}
        self.out_of_order = 0
        self.rows = 0
        self.lo = math.inf
        self.hi = -math.inf
        self.stable = 0
        self.unstable = 0
        self._highest = -math.inf
        self._ledger: dict[int, Any] = {}
        # per model version: response_hash -> [rows, tasks (a dict used as an ordered set), examples]
        self.same: dict[int, dict[str, list[Any]]] = {}
        self.hashed = 0

    def add(self, rows: list[dict[str, Any]]) -> None:
        for r in rows:
            rid = r["id"]
            before = self._ledger.get(rid)
            if isinstance(before, str):
                self.skipped[before] -= 1
            elif before is not None:
                self._apply(*before, sign=-1)
            if before is None:
                self.rows += 1
            p = self._place(r)
            if isinstance(p, str):
                self.skipped[p] += 1
                self._ledger[rid] = p
                continue
            if before is None:
                if p[1] < self._highest:
                    self.out_of_order += 1
                else:
                    self._highest = p[1]
            self._apply(*p, sign=1)
            self._ledger[rid] = p
            self._example(rid, p)
            h = r.get("response_hash")
            if before is None and h is not None:
                self._same_response(rid, p, h)

    def _same_response(self, rid: int, p: tuple, h: str) -> None:
        """The Space-Saving sketch of the responses most rows gave per version (TaskTable.sameResponse)."""
        self.hashed += 1
        m = self.same.get(p[1])
        if m is None:
            m = self.same[p[1]] = {}
        e = m.get(h)
        if e is not None:
            e[0] += 1
            if p[0] not in e[1] and len(e[1]) < SAME_TASKS:
                e[1][p[0]] = True
                if len(e[2]) < SAME_EXAMPLES:
                    e[2].append(rid)
            return
        rows = 1
        if len(m) >= SAME_SLOTS:
            min_key = ""
            least = math.inf
            for k, x in m.items():
                if x[0] < least:
                    least = x[0]
                    min_key = k
            del m[min_key]
            rows = least + 1
        m[h] = [rows, {p[0]: True}, [rid]]

    def _place(self, r: dict[str, Any]) -> Any:
        t = _task_key(r)
        if t is None:
            return "noTask"
        version = r.get("model_version")
        if version is None:
            return "noVersion"
        reward = math.nan if r.get("reward") is None else _task_number(r["reward"])
        if not _task_finite(reward):
            return "noReward"
        if t[1]:
            self.stable += 1
        else:
            self.unstable += 1
        metrics = r.get("metrics")
        parts = tuple((k, v) for k, v in ((k, _task_number(v)) for k, v in metrics.items()) if _task_finite(v)) if metrics is not None else ()
        return (t[0], version, reward, r.get("response_tokens"), parts)

    def _apply(self, key: str, version: int, reward: float, length: Any, parts: tuple, sign: int) -> None:
        c = self.cells.get((key, version))
        if c is None:
            c = self.cells[(key, version)] = _TaskCell()
        c.n += sign
        c.sum += sign * reward
        if sign > 0:
            c.max = max(c.max, reward)
        if length is not None:
            c.len_n += sign
            c.len_sum += sign * length
        for k, v in parts:
            s = c.parts.get(k)
            if s is None:
                s = c.parts[k] = [0, 0]
            s[0] += sign
            s[1] += sign * v
        if sign > 0:
            self.lo = min(self.lo, reward)
            self.hi = max(self.hi, reward)

    def _example(self, rid: int, p: tuple) -> None:
        c = self.cells[(p[0], p[1])]
        reward = p[2]
        length = -1 if p[3] is None else p[3]
        e = c.ex
        if e is None:
            c.ex = [rid, reward, rid, reward, rid, length]
            return
        if reward > e[1]:
            e[0], e[1] = rid, reward
        if reward < e[3]:
            e[2], e[3] = rid, reward
        if length > e[5]:
            e[4], e[5] = rid, length

    def wire(self) -> dict[str, Any]:
        cells = []
        for (key, version), c in self.cells.items():
            if c.n <= 0 or c.ex is None:
                continue
            e = c.ex
            cells.append(
                {
                    "task": key,
                    "version": version,
                    "n": c.n,
                    "sum": c.sum,
                    "max": c.max,
                    "lenN": c.len_n,
                    "lenSum": c.len_sum,
                    "parts": {k: [s[0], s[1]] for k, s in c.parts.items() if s[0] > 0},
                    "best": e[0],
                    "bestReward": e[1],
                    "worst": e[2],
                    "worstReward": e[3],
                    "longest": e[4],
                    "longestLen": e[5],
                }
            )
        s = self.skipped
        return {
            "rows": self.rows,
            "stable": self.stable,
            "unstable": self.unstable,
            "lo": wire_number(self.lo),
            "hi": wire_number(self.hi),
            "notes": {"noTask": s["noTask"], "noVersion": s["noVersion"], "noReward": s["noReward"], "versionsOutOfOrder": self.out_of_order},
            "cells": cells,
            "hashed": self.hashed,
            "same": [
                {"version": v, "hash": h, "rows": e[0], "tasks": len(e[1]), "examples": list(e[2])}
                for v, m in self.same.items()
                for h, e in m.items()
                if len(e[1]) >= 2
            ],
        }


class TaskCache:
    """One table per experience source, shared by every client; folds are one at a time per source."""

    def __init__(self) -> None:
        self._entries: dict[str, tuple[Any, TaskTable, asyncio.Lock]] = {}
        self.closed = False

    async def table(self, src: Any) -> dict[str, Any]:
        info = src.info
        if info["kind"] not in ("sql", "jsonl"):
            raise RuntimeError(f"'{info['id'][:200]}' is not an experience source")
        if self.closed:
            raise RuntimeError("the relay is shutting down")
        e = self._entries.get(info["id"])
        if e is None:
            e = self._entries[info["id"]] = (src.open(None), TaskTable(), asyncio.Lock())
        reader, table, lock = e
        async with lock:
            last = time.monotonic()
            while not self.closed:
                batch = reader.next(TASK_FOLD_BYTES)
                if batch is None:
                    break
                rows = getattr(batch, "rows", None)
                if rows is not None:
                    table.add(rows)
                if time.monotonic() - last >= TASK_SLICE_S:
                    await asyncio.sleep(0)
                    last = time.monotonic()
        if self.closed:
            raise RuntimeError("the relay is shutting down")
        return table.wire()

    def close(self) -> None:
        self.closed = True
        for reader, _, _ in self._entries.values():
            reader.close()
        self._entries.clear()
