"""Line-based sources: a Trinity actor log's `Step N: {...}` lines as points, and the queue
buffer's `.jsonl` backup (Experience.to_dict() per line) as experience rows. Cursor = (file
identity, byte offset just after the last complete line read). A log line longer than
MAX_LOG_LINE, or a `.jsonl` row longer than JSONL_READ, is skipped and reported, never a reason
to stop reading (a row is still read whole on request, up to MAX_ROW)."""

from __future__ import annotations

import math
import os
import time
from typing import Any, Callable

from .files import FollowedFile, open_regular
from .pickles import numeric_metrics_of
from .points import ExperiencesBatch, PointCollector, PointsBatch, points_batch
from .protocol import cursor_dict, is_number, js_string, parse_json, to_float, wire_number
from .steplog import load_shared_step_bindings, parse_step_line, shared_run_series
from .tokens import line_tokens
from .trxp import response_hash, task_index_of

# A Step line is a dict of metrics: a few KiB.
MAX_LOG_LINE = 4 * 1024 * 1024
JSONL_READ = 1024 * 1024
MAX_ROW = 16 * 1024 * 1024

Log = Callable[[str, str], None]


class LineFile:
    """Complete lines of a followed file, read from its cursor; long lines skipped."""

    def __init__(
        self,
        path: str,
        cursor: dict[str, Any] | None,
        log: Log,
        max_line: int = MAX_LOG_LINE,
        report: str | None = "skipped 1 line(s) longer than {max} bytes (at byte {at})",
    ):
        self.file = FollowedFile(path, cursor)
        self.path = path
        self.log = log
        self.max_line = max_line
        self.report = report
        self.skipping = False

    def lines(self, size: int) -> list[tuple] | None:
        """(offset, bytes) of the complete lines of the next read (≤ size bytes); None when nothing new.
        A line longer than max_line is skipped, reported as `report` says ({max}, {at}) unless None."""
        f = self.file
        if not f.open():
            return None
        f.check()
        for event in f.events:
            self.log("info", f"relay: {self.path}: file {event}: reading it again from its start")
        f.events.clear()
        while True:
            buf = f.pread(size, f.offset)
            if not buf:
                if f.reading_old:
                    f.finish_old()
                    continue
                return None
            if self.skipping:
                nl = buf.find(b"\n")
                f.offset += len(buf) if nl < 0 else nl + 1
                # The bytes before the new offset are the skipped line's: remembered, or the next
                # check takes the moved offset for a rewrite and reads the file again from 0.
                f.mark()
                self.skipping = nl < 0
                continue
            last = buf.rfind(b"\n")
            if last < 0:
                if len(buf) < size:
                    if f.reading_old:
                        f.finish_old()  # a rotated file's unterminated last line ends there
                        continue
                    return None  # a line still being written
                if size < self.max_line:
                    size = min(size * 2, self.max_line)
                    continue
                if self.report:
                    self.log("warn", f"relay: {self.path}: " + self.report.format(max=self.max_line, at=f.offset))
                self.skipping = True
                f.offset += len(buf)
                f.mark()
                continue
            out = []
            start = 0
            base = f.offset
            while start <= last:
                nl = buf.index(b"\n", start, last + 1)
                out.append((base + start, buf[start:nl]))
                start = nl + 1
            f.offset = base + last + 1
            f.mark()
            return out

    def close(self) -> None:
        self.file.close()


class StepLogSource:
    kind = "log"

    def __init__(self, info: dict[str, Any], path: str, log: Log):
        self.info = info
        self.path = path
        self.data_files = [path]
        self.log = log

    def open(self, cursor: dict[str, Any] | None) -> StepLogReader:
        return StepLogReader(self, cursor)


class StepLogReader:
    def __init__(self, src: StepLogSource, cursor: dict[str, Any] | None):
        self.src = src
        self.lines = LineFile(src.path, cursor, src.log)
        self.bindings: dict[str, str] | None = None
        self.year = time.localtime().tm_year

    def next(self, budget: int) -> PointsBatch | None:
        if self.bindings is None and self.lines.file.open():
            try:
                self.year = time.localtime(os.fstat(self.lines.file.fd).st_mtime).tm_year  # type: ignore[arg-type]
            except OSError:
                pass
            # <job_dir>/log/<role>.log next to <job_dir>/monitor/shared_step_bindings/
            self.bindings = load_shared_step_bindings(os.path.join(os.path.dirname(os.path.dirname(self.src.path)), "monitor"))
        batch = PointCollector()
        size = min(max(budget, 64 * 1024), 8 * 1024 * 1024)
        while True:
            got = self.lines.lines(size)
            if got is None:
                break
            for _, raw in got:
                if b"Step " not in raw:
                    continue
                parsed = parse_step_line(raw.decode("utf-8", "replace"), self.year)
                if parsed is None:
                    continue
                step, wall, values = parsed
                if wall is None:
                    wall = time.time()
                for k, v in values:
                    tag = self.tag_of(k)
                    if tag is not None:
                        batch.add(tag, step, wall, v)
            if batch.size:
                break
        f = self.lines.file
        return points_batch(batch, cursor_dict(self.src.info["id"], f.offset, f.fid))

    def tag_of(self, key: str) -> str | None:
        """A shared-run key of this role loses its prefix; a step axis is no series."""
        if "/" not in key:
            return key
        role = self.src.info["role"]
        s = shared_run_series(key, role, self.bindings)
        if s is None:
            return None
        return s[1] if s[0] == role else key

    def close(self) -> None:
        self.lines.close()


