"""Loading the run's tokenizer (agentrl_runner/tokenizer.py): what is tried before transformers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agentrl_runner import tokenizer as t


@pytest.fixture(autouse=True)
def _fresh(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(t, "_cache", {})
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))


def test_a_path_neither_a_folder_nor_downloaded_is_refused_without_importing_transformers(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    def never() -> Any:
        raise AssertionError("transformers imported for a model that cannot load")

    monkeypatch.setattr(t, "_auto_tokenizer", never)
    for path in ("stand-in", "Qwen/Qwen2.5-7B-Instruct", str(tmp_path / "gone")):
        with pytest.raises(t.TokenizerUnavailable) as e:
            t.load_tokenizer(path)
        assert f"could not load the tokenizer of {path!r} offline" in str(e.value)
        assert str(tmp_path / "hub") in str(e.value)


def test_a_downloaded_model_goes_to_transformers_offline(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "hub" / "models--Qwen--Qwen2.5-7B-Instruct").mkdir(parents=True)
    calls: list[tuple[str, dict[str, Any]]] = []

    class Auto:
        @staticmethod
        def from_pretrained(path: str, **kw: Any) -> Any:
            calls.append((path, kw))
            raise ValueError("no tokenizer.json in the snapshot")

    monkeypatch.setattr(t, "_auto_tokenizer", lambda: Auto)
    with pytest.raises(t.TokenizerUnavailable) as e:
        t.load_tokenizer("Qwen/Qwen2.5-7B-Instruct")
    assert calls == [("Qwen/Qwen2.5-7B-Instruct", {"local_files_only": True, "trust_remote_code": False})]
    assert "ValueError: no tokenizer.json in the snapshot" in str(e.value)


def test_the_hub_cache_follows_hf_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv("HF_HUB_CACHE")
    monkeypatch.delenv("HUGGINGFACE_HUB_CACHE", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    assert t._hub_cache() == str(tmp_path / "hf" / "hub")
