"""The relay <-> client wire protocol, as the TypeScript relay speaks it.

Mirrors src/relay-protocol/: messages.ts (messages and their run-time validation),
envelope.ts (the envelope capability and `detail`), and the two binary frames of
points-frame.ts / envelope-frame.ts. A client cannot tell this relay from the Node one: the
same messages, the same error texts, the same frames. The conformance suite
(test/component/relay/conformance/) holds the two together.
"""

from __future__ import annotations

import json
import math
import re
import struct
from array import array
from typing import Any, Generator, Sequence

PROTOCOL_VERSION = 1
SUBPROTOCOL = "agentrl-relay.v1"
MAX_CLIENT_FRAME_BYTES = 64 * 1024
MAX_ENVELOPE_BUCKETS = 8192
MAX_DETAIL_POINTS = 100_000
MAX_TIMELINE_EVENTS = 100_000
MAX_SAFE_INTEGER = 2**53 - 1

POINTS_MAGIC = 0x31505241  # "ARP1" little-endian
ENVELOPE_MAGIC = 0x31455241  # "ARE1"
ENVELOPE_COLUMNS = (
    "bucket",
    "count",
    "min",
    "max",
    "sum",
    "firstStep",
    "firstValue",
    "firstWall",
    "lastStep",
    "lastValue",
    "lastWall",
    "nan",
    "posInf",
    "negInf",
)

_MISSING = object()


class ProtocolError(Exception):
    """A malformed client frame (answered with `bad-message`)."""


# ---- JavaScript semantics the messages depend on --------------------------------------


