"""One experience's tokens for a `tokens` request (the Node relay's trxp-tokens.ts, safetensors.ts
and tokens-frame.ts): item 0's tensors of a TRXP row converted to the wire's types (ids int32,
mask uint8, values float32) and sent as one binary tokens frame beside the texts a view needs.

Only the byte ranges needed are read (the fixed header, the metadata, the tensors header, each
wanted tensor), and every length is checked before it is read, so a crafted row costs bounded
time and memory and gives a clear error.
"""

from __future__ import annotations

import math
import struct
from array import array
from typing import Any, Callable, Generator, Optional

from .pickles import PickleError, PyObject, RowDecodeError, bounded_json, drain, unpickle_steps
from .protocol import BIG_ENDIAN, dumps, parse_json, wire_number
from .trxp import TRXP_HEADER, trxp_first_item, trxp_layout

# "ART1" as a little-endian uint32.
TOKENS_MAGIC = 0x31545241
MAX_FRAME_TOKENS = 1 << 19
MAX_TENSOR_HEADER = 1024 * 1024
MAX_META = 16 * 1024 * 1024

# name -> wire dtype, in frame order
TOKEN_ARRAYS = (
    ("tokens", "i32"),
    ("logprobs", "f32"),
    ("action_mask", "u8"),
    ("advantages", "f32"),
    ("returns", "f32"),
    ("token_level_reward", "f32"),
)
_WIRE_CODE = {"i32": "i", "f32": "f", "u8": "B"}
_DTYPE_SIZE = {"BOOL": 1, "U8": 1, "I8": 1, "I16": 2, "U16": 2, "I32": 4, "U32": 4, "I64": 8, "U64": 8, "F16": 2, "BF16": 2, "F32": 4, "F64": 8}
_DTYPE_CODE = {"BOOL": "B", "U8": "B", "I8": "b", "I16": "h", "U16": "H", "I32": "i", "U32": "I", "I64": "q", "U64": "Q", "F32": "f", "F64": "d"}

RangeRead = Callable[[int, int], Optional[bytes]]


def _require(cond: Any, why: str) -> None:
    if not cond:
        raise RowDecodeError(why)


def _is_safe_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= 2**53 - 1


def tensor_entries(text: bytes, data_bytes: int, wanted: list[str], max_elements: int) -> dict[str, tuple[str, int, int, int]]:
    """name -> (dtype, count, begin, end) of the wanted tensors, checked (safetensors.ts tensorEntries)."""
    try:
        header = parse_json(text.decode("utf-8"))
    except (ValueError, RecursionError):
        raise RowDecodeError("the tensors header is not JSON") from None
    _require(isinstance(header, dict), "the tensors header is not an object")
    out: dict[str, tuple[str, int, int, int]] = {}
    for name in wanted:
        if name not in header:
            continue
        t = header[name]
        what = f"tensor {name}"
        _require(isinstance(t, dict), f"{what}: not an entry")
        dtype = t.get("dtype")
        size = _DTYPE_SIZE.get(dtype) if isinstance(dtype, str) else None
        _require(size, f"{what}: dtype {str(dtype)[:20]} is not read")
        shape = t.get("shape")
        _require(isinstance(shape, list) and len(shape) <= 8 and all(_is_safe_int(d) and d >= 0 for d in shape), f"{what}: bad shape")
        # A token array is one sequence: a [2, n] tensor (two sequences, a batch) is not read as one.
        _require(len(shape) <= 1, f"{what}: shape [{', '.join(str(d) for d in shape)}] has {len(shape)} dimensions, not one sequence")
        count = 1
        for d in shape:
            count *= d
        _require(count <= max_elements, f"{what}: {count} elements, over the {max_elements}-element limit")
        offs = t.get("data_offsets")
        _require(isinstance(offs, list) and len(offs) == 2 and all(_is_safe_int(o) for o in offs), f"{what}: bad data_offsets")
        begin, end = offs
        _require(0 <= begin <= end <= data_bytes, f"{what}: data_offsets [{begin}, {end}] outside the {data_bytes} data bytes")
        _require(end - begin == count * size, f"{what}: {end - begin} bytes for {count} {dtype} elements")
        out[name] = (dtype, count, begin, end)
    return out


