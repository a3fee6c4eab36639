"""Task loading for the native backbone: jsonl / json / csv files or folders; Hugging Face
datasets and parquet files when the ``datasets`` package is installed (else a clear error)."""

from __future__ import annotations

import csv
import importlib
import json
import os
import re
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


#: datasets' split names and the words that name them in a folder's file and folder names
#: (datasets.data_files.SPLIT_KEYWORDS), in its order of splits.
SPLIT_KEYWORDS = {
    "train": ("train", "training"),
    "validation": ("validation", "valid", "dev", "val"),
    "test": ("test", "testing", "eval", "evaluation"),
}
_SEP = r"[-._ 0-9]"
#: data/<split>-00000-of-00001.<ext>, as the Hub and ``push_to_hub`` write a dataset.
_SHARDED = re.compile(r"data/(?P<split>[^/]+)-[0-9]{5}-of-[0-9]{5}[^/]*\.[^/]*")
#: Files a folder may hold beside its data that datasets never reads as rows.
_IGNORED = {
    "README.md",
    "config.json",
    "dataset_info.json",
    "dataset_infos.json",
    "dummy_data.zip",
    "dataset_dict.json",
}
#: datasets' packaged module of each extension this reader knows ("json" reads .json and .jsonl).
_MODULE = {".jsonl": "json", ".json": "json", ".csv": "csv", ".parquet": "parquet"}


def _folder_files(folder: str) -> list[str]:
    """The folder's files, relative with ``/``, sorted, without hidden or ``__special__`` parts."""
    out = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        for f in files:
            if f.startswith((".", "__")) or f in _IGNORED:
                continue
            out.append(os.path.relpath(os.path.join(root, f), folder).replace(os.sep, "/"))
    return sorted(out)


def _keyword_patterns(word: str) -> tuple[list[re.Pattern[str]], list[re.Pattern[str]]]:
    """datasets' patterns for a split word in a folder name, then in a file name."""
    w = re.escape(word)
    in_dir = [
        rf"(?:.*/)?{w}/.*",
        rf"(?:.*/)?{w}{_SEP}[^/]*/.*",
        rf"(?:.*/)?[^/]*{_SEP}{w}/.*",
        rf"(?:.*/)?[^/]*{_SEP}{w}{_SEP}[^/]*/.*",
    ]
    in_name = [rf"(?:.*/)?{w}{_SEP}[^/]*", rf"(?:.*/)?[^/]*{_SEP}{w}{_SEP}[^/]*"]
    return [re.compile(p) for p in in_dir], [re.compile(p) for p in in_name]


def folder_splits(folder: str) -> dict[str, list[str]]:
    """The files of each split of a local folder, in reading order, as ``datasets.load_dataset(folder)``
    finds them (datasets.data_files: the Hub's sharded ``data/<split>-00000-of-00001.*`` names
    first, then a split word in a folder name, then in a file name, else every file is ``train``;
    files sorted within each pattern, patterns in datasets' order)."""
    files = [f for f in _folder_files(folder) if os.path.splitext(f)[1].lower() in _MODULE]
    sharded: dict[str, list[str]] = {}
    for f in files:
        m = _SHARDED.fullmatch(f)
        if m:
            sharded.setdefault(m["split"], []).append(f)
    if sharded:
        order = [s for s in SPLIT_KEYWORDS if s in sharded] + sorted(s for s in sharded if s not in SPLIT_KEYWORDS)
        return {s: sharded[s] for s in order}
    for which in (0, 1):  # split words in folder names, then in file names
        found: dict[str, list[str]] = {}
        for split, words in SPLIT_KEYWORDS.items():
            picked: list[str] = []
            for word in words:
                for pattern in _keyword_patterns(word)[which]:
                    picked += [f for f in files if pattern.fullmatch(f) and f not in picked]
            if picked:
                found[split] = picked
        if found:
            return found
    return {"train": files} if files else {}


