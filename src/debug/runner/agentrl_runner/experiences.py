"""Trinity's experience rows, as ``trinity debug`` leaves them in experiences.db (table
debug_buffer): each row's ``experience_bytes`` is a TRXP row (agentrl_runner/trxp.py, the
relay's reader of the layout) whose first item's metadata an episode shows; its tensors are not
read. Rows of older Trinity versions are a plain pickle of an Experience: only their columns are
kept."""

from __future__ import annotations

import io
import pickle
import sqlite3
from typing import Any, TypedDict

from agentrl_runner.trxp import trxp_first_item, trxp_metadata
from agentrl_runner.values import jsonable

#: Larger metadata is not unpickled (as in the relay's detail of a row).
MAX_META = 16 * 1024 * 1024
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


class _BuiltinsOnly(pickle.Unpickler):
    """The metadata is a pickle of builtin types only: refuse anything that names a class."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"refusing to load {module}.{name} from an experience buffer")


def _key(value: Any, name: str) -> Any:
    return value.get(name) if isinstance(value, dict) else None


def decode_metadata(blob: bytes) -> dict[str, Any]:
    """The first item of a TRXP row's metadata (a dict of builtin values); TrxpError for a row
    that is no TRXP or is cut short."""
    meta = _BuiltinsOnly(io.BytesIO(trxp_metadata(blob, MAX_META))).load()
    first = trxp_first_item(meta, _key)
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
