"""Decoding a chunk of an event file: record by record, and — where the records repeat — a
whole stretch at a time with a few C-level operations per *column* instead of Python work per
record (pure Python is ~1 µs an operation; a writer logs tens of tags a step, each a record).

Writers log the same tags every step, so a file is a cycle of record layouts that differ only
in their holes: wall time, step, value and the data CRC. Once two full cycles have been decoded
record by record (tfrecord.py), with each record's holes known, the next K cycles are checked at
once: every byte outside the holes must equal the learned layout (one compare of the stretch
with its holes zeroed), each step varint keeps its length, and each record's data CRC — CRC-32C
is linear, so a record's CRC is its layout's CRC XOR one table lookup per hole byte, done for a
whole column of records with `bytes.translate` and big-integer XOR. Then the holes are read as
columns. A stretch that passes decodes to exactly what record-by-record decoding gives; where
anything differs (a new tag, a longer step, a damaged record) the record-by-record path takes
over from the first record that differs.
"""

from __future__ import annotations

from array import array

from .points import Floats, PointCollector
from .protocol import BIG_ENDIAN
from .tfrecord import BAD_HEADER, CRC_MISMATCH, CRC_TABLE, MASK_DELTA, OK, OVERSIZED, DecodeError, EventDecoder, HeaderCheck, crc32c, scan

MAX_TEMPLATES = 4096
# Bytes of a wall time that vary from record to record: the low 4 of the double (the high 4
# change every ~17 minutes for times near 2^31 s; a change there is a new layout, learned anew).
WALL_HOLE = 4
MAX_CYCLE = 2048
_MSB = bytes(b & 0x80 for b in range(256))
_LOW7 = bytes(b & 0x7F for b in range(256))
_CONTRIB: dict[int, tuple[bytes, bytes, bytes, bytes]] = {}
# The reader's statistic each kind of damage counts in.
_DAMAGE = {CRC_MISMATCH: "crc", BAD_HEADER: "bad_headers", OVERSIZED: "oversized"}


def _rotr15(c: int) -> int:
    return ((c >> 15) | (c << 17)) & 0xFFFFFFFF


def contribution_tables(n_after: int) -> tuple[bytes, bytes, bytes, bytes]:
    """For a byte followed by `n_after` bytes in a record's data: its masked-CRC contribution
    (rotated as the mask rotates) as 4 translate tables, one per byte of the 32-bit value."""
    t = _CONTRIB.get(n_after)
    if t is not None:
        return t
    basis = []
    for bit in range(8):
        c = CRC_TABLE[1 << bit]
        for _ in range(n_after):
            c = CRC_TABLE[c & 0xFF] ^ (c >> 8)
        basis.append(c)
    vals = [0] * 256
    for x in range(1, 256):
        low = x & -x
        vals[x] = vals[x ^ low] ^ basis[low.bit_length() - 1]
    rot = [_rotr15(v) for v in vals]
    t = (bytes(v & 0xFF for v in rot), bytes((v >> 8) & 0xFF for v in rot), bytes((v >> 16) & 0xFF for v in rot), bytes(v >> 24 for v in rot))
    if len(_CONTRIB) > 4096:
        _CONTRIB.clear()
    _CONTRIB[n_after] = t
    return t


class Template:
    """One record layout: its bytes with the holes and the data CRC zeroed, and where the holes are
    (offsets from the record's start)."""

    __slots__ = ("base", "crc_at", "data_len", "holes", "masked", "rec_len", "step", "step_n", "tag", "val", "val_w", "wall")

    def __init__(self, masked: bytes, tag: str, wall: int, step: int, step_n: int, val: int, val_w: int):
        self.masked = masked
        self.rec_len = len(masked)
        self.data_len = self.rec_len - 16
        self.crc_at = 12 + self.data_len
        self.tag = tag
        self.wall, self.step, self.step_n, self.val, self.val_w = wall, step, step_n, val, val_w
        holes = list(range(val, val + val_w))
        if wall >= 0:
            holes += range(wall, wall + WALL_HOLE)
        if step >= 0:
            holes += range(step, step + step_n)
        self.holes = sorted(holes)
        self.base = _rotr15(crc32c(masked, 12, self.crc_at))