def _tensor_values(b: bytes, dtype: str) -> Any:
    """The elements of little-endian tensor bytes: an array, or a list of floats for half types."""
    size = _DTYPE_SIZE[dtype]
    b = b[: len(b) - len(b) % size]
    if dtype == "F16":
        return list(struct.unpack(f"<{len(b) // 2}e", b))
    if dtype == "BF16":
        wide = bytearray(len(b) * 2)
        wide[2::4] = b[0::2]
        wide[3::4] = b[1::2]
        b, dtype, size = bytes(wide), "F32", 4
    a = array(_DTYPE_CODE[dtype])
    if a.itemsize != size:
        raise RowDecodeError(f"dtype {dtype} has no {size}-byte array type here")
    a.frombytes(b)
    if BIG_ENDIAN and size > 1:
        a.byteswap()
    return a


def as_float32(b: bytes, dtype: str) -> array:
    v = _tensor_values(b, dtype)
    if isinstance(v, array) and v.typecode == "f":
        return v
    return array("f", [float(x) for x in v])


def as_int32(b: bytes, dtype: str, what: str) -> array:
    if dtype.startswith("F") or dtype == "BF16":
        raise RowDecodeError(f"{what}: ids of dtype {dtype}")
    v = _tensor_values(b, dtype)
    if v.typecode == "i":
        return v
    for i, x in enumerate(v):
        if not -0x80000000 <= x <= 0x7FFFFFFF:
            raise RowDecodeError(f"{what}: id {x} at {i} does not fit 32 bits")
    return array("i", v)


def as_mask(b: bytes, dtype: str) -> array:
    # Nonzero is 1; NaN is 0 (as in the Node relay, where NaN is falsy).
    return array("B", [1 if x and not (isinstance(x, float) and math.isnan(x)) else 0 for x in _tensor_values(b, dtype)])


def read_token_parts(read: RangeRead, total: int) -> tuple[bytes, dict[str, tuple[str, bytes]], int]:
    """(metadata bytes, name -> (dtype, bytes), stored tensor bytes) of item 0 of a row."""
    head = read(0, min(TRXP_HEADER, total))
    layout = trxp_layout(head) if head is not None else None
    _require(layout is not None, "not a TRXP experience (a legacy pickle keeps no tensors to read)")
    meta_len, tensor_len = layout
    _require(meta_len <= MAX_META, f"experience metadata of {meta_len} bytes is over the {MAX_META}-byte limit")
    _require(TRXP_HEADER + meta_len + tensor_len <= total, f"experience bytes truncated ({total} bytes, metadata {meta_len}, tensors {tensor_len})")
    meta = read(TRXP_HEADER, meta_len)
    _require(meta is not None and len(meta) == meta_len, "cannot read the experience metadata")
    at = layout.tensors_at
    _require(tensor_len >= 8, "the experience has no tensors")
    len_bytes = read(at, 8)
    _require(len_bytes is not None and len(len_bytes) == 8, "cannot read the tensors header")
    (header_len,) = struct.unpack("<Q", len_bytes)
    _require(header_len <= MAX_TENSOR_HEADER, f"a tensors header of {header_len} bytes is over the {MAX_TENSOR_HEADER}-byte limit")
    _require(8 + header_len <= tensor_len, "the tensors header runs past the tensors")
    text = read(at + 8, header_len)
    _require(text is not None and len(text) == header_len, "cannot read the tensors header")
    data_at = at + 8 + header_len
    entries = tensor_entries(text, tensor_len - 8 - header_len, [f"0:{n}" for n, _ in TOKEN_ARRAYS], MAX_FRAME_TOKENS)
    tensors: dict[str, tuple[str, bytes]] = {}
    stored = 0
    for name, _ in TOKEN_ARRAYS:
        e = entries.get(f"0:{name}")
        if e is None:
            continue
        dtype, _count, begin, end = e
        b = read(data_at + begin, end - begin) if end > begin else b""
        _require(b is not None and len(b) == end - begin, f"cannot read tensor {name}")
        tensors[name] = (dtype, b)
        stored += len(b)
    _require("tokens" in tensors, "the experience has no tokens tensor")
    return meta, tensors, stored


def _item_field(o: Any, name: str) -> Any:
    if isinstance(o, dict):
        return o.get(name)
    if isinstance(o, PyObject):
        return o.fields.get(name)
    return None


def _num_or_none(v: Any) -> float | int | None:
    if isinstance(v, bool):
        return int(v)
    if isinstance(v, (int, float)):
        return v
    return None