def _folder_rows(folder: str, split: str) -> list[Any]:
    """A folder's rows of one split without the datasets package, in datasets' order."""
    splits = folder_splits(folder)
    if not splits:
        raise TaskError(f"{folder}: no jsonl/json/csv/parquet task files in this folder")
    if split not in splits:
        raise TaskError(
            f"{folder}: no split {split!r} here; datasets.load_dataset finds the splits {sorted(splits)} "
            f"(from the file names: {', '.join(f for fs in splits.values() for f in fs[:3])})"
        )
    files = splits[split]
    # datasets reads a split with one module, the one of its most common extension (parquet wins a tie)
    counts: dict[str, int] = {}
    for f in files:
        module = _MODULE[os.path.splitext(f)[1].lower()]
        counts[module] = counts.get(module, 0) + 1
    module = max(counts, key=lambda m: (counts[m], m == "parquet", [-ord(c) for c in m]))
    if module == "parquet":
        raise TaskError(
            f"{folder}: the {split!r} split is parquet files, which need the `datasets` package to read, and it is "
            "not installed in this interpreter (pip install datasets)"
        )
    rows: list[Any] = []
    for f in files:
        if _MODULE[os.path.splitext(f)[1].lower()] == module:
            rows += read_file(os.path.join(folder, f))
    return rows


def _load_dataset(datasets: Any, path: str, name: str | None, split: str) -> list[Any]:
    """Trinity's own read of a taskset (trinity/buffer/reader/file_reader.py TaskFileReader):
    ``load_dataset(path, name=subset_name, split=split)``; a row's index is its task_index."""
    try:
        ds = datasets.load_dataset(path, name=name, split=split)
    except Exception as e:  # the datasets library's own errors, of whatever type, said as a task error
        subset = f", name={name!r}" if name else ""
        hint = ""
        if name and os.path.isdir(path) and isinstance(e, ValueError) and "BuilderConfig" in str(e):
            # a folder of files has only the configurations its README.md declares (a download
            # of the dataset from the Hub keeps that README); Trinity makes the same call
            hint = (
                f" (Trinity-RFT reads the taskset with this same call: subset_name {name!r} must be a "
                "configuration the folder's README.md declares, as in a download of the dataset from "
                "the Hub; or remove subset_name)"
            )
        raise TaskError(f"datasets.load_dataset({path!r}{subset}, split={split!r}) failed: {e}{hint}") from e
    return [dict(r) for r in ds]


def _load_hf(source: Json) -> list[Any]:
    datasets = _datasets(
        f"The taskset {source['path']!r} is not a local file or folder, so it would be a Hugging Face "
        "dataset, but the `datasets` package is not installed in this interpreter. Install it (pip "
        "install datasets) or point the taskset at a local jsonl/json/csv file."
    )
    path, name, split = source["path"], source.get("name"), source.get("split") or "train"
    try:
        return _load_dataset(datasets, path, name, split)
    except TaskError as e:
        if not isinstance(e.__cause__, ConnectionError):
            raise
        cache = getattr(getattr(datasets, "config", None), "HF_DATASETS_CACHE", "the datasets cache")
        raise TaskError(
            f"The taskset {path!r} is a Hugging Face dataset name that is not in this machine's datasets cache "
            f"({cache}) and the Hub could not be reached to fetch it ({e.__cause__}). Load it once here with "
            "datasets.load_dataset, or point the taskset at a local copy."
        ) from e.__cause__


def load_rows(source: Json, cwd: str) -> list[Any]:
    """The rows of a task source (the plan's ``tasks.source``), relative paths from ``cwd``, in
    the order Trinity numbers them (its task_index): a folder or a Hugging Face dataset as
    ``datasets.load_dataset(path, name=subset_name, split=split)`` reads it (without the package,
    a folder of jsonl/json/csv files by the same rules); a single file in its own order."""
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
    split, name = source.get("split") or "train", source.get("name")
    if os.path.isdir(path):
        try:
            datasets = importlib.import_module("datasets")
        except ImportError:
            if name:
                raise TaskError(
                    f"{path}: subset_name {name!r} picks one of the folder's dataset configurations, which needs "
                    "the `datasets` package, and it is not installed in this interpreter (pip install datasets)"
                ) from None
            return _folder_rows(path, split)
        return _load_dataset(datasets, path, name, split)
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
