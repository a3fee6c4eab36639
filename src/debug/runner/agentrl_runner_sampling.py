# Trinity's generation settings -> one OpenAI chat.completions request, and the reply ->
# Trinity experiences. Trinity hands these settings to vLLM's SamplingParams (which takes
# top_k, min_p, repetition_penalty...) while the OpenAI SDK refuses unknown keyword
# arguments, so vLLM-only settings travel in `extra_body` the way vLLM's OpenAI server takes
# them. Faithful to trinity/common/models/vllm_model.py and model.py (0.5.2, 9051d63).
# Standard library only; Trinity's own Experience (torch tensors) when trinity is importable.

# Keys of the OpenAI chat.completions request body (passed as keyword arguments).
OPENAI_KEYS = frozenset((
    "temperature", "top_p", "max_tokens", "max_completion_tokens", "n", "stop", "seed",
    "presence_penalty", "frequency_penalty", "logit_bias", "user", "response_format", "tools",
    "tool_choice", "parallel_tool_calls", "stream", "stream_options", "top_logprobs", "metadata",
    "reasoning_effort", "service_tier", "store", "extra_headers", "extra_query", "timeout",
))
# vLLM SamplingParams fields its OpenAI server accepts in the body (extra_body in the SDK),
# with the value that means "off": a neutral value is not sent, so hosted APIs that do not
# know the key still work with Trinity's defaults (top_k -1, min_p 0...).
VLLM_EXTRA = {
    "top_k": -1, "min_p": 0.0, "repetition_penalty": 1.0, "min_tokens": 0, "ignore_eos": False,
    "skip_special_tokens": True, "include_stop_str_in_output": False, "spaces_between_special_tokens": True,
    "prompt_logprobs": None, "truncate_prompt_tokens": None, "stop_token_ids": None, "length_penalty": 1.0,
    "use_beam_search": False, "bad_words": None, "allowed_token_ids": None,
}
# Trinity-only GenerationConfig fields that never reach the engine as sampling settings.
TRINITY_ONLY = frozenset(("lora_request", "with_chat_completion", "return_token_ids"))


def sampling_request(defaults, kwargs):
    """(keyword arguments for chat.completions.create, n) from the wrapper's defaults and a
    workflow's `model.chat(messages, **kwargs)`. None means "not set" and is dropped, like
    SamplingParams keeps its default; Trinity always wants token ids and logprobs."""
    merged = dict(defaults or {})
    merged.update({k: v for k, v in (kwargs or {}).items() if v is not None})
    extra = dict(merged.pop("extra_body", None) or {})
    n = merged.pop("n", None)
    n = int(n) if isinstance(n, (int, float)) and not isinstance(n, bool) and n >= 1 else 1
    logprobs = merged.pop("logprobs", None)
    params = {}
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


def as_dict(resp):
    if isinstance(resp, dict):
        return resp
    dump = getattr(resp, "model_dump", None)
    return dump() if callable(dump) else {}


def _torch():
    try:
        import torch  # type: ignore
        return torch
    except Exception:
        return None


def _trinity_experience():
    try:
        from trinity.common.experience import Experience  # type: ignore
        return Experience
    except Exception:
        return None


class DebugExperience(object):
    """trinity.common.experience.Experience's fields a workflow sets or reads, for when
    trinity (or torch) is not importable, or the reply carried no token ids."""

    def __init__(self, tokens=None, logprobs=None, prompt_length=0, response_text="", prompt_text=None,
                 messages=None, tools=None, action_mask=None, reward=None, info=None, metrics=None,
                 truncate_status=None):
        self.tokens = tokens
        self.logprobs = logprobs
        self.prompt_length = prompt_length
        self.response_text = response_text
        self.prompt_text = prompt_text
        self.messages = messages
        self.tools = tools
        self.action_mask = action_mask
        self.reward = reward
        self.info = dict(info or {})
        self.metrics = dict(metrics or {})
        self.truncate_status = truncate_status
        self.advantages = None
        self.returns = None
        from agentrl_runner_clients import Obj
        self.eid = Obj({"batch": "", "task": "", "run": 0, "step": 0})

    def to_dict(self):
        return {"reward": self.reward, "response_text": self.response_text, "info": self.info,
                "metrics": self.metrics, "prompt_length": self.prompt_length}


