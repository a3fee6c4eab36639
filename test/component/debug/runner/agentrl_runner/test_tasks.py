"""Task loading (agentrl_runner/tasks.py): files, folders by split, ids, clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentrl_runner.tasks import TaskError, load_rows, select


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
