"""Decoding a chunk of an event file: the records scan.py frames, each Event decoded.

(The vectorised path for records that repeat a learned layout lives here too; it yields
exactly what the record-by-record path yields.)
"""

from __future__ import annotations

from .points import PointCollector
from .tfrecord import BAD_HEADER, CRC_MISMATCH, DecodeError, EventDecoder, HeaderCheck, scan


class ChunkDecoder:
    """Decodes the records of one file's chunks in order (one per reader: it remembers plugins)."""

    def __init__(self) -> None:
        self.events = EventDecoder()
        self.headers = HeaderCheck()

    def decode(self, buf: bytes, sink: PointCollector, stats: dict[str, int]) -> int:
        """Adds the scalars of the complete records in buf to sink; returns the bytes consumed."""
        entries, used = scan(buf, 0, len(buf), self.headers)
        add = sink.add
        decode = self.events.decode
        for off, n, status in entries:
            if status == BAD_HEADER:
                stats["bad_headers"] += 1
                continue
            if status == CRC_MISMATCH:
                stats["crc"] += 1
                continue
            stats["records"] += 1
            try:
                decode(buf, off + 12, off + 12 + n, add)
            except (DecodeError, IndexError, ValueError, OverflowError):
                stats["decode"] += 1
        return used
