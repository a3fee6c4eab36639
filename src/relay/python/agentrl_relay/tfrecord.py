"""TensorBoard event files: TFRecord framing with masked CRC-32C, and the scalars of the
serialized tensorboard.Event records (Event -> Summary -> Value, simple_value or a one-element
numeric tensor), read at the wire level.

The rules are the Node relay's (src/tfrecord): a record with a CRC mismatch is skipped
and counted, and the scan goes on at the next valid header after its start (a torn record's
length is not trusted); a corrupt header is skipped up to the next valid one, and so is a valid
header claiming more than MAX_RECORD_BYTES (counted apart); a partial record at the end waits
for the writer; a tensor of a tag whose first metadata names another plugin than
`scalars` is not a scalar. Records that repeat a learned layout take the vectorised path of
fastscan.py, which yields exactly what this module would.
"""

from __future__ import annotations

import struct
from typing import Callable

# Largest record read (a scalar event is ~100 bytes, an image a few MB): a header claiming more is
# skipped and reported, never waited for, so memory and progress stay bounded.
MAX_RECORD_BYTES = 16 * 1024 * 1024
MASK_DELTA = 0xA282EAD8

OK, CRC_MISMATCH, BAD_HEADER, OVERSIZED = 0, 1, 2, 3


def _table() -> list[int]:
    out = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        out.append(c)
    return out


CRC_TABLE = _table()