def make_experience(prompt_ids, response_ids, logprobs, response_text, prompt_text=None, messages=None,
                    tools=None, action_mask=None, truncate_status=None):
    """Trinity's own Experience when trinity and torch import and the token ids are known;
    else a DebugExperience with the same fields."""
    exp_cls, torch = _trinity_experience(), _torch()
    if exp_cls is not None and torch is not None and prompt_ids is not None and response_ids is not None:
        kw = dict(tokens=torch.tensor(list(prompt_ids) + list(response_ids), dtype=torch.int32),
                  logprobs=torch.tensor(list(logprobs or [0.0] * len(response_ids)), dtype=torch.float32),
                  prompt_length=len(prompt_ids), response_text=response_text, prompt_text=prompt_text,
                  messages=messages, tools=tools, truncate_status=truncate_status)
        if action_mask is not None:
            kw["action_mask"] = torch.tensor(list(action_mask), dtype=torch.bool)
        try:
            return exp_cls(**kw)
        except Exception:  # e.g. an empty response: Trinity asserts len(tokens) > prompt_length
            pass
    tokens = None if prompt_ids is None or response_ids is None else list(prompt_ids) + list(response_ids)
    return DebugExperience(tokens=tokens, logprobs=logprobs, prompt_length=len(prompt_ids or []),
                           response_text=response_text, prompt_text=prompt_text, messages=messages, tools=tools,
                           action_mask=action_mask, truncate_status=truncate_status)


def _choice_logprobs(choice):
    content = (choice.get("logprobs") or {}).get("content") or []
    return [float(t.get("logprob") or 0.0) for t in content] or None


def experiences_from_completion(resp, tokenizer=None, messages=None, tools=None):
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
        msg = choice.get("message") or {}
        text = msg.get("content")
        ids = choice.get("token_ids")
        if ids is None and tokenizer is not None:
            ids = tokenizer.encode(text or "")
        lps = _choice_logprobs(choice)
        out.append(make_experience(prompt_ids, ids, lps, text, prompt_text=prompt_text))
    return out


def assemble_stream(chunks):
    """A chat.completion (with vLLM's token id fields when the chunks carry them) from
    stream chunks, like model.py's _convert_stream_chunks_to_experience."""
    prompt_ids = None
    by_index = {}
    for c in chunks:
        c = as_dict(c)
        if prompt_ids is None and c.get("prompt_token_ids") is not None:
            prompt_ids = list(c["prompt_token_ids"])
        for ch in c.get("choices") or []:
            slot = by_index.setdefault(ch.get("index", 0), {"content": "", "calls": {}, "ids": None, "lps": [], "finish": None})
            d = ch.get("delta") or {}
            slot["content"] += d.get("content") or ""
            for tc in d.get("tool_calls") or []:
                call = slot["calls"].setdefault(tc.get("index", 0), {"id": "", "type": "function", "function": {"name": "", "arguments": ""}})
                call["id"] = tc.get("id") or call["id"]
                fn = tc.get("function") or {}
                call["function"]["name"] += fn.get("name") or ""
                call["function"]["arguments"] += fn.get("arguments") or ""
            if ch.get("token_ids") is not None:
                slot["ids"] = (slot["ids"] or []) + list(ch["token_ids"])
            for t in (ch.get("logprobs") or {}).get("content") or []:
                slot["lps"].append(t)
            slot["finish"] = ch.get("finish_reason") or slot["finish"]
    choices = []
    for idx in sorted(by_index):
        s = by_index[idx]
        msg = {"role": "assistant", "content": s["content"]}
        if s["calls"]:
            msg["tool_calls"] = [s["calls"][k] for k in sorted(s["calls"])]
        choice = {"index": idx, "message": msg, "finish_reason": s["finish"],
                  "logprobs": {"content": s["lps"]} if s["lps"] else None}
        if s["ids"] is not None:
            choice["token_ids"] = s["ids"]
        choices.append(choice)
    out = {"choices": choices}
    if prompt_ids is not None:
        out["prompt_token_ids"] = prompt_ids
    return out
