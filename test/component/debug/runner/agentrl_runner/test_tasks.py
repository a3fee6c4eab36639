"""Task loading (agentrl_runner/tasks.py): files, folders by split, ids, clear errors; a taskset's rows
in Trinity's order (its task_index), against Trinity's own reader."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from agentrl_runner.tasks import TaskError, folder_splits, load_rows, select, select_replayed


def _file(path: str, split: str = "train") -> list:
    return load_rows({"type": "file", "path": path, "split": split}, ".")


def test_tasks_load_from_jsonl_json_csv_and_folders_by_split(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Tasks load from jsonl, json, csv and folders (by split); ids or the first N are picked."""
    (tmp_path / "a.jsonl").write_text('{"id": "x", "q": 1}\n\n{"id": "y", "q": 2}\n')
    (tmp_path / "b.json").write_text(json.dumps({"data": [{"q": 3}]}))
    (tmp_path / "c.csv").write_text("task_id,q\nt1,4\nt2,5\n")
    (tmp_path / "ds").mkdir()
    (tmp_path / "ds" / "train.jsonl").write_text('{"q": "train"}\n')
    (tmp_path / "ds" / "test.jsonl").write_text('{"q": "test"}\n')
    monkeypatch.chdir(tmp_path)
    assert [tid for _, tid, _ in select(_file("a.jsonl"), {"ids": ["y"]})] == ["y"]
    assert _file("b.json") == [{"q": 3}]
    assert [tid for _, tid, _ in select(_file("c.csv"), {"count": 0})] == ["t1", "t2"]
    assert _file("ds", "test") == [{"q": "test"}]


