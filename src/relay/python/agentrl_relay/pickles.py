"""Untrusted pickles (Trinity's experience metadata) read as plain data, never run.

`pickle.loads` would import and call whatever a buffer row names; this is a small pickle
machine of its own over `pickletools.genops` that builds only dicts, lists, strings, numbers
and bytes. A class reference becomes an inert object (its BUILD state is its fields, as the
Node relay's pickleparser gives). Every decode has a budget: opcodes, objects, memo size,
container nesting, and the nodes and string bytes of the JSON it turns into, so a crafted
pickle whose levels share references cannot make the relay expand it without bound.
"""

from __future__ import annotations

import io
import math
import pickletools
import struct
from array import array
from functools import reduce
from operator import add
from typing import Any, Generator, TypeVar

from .protocol import BIG_ENDIAN, js_entries, js_slice, js_string, parse_json, to_float, wire_number
from .trxp import TRXP_HEADER, TrxpError, response_hash, task_index_of, trxp_first_item, trxp_layout, trxp_metadata

MAX_OPS = 2_000_000
MAX_MEMO = 1_000_000
MAX_STACK = 100_000
# Bytes of one binary integer (LONG1, LONG4) kept as a number: ~2 470 digits, inside Python's own
# int<->str limit (4 300); a longer one is `<int of more than 1024 bytes>` (as the Node relay). A text integer
# (INT, LONG) past 4 300 digits is refused by int() itself (Python 3.8.14+).
MAX_INT_BYTES = 1024
# The JSON a decode may produce: nodes visited (shared references count each time) and string bytes.


class PickleError(Exception):
    pass


class PyObject:
    """An instance of a class the pickle names (never imported): its state's fields."""

    __slots__ = ("fields", "module", "name")

    def __init__(self, module: str, name: str):
        self.module = module
        self.name = name
        self.fields: dict[str, Any] = {}


class PyClass:
    __slots__ = ("module", "name")

    def __init__(self, module: str, name: str):
        self.module = module
        self.name = name


class Opaque:
    """What a pickle holds but is not read as data (an integer too long to write out)."""

    __slots__ = ("what",)

    def __init__(self, what: str):
        self.what = what

    def __str__(self) -> str:
        return f"<{self.what}>"


_MARK = object()


# Opcodes decoded between two yields of unpickle_steps (a few milliseconds of work).
OPS_PER_SLICE = 2048

_T = TypeVar("_T")


def drain(steps: Generator[None, None, _T]) -> _T:
    """Runs a generator of work slices (unpickle_steps, ...) to its end; its result."""
    while True:
        try:
            next(steps)
        except StopIteration as e:
            return e.value  # type: ignore[no-any-return]


def unpickle(data: bytes) -> Any:
    """The value of a pickle (protocols 0-5) as plain data; raises PickleError."""
    return drain(unpickle_steps(data))


def unpickle_steps(data: bytes) -> Generator[None, None, Any]:
    """unpickle as a generator that yields every OPS_PER_SLICE opcodes, so that a relay serving
    other clients can let them run between slices of a large pickle; returns the value."""
    stack: list[Any] = []
    metastack: list[list[Any]] = []
    memo: dict[int, Any] = {}
    ops = 0
    ops_iter = pickletools.genops(io.BytesIO(data))
    while True:
        try:
            for op, arg, _pos in ops_iter:
                ops += 1
                if ops > MAX_OPS or len(stack) > MAX_STACK or len(metastack) > MAX_STACK:
                    raise PickleError("pickle exceeds the decode budget")
                name = op.name
                if name == "STOP":
                    if not stack:
                        raise PickleError("empty stack at STOP")
                    return stack.pop()
                _step(name, arg, stack, metastack, memo)
                if len(memo) > MAX_MEMO:
                    raise PickleError("pickle exceeds the decode budget")
                if ops % OPS_PER_SLICE == 0:
                    break
            else:
                raise PickleError("Unexpected end of file.")
        except PickleError:
            raise
        except (ValueError, IndexError, KeyError, TypeError, AttributeError, struct.error, RecursionError, MemoryError) as e:
            raise PickleError(str(e) or type(e).__name__) from None
        yield None


def _pop_mark(stack: list[Any], metastack: list[list[Any]]) -> list[Any]:
    items = list(stack)
    stack[:] = metastack.pop()
    return items