# ---- the queue buffer's .jsonl backup ------------------------------------------------------


def _safe_int(v: Any) -> int | None:
    if is_number(v) and math.isfinite(v) and abs(v) <= 2**53 - 1 and float(v).is_integer():
        return int(v)
    return None


def row_of_line(line: bytes, row_id: int, table: str) -> dict[str, Any] | None:
    """One line of Experience.to_dict() as a row (None when it is not one)."""
    try:
        o = parse_json(line.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return None
    if not isinstance(o, dict) or not isinstance(o.get("eid"), (dict, list)):
        return None
    e = o["eid"] if isinstance(o["eid"], dict) else {}
    info = o.get("info")
    version = _safe_int(info.get("model_version")) if isinstance(info, dict) else None
    reward = o.get("reward")
    row: dict[str, Any] = {
        "id": row_id,
        "table": table,
        # As Trinity's SQL buffer stores it (ExperienceModel.from_experience: str(eid.task)).
        "task_id": None if e.get("task") is None else js_string(e["task"]),
        "run_id": _safe_int(e.get("run")),
        "model_version": version if version is not None else _safe_int(e.get("step")),
        "reward": wire_number(to_float(reward)) if is_number(reward) else None,
        "timestamp": None,
        "msg_id": None if e.get("suffix") is None else js_string(e["suffix"]),
    }
    metrics = numeric_metrics_of(o.get("metrics"))
    if metrics:
        row["metrics"] = metrics
    row.update(task_index_of(info))
    text = o.get("response_text")
    if isinstance(text, str) and text.strip() != "":
        row["response_hash"] = response_hash(text)
    return row


class JsonlExperienceSource:
    kind = "jsonl"

    def __init__(self, info: dict[str, Any], path: str, log: Log):
        self.info = info
        self.path = path
        self.table = info["role"]
        self.data_files = [path]
        self.log = log

    def read_detail(self, row_id: int) -> dict[str, Any]:
        return self._line(row_id)

    def read_tokens(self, row_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """A line keeps no token ids (Experience.to_dict): its texts, for the editor to re-tokenize."""
        return line_tokens(self._line(row_id)), {}

    def _line(self, row_id: int) -> dict[str, Any]:
        """The JSON object of the line at row `row_id` (its offset + 1), read within MAX_LINE."""
        if row_id < 1:
            raise RuntimeError(f"{self.info['path']}: no row {row_id}")
        offset = row_id - 1
        try:
            fd = open_regular(self.path)
        except OSError as e:
            raise RuntimeError(f"{self.info['path']}: row {row_id}: {e.strerror or e}") from None
        try:
            # A row id is a line's offset + 1: one that points into a line is no row (not parsed mid-line).
            if offset > 0 and os.pread(fd, 1, offset - 1) != b"\n":
                raise RuntimeError(f"{self.info['path']}: row {row_id}: not the start of a line")
            chunks = []
            pos = offset
            while True:
                b = os.pread(fd, 64 * 1024, pos)
                if not b:
                    break
                nl = b.find(b"\n")
                chunks.append(b if nl < 0 else b[:nl])
                if nl >= 0:
                    break
                pos += len(b)
                if pos - offset > MAX_ROW:
                    raise RuntimeError(f"{self.info['path']}: row {row_id}: row {row_id} is longer than {MAX_ROW} bytes")
            try:
                o = parse_json(b"".join(chunks).decode("utf-8", "replace"))
            except (ValueError, RecursionError) as e:
                raise RuntimeError(f"{self.info['path']}: row {row_id}: {e}") from None
            if not isinstance(o, dict):
                raise RuntimeError(f"{self.info['path']}: row {row_id}: no experience at {row_id}")  # noqa: TRY004 (bad data, not a bad call)
            return o
        finally:
            os.close(fd)

    def open(self, cursor: dict[str, Any] | None) -> JsonlReader:
        return JsonlReader(self, cursor)


class JsonlReader:
    def __init__(self, src: JsonlExperienceSource, cursor: dict[str, Any] | None):
        self.src = src
        # A longer line (a huge multimodal experience) is left out of the list, read only on request.
        self.lines = LineFile(src.path, cursor, src.log, max_line=JSONL_READ, report="1 line(s) longer than {max} bytes not listed (at byte {at})")

    def next(self, budget: int) -> ExperiencesBatch | None:
        got = self.lines.lines(JSONL_READ)
        if got is None:
            return None
        rows = []
        for off, raw in got:
            row = row_of_line(raw, off + 1, self.src.table)
            if row is not None:
                rows.append(row)
        f = self.lines.file
        return ExperiencesBatch(rows, cursor_dict(self.src.info["id"], f.offset, f.fid))

    def close(self) -> None:
        self.lines.close()