def _tokens_prompt_length(v: Any) -> int | None:
    """Trinity's default (1) when the metadata has none; null (not known) for one that is not a
    count (a string, a huge or negative number), never a made-up 1."""
    if v is None:
        return 1
    n = _num_or_none(v)
    if n is None or isinstance(n, float) and not n.is_integer():
        return None
    return int(n) if 0 <= n <= 2**53 - 1 else None


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _view_texts(response: Any, prompt: Any, messages: Any, tools: Any) -> dict[str, Any]:
    """The texts a view needs, through the detail's JSON budget."""
    return bounded_json(
        {
            "response_text": _str_or_none(response),
            "prompt_text": _str_or_none(prompt),
            "messages": messages if isinstance(messages, list) else None,
            "tools": tools if isinstance(tools, list) else None,
        }
    )


def decode_token_parts(meta: bytes, tensors: dict[str, tuple[str, bytes]], stored: int) -> tuple[dict[str, Any], dict[str, array]]:
    """(header fields, arrays) of a row's parts (its request fields left for the caller)."""
    return drain(token_parts_steps(meta, tensors, stored))


def token_parts_steps(meta: bytes, tensors: dict[str, tuple[str, bytes]], stored: int) -> Generator[None, None, tuple[dict[str, Any], dict[str, array]]]:
    """decode_token_parts in slices: the relay lets other clients run between them."""
    try:
        m = yield from unpickle_steps(meta)
    except PickleError as e:
        raise RowDecodeError(f"cannot unpickle the experience: {e}") from None
    item = trxp_first_item(m, _item_field)
    arrays: dict[str, array] = {}
    for name, (dtype, b) in tensors.items():
        if name == "tokens":
            arrays[name] = as_int32(b, dtype, "tokens")
        elif name == "action_mask":
            arrays[name] = as_mask(b, dtype)
        else:
            arrays[name] = as_float32(b, dtype)
    pl = _item_field(item, "prompt_length")
    reward = _num_or_none(_item_field(item, "reward"))
    header: dict[str, Any] = {
        "kind": "tensors",
        # Trinity's default when the metadata has none (Experience.deserialize_many).
        "prompt_length": _tokens_prompt_length(pl),
        "truncate_status": _str_or_none(_item_field(item, "truncate_status")),
        "reward": None if reward is None else wire_number(float(reward)),
    }
    header.update(_view_texts(_item_field(item, "response_text"), _item_field(item, "prompt_text"), _item_field(item, "messages"), _item_field(item, "tools")))
    header["stored_bytes"] = stored
    return header, arrays


def line_tokens(o: dict[str, Any]) -> dict[str, Any]:
    """The tokens header of a JSON line (Experience.to_dict keeps no ids): its texts, to re-tokenize."""

    def count(v: Any) -> int | None:
        return v if _is_safe_int(v) else None

    header: dict[str, Any] = {
        "kind": "texts",
        "prompt_length": count(o.get("prompt_length")),
        "response_length": count(o.get("response_length")),
        "truncate_status": _str_or_none(o.get("truncate_status")),
        "reward": wire_number(float(o["reward"])) if _num_or_none(o.get("reward")) is not None and not isinstance(o.get("reward"), bool) else None,
    }
    header.update(_view_texts(o.get("response_text"), o.get("prompt_text"), o.get("messages"), o.get("tools")))
    return header


def tokens_frame(header: dict[str, Any], arrays: dict[str, array]) -> bytes:
    """A binary tokens frame (tokens-frame.ts): the header, then each array padded to 8 bytes."""
    full = dict(header)
    full["arrays"] = [{"name": n, "dtype": d, "length": len(arrays[n])} for n, d in TOKEN_ARRAYS if n in arrays]
    head = dumps(full)
    parts = [struct.pack("<II", TOKENS_MAGIC, len(head)), head, b"\0" * ((-(8 + len(head))) % 8)]
    for n, d in TOKEN_ARRAYS:
        if n not in arrays:
            continue
        a = arrays[n]
        if a.typecode != _WIRE_CODE[d]:
            a = array(_WIRE_CODE[d], a)
        if BIG_ENDIAN and a.itemsize > 1:
            a = array(a.typecode, a)
            a.byteswap()
        b = a.tobytes()
        parts.append(b)
        parts.append(b"\0" * ((-len(b)) % 8))
    return b"".join(parts)