def _step(name: str, arg: Any, stack: list[Any], metastack: list[list[Any]], memo: dict[int, Any]) -> None:
    if name in ("PROTO", "FRAME"):
        if name == "PROTO" and arg > 5:
            raise PickleError(f"Unsupported protocol version '{arg}'.")
        return
    if name == "MARK":
        metastack.append(list(stack))
        stack.clear()
    elif name == "POP_MARK":
        stack[:] = metastack.pop()
    elif name == "POP":
        stack.pop()
    elif name == "DUP":
        stack.append(stack[-1])
    elif name in ("PUT", "BINPUT", "LONG_BINPUT"):
        memo[int(arg)] = stack[-1]
    elif name == "MEMOIZE":
        memo[len(memo)] = stack[-1]
    elif name in ("GET", "BINGET", "LONG_BINGET"):
        stack.append(memo[int(arg)])
    elif name == "NONE":
        stack.append(None)
    elif name == "NEWTRUE":
        stack.append(True)
    elif name == "NEWFALSE":
        stack.append(False)
    elif name in ("LONG1", "LONG4") and (arg.bit_length() >> 3) + 1 > MAX_INT_BYTES:  # its length as pickle writes it
        stack.append(Opaque(f"int of more than {MAX_INT_BYTES} bytes"))
    elif name in ("INT", "LONG", "BININT", "BININT1", "BININT2", "LONG1", "LONG4"):
        stack.append(arg)
    elif name in ("FLOAT", "BINFLOAT"):
        stack.append(float(arg))
    elif name in ("STRING", "BINSTRING", "SHORT_BINSTRING"):
        stack.append(arg if isinstance(arg, str) else arg.decode("latin-1"))
    elif name in ("UNICODE", "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8"):
        stack.append(arg.encode("utf-8", "surrogatepass").decode("utf-8", "replace") if isinstance(arg, str) else arg)
    elif name in ("BINBYTES", "SHORT_BINBYTES", "BINBYTES8", "BYTEARRAY8"):
        stack.append(bytes(arg))
    elif name in ("EMPTY_LIST", "EMPTY_TUPLE"):
        stack.append([])
    elif name in ("LIST", "TUPLE"):
        stack.append(_pop_mark(stack, metastack))
    elif name == "TUPLE1":
        stack.append([stack.pop()])
    elif name == "TUPLE2":
        b = stack.pop()
        stack.append([stack.pop(), b])
    elif name == "TUPLE3":
        c = stack.pop()
        b = stack.pop()
        stack.append([stack.pop(), b, c])
    elif name == "APPEND":
        v = stack.pop()
        _append(stack[-1], [v])
    elif name == "APPENDS":
        items = _pop_mark(stack, metastack)
        _append(stack[-1], items)
    elif name == "EMPTY_DICT":
        stack.append({})
    elif name == "DICT":
        items = _pop_mark(stack, metastack)
        d: dict[Any, Any] = {}
        for i in range(0, len(items) - 1, 2):
            _set(d, items[i], items[i + 1])
        stack.append(d)
    elif name == "SETITEM":
        v = stack.pop()
        k = stack.pop()
        _set(stack[-1], k, v)
    elif name == "SETITEMS":
        items = _pop_mark(stack, metastack)
        for i in range(0, len(items) - 1, 2):
            _set(stack[-1], items[i], items[i + 1])
    elif name == "EMPTY_SET":
        stack.append([])
    elif name == "FROZENSET":
        stack.append(_pop_mark(stack, metastack))
    elif name == "ADDITEMS":
        items = _pop_mark(stack, metastack)
        _append(stack[-1], items)
    elif name in ("GLOBAL", "STACK_GLOBAL"):
        if name == "GLOBAL":
            module, _, qual = str(arg).partition(" ")
        else:
            qual = stack.pop()
            module = stack.pop()
        stack.append(PyClass(str(module), str(qual)))
    elif name in ("REDUCE", "NEWOBJ", "NEWOBJ_EX", "OBJ", "INST"):
        stack.append(_construct(name, arg, stack, metastack))
    elif name == "BUILD":
        state = stack.pop()
        _build(stack[-1], state)
    elif name in ("PERSID", "BINPERSID"):
        raise PickleError("Unregistered persistent id.")
    elif name in ("EXT1", "EXT2", "EXT4"):
        raise PickleError(f"Unregistered extension code: `{int(arg):x}`.")
    elif name in ("NEXT_BUFFER", "READONLY_BUFFER"):
        if name == "NEXT_BUFFER":
            raise PickleError("pickle stream refers to out-of-band data but no *buffers* argument was given")
    else:
        raise PickleError(f"Unsupported opcode '{name}'.")


