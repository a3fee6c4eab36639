"""Task loading for the native backbone: jsonl / json / csv files or folders; Hugging Face
datasets and parquet files when the ``datasets`` package is installed (else a clear error)."""

from __future__ import annotations

import csv
import glob
import importlib
import json
import os
from typing import Any, Tuple

from agentrl_runner.protocol import Json, TaskSelection

DATA_EXT = (".jsonl", ".json", ".csv", ".parquet")

#: (row index, task id, row) of a picked task.
PickedTask = Tuple[int, str, Any]


class TaskError(Exception):
    pass


def _datasets(why: str) -> Any:
    """The ``datasets`` package, or a TaskError saying what needs it and how to get it."""
    try:
        return importlib.import_module("datasets")
    except ImportError:
        raise TaskError(why) from None


def _read_jsonl(path: str) -> list[Any]:
    rows = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line:
                continue
            try:
                rows.append(json.loads(line))
            except ValueError as e:
                raise TaskError(f"{path}:{n}: not valid JSON ({e})") from None
    return rows


def _read_json(path: str) -> list[Any]:
    with open(path, encoding="utf-8") as f:
        try:
            data = json.load(f)
        except ValueError as e:
            raise TaskError(f"{path}: not valid JSON ({e})") from None
    if isinstance(data, dict):
        for key in ("data", "rows", "tasks", "train", "test", "validation"):
            if isinstance(data.get(key), list):
                return data[key]
        raise TaskError(f"{path}: expected a list of tasks (or an object with a 'data' list)")
    if not isinstance(data, list):
        raise TaskError(f"{path}: expected a list of tasks")
    return data


def _read_csv(path: str) -> list[Any]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _read_parquet(path: str) -> list[Any]:
    datasets = _datasets(
        f"{path} needs the `datasets` package to read, and it is not installed in this interpreter "
        "(pip install datasets), or convert the file to jsonl/json/csv"
    )
    return [dict(r) for r in datasets.load_dataset("parquet", data_files=path, split="train")]


def read_file(path: str) -> list[Any]:
    ext = os.path.splitext(path)[1].lower()
    if ext == ".jsonl":
        return _read_jsonl(path)
    if ext == ".json":
        return _read_json(path)
    if ext == ".csv":
        return _read_csv(path)
    if ext == ".parquet":
        return _read_parquet(path)
    raise TaskError(f"{path}: unsupported task file type {ext!r} (use jsonl, json or csv)")


def _pick_in_dir(folder: str, split: str) -> list[str]:
    pattern = os.path.join(folder, "**", "*")
    files = sorted(f for f in glob.glob(pattern, recursive=True) if f.lower().endswith(DATA_EXT))
    if not files:
        raise TaskError(f"{folder}: no jsonl/json/csv task files in this folder")
    by_split = [f for f in files if os.path.basename(f).split(".")[0].split("-")[0] == split]
    if by_split:
        return by_split
    if len(files) == 1:
        return files
    names = ", ".join(os.path.relpath(f, folder) for f in files[:6])
    raise TaskError(
        f"{folder}: no file for split {split!r} among {names} (name one <split>.jsonl, or point the taskset at a file)"
    )


def _load_hf(source: Json) -> list[Any]:
    datasets = _datasets(
        f"The taskset {source['path']!r} is not a local file or folder, so it would be a Hugging Face "
        "dataset, but the `datasets` package is not installed in this interpreter. Install it (pip "
        "install datasets) or point the taskset at a local jsonl/json/csv file."
    )
    try:
        ds = datasets.load_dataset(source["path"], source.get("name"), split=source.get("split") or "train")
    except Exception as e:  # the datasets library's own errors, of whatever type, said as a task error
        raise TaskError(f"datasets.load_dataset({source['path']!r}, split={source.get('split')!r}) failed: {e}") from e
    return [dict(r) for r in ds]


def load_rows(source: Json, cwd: str) -> list[Any]:
    """The rows of a task source (the plan's ``tasks.source``), relative paths from ``cwd``."""
    kind = source.get("type")
    if kind == "inline":
        return list(source.get("rows") or [])
    if kind == "hf":
        return _load_hf(source)
    if kind != "file":
        raise TaskError(f"unknown task source {kind!r}")
    path = source["path"]
    if not os.path.isabs(path):
        path = os.path.join(cwd, path)
    if os.path.isdir(path):
        rows = []
        for f in _pick_in_dir(path, source.get("split") or "train"):
            rows += read_file(f)
        return rows
    if not os.path.exists(path):
        raise TaskError(f"task file not found: {path}")
    return read_file(path)


def task_id(row: Any, index: int, id_key: str | None = None) -> str:
    if isinstance(row, dict):
        for key in ([id_key] if id_key else []) + ["id", "task_id"]:
            if key in row and row[key] is not None and str(row[key]) != "":
                return str(row[key])
    return str(index)


def select(rows: list[Any], spec: TaskSelection) -> list[PickedTask]:
    """The tasks the launch configuration asked for: explicit ids (or row indexes), else the
    first ``count`` (0 or less: all; default 1)."""
    all_rows = [(i, task_id(r, i, spec.get("idKey")), r) for i, r in enumerate(rows)]
    ids = spec.get("ids")
    if ids:
        by_id = {tid: (i, tid, r) for i, tid, r in all_rows}
        by_index = {str(i): (i, tid, r) for i, tid, r in all_rows}
        picked: list[PickedTask] = []
        missing: list[str] = []
        for wanted in (str(x) for x in ids):
            hit = by_id.get(wanted) or by_index.get(wanted)
            if hit:
                picked.append(hit)
            else:
                missing.append(wanted)
        if missing:
            raise TaskError(f"task ids not found: {', '.join(missing)} (the taskset has {len(rows)} rows)")
        return picked
    count = spec.get("count")
    if count is None:
        count = 1
    return all_rows if count <= 0 else all_rows[:count]


def select_replayed(source: Json, cwd: str, specs: list[Json]) -> tuple[list[PickedTask], list[Json]]:
    """The tasks of replayed experiences: each the taskset row at its ``index`` (Trinity's
    task_index, as its task reader numbers rows), else its ``fallback`` (the recorded first user
    message), with why. A task's id is ``exp<key>``, so its episode names the experience."""
    rows: list[Any] | None = None
    unread: str | None = None
    if any(s.get("index") is not None for s in specs):
        try:
            rows = load_rows(source, cwd)
        except Exception as e:  # a taskset that is not here (file, folder, HF cache): said, then the fallback
            unread = f"the taskset could not be read here: {e}"
    picked: list[PickedTask] = []
    found: list[Json] = []
    for spec in specs:
        key, index = str(spec["key"]), spec.get("index")
        count = None if rows is None else len(rows)
        info: Json = {"key": key, "found": False, "index": index, "rows": count, "why": spec.get("why")}
        if index is not None and rows is not None and 0 <= index < len(rows):
            info.update(found=True, why=None)
            picked.append((index, f"exp{key}", rows[index]))
        else:
            if index is not None:
                info["why"] = unread or f"task_index {index} is past the end of the taskset ({len(rows or [])} rows)"
            info["standIn"] = spec.get("standIn")
            picked.append((index if isinstance(index, int) else 0, f"exp{key}", spec.get("fallback")))
        found.append(info)
    return picked, found
