"""Trinity-RFT's TRXP experience row, the `experience_bytes` of its SQL buffers
(Experience.serialize_many): b"TRXP", a version byte, the metadata length and the tensor length
(uint64 little-endian each), the metadata (a pickle of {version, num_items, items: [...]}) and
the tensors (safetensors). Rows of older Trinity versions are a plain pickle instead.

The one Python reader of this layout, for the relay (this package; the Node relay's is
src/relay/formats/trxp.ts) and for the debug runner, whose agentrl_runner/trxp.py is this very
file: standard library only, Python 3.8, and importing nothing of either package, so that both
ship it as it is. The metadata pickle is the caller's to read: the relay runs its bounded
interpreter of inert data (pickles.py), the runner a builtins-only Unpickler.
"""

from __future__ import annotations

import math
import re
import struct
from typing import Any, Callable, NamedTuple

TRXP_MAGIC = b"TRXP"
_TRXP_LENGTHS = struct.Struct("<QQ")
# The fixed header: the magic, the version byte and the two lengths.
TRXP_HEADER = len(TRXP_MAGIC) + 1 + _TRXP_LENGTHS.size


class TrxpError(ValueError):
    """Bytes that are no TRXP row, or a row whose lengths do not fit it."""


class TrxpLayout(NamedTuple):
    """The lengths a row's header gives."""

    meta_len: int
    tensor_len: int

    @property
    def tensors_at(self) -> int:
        """Where the safetensors part starts (after the header and the metadata)."""
        return TRXP_HEADER + self.meta_len


def trxp_layout(head: bytes) -> TrxpLayout | None:
    """The lengths in a row's first TRXP_HEADER bytes; None when they are not a TRXP row."""
    if len(head) < TRXP_HEADER or head[: len(TRXP_MAGIC)] != TRXP_MAGIC:
        return None
    meta_len, tensor_len = _TRXP_LENGTHS.unpack_from(head, len(TRXP_MAGIC) + 1)
    return TrxpLayout(meta_len, tensor_len)


def trxp_metadata(row: bytes, max_meta: int) -> bytes:
    """The metadata pickle of a whole row; TrxpError when the row is no TRXP, ends before its
    metadata does, or the metadata is over `max_meta` bytes."""
    layout = trxp_layout(row)
    if layout is None:
        raise TrxpError("not a TRXP experience row")
    if layout.meta_len > len(row) - TRXP_HEADER:
        raise TrxpError(f"experience bytes truncated ({len(row)} bytes, metadata {layout.meta_len})")
    if layout.meta_len > max_meta:
        raise TrxpError(f"experience metadata of {layout.meta_len} bytes is over the {max_meta}-byte limit")
    return row[TRXP_HEADER : layout.tensors_at]


def trxp_first_item(meta: Any, field: Callable[[Any, str], Any]) -> Any:
    """Item 0 of the unpickled metadata, None when it has no items; `field(value, name)` reads
    a field of the caller's unpickled values."""
    items = field(meta, "items")
    return items[0] if isinstance(items, list) and items else None


def task_index_of(info: Any) -> dict[str, int]:
    """The stable identity of an experience's task: Trinity's workflow runner sets
    info["task_index"] = task.index, a dict {"index": row of the taskset, "taskset_id": ...}; a bare
    integer is read as the index. eid.task is not stable (the task's position in its batch)."""

    def get(o: Any, k: str) -> Any:
        o = getattr(o, "fields", o)  # a pickled object's state (pickles.PyObject)
        return o.get(k) if isinstance(o, dict) else None

    def index(v: Any) -> int | None:
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and float(v).is_integer()
        return int(v) if ok and 0 <= v <= 2**53 - 1 else None

    ti = get(info, "task_index")
    direct = index(ti)
    if direct is not None:
        return {"task_index": direct}
    i = index(get(ti, "index"))
    if i is None:
        return {}
    taskset = index(get(ti, "taskset_id"))
    return {"task_index": i} if taskset is None else {"task_index": i, "taskset_id": taskset}


_ASCII_SPACE = re.compile(r"[ \t\n\r\f\v]+")
_ASCII_UPPER = re.compile(r"[A-Z]")


def response_hash(text: str) -> str:
    """The fingerprint of a response text (responseHash of trxp.ts): ASCII case and runs of ASCII
    whitespace folded, two FNV-1a 32-bit hashes of the UTF-8 bytes, 16 hex digits."""
    norm = _ASCII_SPACE.sub(" ", _ASCII_UPPER.sub(lambda m: m.group(0).lower(), text))
    if norm.startswith(" "):
        norm = norm[1:]
    if norm.endswith(" "):
        norm = norm[:-1]
    a = 0x811C9DC5
    b = 0x050C5D1F
    for byte in norm.encode("utf-8", "replace"):
        a = ((a ^ byte) * 0x01000193) & 0xFFFFFFFF
        b = ((b ^ byte) * 0x01000193) & 0xFFFFFFFF
    return f"{a:08x}{b:08x}"
