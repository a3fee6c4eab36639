"""The messages each convert_messages_to_experience call was given, found again by the token ids
it returned. Trinity's Workflow.process_messages_to_experience rebuilds the converted Experience
without its messages (Trinity's ``workflow.py``, _build_experience_from_converted), so the action
mask of what the workflow returns could not be located on turns. The rebuilt Experience is
another object: it is matched by its token ids, never by identity.

One store per episode, cleared when the episode ends, holding at most ``limit`` conversions (the
oldest go first) under a digest of their ids, not the ids themselves."""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any, Dict, NamedTuple, Sequence, Tuple

from agentrl_runner.values import jsonable

Json = Dict[str, Any]
_Key = Tuple[int, bytes]

#: Conversions one episode keeps: a workflow converts its finished conversations, a few per episode.
MAX_CONVERSIONS = 32


class Conversion(NamedTuple):
    """What one conversion was given (a JSON-safe copy: the workflow may go on editing its list)."""

    messages: list[Json]
    tools: list[Json] | None


def _key(ids: Sequence[int]) -> _Key:
    return len(ids), hashlib.sha256(",".join(str(int(i)) for i in ids).encode()).digest()


class Conversions:
    """convert_messages_to_experience's messages and tools by the ids it returned. Calls may come
    from several threads (an executor, the openai client's), so every access is locked."""

    def __init__(self, limit: int = MAX_CONVERSIONS) -> None:
        self._limit = limit
        self._items: OrderedDict[_Key, Conversion] = OrderedDict()
        self._lock = threading.Lock()

    def record(self, ids: Sequence[int], messages: Any, tools: Any = None) -> None:
        """Keeps what the conversion to ``ids`` was given (the newest conversion to the same ids wins)."""
        if not isinstance(messages, list) or not messages:
            return
        found = Conversion(jsonable(messages), jsonable(tools) if tools else None)
        key = _key(ids)
        with self._lock:
            self._items.pop(key, None)
            self._items[key] = found
            while len(self._items) > self._limit:
                self._items.popitem(last=False)

    def find(self, ids: Sequence[int]) -> Conversion | None:
        """The conversion that returned exactly ``ids``, if one was kept."""
        key = _key(ids)
        with self._lock:
            return self._items.get(key)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
