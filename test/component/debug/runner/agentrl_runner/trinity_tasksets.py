"""Tasksets of every shape Trinity reads, each read three ways, for test_tasks.py.

Run by the Trinity venv (``datasets`` and Trinity 0.5.2's source on PYTHONPATH, hub offline,
HF_HOME a fresh folder): ``python trinity_tasksets.py WORK_DIR CORPUS_DATASETS OUT_JSON`` writes the
tasksets under WORK_DIR from the corpus rows (gsm8k, countdown), then OUT_JSON, one object
(not to stdout, where Trinity logs):
for each case, the rows with their indexes as Trinity's own ``TaskFileReader`` gives them
(``trinity``), as our runner's ``load_rows`` gives them (``ours``), and as ``load_rows`` gives
them when ``datasets`` cannot be imported (``stdlib``); or ``{"error": "..."}`` for a reader
that could not read the case. A single file (not a taskset path Trinity can read) is also read
with ``datasets``' own packaged reader of its type (``datasets``).

The Hugging Face cache case is laid out as ``load_dataset`` of a hub dataset leaves it:
``<HF_HOME>/datasets/<namespace>___<name>/<config>/<version>/<commit>/<name>-<split>.arrow``
with its ``dataset_info.json``, written by datasets' own parquet builder (for a folder, then
moved under the namespaced name, as nothing here may reach the hub).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from typing import Any, Callable

import pyarrow as pa
import pyarrow.parquet as pq
from datasets import config as ds_config
from datasets import load_dataset
from datasets.packaged_modules.parquet.parquet import Parquet
from trinity.buffer.reader.file_reader import TaskFileReader
from trinity.common.config import TasksetConfig

from agentrl_runner.tasks import load_rows


def jsonl(path: str, rows: list[Any]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in rows)


def parquet(path: str, rows: list[Any]) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), path)


def trinity_rows(path: str, split: str, subset: str | None) -> Any:
    """Trinity's own read: its taskset config, its TaskFileReader, each task's index and row."""
    cfg = TasksetConfig(
        name="t", path=path, split=split, subset_name=subset, default_workflow_type="math_workflow", is_eval=True
    ).to_storage_config()
    reader = TaskFileReader(cfg)
    tasks = reader.read(len(reader))
    return [[t.index["index"], t.raw_task] for t in tasks]


def without_datasets(read: Callable[[], Any]) -> Any:
    saved = {k: v for k, v in sys.modules.items() if k == "datasets"}
    sys.modules["datasets"] = None  # type: ignore[assignment]  # import datasets -> ImportError
    try:
        return read()
    finally:
        del sys.modules["datasets"]
        sys.modules.update(saved)


def attempt(read: Callable[[], Any]) -> Any:
    try:
        return read()
    except Exception as e:  # what a reader says when it cannot read the case, compared by the test
        return {"error": f"{type(e).__name__}: {e}"}


def indexed(rows: list[Any]) -> list[Any]:
    return [[i, r] for i, r in enumerate(rows)]


def read_case(source: dict[str, Any], subset: str | None, work: str) -> dict[str, Any]:
    path, split = source["path"], source["split"]
    return {
        "trinity": attempt(lambda: trinity_rows(path, split, subset)),
        "ours": attempt(lambda: indexed(load_rows(source, work))),
        "stdlib": attempt(lambda: without_datasets(lambda: indexed(load_rows(source, work)))),
    }


def hf_cache_dataset(repo_id: str, configs: dict[str, dict[str, list[Any]]], src: str) -> None:
    namespace, name = repo_id.split("/")
    tmp = tempfile.mkdtemp()
    for cfg, splits in configs.items():
        files = {}
        for split, rows in splits.items():
            files[split] = os.path.join(src, cfg, f"{split}.parquet")
            parquet(files[split], rows)
        Parquet(
            cache_dir=tmp, dataset_name=name, config_name=cfg, config_id=cfg, hash="0123456789abcdef", data_files=files
        ).download_and_prepare()
    shutil.move(os.path.join(tmp, name), os.path.join(ds_config.HF_DATASETS_CACHE, f"{namespace}___{name}"))


def main(work: str, corpus: str, out_json: str) -> None:
    def rows(name: str) -> list[Any]:
        with open(os.path.join(corpus, name), encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]

    gsm_train, gsm_test = rows("gsm8k/train.jsonl"), rows("gsm8k/test.jsonl")
    cd_train, cd_test = rows("countdown/train.jsonl"), rows("countdown/test.jsonl")

    # as the Hub and push_to_hub write a dataset: data/<split>-0000i-of-0000n.parquet
    hub = os.path.join(work, "hub_parquet")
    parquet(f"{hub}/data/train-00000-of-00002.parquet", gsm_train[:9])
    parquet(f"{hub}/data/train-00001-of-00002.parquet", gsm_train[9:])
    parquet(f"{hub}/data/test-00000-of-00001.parquet", gsm_test)
    hub_jsonl = os.path.join(work, "hub_jsonl")
    jsonl(f"{hub_jsonl}/data/train-00001-of-00002.jsonl", cd_train[8:])
    jsonl(f"{hub_jsonl}/data/train-00000-of-00002.jsonl", cd_train[:8])
    jsonl(f"{hub_jsonl}/data/test-00000-of-00001.jsonl", cd_test)
    jsonl(f"{hub_jsonl}/README.md", [])
    # split words in file names: train.jsonl comes before b-train.jsonl (datasets' pattern order, not the sort)
    words = os.path.join(work, "split_words")
    jsonl(f"{words}/train.jsonl", cd_train[:3])
    jsonl(f"{words}/b-train.jsonl", cd_train[3:5])
    jsonl(f"{words}/dev.jsonl", cd_test[:1])
    jsonl(f"{words}/eval.jsonl", cd_test[1:3])
    # split words in folder names
    dirs = os.path.join(work, "split_dirs")
    jsonl(f"{dirs}/training/b.jsonl", cd_train[5:7])
    jsonl(f"{dirs}/training/a.jsonl", cd_train[7:9])
    jsonl(f"{dirs}/val/x.jsonl", cd_test[:2])
    # no split words: every file is train, in name order
    plain = os.path.join(work, "no_words")
    jsonl(f"{plain}/part-b.jsonl", gsm_train[:2])
    jsonl(f"{plain}/part-a.jsonl", gsm_train[2:5])
    # subset_name: a folder with configurations in its README, as gsm8k's (main, socratic)
    subsets = os.path.join(work, "subsets")
    parquet(f"{subsets}/main/train-00000-of-00001.parquet", gsm_train[:6])
    parquet(f"{subsets}/main/test-00000-of-00001.parquet", gsm_test)
    parquet(f"{subsets}/socratic/train-00000-of-00001.parquet", gsm_train[6:])
    parquet(f"{subsets}/socratic/test-00000-of-00001.parquet", gsm_test[::-1])
    readme = ["---", "configs:"]
    for cfg in ("main", "socratic"):
        readme += [f"- config_name: {cfg}", "  data_files:"]
        readme += [f"  - split: {s}\n    path: {cfg}/{s}-*" for s in ("train", "test")]
    with open(f"{subsets}/README.md", "w", encoding="utf-8") as f:
        f.write("\n".join(readme + ["---", "", "gsm8k-like"]) + "\n")
    # a dataset in the local Hugging Face cache, two configurations
    hf_cache_dataset(
        "agentrl-test/tiny_gsm8k",
        {
            "main": {"train": gsm_train[:10], "test": gsm_test},
            "socratic": {"train": gsm_train[10:], "test": gsm_test[:1]},
        },
        os.path.join(work, "hf_src"),
    )
    single = os.path.join(work, "single.parquet")
    parquet(single, cd_train[:6])
    single_jsonl = os.path.join(work, "single.jsonl")
    jsonl(single_jsonl, gsm_train[:4])

    cases: dict[str, tuple[str, str, str | None]] = {
        "hub_parquet:train": (hub, "train", None),
        "hub_parquet:test": (hub, "test", None),
        "hub_jsonl:train": (hub_jsonl, "train", None),
        "hub_jsonl:test": (hub_jsonl, "test", None),
        "split_words:train": (words, "train", None),
        "split_words:validation": (words, "validation", None),
        "split_words:test": (words, "test", None),
        "split_dirs:train": (dirs, "train", None),
        "split_dirs:validation": (dirs, "validation", None),
        "no_words:train": (plain, "train", None),
        "no_words:subset": (plain, "train", "main"),  # a subset_name the plain folder does not declare
        "subsets:main:train": (subsets, "train", "main"),
        "subsets:socratic:test": (subsets, "test", "socratic"),
        "hf:main:train": ("agentrl-test/tiny_gsm8k", "train", "main"),
        "hf:socratic:test": ("agentrl-test/tiny_gsm8k", "test", "socratic"),
        "hf:missing": ("agentrl-test/not_cached", "train", None),
        "single_parquet": (single, "train", None),
        "single_jsonl": (single_jsonl, "train", None),
    }
    out: dict[str, Any] = {}
    for case, (path, split, subset) in cases.items():
        kind = "file" if os.path.exists(path) else "hf"
        source = {"type": kind, "path": path, "split": split, **({"name": subset} if subset else {})}
        out[case] = read_case(source, subset, work)
    for case, kind, path in (("single_parquet", "parquet", single), ("single_jsonl", "json", single_jsonl)):
        out[case]["datasets"] = indexed([dict(r) for r in load_dataset(kind, data_files=path, split="train")])
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump(out, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3])
