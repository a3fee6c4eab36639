"""The model's tokenizer, for what Trinity's inference engine computes from token ids:
get_message_token_len, convert_messages_to_experience, prompt ids when an endpoint does not
return them. Loaded lazily from ``model_path`` (a Hugging Face id in the local cache, a model
folder, or a folder holding a .gguf file) when ``transformers`` is importable; loading never
touches the network (HF_HUB_OFFLINE is honoured, local files only)."""

from __future__ import annotations

import importlib
import os
import threading
from typing import Any, Dict, List, Optional, Tuple

from agentrl_runner.optional import optional_module

Messages = List[Dict[str, Any]]
_Key = Tuple[str, Optional[str], Optional[bool]]

# Episodes run on several threads: one load per model, under a lock (importing transformers
# from two threads at once can fail half-way in one of them), shared by every wrapper.
_lock = threading.Lock()
_cache: dict[_Key, Tokenizer | TokenizerUnavailable] = {}


class TokenizerUnavailable(Exception):
    pass


class Tokenizer:
    def __init__(self, hf: Any, chat_template: str | None = None, enable_thinking: bool | None = None) -> None:
        self.hf = hf
        self.chat_template = chat_template
        self.enable_thinking = enable_thinking

    def _template(self, messages: Messages, tools: list[Any] | None = None, **kw: Any) -> str:
        args: dict[str, Any] = {"tokenize": False, "chat_template": self.chat_template}
        if tools:
            args["tools"] = tools
        if self.enable_thinking is not None:
            args["enable_thinking"] = self.enable_thinking
        args.update(kw)
        return self.hf.apply_chat_template(messages, **args)

    def prompt_ids(self, messages: Messages, tools: list[Any] | None = None) -> list[int]:
        """Token ids of the prompt the engine builds for ``messages`` (generation prompt added,
        or the last assistant message continued), as BaseInferenceModel.apply_chat_template."""
        if messages and messages[-1].get("role") == "assistant":
            text = self._template(messages, tools, continue_final_message=True)
        else:
            text = self._template(messages, tools, add_generation_prompt=True)
        return self.encode(text)

    def encode(self, text: str) -> list[int]:
        return list(self.hf(text, truncation=False)["input_ids"])

    def decode(self, ids: list[int]) -> str:
        return self.hf.decode(list(ids))

    def message_token_len(self, messages: Messages) -> int:
        """vllm_model.get_message_token_len: the generation prompt's length in tokens."""
        return len(self.encode(self._template(messages, add_generation_prompt=True)))

    def tokens_and_mask(self, messages: Messages, tools: list[Any] | None = None) -> tuple[list[int], list[bool], int]:
        """(token ids, action mask, prompt length) of a whole conversation, with Trinity's own
        action-mask method when trinity is importable (trinity.common.models.utils)."""
        utils = optional_module("trinity.common.models.utils")
        if utils is not None:
            method = utils.get_action_mask_method(self.chat_template)
            ids, mask, prompt_length = method(
                tokenizer=self.hf,
                messages=messages,
                tools=tools,
                chat_template=self.chat_template,
                enable_thinking=self.enable_thinking,
            )
            return [int(x) for x in ids], [bool(x) for x in mask], int(prompt_length)
        # Without trinity: assistant turns are the actions; each one's span is the difference
        # between the conversation up to it (with the generation prompt) and through it.
        ids = self.encode(self._template(messages, tools))
        mask = [False] * len(ids)
        prompt_length = None
        for i, m in enumerate(messages):
            if m.get("role") != "assistant":
                continue
            start = len(self.encode(self._template(messages[:i], tools, add_generation_prompt=True)))
            end = len(self.encode(self._template(messages[: i + 1], tools)))
            if prompt_length is None:
                prompt_length = start
            for j in range(start, min(end, len(ids))):
                mask[j] = True
        return ids, mask, prompt_length if prompt_length is not None else len(ids)


def _gguf_in(folder: str) -> str | None:
    try:
        names = sorted(n for n in os.listdir(folder) if n.endswith(".gguf"))
    except OSError:
        return None
    return names[0] if names else None


def load_tokenizer(
    model_path: str | None, chat_template: str | None = None, enable_thinking: bool | None = None
) -> Tokenizer:
    """A Tokenizer for ``model_path``, or TokenizerUnavailable saying why not and what to do."""
    key: _Key = (str(model_path), chat_template, enable_thinking)
    with _lock:
        if key not in _cache:
            try:
                _cache[key] = _load(model_path, chat_template, enable_thinking)
            except TokenizerUnavailable as e:
                _cache[key] = e
        found = _cache[key]
    if isinstance(found, TokenizerUnavailable):
        raise found
    return found


def _auto_tokenizer() -> Any:
    try:
        return importlib.import_module("transformers").AutoTokenizer
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] != "transformers":
            raise TokenizerUnavailable(f"importing transformers failed: {e}") from None
        missing = "transformers is not installed in this interpreter (pip install transformers)"
        raise TokenizerUnavailable(missing) from None
    except Exception as e:  # a broken transformers install: no tokenizer, and why
        raise TokenizerUnavailable(f"importing transformers failed ({type(e).__name__}: {e})") from None


def _hub_cache() -> str:
    """Where huggingface_hub keeps downloaded models (its own environment variables, in its order)."""
    for name in ("HF_HUB_CACHE", "HUGGINGFACE_HUB_CACHE"):
        if os.environ.get(name):
            return os.path.expanduser(os.environ[name])
    xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(os.path.expanduser(os.environ.get("HF_HOME") or os.path.join(xdg, "huggingface")), "hub")


def _in_hub_cache(repo_id: str) -> bool:
    """Whether ``repo_id`` (``org/name``) was downloaded: transformers is only worth importing then."""
    parts = repo_id.split("/")
    if len(parts) > 2 or not all(parts):
        return False
    return os.path.isdir(os.path.join(_hub_cache(), "models--" + "--".join(parts)))


def _load(model_path: str | None, chat_template: str | None, enable_thinking: bool | None) -> Tokenizer:
    if not model_path:
        raise TokenizerUnavailable("the config names no model_path to load a tokenizer from")
    path = os.path.expanduser(str(model_path))
    # Offline, a path that is neither a folder nor a downloaded model cannot load: say so before
    # importing transformers (seconds of CPU for every run whose model is a stand-in or elsewhere).
    if not os.path.isdir(path) and not _in_hub_cache(path):
        raise TokenizerUnavailable(
            f"could not load the tokenizer of {model_path!r} offline (no such folder, and not in the "
            f"Hugging Face cache {_hub_cache()}); point model.model_path at a local model folder"
        )
    auto = _auto_tokenizer()
    kw: dict[str, Any] = {"trust_remote_code": False}
    try:
        if os.path.isdir(path):
            files = ("tokenizer.json", "tokenizer_config.json")
            has_tokenizer = any(os.path.exists(os.path.join(path, f)) for f in files)
            gguf = None if has_tokenizer else _gguf_in(path)
            if gguf:
                kw["gguf_file"] = gguf
            hf = auto.from_pretrained(path, **kw)
        else:
            hf = auto.from_pretrained(path, local_files_only=True, **kw)
    except Exception as e:  # whatever transformers raises for a model it cannot load offline
        first = str(e).splitlines()[0] if str(e) else ""
        raise TokenizerUnavailable(
            f"could not load the tokenizer of {model_path!r} offline ({type(e).__name__}: "
            f"{first}); point model.model_path at a local model folder"
        ) from None
    return Tokenizer(hf, chat_template=chat_template, enable_thinking=enable_thinking)