def _construct(name: str, arg: Any, stack: list[Any], metastack: list[list[Any]]) -> PyObject:
    if name in ("REDUCE", "NEWOBJ"):
        stack.pop()
        cls = stack.pop()
    elif name == "NEWOBJ_EX":
        stack.pop()
        stack.pop()
        cls = stack.pop()
    elif name == "OBJ":
        items = _pop_mark(stack, metastack)
        cls = items[0] if items else None
    else:  # INST: module and name in the argument
        _pop_mark(stack, metastack)
        module, _, qual = str(arg).partition(" ")
        cls = PyClass(module, qual)
    if not isinstance(cls, PyClass):
        raise PickleError("not a class")
    return PyObject(cls.module, cls.name)


def _append(target: Any, items: list[Any]) -> None:
    if not isinstance(target, list):
        raise PickleError("append to a non-list")
    target.extend(items)


def _set(target: Any, k: Any, v: Any) -> None:
    if isinstance(target, dict):
        target[_dict_key(k)] = v
    elif isinstance(target, PyObject):
        target.fields[_dict_key(k)] = v
    else:
        raise PickleError("setitem on a non-dict")


def _build(obj: Any, state: Any) -> None:
    if isinstance(obj, PyObject):
        if isinstance(state, dict):
            obj.fields.update(state)
        elif isinstance(state, list):
            obj.fields.update((str(i), v) for i, v in enumerate(state))
    elif isinstance(obj, dict) and isinstance(state, dict):
        obj.update(state)


def _dict_key(k: Any) -> str:
    """A dict key as a JavaScript object holds it (String(key))."""
    if isinstance(k, (bytes, bytearray)):
        return ",".join(str(b) for b in k)
    if isinstance(k, (PyObject, dict)):
        return "[object Object]"
    if isinstance(k, PyClass):
        return f"{k.module}.{k.name}"
    return js_string(k)


# ---- plain data as JSON ---------------------------------------------------------------------


class RowDecodeError(ValueError):
    """A row whose content is over a budget, or not readable: the message names its problem."""


# What converting a decoded row to JSON may cost: values written (a value shared by reference
# counts each time it is expanded), bytes out, depth; longer strings and containers are cut.
DETAIL_MAX_VALUES = 200_000
DETAIL_MAX_BYTES = 8 * 1024 * 1024
DETAIL_MAX_DEPTH = 16
MAX_STRING = 64 * 1024
MAX_ITEMS = 2000


def _utf16_len(s: str) -> int:
    return len(s) + sum(1 for c in s if ord(c) > 0xFFFF)


class _BoundedJson:
    """`v` as JSON within the detail budget; over it, RowDecodeError. Non-finite numbers are wire
    strings, bytes '<N bytes>', objects their fields, a value that contains itself '<cycle>'."""

    def __init__(self) -> None:
        self.values = 0
        self.bytes = 0
        self.on_path: set[int] = set()

    def count(self, n: int) -> None:
        self.values += 1
        if self.values > DETAIL_MAX_VALUES:
            self.over(f"{DETAIL_MAX_VALUES} values")
        self.bytes += n
        if self.bytes > DETAIL_MAX_BYTES:
            self.over(f"{DETAIL_MAX_BYTES} bytes")

    @staticmethod
    def over(what: str) -> None:
        raise RowDecodeError(f"the experience expands to more than {what} (shared references are counted each time they are used): not shown")

    def leaf(self, value: Any, size: int) -> Any:
        self.count(size)
        return value

    def visit(self, v: Any, depth: int) -> Any:
        if v is None:
            return self.leaf(None, 4)
        if isinstance(v, bool):
            return self.leaf(v, 5)
        if isinstance(v, int):
            return self.leaf(v if abs(v) <= 2**53 - 1 else str(v), 8 if abs(v) <= 2**53 - 1 else 20)
        if isinstance(v, float):
            return self.leaf(v if math.isfinite(v) else wire_number(v), 8)
        if isinstance(v, str):
            n = _utf16_len(v)
            if n > MAX_STRING:
                v = f"{js_slice(v, MAX_STRING)}… ({n} chars)"
            return self.leaf(v, len(v) + 2)
        if isinstance(v, (bytes, bytearray)):
            return self.leaf(f"<{len(v)} bytes>", 16)
        if isinstance(v, PyClass):
            return self.leaf(f"<class {v.module}.{v.name}>", len(v.module) + len(v.name))
        if depth > DETAIL_MAX_DEPTH:
            return self.leaf("…", 3)
        if not isinstance(v, (list, dict, PyObject)):
            return self.leaf(str(v), 8)
        if id(v) in self.on_path:
            return self.leaf("<cycle>", 8)
        self.on_path.add(id(v))
        try:
            self.count(2)
            if isinstance(v, list):
                out = [self.visit(x, depth + 1) for x in v[:MAX_ITEMS]]
                if len(v) > MAX_ITEMS:
                    out.append(f"… ({len(v)} items)")
                return out
            entries = js_entries(v.fields if isinstance(v, PyObject) else v)
            obj: dict[str, Any] = {}
            for k, x in entries[:MAX_ITEMS]:
                self.count(len(k))
                obj[k] = self.visit(x, depth + 1)
            if len(entries) > MAX_ITEMS:
                obj["…"] = f"{len(entries)} entries"
            return obj
        finally:
            self.on_path.discard(id(v))