def js_string(v: Any) -> str:
    """String(v) as JavaScript writes it (for echoing a bad `type`)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, str):
        return v
    if isinstance(v, (int, float)):
        return js_number(v)
    if isinstance(v, list):
        return ",".join("" if x is None else js_string(x) for x in v)
    return "[object Object]"


def js_number(v: float) -> str:
    """A number as JavaScript prints it (integers without '.0', 'NaN', 'Infinity')."""
    if isinstance(v, int) and not isinstance(v, bool):
        if abs(v) <= MAX_SAFE_INTEGER:
            return str(v)
        v = float(v)
    if math.isnan(v):
        return "NaN"
    if v in (math.inf, -math.inf):
        return "Infinity" if v > 0 else "-Infinity"
    if v == int(v) and abs(v) < 1e21:
        return str(int(v))
    r = repr(v)
    if "e" in r:
        mant, exp = r.split("e")
        sign = "-" if exp.startswith("-") else "+"
        r = f"{mant}e{sign}{exp.lstrip('+-').lstrip('0') or '0'}"
    return r


def js_slice(s: str, n: int) -> str:
    """s.slice(0, n) of JavaScript (UTF-16 code units; a split pair becomes U+FFFD, as on the wire)."""
    if len(s) <= n // 2:
        return s
    units = s.encode("utf-16-le", "surrogatepass")[: 2 * n]
    return units.decode("utf-16-le", "replace")


def is_str(v: Any) -> bool:
    return isinstance(v, str)


def is_bool(v: Any) -> bool:
    return isinstance(v, bool)


def is_num(v: Any) -> bool:
    """A finite number (JSON's numbers; booleans are not)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def is_int(v: Any) -> bool:
    """Number.isSafeInteger: 5 and 5.0 alike."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return False
    if isinstance(v, float):
        return math.isfinite(v) and v.is_integer() and abs(v) <= MAX_SAFE_INTEGER
    return abs(v) <= MAX_SAFE_INTEGER


def _optional(check):
    return lambda v: v is _MISSING or check(v)


def _nullable(check):
    return lambda v: v is None or check(v)


def _array_of(check):
    return lambda v: isinstance(v, list) and all(check(x) for x in v)


def _has(m: dict[str, Any], **checks) -> bool:
    return all(check(m.get(k, _MISSING)) for k, check in checks.items())


def is_cursor(v: Any) -> bool:
    return isinstance(v, dict) and _has(v, source=is_str, offset=is_int, fid=_optional(is_str)) and v["offset"] >= 0


def _reject_constant(name: str) -> Any:
    raise ValueError(name)


def parse_json(text: str) -> Any:
    """JSON.parse: NaN / Infinity literals are not JSON. Raises ValueError for text that is not
    JSON, nesting too deep for Python's parser included (the text is untrusted)."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _need(cond: bool, what: str) -> None:
    if not cond:
        raise ProtocolError(what)


def is_envelope_request(v: Any) -> bool:
    if v is _MISSING:
        return True
    if not (isinstance(v, dict) and is_int(v.get("buckets", _MISSING))):
        return False
    mb = v.get("minBytes", _MISSING)
    return 2 <= v["buckets"] <= MAX_ENVELOPE_BUCKETS and (mb is _MISSING or (is_int(mb) and mb >= 0))


def is_detail_request(m: dict[str, Any]) -> bool:
    return (
        _has(m, request=is_int, source=is_str, tag=is_str, **{"from": is_num}, to=is_num, maxPoints=is_int, cursor=is_cursor)
        and m["from"] <= m["to"]
        and 1 <= m["maxPoints"] <= MAX_DETAIL_POINTS
    )


def parse_client_message(text: str) -> dict[str, Any]:
    """Validates a frame from a client (parseClientMessage); raises ProtocolError when malformed."""
    try:
        m = parse_json(text)
    except ValueError:
        raise ProtocolError("not JSON") from None
    _need(isinstance(m, dict) and isinstance(m.get("type"), str), "not a message object with a type")
    t = m["type"]
    if t == "experience":
        _need(_has(m, request=is_int, source=is_str, id=is_int), "experience: needs request, source and id")
        return m
    if t == "tokens":
        _need(_has(m, request=is_int, source=is_str, id=is_int), "tokens: needs request, source and id")
        return m
    if t == "tasks":
        _need(_has(m, request=is_int, source=is_str), "tasks: needs request and source")
        return m
    if t == "detail":
        _need(is_detail_request(m), "detail: needs request, source, tag, from ≤ to, maxPoints and cursor")
        return m
    if t == "timeline":
        _need(
            _has(m, request=is_int, run=is_str, **{"from": _nullable(is_num)}, to=_nullable(is_num), maxEvents=is_int)
            and 0 < m["maxEvents"] <= MAX_TIMELINE_EVENTS,
            f"timeline: needs request, run, from, to and 0 < maxEvents ≤ {MAX_TIMELINE_EVENTS}",
        )
        return m
    _need(t == "subscribe", f"unknown message type '{js_slice(js_string(t), 40)}'")
    _need(is_int(m.get("protocol", _MISSING)), "subscribe: missing protocol version")
    _need(_optional(_array_of(is_str))(m.get("runs", _MISSING)), "subscribe: runs must be a list of strings")
    _need(_array_of(is_cursor)(m.get("cursors", _MISSING)), "subscribe: cursors must be a list of {source, offset, fid?}")
    _need(_optional(is_bool)(m.get("experiences", _MISSING)), "subscribe: experiences must be a boolean")
    _need(is_envelope_request(m.get("envelope", _MISSING)), "subscribe: envelope must be {buckets}")
    return m


def as_int(v: Any) -> int:
    """A validated integer field (5.0 from JSON as 5)."""
    return int(v)


# ---- relay -> client ------------------------------------------------------------------


def wire_number(v: float) -> Any:
    """A JSON-safe float: non-finite values travel as strings."""
    if math.isnan(v):
        return "NaN"
    if v == math.inf:
        return "Infinity"
    if v == -math.inf:
        return "-Infinity"
    return v


def _no_negative_zero(v: Any) -> Any:
    if isinstance(v, float):
        return 0.0 if v == 0 else v
    if isinstance(v, list):
        return [_no_negative_zero(x) for x in v]
    if isinstance(v, dict):
        return {k: _no_negative_zero(x) for k, x in v.items()}
    return v


_NEGATIVE_ZERO = re.compile(r"-0\.0(?=[,\]}]|\Z)")
# Values serialized between two yields of json_columns_steps.
COLUMN_CHUNK = 4096


def json_columns_steps(msg: dict[str, Any], key: str, columns: dict[str, list[Any]]) -> Generator[None, None, bytes]:
    """dumps({**msg, key: columns}) in slices of COLUMN_CHUNK values (a long column of floats
    takes CPython hundreds of milliseconds to print); yields between them."""
    parts = [dumps(msg)[:-1], b"," if msg else b"", dumps(key), b":{"]
    for i, (name, col) in enumerate(columns.items()):
        parts.append(b"%s%s:[" % (b"," if i else b"", dumps(name)))
        for at in range(0, len(col), COLUMN_CHUNK):
            if at:
                parts.append(b",")
            parts.append(dumps(col[at : at + COLUMN_CHUNK])[1:-1])
            yield None
        parts.append(b"]")
    parts.append(b"}}")
    return b"".join(parts)


def dumps(msg: Any) -> bytes:
    """JSON.stringify of a message, as UTF-8 (-0 written as 0, lone surrogates escaped rather than failing)."""
    text = json.dumps(msg, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    # Only a float -0.0 prints as "-0.0" followed by a delimiter ("-0.05" does not need the redo).
    if "-0.0" in text and _NEGATIVE_ZERO.search(text):
        text = json.dumps(_no_negative_zero(msg), separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(msg, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode("ascii")


def cursor_dict(source: str, offset: int, fid: str | None) -> dict[str, Any]:
    c: dict[str, Any] = {"source": source, "offset": offset}
    if fid is not None:
        c["fid"] = fid
    return c


_PREFIX = struct.Struct("<II")


def _frame(magic: int, header: dict[str, Any], columns: Sequence[bytes]) -> bytes:
    """Magic, header length, UTF-8 JSON header, zero padding to 8, then float64 columns."""
    head = dumps(header)
    pad = (-(8 + len(head))) % 8
    return b"".join([_PREFIX.pack(magic, len(head)), head, b"\0" * pad, *columns])


def _le(a: array) -> bytes:
    if BIG_ENDIAN:
        a = array(a.typecode, a)
        a.byteswap()
    return a.tobytes()


BIG_ENDIAN = array("H", [1]).tobytes()[0] == 0


def points_frame(source: str, run: str, role: str, series: Sequence[tuple[str, array, array, array]], cursor: dict[str, Any]) -> bytes:
    """A binary points frame: series = (tag, step, wall_time, value) float64 columns per tag."""
    header = {
        "type": "points",
        "source": source,
        "run": run,
        "role": role,
        "tags": [s[0] for s in series],
        "counts": [len(s[1]) for s in series],
        "cursor": cursor,
    }
    cols: list[bytes] = []
    for _, step, wall, value in series:
        cols.extend((_le(step), _le(wall), _le(value)))
    return _frame(POINTS_MAGIC, header, cols)


def envelope_frame(header: dict[str, Any], width: int, columns: dict[str, array]) -> bytes:
    """A binary envelope frame: the 14 ENVELOPE_COLUMNS of n buckets each."""
    n = len(columns["bucket"])
    full = dict(header)
    full["width"] = width
    full["buckets"] = n
    return _frame(ENVELOPE_MAGIC, full, [_le(columns[name]) for name in ENVELOPE_COLUMNS])


def envelope_json_columns(width: int, columns: dict[str, array]) -> dict[str, Any]:
    """The JSON form of envelope columns (a `detail` answer's finer envelope)."""
    out: dict[str, Any] = {"width": width}
    lo, hi = columns["min"], columns["max"]
    finite = [lo[i] <= hi[i] for i in range(len(lo))]
    for name in ENVELOPE_COLUMNS:
        col = columns[name]
        if name in ("min", "max"):
            out[name] = [col[i] if finite[i] else None for i in range(len(col))]
        elif name in ("firstValue", "lastValue"):
            out[name] = [wire_number(x) for x in col]
        else:
            out[name] = [_int_if_whole(x) for x in col]
    return out


def _int_if_whole(x: float) -> Any:
    return int(x) if math.isfinite(x) and x.is_integer() else x


def _index_key(k: str) -> bool:
    """A key JavaScript orders first: an array index ('0', '42'; not '01' or '-1')."""
    return k.isdigit() and k.isascii() and (k == "0" or k[0] != "0") and int(k) < 2**32 - 1


def js_entries(d: dict[str, Any]) -> list[tuple[str, Any]]:
    """Object.entries order: array-index keys ascending first, then the rest as inserted."""
    items = list(d.items())
    if not any(_index_key(k) for k, _ in items):
        return items
    first = sorted(((k, v) for k, v in items if _index_key(k)), key=lambda kv: int(kv[0]))
    return first + [(k, v) for k, v in items if not _index_key(k)]


def is_number(v: Any) -> bool:
    """typeof v === 'number' for a JSON value (booleans are not)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def to_float(v: Any) -> float:
    """A JSON number as JavaScript holds it (a huge integer is a double, or Infinity)."""
    try:
        return float(v)
    except OverflowError:
        return math.inf if v > 0 else -math.inf
