"""The model's tokenizer as its server offers it, for when the model's files are not on this
machine (a hosted model, a checkpoint on the cluster): the gateway passes POST /tokenize,
/detokenize and /apply-template through to the model's endpoint, and vLLM, SGLang and
llama.cpp servers answer them. Enough for Trinity's token arithmetic (get_message_token_len,
prompt ids) and its default messages -> experience conversion (the action mask)."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

Messages = list[dict[str, Any]]


class EndpointTokenizerError(Exception):
    pass


class EndpointTokenizer:
    """``Tokenizer``'s methods over the endpoint. ``base_url`` is the OpenAI base (``…/v1``)."""

    def __init__(self, base_url: str, api_key: str, model: str | None = None, timeout: float = 60.0) -> None:
        root = base_url.rstrip("/")
        self.root = root[: -len("/v1")] if root.endswith("/v1") else root
        self.api_key = api_key
        self.model = model
        self.timeout = timeout

    def _post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        if self.model:
            body = {"model": self.model, **body}
        req = urllib.request.Request(
            self.root + route,
            data=json.dumps(body).encode("utf-8"),
            headers={"authorization": "Bearer " + self.api_key, "content-type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as r:
                out = json.loads(r.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            text = e.read().decode("utf-8", "replace")[:300]
            raise EndpointTokenizerError(f"{route} answered {e.code}: {text}") from None
        except (OSError, ValueError) as e:
            raise EndpointTokenizerError(f"{route}: {e}") from None
        if not isinstance(out, dict):
            raise EndpointTokenizerError(f"{route} answered something that is not a JSON object")
        return out

    @staticmethod
    def _ids(out: dict[str, Any], route: str) -> list[int]:
        tokens = out.get("tokens")
        if not isinstance(tokens, list):
            raise EndpointTokenizerError(f"{route} answered without a list of tokens")
        # llama.cpp answers [{id, piece}] when asked with_pieces; plain ids otherwise.
        return [int(t["id"] if isinstance(t, dict) else t) for t in tokens]

    def encode(self, text: str) -> list[int]:
        body = {"content": text, "prompt": text, "add_special": False, "add_special_tokens": False}
        out = self._post("/tokenize", body)
        return self._ids(out, "/tokenize")

    def decode(self, ids: list[int]) -> str:
        out = self._post("/detokenize", {"tokens": [int(i) for i in ids]})
        for key in ("content", "prompt", "text"):
            if isinstance(out.get(key), str):
                return out[key]
        raise EndpointTokenizerError("/detokenize answered without text")

    def _template_ids(self, messages: Messages, tools: list[Any] | None, add_generation_prompt: bool) -> list[int]:
        """The ids of ``messages`` through the server's own chat template: llama.cpp renders it
        (/apply-template, then /tokenize); vLLM tokenizes messages directly (/tokenize)."""
        body: dict[str, Any] = {"messages": messages, "add_generation_prompt": add_generation_prompt}
        if tools:
            body["tools"] = tools
        try:
            prompt = self._post("/apply-template", body).get("prompt")
        except EndpointTokenizerError:
            prompt = None
        if isinstance(prompt, str):
            return self.encode(prompt)
        return self._ids(self._post("/tokenize", {**body, "add_special_tokens": False}), "/tokenize")

    def prompt_ids(self, messages: Messages, tools: list[Any] | None = None) -> list[int]:
        """The ids of the prompt the server builds for ``messages`` (generation prompt added)."""
        return self._template_ids(messages, tools, True)

    def message_token_len(self, messages: Messages) -> int:
        return len(self.prompt_ids(messages))

    def tokens_and_mask(self, messages: Messages, tools: list[Any] | None = None) -> tuple[list[int], list[bool], int]:
        """(ids, action mask, prompt length) as Trinity's default method computes them, with the
        server's template: each assistant turn spans from the conversation before it (with the
        generation prompt) to the conversation through it."""
        ids = self._template_ids(messages, tools, False)
        mask = [False] * len(ids)
        prompt_length: int | None = None
        for i, m in enumerate(messages):
            if m.get("role") != "assistant":
                continue
            start = len(self._template_ids(messages[:i], tools, True))
            end = len(self._template_ids(messages[: i + 1], tools, False))
            if prompt_length is None:
                prompt_length = start
            for j in range(start, min(end, len(ids))):
                mask[j] = True
        return ids, mask, prompt_length if prompt_length is not None else len(ids)


def endpoint_tokenizer(base_url: str, api_key: str, model: str | None) -> EndpointTokenizer:
    """An EndpointTokenizer when the endpoint tokenizes (probed once), else EndpointTokenizerError."""
    tok = EndpointTokenizer(base_url, api_key, model)
    tok.encode("a")
    return tok
