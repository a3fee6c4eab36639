"""JSON-ish values: a JSON-safe copy of anything a workflow returns, and JSON objects with
attribute access (what the OpenAI SDK's pydantic models look like to a workflow)."""

from __future__ import annotations

import contextlib
import json
import math
from typing import Any, Dict

#: Deeper than this, a value is shown by its repr (a cycle, or a runaway structure).
MAX_DEPTH = 12


def to_builtin(o: Any) -> Any:
    """``o`` as builtin types via the conversions objects commonly offer (json.dumps' default)."""
    # A conversion that raises falls through to the next one.
    for attr in ("model_dump", "to_dict", "_asdict", "tolist"):
        fn = getattr(o, attr, None)
        if callable(fn):
            with contextlib.suppress(Exception):
                return fn()
    if isinstance(o, (set, tuple)):
        return list(o)
    if hasattr(o, "__dict__"):
        return {k: v for k, v in vars(o).items() if not k.startswith("_")}
    return repr(o)


def jsonable(value: Any, depth: int = 0) -> Any:
    """A JSON-safe copy of ``value`` (objects become dicts, unknowns their repr)."""
    if depth > MAX_DEPTH:
        return repr(value)
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else repr(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [jsonable(v, depth + 1) for v in value]
    return jsonable(to_builtin(value), depth + 1)


class Obj(Dict[str, Any]):
    """A JSON object with attribute access, standing in for the SDK's pydantic models."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return wrap(self[name])
        except KeyError:
            return None

    def __getitem__(self, key: str) -> Any:
        return wrap(dict.__getitem__(self, key))

    def model_dump(self, **_: Any) -> dict[str, Any]:
        return json.loads(json.dumps(self))

    to_dict = model_dump


def wrap(v: Any) -> Any:
    """``v`` with every dict inside made an :class:`Obj`."""
    if isinstance(v, dict) and not isinstance(v, Obj):
        return Obj(v)
    if isinstance(v, list):
        return [wrap(x) for x in v]
    return v


def to_attr(v: Any) -> Any:
    """A config (nested dicts and lists) with attribute access at every level."""
    if isinstance(v, dict):
        return Obj({k: to_attr(x) for k, x in v.items()})
    if isinstance(v, list):
        return [to_attr(x) for x in v]
    return v


def as_dict(resp: Any) -> dict[str, Any]:
    """A chat completion as a dict, whether the SDK's model or a plain dict."""
    if isinstance(resp, dict):
        return resp
    dump = getattr(resp, "model_dump", None)
    return dump() if callable(dump) else {}
