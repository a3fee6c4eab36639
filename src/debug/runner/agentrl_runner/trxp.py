"""Trinity's experience rows, as ``trinity debug`` leaves them in experiences.db (table
debug_buffer): each row's ``experience_bytes`` is b"TRXP", a version byte, the metadata length
and the tensor length (uint64 little-endian each), the metadata (a pickle of
{version, num_items, items: [...]}) and the tensors (safetensors, not read here). Rows of
older Trinity versions are a plain pickle of an Experience: only their columns are kept."""

from __future__ import annotations

import io
import pickle
import sqlite3
import struct
from typing import Any, TypedDict

from agentrl_runner.values import jsonable

MAGIC = b"TRXP"
_LENGTHS = struct.Struct("<QQ")
HEADER = len(MAGIC) + 1 + _LENGTHS.size
#: What an episode keeps of its experience's metadata.
KEPT = ("response_text", "prompt_text", "messages", "info")


class EpisodeRow(TypedDict):
    """An episode as the extension's trajectories are written (EpisodeTrajectory), no turns."""

    episode: str
    taskIndex: int
    taskId: str
    repeat: int
    task: None
    turns: list[Any]
    reward: Any
    metrics: dict[str, Any]
    metadata: dict[str, Any]
    experiences: list[Any]


class TrxpError(ValueError):
    pass


class _BuiltinsOnly(pickle.Unpickler):
    """The metadata is a pickle of builtin types only: refuse anything that names a class."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from an experience buffer")


def decode_metadata(blob: bytes) -> dict[str, Any]:
    """The first item of a TRXP row's metadata (a dict of builtin values)."""
    if blob[: len(MAGIC)] != MAGIC or len(blob) < HEADER:
        raise TrxpError("not a TRXP experience row")
    meta_len, _tensor_len = _LENGTHS.unpack_from(blob, len(MAGIC) + 1)
    if meta_len > len(blob) - HEADER:
        raise TrxpError(f"experience row truncated ({len(blob)} bytes, metadata {meta_len})")
    meta = _BuiltinsOnly(io.BytesIO(blob[HEADER : HEADER + meta_len])).load()
    items = (meta.get("items") if isinstance(meta, dict) else None) or [{}]
    first = items[0]
    return first if isinstance(first, dict) else {}


def read_experiences(db: str) -> list[EpisodeRow]:
    """The episodes of an experiences.db, in row order."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = con.execute("SELECT task_id, run_id, reward, experience_bytes FROM debug_buffer ORDER BY id").fetchall()
    finally:
        con.close()
    out: list[EpisodeRow] = []
    for i, (task_id, run_id, reward, blob) in enumerate(rows):
        try:
            meta = decode_metadata(bytes(blob or b""))
        except Exception as e:  # a corrupt or legacy row keeps its columns
            meta = {"note": f"experience not decoded: {e}"}
        out.append(
            {
                "episode": f"T{task_id}#R{run_id}",
                "taskIndex": i,
                "taskId": str(task_id),
                "repeat": int(run_id or 0),
                "task": None,
                "turns": [],
                "reward": reward,
                "metrics": jsonable(meta.get("metrics") or {}),
                "metadata": jsonable({k: meta.get(k) for k in KEPT if meta.get(k) is not None}),
                "experiences": [],
            }
        )
    return out
