"""One TensorBoard event file as a source: cursor = (file identity, byte offset of the next
record). Reads at most about `budget` bytes per batch, always ending at a record boundary."""

from __future__ import annotations

from typing import Any, Callable

from .fastscan import ChunkDecoder
from .files import FollowedFile
from .points import PointCollector, PointsBatch, points_batch
from .protocol import cursor_dict
from .tfrecord import MAX_RECORD_BYTES

MIN_READ = 64 * 1024
DEFAULT_CHUNK = 4 * 1024 * 1024
# Source bytes per batch of a client's stream: larger than the Node relay's, because the
# vectorised decode (fastscan.py) pays per stretch of records, not per record.
STREAM_BATCH = 4 * 1024 * 1024


class RecordReader:
    """Reads complete records of one event file from an offset into a sink (the relay's reader,
    the envelope pass, a detail read of one region). Never reads at or past `end`."""

    def __init__(self, path: str, offset: int = 0, end: int | None = None, file: FollowedFile | None = None):
        self.file = file or FollowedFile(path, None)
        self.own_file = file is None
        if file is None:
            self.file.open()
            self.file.offset = offset
        self.end = end
        self.decoder = ChunkDecoder()
        self.min_read = MIN_READ
        self.stats = {"records": 0, "crc": 0, "bad_headers": 0, "oversized": 0, "decode": 0, "stretched": 0}

    @property
    def offset(self) -> int:
        return self.file.offset

    def read(self, sink: PointCollector, budget: float) -> tuple[int, bool]:
        """Decodes records from the offset, about `budget` bytes; (bytes consumed, more waiting now)."""
        f = self.file
        if f.fd is None:
            return 0, False
        consumed = 0
        while True:
            if consumed >= budget:
                return consumed, True
            room = (self.end if self.end is not None else float("inf")) - f.offset
            want = int(min(max(self.min_read, min(DEFAULT_CHUNK, budget - consumed)), room))
            if want <= 0:
                return consumed, False
            buf = f.pread(want, f.offset)
            got = len(buf)
            if got == 0:
                return consumed, False
            used = self.decoder.decode(buf, sink, self.stats)
            f.offset += used
            consumed += used
            if used == 0:
                # A record longer than the read: read more once it is all on disk.
                if got == want and want < room and want < MAX_RECORD_BYTES + 16:
                    self.min_read = min(want * 2, MAX_RECORD_BYTES + 16)
                    continue
                return consumed, False
            if got < want:
                return consumed, False

    def close(self) -> None:
        if self.own_file:
            self.file.close()


class TfEventsSource:
    kind = "tfevents"

    def __init__(self, info: dict[str, Any], path: str, log: Callable[[str, str], None]):
        self.info = info
        self.path = path
        self.data_files = [path]
        self.log = log
        self.errors = {"crc": 0, "bad_headers": 0, "oversized": 0, "decode": 0}
        self._warned = False

    def report(self, before: dict[str, int], after: dict[str, int]) -> None:
        d = {k: after[k] - before[k] for k in self.errors}
        if not any(d.values()):
            return
        for k, v in d.items():
            self.errors[k] += v
        over = f", {d['oversized']} record(s) claiming more than the {MAX_RECORD_BYTES >> 20} MiB limit" if d["oversized"] else ""
        msg = (
            f"relay: {self.path}: skipped {d['crc']} record(s) with a CRC mismatch, "
            f"{d['bad_headers']} corrupt header region(s){over}, {d['decode']} undecodable event(s)"
        )
        # Every damage is said once per source; an oversized record every time (data is lost).
        self.log("debug" if self._warned and not d["oversized"] else "warn", msg)
        self._warned = True

    def open(self, cursor: dict[str, Any] | None) -> TfEventsReader:
        return TfEventsReader(self, cursor)


class TfEventsReader:
    def __init__(self, src: TfEventsSource, cursor: dict[str, Any] | None):
        self.src = src
        self.file = FollowedFile(src.path, cursor)
        self.reader: RecordReader | None = None
        self.batch = PointCollector()

    def next(self, budget: int) -> PointsBatch | None:
        f = self.file
        if not f.open():
            return None
        if self.reader is None:
            self.reader = RecordReader(self.src.path, file=f)
        f.check()
        for event in f.events:
            self.src.log("info", f"relay: {self.src.path}: file {event}: reading it again from its start")
        f.events.clear()
        batch = self.batch
        batch.clear()
        budget = max(budget, STREAM_BATCH)
        before = dict(self.reader.stats)
        while True:
            consumed, more = self.reader.read(batch, budget)
            if not more and f.reading_old:
                # The rotated file is read to its end; its successor starts a new identity. The
                # batch so far carries the old fid's cursor: send it first.
                if batch.size:
                    break
                f.finish_old()
                self.reader.decoder = type(self.reader.decoder)()
                continue
            if batch.size > 0 or not more or consumed == 0:
                break
        self.src.report(before, self.reader.stats)
        f.mark()
        out = points_batch(batch, cursor_dict(self.src.info["id"], f.offset, f.fid))
        if not more and not f.reading_old:
            # At the end of the file: give back its descriptor until it grows (thousands of
            # event files times every client must not hold a descriptor each).
            f.rest()
        return out

    def close(self) -> None:
        self.file.close()