def test_clear_errors_bad_json_line_missing_ids_hf_without_datasets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Clear errors: a bad JSON line, missing ids, a Hugging Face id without `datasets`."""
    (tmp_path / "bad.jsonl").write_text('{"q": 1}\n{oops\n')
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TaskError, match=r"bad\.jsonl:2: not valid JSON"):
        load_rows({"type": "file", "path": "bad.jsonl"}, ".")
    with pytest.raises(TaskError, match=r"task ids not found: nope \(the taskset has 1 rows\)"):
        select(load_rows({"type": "inline", "rows": [{}]}, "."), {"ids": ["nope"]})
    with pytest.raises(
        TaskError, match=r"'openai/gsm8k' is not a local file or folder.*`datasets` package is not installed"
    ):
        load_rows({"type": "hf", "path": "openai/gsm8k", "split": "test"}, ".")


# --- The task of a training rollout, found as Trinity found it -----------------------------------
# Trinity 0.5.2 reads a taskset with datasets.load_dataset(path, name=subset_name, split=split)
# (trinity/buffer/reader/file_reader.py) and numbers the rows in that order: a row's index is the
# rollout's task_index. Our load_rows must give the same rows in the same order.

REPO = Path(__file__).resolve().parents[5]
SHARED = Path(os.environ.get("AGENTRL_SHARED_DIR") or REPO.parent / "shared")
TRINITY_PYTHON = REPO / ".cache" / "trinity-venv" / "bin" / "python"
NO_TRINITY = (
    "needs ../shared (Trinity upstream source and the corpus)"
    if not (SHARED / "corpus").is_dir()
    else "needs .cache/trinity-venv (bash scripts/setup.sh trinity): Trinity's reader and `datasets`"
    if not TRINITY_PYTHON.exists()
    else None
)


@pytest.fixture(scope="module")
def trinity_read(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Every taskset shape, read by Trinity's own TaskFileReader and by ours (trinity_tasksets.py)."""
    if NO_TRINITY:
        pytest.skip(NO_TRINITY)
    tmp = tmp_path_factory.mktemp("tasksets")
    pythonpath = subprocess.run(
        ["bash", str(SHARED / "upstream" / "make-trinity-venv.sh"), "--pythonpath"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    env = {
        **os.environ,
        "PYTHONPATH": f"{pythonpath}{os.pathsep}{REPO / 'src' / 'debug' / 'runner'}",
        "HF_HOME": str(tmp / "hf"),  # a fresh Hugging Face home: the cache holds only what the script puts there
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "TRANSFORMERS_OFFLINE": "1",
        "RAY_USAGE_STATS_ENABLED": "0",
    }
    out = tmp / "read.json"
    script = Path(__file__).with_name("trinity_tasksets.py")
    run = subprocess.run(
        [str(TRINITY_PYTHON), str(script), str(tmp / "work"), str(SHARED / "corpus" / "datasets"), str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=240,
        check=False,
    )
    assert run.returncode == 0, f"{script.name} failed:\n{run.stderr[-3000:]}"
    return json.loads(out.read_text())


#: Folder and Hugging Face shapes: our rows (with datasets) are Trinity's rows, in Trinity's order.
TRINITY_CASES = [
    "hub_parquet:train",  # data/train-00000-of-00002.parquet + data/train-00001-of-00002.parquet
    "hub_parquet:test",
    "hub_jsonl:train",  # the shards written out of order
    "hub_jsonl:test",
    "split_words:train",  # train.jsonl then b-train.jsonl: datasets' pattern order, not the name sort
    "split_words:validation",  # dev.jsonl
    "split_words:test",  # eval.jsonl
    "split_dirs:train",  # training/a.jsonl, training/b.jsonl
    "split_dirs:validation",  # val/x.jsonl
    "no_words:train",  # part-a.jsonl, part-b.jsonl: every file is train
    "subsets:main:train",  # subset_name: the README's configurations, as gsm8k's main / socratic
    "subsets:socratic:test",
    "hf:main:train",  # a Hugging Face dataset in the local cache, offline
    "hf:socratic:test",
]
#: The shapes our reader reads without `datasets` (the native backbone's bare interpreter).
STDLIB_CASES = [c for c in TRINITY_CASES if c.split(":")[0] in {"hub_jsonl", "split_words", "split_dirs", "no_words"}]


@pytest.mark.parametrize("case", TRINITY_CASES)
def test_taskset_rows_and_order_are_trinitys(trinity_read: dict, case: str):
    """The rows of a taskset (folder by split, subset_name, HF cache) and their order are what
    Trinity's own TaskFileReader gives (its task index beside each row)."""
    got = trinity_read[case]
    assert isinstance(got["trinity"], list) and got["trinity"], f"Trinity read nothing: {got['trinity']}"
    assert [i for i, _ in got["trinity"]] == list(range(len(got["trinity"])))
    assert got["ours"] == got["trinity"]


@pytest.mark.parametrize("case", STDLIB_CASES)
def test_taskset_rows_without_datasets_are_trinitys(trinity_read: dict, case: str):
    """Without the `datasets` package, a folder of jsonl files by split still gives Trinity's rows in its order."""
    got = trinity_read[case]
    assert got["stdlib"] == got["trinity"]


def test_taskset_shapes_that_need_datasets_say_so(trinity_read: dict):
    """Without `datasets`: parquet shards, subset_name and a Hugging Face name each say what they need."""
    for case in ("hub_parquet:train", "subsets:socratic:test", "hf:main:train"):
        err = trinity_read[case]["stdlib"]
        assert isinstance(err, dict), case
        assert re.search(r"`datasets` package.*not installed", err["error"]), err
    assert "subset_name 'socratic'" in trinity_read["subsets:socratic:test"]["stdlib"]["error"]


@pytest.mark.parametrize("case", ["single_parquet", "single_jsonl"])
def test_single_file_reads_as_datasets_reader_of_its_type(trinity_read: dict, case: str):
    """A taskset path naming one file (which Trinity's load_dataset(path) does not take: it wants
    a folder or a dataset name) reads as datasets' own reader of its type reads it."""
    got = trinity_read[case]
    assert "Couldn't find any data file" in got["trinity"]["error"]
    assert got["ours"] == got["datasets"] and len(got["ours"]) >= 4
    if case == "single_jsonl":  # read without datasets, as the native backbone does
        assert got["stdlib"] == got["datasets"]


def test_subset_name_a_plain_folder_does_not_declare_fails_as_in_trinity_saying_why(trinity_read: dict):
    """subset_name on a folder of jsonl files without a README that declares it: Trinity's own
    reader refuses it, and so does ours, saying what the folder needs (or to drop subset_name)."""
    got = trinity_read["no_words:subset"]
    assert "BuilderConfig 'main' not found" in got["trinity"]["error"]
    assert "BuilderConfig 'main' not found" in got["ours"]["error"]
    assert "README.md declares" in got["ours"]["error"] and "remove subset_name" in got["ours"]["error"]


def test_hf_dataset_not_in_cache_says_so(trinity_read: dict):
    """A Hugging Face name that is not in the local cache, offline: said as that, with the cache's place."""
    err = trinity_read["hf:missing"]["ours"]["error"]
    assert (
        "'agentrl-test/not_cached' is a Hugging Face dataset name that is not in this machine's datasets cache" in err
    )
    assert "hf" in err and "Couldn't reach" in err


def _no_datasets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "datasets", None)  # import datasets -> ImportError


def _jsonl(path: Path, rows: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))


def test_folder_splits_as_datasets_names_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A folder's splits by datasets' rules: sharded data/<split>-N-of-M first, else split words
    (dev is validation, eval is test), else every file is train; an unknown split lists the known."""
    _no_datasets(monkeypatch)
    _jsonl(tmp_path / "a" / "data" / "train-00001-of-00002.jsonl", [{"q": 2}])
    _jsonl(tmp_path / "a" / "data" / "train-00000-of-00002.jsonl", [{"q": 1}])
    _jsonl(tmp_path / "a" / "other.jsonl", [{"q": "ignored: the shards name the splits"}])
    assert folder_splits(str(tmp_path / "a")) == {
        "train": ["data/train-00000-of-00002.jsonl", "data/train-00001-of-00002.jsonl"]
    }
    assert load_rows({"type": "file", "path": "a", "split": "train"}, str(tmp_path)) == [{"q": 1}, {"q": 2}]
    _jsonl(tmp_path / "b" / "dev.jsonl", [{"q": "dev"}])
    _jsonl(tmp_path / "b" / "eval.jsonl", [{"q": "eval"}])
    assert load_rows({"type": "file", "path": "b", "split": "validation"}, str(tmp_path)) == [{"q": "dev"}]
    with pytest.raises(
        TaskError, match=r"no split 'dev' here; datasets\.load_dataset finds the splits \['test', 'validation'\]"
    ):
        load_rows({"type": "file", "path": "b", "split": "dev"}, str(tmp_path))
    _jsonl(tmp_path / "c" / "z.jsonl", [{"q": "z"}])
    _jsonl(tmp_path / "c" / "y.jsonl", [{"q": "y"}])
    assert load_rows({"type": "file", "path": "c", "split": "train"}, str(tmp_path)) == [{"q": "y"}, {"q": "z"}]


def test_task_not_found_messages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """A task that cannot be found says why: an index past the end, a taskset not here, no
    `datasets` for a Hugging Face name; the recorded first user message stands in."""
    _no_datasets(monkeypatch)
    _jsonl(tmp_path / "t.jsonl", [{"q": 0}, {"q": 1}])

    def find(source: dict, index: int) -> tuple:
        picked, found = select_replayed(source, str(tmp_path), [{"key": 7, "index": index, "fallback": "first user"}])
        return picked[0], found[0]

    (_, tid, row), info = find({"type": "file", "path": "t.jsonl"}, 1)
    assert (tid, row, info["found"]) == ("exp7", {"q": 1}, True)
    (_, _, row), info = find({"type": "file", "path": "t.jsonl"}, 2)
    assert (row, info["found"], info["rows"]) == ("first user", False, 2)
    assert info["why"] == "task_index 2 is past the end of the taskset (2 rows)"
    (_, _, row), info = find({"type": "file", "path": "gone.jsonl"}, 0)
    assert (
        row == "first user"
        and info["why"] == f"the taskset could not be read here: task file not found: {tmp_path / 'gone.jsonl'}"
    )
    (_, _, row), info = find({"type": "hf", "path": "openai/gsm8k", "split": "train"}, 0)
    assert row == "first user"
    assert info["why"].startswith("the taskset could not be read here: The taskset 'openai/gsm8k' is not a local")
    assert re.search(r"`datasets` package is not installed", info["why"])