def bounded_json(v: Any) -> Any:
    """Decoded pickle data (or parsed JSON) as JSON within the detail budget (RowDecodeError over it)."""
    return _BoundedJson().visit(v, 0)


# ---- Trinity's experience_bytes --------------------------------------------------------------

# Larger metadata is not decoded even on request.
MAX_DETAIL_META = 16 * 1024 * 1024


def decode_experience_bytes(data: bytes) -> dict[str, Any]:
    """The first item of an experience_bytes value as JSON: TRXP (a pickle of {version,
    num_items, items} + safetensors, not sent) or a legacy pickle of an Experience or a list."""
    return drain(experience_steps(data))


def experience_steps(data: bytes) -> Generator[None, None, dict[str, Any]]:
    """decode_experience_bytes in slices (unpickle_steps)."""
    if trxp_layout(data) is not None:
        try:
            meta = yield from _unpickle_steps(trxp_metadata(data, MAX_DETAIL_META))
        except TrxpError as e:
            raise RowDecodeError(str(e)) from None
        # Metadata without an item list is shown whole.
        value = trxp_first_item(meta, _field) if isinstance(_field(meta, "items"), list) else meta
    else:
        if len(data) > MAX_DETAIL_META:
            raise RowDecodeError(f"a legacy experience of {len(data)} bytes is over the {MAX_DETAIL_META}-byte limit")
        value = yield from _unpickle_steps(data)
        if isinstance(value, list):
            value = value[0] if value else None
    out = bounded_json(value)
    return out if isinstance(out, dict) else {"value": out}


def _unpickle_steps(data: bytes) -> Generator[None, None, Any]:
    try:
        return (yield from unpickle_steps(data))
    except PickleError as e:
        raise RowDecodeError(f"cannot unpickle the experience: {e}") from None


def _field(o: Any, name: str) -> Any:
    if isinstance(o, dict):
        return o.get(name)
    if isinstance(o, PyObject):
        return o.fields.get(name)
    return None


# ---- what a row of the list carries from inside its experience_bytes --------------------------

MAX_PART = 4 * 1024 * 1024
MAX_METRICS = 64


def numeric_metrics_of(m: Any) -> dict[str, Any] | None:
    """Numeric entries of decoded `metrics` (booleans count as 0/1), at most 64."""
    if isinstance(m, PyObject):
        m = m.fields
    if isinstance(m, list):
        m = {str(i): v for i, v in enumerate(m)}
    if not isinstance(m, dict):
        return None
    out: dict[str, Any] = {}
    for k, v in js_entries(m):
        if len(out) >= MAX_METRICS:
            break
        if isinstance(v, bool):
            out[k] = 1 if v else 0
        elif isinstance(v, (int, float)):
            out[k] = wire_number(v) if isinstance(v, float) else (v if abs(v) <= 2**53 - 1 else wire_number(to_float(v)))
    return out or None


def _bytes_at(head: bytes, read, start: int, n: int) -> bytes | None:
    if n < 0 or n > MAX_PART:
        return None
    if start + n <= len(head):
        return head[start : start + n]
    b = read(start, n)
    return b if b is not None and len(b) == n else None


_INT_CODES = {"I8": ("b", 1), "I16": ("h", 2), "U16": ("H", 2), "I32": ("i", 4), "U32": ("I", 4), "I64": ("q", 8), "U64": ("Q", 8)}