def _first_difference(a: bytes, b: bytes) -> int:
    """Index of the first byte where equal-length a and b differ (len(a) if none)."""
    x = int.from_bytes(a, "little") ^ int.from_bytes(b, "little")
    return len(a) if x == 0 else ((x & -x).bit_length() - 1) // 8


class Cycle:
    """Records that repeat in this order: their layouts, offsets within the cycle, its length."""

    def __init__(self, members: list[Template]):
        self.members: list[tuple[Template, int]] = []
        at = 0
        for t in members:
            self.members.append((t, at))
            at += t.rec_len
        self.period = at
        self.masked = b"".join(t.masked for t in members)
        self.zeroed = sorted({off + h for t, off in self.members for h in t.holes} | {off + t.crc_at + k for t, off in self.members for k in range(4)})
        self.step_bytes = [(off + t.step + j, 0x80 if j < t.step_n - 1 else 0) for t, off in self.members if t.step >= 0 for j in range(t.step_n)]


class ChunkDecoder:
    """Decodes the records of one file's chunks in order (one per reader: it remembers plugins)."""

    def __init__(self, vectorised: bool = True) -> None:
        self.events = EventDecoder()
        self.headers = HeaderCheck()
        self.vectorised = vectorised
        self.templates: dict[bytes, Template] = {}
        self.seq: list[Template] = []
        self.last: dict[int, int] = {}
        self.cycle: Cycle | None = None
        # Which member of the cycle the next record is (records decoded one by one between
        # stretches, e.g. the last ones of a chunk, keep the cycle in step with the file).
        self.cycle_pos = 0
        self.epoch = 0

    def decode(self, buf: bytes, sink: PointCollector, stats: dict[str, int]) -> int:
        """Adds the scalars of the complete records in buf to sink; returns the bytes consumed."""
        p, n = 0, len(buf)
        while p < n:
            if self.cycle is not None and self.cycle_pos == 0:
                used, whole = self._block(buf, p, sink, stats)
                p += used
                if not whole:
                    # A record that differs: record by record from it, until a cycle repeats again.
                    self.cycle = None
                    self._forget_sequence()
                elif used:
                    continue
            entries, q = scan(buf, p, n, self.headers, 1 if self.vectorised else 1 << 30)
            if not entries:
                break
            for off, size, status in entries:
                self._record(buf, off, size, status, sink, stats)
            p = q
        return p

    def _record(self, buf: bytes, off: int, size: int, status: int, sink: PointCollector, stats: dict[str, int]) -> None:
        if status != OK:
            stats[_DAMAGE[status]] += 1
            self._forget_sequence()
            self.cycle = None
            return
        stats["records"] += 1
        try:
            self.events.decode(buf, off + 12, off + 12 + size, sink.add)
        except (DecodeError, IndexError, ValueError, OverflowError):
            stats["decode"] += 1
            self._forget_sequence()
            self.cycle = None
            return
        if self.vectorised:
            self._learn(buf, off, size)

    def _forget_sequence(self) -> None:
        self.seq = []
        self.last = {}

    def _learn(self, buf: bytes, off: int, size: int) -> None:
        """Notes the layout of the record just decoded; finds the cycle once it repeats twice."""
        ev = self.events
        if ev.epoch != self.epoch:
            # A tag got its plugin: layouts learned before assumed it had none.
            self.epoch = ev.epoch
            self.templates.clear()
            self._forget_sequence()
        single = ev.single
        step_n = ev.step_end - ev.step_pos
        if single is None or (ev.step_pos >= 0 and not 1 <= step_n <= 4):
            self._forget_sequence()
            self.cycle = None
            return
        tag, at, width = single
        wall = ev.wall_pos - off if ev.wall_pos >= 0 else -1
        step = ev.step_pos - off if ev.step_pos >= 0 else -1
        rec = bytearray(buf[off : off + 16 + size])
        for start, length in ((at - off, width), (wall, WALL_HOLE), (step, step_n), (12 + size, 4)):
            if start >= 0:
                rec[start : start + length] = bytes(length)
        key = bytes(rec)
        t = self.templates.get(key)
        if t is None:
            if len(self.templates) >= MAX_TEMPLATES:
                self.templates.clear()
            t = self.templates[key] = Template(key, tag, wall, step, step_n if step >= 0 else 0, at - off, width)
        cyc = self.cycle
        if cyc is not None:
            if cyc.members[self.cycle_pos][0] is t:
                self.cycle_pos = (self.cycle_pos + 1) % len(cyc.members)
                return
            self.cycle = None
        i = len(self.seq)
        self.seq.append(t)
        j = self.last.get(id(t))
        self.last[id(t)] = i
        if j is None:
            return
        r = i - j
        if r > MAX_CYCLE or i + 1 < 2 * r:
            return
        seq = self.seq
        if all(seq[i - k] is seq[i - r - k] for k in range(r)):
            members = seq[i - r + 1 : i + 1]
            if len({m.tag for m in members}) == r:  # a tag twice a cycle: its points would interleave
                self.cycle = Cycle(members)
                self.cycle_pos = 0
                self._forget_sequence()  # what follows may be decoded a stretch at a time
        if self.cycle is None and len(seq) > 4 * MAX_CYCLE:
            self._forget_sequence()

    def _block(self, buf: bytes, o: int, sink: PointCollector, stats: dict[str, int]) -> tuple[int, bool]:
        """Decodes the longest run of whole cycles from o that match the cycle: (their bytes,
        whether they are all the cycles buf holds from o)."""
        cyc = self.cycle
        assert cyc is not None
        per = cyc.period
        room = k = (len(buf) - o) // per
        if k == 0:
            return 0, True
        block = buf[o : o + k * per]
        masked = bytearray(block)
        zeros = bytes(k)
        for pos in cyc.zeroed:
            masked[pos::per] = zeros
        expected = cyc.masked * k
        if masked != expected:
            k = _first_difference(masked, expected) // per
        for pos, msb in cyc.step_bytes:
            if k == 0:
                return 0, False
            col = block[pos : k * per : per].translate(_MSB)
            want = (b"\x80" if msb else b"\0") * k
            if col != want:
                k = _first_difference(col, want)
        for t, off in cyc.members:
            if k == 0:
                return 0, False
            k = self._crc_ok(block, t, off, per, k)
        if k == 0:
            return 0, False
        steps: dict[bytes, array] = {}  # writers log every tag of a step at that step: one column serves all
        for t, off in cyc.members:
            self._emit(block, t, off, per, k, sink, steps)
        stats["records"] += k * len(cyc.members)
        stats["stretched"] = stats.get("stretched", 0) + k * len(cyc.members)
        return k * per, k == room

    @staticmethod
    def _crc_ok(block: bytes, t: Template, off: int, per: int, k: int) -> int:
        """How many of the first k records of layout t (at `off` in each cycle) have a good data CRC."""
        stop = k * per
        b = t.base
        acc = [int.from_bytes(bytes(((b >> (8 * i)) & 0xFF,)) * k, "little") for i in range(4)]
        last = t.data_len - 1 + 12
        for h in t.holes:
            col = block[off + h : stop : per]
            t0, t1, t2, t3 = contribution_tables(last - h)
            acc[0] ^= int.from_bytes(col.translate(t0), "little")
            acc[1] ^= int.from_bytes(col.translate(t1), "little")
            acc[2] ^= int.from_bytes(col.translate(t2), "little")
            acc[3] ^= int.from_bytes(col.translate(t3), "little")
        mine = bytearray(5 * k)
        stored = bytearray(5 * k)
        for i in range(4):
            mine[i::5] = acc[i].to_bytes(k, "little")
            stored[i::5] = block[off + t.crc_at + i : stop : per]
        delta, mask = _CYCLE_LANES(k)
        got = (int.from_bytes(mine, "little") + delta) & mask
        want = int.from_bytes(stored, "little")
        if got == want:
            return k
        x = got ^ want
        return ((x & -x).bit_length() - 1) // 40

    @staticmethod
    def _emit(block: bytes, t: Template, off: int, per: int, k: int, sink: PointCollector, step_columns: dict[bytes, array]) -> None:
        stop = k * per
        if t.wall >= 0:
            wb = bytearray(t.masked[t.wall : t.wall + 8] * k)  # the high bytes are the layout's
            for j in range(WALL_HOLE):
                wb[j::8] = block[off + t.wall + j : stop : per]
            walls = _column_floats("d", wb)
        else:
            walls = array("d", bytes(8 * k))
        vb = bytearray(t.val_w * k)
        for j in range(t.val_w):
            vb[j :: t.val_w] = block[off + t.val + j : stop : per]
        values = _column_floats("f" if t.val_w == 4 else "d", vb)
        raw = [block[off + t.step + j : stop : per] for j in range(t.step_n)] if t.step >= 0 else []
        key = b"".join(raw)
        steps = step_columns.get(key)
        if steps is None:
            steps = step_columns[key] = _steps(raw, k)
        sink.extend(t.tag, steps, walls, values)