def crc32c(data: bytes, start: int = 0, end: int | None = None) -> int:
    """CRC-32C (Castagnoli) of data[start:end]."""
    t = CRC_TABLE
    c = 0xFFFFFFFF
    for b in data[start:end] if (start or end is not None) else data:
        c = t[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def mask_crc(c: int) -> int:
    return ((((c >> 15) | (c << 17)) & 0xFFFFFFFF) + MASK_DELTA) & 0xFFFFFFFF


def unmask_crc(m: int) -> int:
    r = (m - MASK_DELTA) & 0xFFFFFFFF
    return ((r << 15) | (r >> 17)) & 0xFFFFFFFF


def frame_record(data: bytes) -> bytes:
    """One framed record (for tests and writers)."""
    head = struct.pack("<Q", len(data))
    return head + struct.pack("<I", mask_crc(crc32c(head))) + data + struct.pack("<I", mask_crc(crc32c(data)))


_U32 = struct.Struct("<I")
_HEAD = struct.Struct("<III")


class HeaderCheck:
    """Valid TFRecord headers; the masked CRC of each length is memoised (records repeat lengths)."""

    def __init__(self) -> None:
        self._memo: dict[int, int] = {}

    def ok(self, buf, p: int) -> bool:
        lo, hi, stored = _HEAD.unpack_from(buf, p)
        if hi or lo > MAX_RECORD_BYTES:
            return False
        m = self._memo.get(lo)
        if m is None:
            m = mask_crc(crc32c(bytes(buf[p : p + 8])))
            if len(self._memo) > 4096:
                self._memo.clear()
            self._memo[lo] = m
        return m == stored


def scan(buf, start: int, end: int, headers: HeaderCheck, max_records: int = 1 << 30) -> tuple[list[tuple[int, int, int]], int]:
    """The records of buf[start:end]: (offset, length, status) each, and where the next scan
    starts. OK: data at offset+12, `length` bytes. The other statuses skip `length` bytes up to
    the next valid header: BAD_HEADER (length CRC mismatch), OVERSIZED (a valid header claiming
    more than MAX_RECORD_BYTES), CRC_MISMATCH (the data CRC fails: a record torn mid-write, then
    others appended, so the next valid header after its start is where the scan goes on).
    Stops at a partial record, or where too few bytes are left to tell a header."""
    out: list[tuple[int, int, int]] = []
    p = start
    unpack = _U32.unpack_from
    while len(out) < max_records and p + 12 <= end:
        if not headers.ok(buf, p):
            q = _resync(buf, p, end, headers)
            out.append((p, q - p, OVERSIZED if mask_crc(crc32c(bytes(buf[p : p + 8]))) == unpack(buf, p + 8)[0] else BAD_HEADER))
            p = q
            continue
        n = unpack(buf, p)[0]
        nxt = p + 16 + n
        if nxt > end:
            break
        if mask_crc(crc32c(buf[p + 12 : p + 12 + n])) == unpack(buf, nxt - 4)[0]:
            out.append((p, n, OK))
            p = nxt
            continue
        q = _resync(buf, p, end, headers)
        out.append((p, q - p, CRC_MISMATCH))
        p = q
    return out, p


def _resync(buf, p: int, end: int, headers: HeaderCheck) -> int:
    """The first offset after p whose 12 bytes form a valid header, or the first one too close to
    end to tell (the next scan goes on from there)."""
    q = _next_candidate(buf, p + 1, end)
    while q + 12 <= end and not headers.ok(buf, q):
        q = _next_candidate(buf, q + 1, end)
    return q


def _next_candidate(buf, q: int, end: int) -> int:
    """The next offset whose high length word is zero (every valid header has one), or the first
    one too close to end to tell."""
    i = buf.find(b"\0\0\0\0", q + 4, end)
    return max(q, end - 11) if i < 0 or i + 8 > end else max(q, i - 4)


# ---- protobuf wire decoding -------------------------------------------------------------


class DecodeError(Exception):
    pass


def varint(buf, p: int, end: int) -> tuple[int, int]:
    """An unsigned varint at p (at most 10 bytes, before end): (value, next position)."""
    result = 0
    shift = 0
    while True:
        if p >= end:
            raise DecodeError("index out of range")
        b = buf[p]
        p += 1
        result |= (b & 0x7F) << shift
        if b < 0x80:
            return result & 0xFFFFFFFFFFFFFFFF, p
        shift += 7
        if shift >= 70:
            raise DecodeError("invalid varint encoding")


def signed64(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def skip_field(buf, key: int, p: int, end: int) -> int:
    wire = key & 7
    if key >> 3 == 0 or wire in (3, 4) or wire > 5:
        raise DecodeError(f"invalid wire key {key}")
    if wire == 0:
        return varint(buf, p, end)[1]
    if wire == 1:
        p += 8
    elif wire == 5:
        p += 4
    else:
        n, p = varint(buf, p, end)
        p += n
    if p > end:
        raise DecodeError("index out of range")
    return p


_F32 = struct.Struct("<f")
_F64 = struct.Struct("<d")
NUMERIC = {1, 2, 19, 14, 3, 9, 5, 6, 4, 17, 22, 23, 10}
_CONTENT = {
    1: "<f",
    2: "<d",
    3: "<i",
    9: "<q",
    23: "<Q",
    22: "<I",
    5: "<h",
    17: "<H",
    6: "<b",
    4: "<B",
}


def half_to_float(bits: int) -> float:
    s = -1.0 if bits & 0x8000 else 1.0
    e = (bits >> 10) & 0x1F
    f = bits & 0x3FF
    if e == 0:
        return s * f * 2.0**-24
    if e == 31:
        return float("nan") if f else s * float("inf")
    return s * (1 + f / 1024) * 2.0 ** (e - 15)


def bfloat16_to_float(bits: int) -> float:
    return _F32.unpack(struct.pack("<I", (bits & 0xFFFF) << 16))[0]


class Tensor:
    """The fields of a TensorProto a scalar needs."""

    __slots__ = ("content", "content_pos", "dims", "dtype", "first_pos", "vals")

    def __init__(self) -> None:
        self.dtype = 0
        self.dims: list[int] = []
        self.content: bytes | None = None
        self.vals: dict[int, list[float]] = {}
        # Where the value lies in the record (the vectorised path reads it there): the last
        # tensor_content, and the first float_val / double_val.
        self.content_pos = -1
        self.first_pos: dict[int, int] = {}


def _packed(buf, p: int, end: int, key: int, field: int, t: Tensor) -> int:
    """One repeated numeric field, packed or not (as protobufjs reads either)."""
    vals = t.vals.setdefault(field, [])
    fmt = {5: _F32, 6: _F64}.get(field)
    if key & 7 == 2:
        n, p = varint(buf, p, end)
        stop = p + n
        if stop > end:
            raise DecodeError("index out of range")
        if n and field not in t.first_pos:
            t.first_pos[field] = p
        while p < stop:
            p = _one(buf, p, stop, field, fmt, vals)
        return p
    if field not in t.first_pos:
        t.first_pos[field] = p
    return _one(buf, p, end, field, fmt, vals)


def _one(buf, p: int, end: int, field: int, fmt, vals: list[float]) -> int:
    if fmt is not None:
        if p + fmt.size > end:
            raise DecodeError("index out of range")
        vals.append(fmt.unpack_from(buf, p)[0])
        return p + fmt.size
    v, p = varint(buf, p, end)
    if field == 7 or field == 13:
        v = v & 0xFFFFFFFF
        v = v - (1 << 32) if v >= 1 << 31 else v
    elif field == 10:
        v = signed64(v)
    elif field == 16:
        v = v & 0xFFFFFFFF
    elif field == 11:
        v = 1 if v else 0
    vals.append(v)
    return p


def decode_tensor(buf, p: int, end: int) -> Tensor:
    t = Tensor()
    while p < end:
        key, p = varint(buf, p, end)
        field = key >> 3
        if field == 1:
            v, p = varint(buf, p, end)
            v &= 0xFFFFFFFF
            t.dtype = v - (1 << 32) if v >= 1 << 31 else v
        elif field == 2:
            n, p = varint(buf, p, end)
            t.dims = _decode_shape(buf, p, p + n)
            p += n
        elif field == 4:
            n, p = varint(buf, p, end)
            if p + n > end:
                raise DecodeError("index out of range")
            t.content = bytes(buf[p : p + n])
            t.content_pos = p
            p += n
        elif field in (5, 6, 7, 10, 11, 13, 16, 17):
            p = _packed(buf, p, end, key, field, t)
        else:
            p = skip_field(buf, key, p, end)
    if p != end:
        raise DecodeError("index out of range")
    return t


def _decode_shape(buf, p: int, end: int) -> list[int]:
    dims: list[int] = []
    while p < end:
        key, p = varint(buf, p, end)
        if key >> 3 == 2:
            n, p = varint(buf, p, end)
            size = 0
            q, stop = p, p + n
            while q < stop:
                k2, q = varint(buf, q, stop)
                if k2 >> 3 == 1:
                    size, q = varint(buf, q, stop)
                    size = signed64(size)
                else:
                    q = skip_field(buf, k2, q, stop)
            dims.append(size)
            p = stop
        else:
            p = skip_field(buf, key, p, end)
    if p != end:
        raise DecodeError("index out of range")
    return dims


def value_position(t: Tensor) -> tuple[int, int]:
    """(position, width) of a float or double tensor's value in the record; (-1, 0) otherwise."""
    if t.dtype not in (1, 2):
        return -1, 0
    width = 4 if t.dtype == 1 else 8
    if t.content:
        return (t.content_pos, width) if len(t.content) == width else (-1, 0)
    return t.first_pos.get(5 if t.dtype == 1 else 6, -1), width


def tensor_scalar(t: Tensor) -> float | None:
    """The value of a 0-d (or single-element) numeric tensor, or None."""
    d = t.dtype
    if d not in NUMERIC or any(x != 1 for x in t.dims):
        return None
    c = t.content
    if c:
        if d in (19, 14):
            if len(c) != 2:
                return None
            bits = c[0] | c[1] << 8
            return half_to_float(bits) if d == 19 else bfloat16_to_float(bits)
        if d == 10:
            return (1.0 if c[0] else 0.0) if len(c) == 1 else None
        fmt = _CONTENT[d]
        if len(c) != struct.calcsize(fmt):
            return None
        return float(struct.unpack(fmt, c)[0])
    field = {1: 5, 2: 6, 9: 10, 23: 17, 22: 16, 10: 11, 19: 13, 14: 13}.get(d, 7)
    vals = t.vals.get(field)
    if not vals:
        return None
    v = vals[0]
    if d == 19:
        return half_to_float(int(v))
    if d == 14:
        return bfloat16_to_float(int(v))
    return float(v)


def _plugin_name(buf, p: int, end: int) -> str:
    """SummaryMetadata.plugin_data.plugin_name ('' when absent)."""
    name = ""
    while p < end:
        key, p = varint(buf, p, end)
        if key >> 3 == 1:
            n, p = varint(buf, p, end)
            q, stop = p, p + n
            if stop > end:
                raise DecodeError("index out of range")
            name = ""
            while q < stop:
                k2, q = varint(buf, q, stop)
                if k2 >> 3 == 1:
                    m, q = varint(buf, q, stop)
                    if q + m > stop:
                        raise DecodeError("index out of range")
                    name = bytes(buf[q : q + m]).decode("utf-8", "replace")
                    q += m
                else:
                    q = skip_field(buf, k2, q, stop)
            p = stop
        else:
            p = skip_field(buf, key, p, end)
    if p != end:
        raise DecodeError("index out of range")
    return name


Sink = Callable[[str, int, float, float], None]


class EventDecoder:
    """Decodes events one by one, remembering per tag the plugin its first metadata names (TF2
    may write it only once per tag), so histograms or text written as tensors are never scalars."""

    def __init__(self) -> None:
        self.plugins: dict[str, str] = {}
        self.tags: dict[bytes, str] = {}
        # Where the last decode found the variable fields (-1: absent), and its one value as
        # (tag, position, width) when the record is learnable: fastscan.py learns its layout.
        self.wall_pos = -1
        self.step_pos = -1
        self.step_end = -1
        self.single: tuple[str, int, int] | None = None
        self.epoch = 0  # bumped when a tag gets its plugin (layouts learned before may no longer hold)

    def tag_of(self, raw: bytes) -> str:
        t = self.tags.get(raw)
        if t is None:
            t = raw.decode("utf-8", "replace")
            if len(self.tags) < 100_000:
                self.tags[raw] = t
        return t

    def decode(self, buf, start: int, end: int, add: Sink) -> int:
        """Adds the scalars of the Event in buf[start:end]; returns their number. Raises
        DecodeError on a malformed record (the scalars added before the fault stay)."""
        p = start
        wall = 0.0
        step = 0
        s_start = s_end = -1
        self.wall_pos = self.step_pos = self.step_end = -1
        self.single = None
        while p < end:
            key, p = varint(buf, p, end)
            if key == 9:
                if p + 8 > end:
                    raise DecodeError("index out of range")
                self.wall_pos = p
                wall = _F64.unpack_from(buf, p)[0]
                p += 8
            elif key == 16:
                self.step_pos = p
                v, p = varint(buf, p, end)
                self.step_end = p
                step = signed64(v)
            elif key == 42:
                n, p = varint(buf, p, end)
                s_start, s_end = p, p + n
                if s_end > end:
                    raise DecodeError("summary overruns the record")
                p = s_end
            else:
                p = skip_field(buf, key & 0xFFFFFFFF, p, end)
        if p != end:
            raise DecodeError("event overruns the record")
        if s_start < 0:
            return 0
        return self._summary(buf, s_start, s_end, step, wall, add)

    def _summary(self, buf, p: int, end: int, step: int, wall: float, add: Sink) -> int:
        count = 0
        learnable = True
        while p < end:
            key, p = varint(buf, p, end)
            if key != 10:
                p = skip_field(buf, key & 0xFFFFFFFF, p, end)
                continue
            n, p = varint(buf, p, end)
            v_end = p + n
            if v_end > end:
                raise DecodeError("value overruns the summary")
            tag: str | None = None
            value: float | None = None
            tensor: Tensor | None = None
            plugin = ""
            fields = 0
            at = -1
            while p < v_end:
                vk, p = varint(buf, p, v_end)
                if vk == 10:
                    m, p = varint(buf, p, v_end)
                    if p + m > v_end:
                        raise DecodeError("tag overruns the value")
                    tag = self.tag_of(bytes(buf[p : p + m]))
                    p += m
                elif vk == 21:
                    if p + 4 > v_end:
                        raise DecodeError("index out of range")
                    value = _F32.unpack_from(buf, p)[0]
                    tensor = None
                    fields += 1
                    at = p
                    p += 4
                elif vk == 66:
                    m, p = varint(buf, p, v_end)
                    if p + m > v_end:
                        raise DecodeError("index out of range")
                    tensor = decode_tensor(buf, p, p + m)
                    value = None
                    fields += 1
                    p += m
                elif vk == 74:
                    m, p = varint(buf, p, v_end)
                    if p + m > v_end:
                        raise DecodeError("index out of range")
                    plugin = _plugin_name(buf, p, p + m)  # the last metadata wins, as protobufjs decodes
                    p += m
                else:
                    p = skip_field(buf, vk & 0xFFFFFFFF, p, v_end)
            if tag is None:
                continue
            if plugin and tag not in self.plugins:
                self.plugins[tag] = plugin
                self.epoch += 1
            if tensor is not None:
                known = self.plugins.get(tag)
                if known is not None and known != "scalars":
                    continue
                value = tensor_scalar(tensor)
            if value is None:
                continue
            add(tag, step, wall, value)
            count += 1
            width = 4
            if tensor is not None:
                at, width = value_position(tensor)
            learnable = learnable and fields == 1 and at >= 0
            self.single = (tag, at, width) if count == 1 and learnable else None
        return count