def _floats(b: bytes, dtype: Any) -> list[float] | None:
    if dtype == "F32":
        a = array("f")
        a.frombytes(b[: len(b) // 4 * 4])
    elif dtype == "F64":
        a = array("d")
        a.frombytes(b[: len(b) // 8 * 8])
    elif dtype == "BF16":
        a = array("f")
        raw = b[: len(b) // 2 * 2]
        wide = bytearray(len(raw) * 2)
        wide[2::4] = raw[0::2]
        wide[3::4] = raw[1::2]
        a.frombytes(bytes(wide))
    elif dtype in ("BOOL", "U8"):
        return list(b)
    elif dtype in _INT_CODES:
        # Integer tensors (an int32 / int64 action mask, as Trinity's multi-turn conversion leaves it).
        code, size = _INT_CODES[dtype]
        a = array(code)
        if a.itemsize != size:
            return None
        a.frombytes(b[: len(b) // size * size])
    elif dtype == "F16":
        return list(struct.unpack(f"<{len(b) // 2}e", b[: len(b) // 2 * 2]))
    else:
        return None
    if BIG_ENDIAN:
        a.byteswap()
    return a.tolist()


def _tensor_facts_at(head: bytes, read, at: int, prompt_length: Any) -> dict[str, Any]:
    """Item 0's advantage (mean over its action tokens), response length and trained tokens from
    the safetensors part at `at` (only the header, the mask and the advantages are read)."""
    out: dict[str, Any] = {}
    len_bytes = _bytes_at(head, read, at, 8)
    if len_bytes is None:
        return out
    (n,) = struct.unpack("<Q", len_bytes)
    text = _bytes_at(head, read, at + 8, n)
    if text is None:
        return out
    try:
        header = parse_json(text.decode("utf-8", "replace"))
    except (ValueError, RecursionError):
        return out
    if not isinstance(header, dict):
        return out
    base = at + 8 + n

    def tensor(name: str) -> list[float] | None:
        t = header.get(name)
        offs = t.get("data_offsets") if isinstance(t, dict) else None
        if not isinstance(offs, list) or len(offs) < 2 or not all(isinstance(x, int) and not isinstance(x, bool) for x in offs[:2]):
            return None
        b = _bytes_at(head, read, base + offs[0], offs[1] - offs[0])
        return None if b is None else _floats(b, t.get("dtype"))

    mask = tensor("0:action_mask")
    tokens = header.get("0:tokens")
    shape = tokens.get("shape") if isinstance(tokens, dict) else None
    if mask is not None:
        out["response_tokens"] = len(mask)
        out["trained_tokens"] = sum(1 for m in mask if m and not math.isnan(m))
    elif isinstance(shape, list) and shape and isinstance(shape[0], (int, float)) and not isinstance(shape[0], bool) and prompt_length is not None:
        # No mask stored: Trinity trains on the whole response.
        out["response_tokens"] = out["trained_tokens"] = max(0, shape[0] - prompt_length)
    adv = tensor("0:advantages")
    if not adv:
        return out
    if mask is not None and len(mask) == len(adv):
        picked = [a for a, m in zip(adv, mask) if m and not math.isnan(m)]
    else:
        picked = adv
    if picked:
        out["advantage"] = wire_number(reduce(add, picked, 0.0) / len(picked))
    return out


def _prompt_length(v: Any) -> Any:
    """A number as the Node relay reads one from a pickle (booleans as 0/1); None otherwise."""
    if isinstance(v, bool):
        return 1 if v else 0
    return v if isinstance(v, (int, float)) else None


def summarize_experience(head: bytes, total: int, read) -> dict[str, Any]:
    """metrics and advantage of one experience_bytes value from its first bytes (`head`; `total`
    is its length, `read(start, n)` fetches further ranges); empty when it is not TRXP."""
    layout = trxp_layout(head)
    if layout is None or layout.tensors_at > total:
        return {}
    out: dict[str, Any] = {}
    meta = _bytes_at(head, read, TRXP_HEADER, layout.meta_len)
    first: Any = None
    if meta is not None:
        try:
            first = trxp_first_item(unpickle(meta), _field)
            metrics = numeric_metrics_of(_field(first, "metrics"))
            if metrics:
                out["metrics"] = metrics
            out.update(task_index_of(_field(first, "info")))
        except PickleError as e:
            out["error"] = f"cannot unpickle the experience: {e}"[:500]  # the row is listed without its metrics
    if layout.tensors_at + 8 <= total:
        out.update(_tensor_facts_at(head, read, layout.tensors_at, _prompt_length(_field(first, "prompt_length"))))
    if first is not None:
        status = _field(first, "truncate_status")
        out["truncated"] = isinstance(status, str) and status != ""
        text = _field(first, "response_text")
        out["empty_response"] = out.get("response_tokens") == 0 or (isinstance(text, str) and text.strip() == "")
        if isinstance(text, str) and text.strip() != "":
            out["response_hash"] = response_hash(text)
    return out