def _steps(raw: list[bytes], k: int) -> array:
    """The float64 steps of k records from the columns of their step varints' bytes."""
    if not raw:
        return array("d", bytes(8 * k))
    if len(raw) == 1:
        return array("d", array("B", raw[0]).tolist())
    sb = bytearray(4 * k)
    for j, col in enumerate(raw):
        sb[j::4] = col.translate(_LOW7)
    lanes = int.from_bytes(sb, "little")
    merged = 0
    for j in range(len(raw)):
        merged |= (lanes & _low7_mask(j, k)) >> j
    return _column_ints(merged.to_bytes(4 * k, "little"))


_MASKS: dict[tuple[int, int], int] = {}


def _low7_mask(j: int, k: int) -> int:
    """0x7f at byte j of every 4-byte lane of k lanes."""
    m = _MASKS.get((j, k))
    if m is None:
        if len(_MASKS) > 64:
            _MASKS.clear()
        lane = bytearray(4)
        lane[j] = 0x7F
        m = _MASKS[(j, k)] = int.from_bytes(bytes(lane) * k, "little")
    return m


_LANES: dict[int, tuple[int, int]] = {}


def _CYCLE_LANES(k: int) -> tuple[int, int]:
    got = _LANES.get(k)
    if got is None:
        if len(_LANES) > 16:
            _LANES.clear()
        got = _LANES[k] = (int.from_bytes(MASK_DELTA.to_bytes(5, "little") * k, "little"), int.from_bytes(b"\xff\xff\xff\xff\0" * k, "little"))
    return got


def _column_floats(code: str, raw: bytearray) -> Floats:
    """Little-endian float32 or float64 values as float64 values: an array, or for float32 the
    list of floats its widening makes anyway (sinks take either; the envelope folds lists)."""
    a = array(code)
    a.frombytes(raw)
    if BIG_ENDIAN:
        a.byteswap()
    return a if code == "d" else a.tolist()


def _column_ints(raw: bytes) -> array:
    """Little-endian uint32 values as float64 columns."""
    a = array("I")
    if a.itemsize != 4:
        a = array("L", [0]) * 0
        a.frombytes(b"".join(raw[i : i + 4] + b"\0\0\0\0" for i in range(0, len(raw), 4)))
    else:
        a.frombytes(raw)
    if BIG_ENDIAN:
        a.byteswap()
    return array("d", a.tolist())
