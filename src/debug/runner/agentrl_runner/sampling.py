"""Trinity's generation settings -> one OpenAI chat.completions request, and the reply ->
Trinity experiences.

Trinity hands these settings to vLLM's SamplingParams (which takes top_k, min_p,
repetition_penalty...) while the OpenAI SDK refuses unknown keyword arguments, so vLLM-only
settings travel in ``extra_body`` the way vLLM's OpenAI server takes them. Faithful to
trinity/common/models/vllm_model.py and model.py (0.5.2, 9051d63). Trinity's own Experience
(torch tensors) when trinity and torch are importable, else :class:`DebugExperience`.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Dict

from agentrl_runner.optional import optional_module
from agentrl_runner.values import Obj, as_dict

Json = Dict[str, Any]

# Keys of the OpenAI chat.completions request body (passed as keyword arguments).
OPENAI_KEYS = frozenset(
    (
        "temperature",
        "top_p",
        "max_tokens",
        "max_completion_tokens",
        "n",
        "stop",
        "seed",
        "presence_penalty",
        "frequency_penalty",
        "logit_bias",
        "user",
        "response_format",
        "tools",
        "tool_choice",
        "parallel_tool_calls",
        "stream",
        "stream_options",
        "top_logprobs",
        "metadata",
        "reasoning_effort",
        "service_tier",
        "store",
        "extra_headers",
        "extra_query",
        "timeout",
    )
)
# vLLM SamplingParams fields its OpenAI server accepts in the body (extra_body in the SDK),
# with the value that means "off": a neutral value is not sent, so hosted APIs that do not
# know the key still work with Trinity's defaults (top_k -1, min_p 0...).
VLLM_EXTRA: Json = {
    "top_k": -1,
    "min_p": 0.0,
    "repetition_penalty": 1.0,
    "min_tokens": 0,
    "ignore_eos": False,
    "skip_special_tokens": True,
    "include_stop_str_in_output": False,
    "spaces_between_special_tokens": True,
    "prompt_logprobs": None,
    "truncate_prompt_tokens": None,
    "stop_token_ids": None,
    "length_penalty": 1.0,
    "use_beam_search": False,
    "bad_words": None,
    "allowed_token_ids": None,
}
# Trinity-only GenerationConfig fields that never reach the engine as sampling settings.
TRINITY_ONLY = frozenset(("lora_request", "with_chat_completion", "return_token_ids"))


def sampling_request(defaults: Json | None, kwargs: Json | None) -> tuple[Json, int]:
    """(keyword arguments for chat.completions.create, n) from the wrapper's defaults and a
    workflow's ``model.chat(messages, **kwargs)``. None means "not set" and is dropped, like
    SamplingParams keeps its default; Trinity always wants token ids and logprobs."""
    merged = dict(defaults or {})
    merged.update({k: v for k, v in (kwargs or {}).items() if v is not None})
    extra = dict(merged.pop("extra_body", None) or {})
    n = merged.pop("n", None)
    n = int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) and n >= 1 else 1
    logprobs = merged.pop("logprobs", None)
    params: Json = {}
    for k, v in merged.items():
        if v is None or k in TRINITY_ONLY:
            continue
        if k in VLLM_EXTRA:
            if v != VLLM_EXTRA[k]:
                extra[k] = v
        elif k in OPENAI_KEYS:
            params[k] = v
        # anything else: SamplingParams has no such field and vLLM ignores it; so do we
    params["logprobs"] = True
    if isinstance(logprobs, int) and not isinstance(logprobs, bool) and logprobs > 0:
        params["top_logprobs"] = logprobs
    if n > 1:
        params["n"] = n
    extra["return_token_ids"] = True
    params["extra_body"] = extra
    return params, n


def _empty_eid() -> Obj:
    return Obj({"batch": "", "task": "", "run": 0, "step": 0})


@dataclasses.dataclass
class DebugExperience:
    """trinity.common.experience.Experience's fields a workflow sets or reads, for when
    trinity (or torch) is not importable, or the reply carried no token ids."""

    tokens: list[int] | None = None
    logprobs: list[float] | None = None
    prompt_length: int = 0
    response_text: str | None = ""
    prompt_text: str | None = None
    messages: list[Json] | None = None
    tools: list[Json] | None = None
    action_mask: list[bool] | None = None
    reward: float | None = None
    info: Json = dataclasses.field(default_factory=dict)
    metrics: dict[str, float] = dataclasses.field(default_factory=dict)
    truncate_status: str | None = None
    advantages: list[float] | None = None
    returns: list[float] | None = None
    eid: Obj = dataclasses.field(default_factory=_empty_eid)

    def to_dict(self) -> Json:
        return {
            "reward": self.reward,
            "response_text": self.response_text,
            "info": self.info,
            "metrics": self.metrics,
            "prompt_length": self.prompt_length,
        }


@dataclasses.dataclass
class Sample:
    """One generated sequence: what an experience is made of. Token ids may be unknown (an
    endpoint that does not return them, and no tokenizer)."""

    prompt_ids: list[int] | None
    response_ids: list[int] | None
    logprobs: list[float] | None
    response_text: str | None
    prompt_text: str | None = None
    messages: list[Json] | None = None
    tools: list[Json] | None = None
    #: Over the response tokens (convert_messages_to_experience: only the model's turns).
    action_mask: list[bool] | None = None
    truncate_status: str | None = None


def _trinity_experience(s: Sample) -> Any:
    """Trinity's own Experience of ``s``, or None when trinity / torch are not importable or
    Trinity refuses it (an empty response: it asserts len(tokens) > prompt_length)."""
    module, torch = optional_module("trinity.common.experience"), optional_module("torch")
    if module is None or torch is None or s.prompt_ids is None or s.response_ids is None:
        return None
    logprobs = list(s.logprobs or [0.0] * len(s.response_ids))
    kw: Json = {
        "tokens": torch.tensor(list(s.prompt_ids) + list(s.response_ids), dtype=torch.int32),
        "logprobs": torch.tensor(logprobs, dtype=torch.float32),
        "prompt_length": len(s.prompt_ids),
        "response_text": s.response_text,
        "prompt_text": s.prompt_text,
        "messages": s.messages,
        "tools": s.tools,
        "truncate_status": s.truncate_status,
    }
    if s.action_mask is not None:
        kw["action_mask"] = torch.tensor(list(s.action_mask), dtype=torch.bool)
    try:
        return module.Experience(**kw)
    except Exception:  # whatever Trinity refuses gets the stand-in instead
        return None


def make_experience(s: Sample) -> Any:
    """Trinity's own Experience when trinity and torch import and the token ids are known;
    else a DebugExperience with the same fields."""
    exp = _trinity_experience(s)
    if exp is not None:
        return exp
    tokens = None if s.prompt_ids is None or s.response_ids is None else list(s.prompt_ids) + list(s.response_ids)
    return DebugExperience(
        tokens=tokens,
        logprobs=s.logprobs,
        prompt_length=len(s.prompt_ids or []),
        response_text=s.response_text,
        prompt_text=s.prompt_text,
        messages=s.messages,
        tools=s.tools,
        action_mask=s.action_mask,
        truncate_status=s.truncate_status,
    )


def _choice_logprobs(choice: Json) -> list[float] | None:
    content = (choice.get("logprobs") or {}).get("content") or []
    return [float(t.get("logprob") or 0.0) for t in content] or None


def experiences_from_completion(
    resp: Any, tokenizer: Any = None, messages: list[Json] | None = None, tools: list[Json] | None = None
) -> list[Any]:
    """One experience per choice of a chat.completion (vLLM's return_token_ids fields, else
    the tokenizer's ids, else no ids), like model.py's _convert_completion_output_to_experience."""
    d = as_dict(resp)
    prompt_ids = d.get("prompt_token_ids")
    prompt_text = None
    if prompt_ids is None and tokenizer is not None and messages is not None:
        prompt_ids = tokenizer.prompt_ids(messages, tools)
    if tokenizer is not None and prompt_ids is not None:
        prompt_text = tokenizer.decode(prompt_ids)
    out = []
    for choice in d.get("choices") or []:
        text = (choice.get("message") or {}).get("content")
        ids = choice.get("token_ids")
        if ids is None and tokenizer is not None:
            ids = tokenizer.encode(text or "")
        out.append(make_experience(Sample(prompt_ids, ids, _choice_logprobs(choice), text, prompt_text=prompt_text)))
    return out


def _empty_slot() -> Json:
    return {"content": "", "calls": {}, "ids": None, "lps": [], "finish": None}


def _add_delta(slot: Json, ch: Json) -> None:
    d = ch.get("delta") or {}
    slot["content"] += d.get("content") or ""
    for tc in d.get("tool_calls") or []:
        call = slot["calls"].setdefault(
            tc.get("index", 0), {"id": "", "type": "function", "function": {"name": "", "arguments": ""}}
        )
        call["id"] = tc.get("id") or call["id"]
        fn = tc.get("function") or {}
        call["function"]["name"] += fn.get("name") or ""
        call["function"]["arguments"] += fn.get("arguments") or ""
    if ch.get("token_ids") is not None:
        slot["ids"] = (slot["ids"] or []) + list(ch["token_ids"])
    slot["lps"].extend((ch.get("logprobs") or {}).get("content") or [])
    slot["finish"] = ch.get("finish_reason") or slot["finish"]


def assemble_stream(chunks: list[Any]) -> Json:
    """A chat.completion (with vLLM's token id fields when the chunks carry them) from
    stream chunks, like model.py's _convert_stream_chunks_to_experience."""
    prompt_ids = None
    by_index: dict[int, Json] = {}
    for raw in chunks:
        c = as_dict(raw)
        if prompt_ids is None and c.get("prompt_token_ids") is not None:
            prompt_ids = list(c["prompt_token_ids"])
        for ch in c.get("choices") or []:
            _add_delta(by_index.setdefault(ch.get("index", 0), _empty_slot()), ch)
    choices = []
    for idx in sorted(by_index):
        s = by_index[idx]
        msg: Json = {"role": "assistant", "content": s["content"]}
        if s["calls"]:
            msg["tool_calls"] = [s["calls"][k] for k in sorted(s["calls"])]
        choice: Json = {
            "index": idx,
            "message": msg,
            "finish_reason": s["finish"],
            "logprobs": {"content": s["lps"]} if s["lps"] else None,
        }
        if s["ids"] is not None:
            choice["token_ids"] = s["ids"]
        choices.append(choice)
    out: Json = {"choices": choices}
    if prompt_ids is not None:
        out["prompt_token_ids"] = prompt_ids
    return out
