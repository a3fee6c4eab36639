"""trinity.common.models.model.ModelWrapper, method by method (sync and async exactly as
upstream 0.5.2, 9051d63), served by the extension's recording gateway instead of a Ray actor
around vLLM. Generation settings become an OpenAI request (:mod:`.sampling`), replies become
Trinity experiences (token ids, prompt length, logprobs), and what needs the model's tokenizer
(token lengths, messages -> experience) uses it when it can be loaded. Auxiliary models
(explorer.auxiliary_models) are wrappers too, tagged with their role."""

from __future__ import annotations

import asyncio
import copy
import threading
from typing import Any, Dict, List

from agentrl_runner.clients import make_client, record_history
from agentrl_runner.conversions import Conversions
from agentrl_runner.endpoint_tokenizer import EndpointTokenizer, EndpointTokenizerError, endpoint_tokenizer
from agentrl_runner.protocol import ModelEndpoint, RunnerPlan
from agentrl_runner.sampling import Sample, experiences_from_completion, make_experience, sampling_request
from agentrl_runner.tokenizer import Tokenizer, TokenizerUnavailable, load_tokenizer
from agentrl_runner.values import Obj, as_dict

Json = Dict[str, Any]
Messages = List[Json]

ENGINE_DEFAULTS = (
    ("temperature", "temperature"),
    ("top_p", "top_p"),
    ("top_k", "top_k"),
    ("max_tokens", "max_response_tokens"),
    ("min_tokens", "min_response_tokens"),
    ("logprobs", "logprobs"),
    ("ignore_eos", "ignore_eos"),
)
_ROLLOUT_MODEL_FIELDS = (
    "model_path",
    "temperature",
    "top_p",
    "top_k",
    "max_response_tokens",
    "min_response_tokens",
    "logprobs",
    "chat_template",
    "enable_thinking",
    "max_model_len",
    "max_prompt_tokens",
)


def _obj(v: Any) -> Json:
    return v if isinstance(v, dict) else {}


def engine_config(cfg: Any, aux_index: int | None = None) -> Json:
    """The InferenceModelConfig fields of the rollout model (or auxiliary model i): the
    explorer's entry over the top-level ``model`` section, as Trinity's config check fills it."""
    cfg = _obj(cfg)
    model = _obj(cfg.get("model"))
    explorer = _obj(cfg.get("explorer"))
    if aux_index is None:
        entry = _obj(explorer.get("rollout_model"))
        out = {k: model.get(k) for k in _ROLLOUT_MODEL_FIELDS if model.get(k) is not None}
    else:
        aux = explorer.get("auxiliary_models") or []
        entry = _obj(aux[aux_index]) if aux_index < len(aux) else {}
        out = {}
    out.update({k: v for k, v in entry.items() if v is not None})
    return out


class History:
    """ModelWrapper.history: the experiences of every recorded call, in call order. Calls
    of one episode may come from several threads (an executor, the openai client's)."""

    def __init__(self) -> None:
        self.items: list[Any] = []
        self._lock = threading.Lock()

    def extend(self, exps: list[Any]) -> None:
        with self._lock:
            self.items.extend(exps)

    def take(self, clear: bool) -> list[Any]:
        with self._lock:
            exps = list(self.items)
            if clear:
                del self.items[:]
        return exps

    def clear(self) -> None:
        self.take(clear=True)


class WorkflowState:
    """ModelWrapper's workflow state: a dict the workflow's coroutines share, under an asyncio
    lock made on first use (so it belongs to the episode's own event loop)."""

    def __init__(self) -> None:
        self.value: Json = {}
        self._lock: asyncio.Lock | None = None

    def _locked(self) -> asyncio.Lock:
        if self._lock is None:
            self._lock = asyncio.Lock()
        return self._lock

    async def update(self, state: Json) -> None:
        async with self._locked():
            self.value.update(state)

    async def reset(self, then: Any = None) -> None:
        """Empties the state (and, under the same lock, calls ``then``)."""
        async with self._locked():
            self.value = {}
            if then is not None:
                then()

    async def snapshot(self) -> Json:
        async with self._locked():
            return self.value.copy()


class DebugModelWrapper:
    """The ModelWrapper a workflow gets: ``model`` is the gateway endpoint; ``config`` the
    engine's InferenceModelConfig fields (engine_config()); ``conversions`` keeps what
    convert_messages_to_experience was given (the episode's store, shared by its wrappers)."""

    def __init__(
        self,
        model: ModelEndpoint,
        rollout_args: Json | None,
        timeout: float,
        config: Json | None = None,
        role: str | None = None,
        enable_history: bool | None = None,
        conversions: Conversions | None = None,
    ) -> None:
        self._model = model
        self.conversions = conversions if conversions is not None else Conversions()
        self._timeout = timeout
        self._role = role
        self._rollout_args = dict(rollout_args or {})
        self.config = Obj(dict(config or {}))
        default_history = bool(self.config.get("enable_history", True))
        self.enable_history = default_history if enable_history is None else bool(enable_history)
        self._history = History()
        self.history = self._history.items
        self._state = WorkflowState()
        self.openai_client: Any = None
        self.openai_async_client: Any = None
        self._raw: Any = None
        self._araw: Any = None
        self._tokenizer: Tokenizer | None = None
        self._endpoint_tokenizer: EndpointTokenizer | None = None
        self._tokenizer_error: str | None = None
        self._generate_kwargs: Json = {
            "temperature": self.config.get("temperature"),
            "top_p": self.config.get("top_p"),
            "max_tokens": self.config.get("max_response_tokens"),
        }
        thinking = self.config.get("enable_thinking")
        if thinking is not None:
            self._generate_kwargs["extra_body"] = {"chat_template_kwargs": {"enable_thinking": thinking}}

    # ---- engine defaults, tokenizer

    def _defaults(self) -> Json:
        out: Json = {}
        for key, field in ENGINE_DEFAULTS:
            v = self.config.get(field)
            if v is None and self._role is None:
                v = self._rollout_args.get(key)
            if v is not None:
                out[key] = v
        if self.config.get("enable_thinking") is not None:
            out["extra_body"] = {"chat_template_kwargs": {"enable_thinking": self.config.get("enable_thinking")}}
        return out

    def tokenizer(self, required: str | None = None) -> Tokenizer | EndpointTokenizer | None:
        """The model's tokenizer, None when it cannot be loaded (unless ``required`` says what
        needs it: then, without the model's files here, the endpoint's own /tokenize through the
        gateway, else a RuntimeError saying why neither works). Only what needs token ids asks
        the endpoint: a call's prompt_text does not cost a request."""
        if self._tokenizer is None and self._tokenizer_error is None:
            try:
                self._tokenizer = load_tokenizer(
                    self.config.get("model_path"), self.config.get("chat_template"), self.config.get("enable_thinking")
                )
            except TokenizerUnavailable as e:
                self._tokenizer_error = str(e)
        if self._tokenizer is not None or not required:
            return self._tokenizer
        if self._endpoint_tokenizer is None:
            try:
                self._endpoint_tokenizer = endpoint_tokenizer(
                    self._model["baseUrl"], self._model["apiKey"], self._model.get("name")
                )
            except EndpointTokenizerError as why:
                raise RuntimeError(
                    f"{required} needs the model's tokenizer, which the Agent RL debugger could not load: "
                    f"{self._tokenizer_error}; the endpoint does not tokenize either ({why})"
                ) from None
        return self._endpoint_tokenizer

    def _required_tokenizer(self, what: str) -> Tokenizer | EndpointTokenizer:
        tok = self.tokenizer(required=what)
        assert tok is not None  # tokenizer(required=...) raises instead of returning None
        return tok

    # ---- inference (ModelWrapper.chat / generate and their _async twins)

    def _to_experiences(self, responses: list[Any], messages: Messages) -> list[Any]:
        tok = self.tokenizer()
        out: list[Any] = []
        for resp in responses:
            out += experiences_from_completion(as_dict(resp), tok, messages)
        return out

    def _sync_raw(self) -> Any:
        if self._raw is None:
            self._raw = make_client(self._model, self._timeout, role=self._role)
        return self._raw

    def _async_raw(self) -> Any:
        if self._araw is None:
            self._araw = make_client(self._model, self._timeout, is_async=True, role=self._role)
        return self._araw

    def chat(self, messages: Messages, **kwargs: Any) -> list[Any]:
        client = self._sync_raw()
        params, n = sampling_request(self._defaults(), kwargs)
        responses = [client.chat.completions.create(model=self.model_path, messages=messages, **params)]
        got = len(as_dict(responses[0]).get("choices") or [])
        while 0 < got < n:  # an endpoint without `n` (llama.cpp, some hosted APIs): one call per sample
            extra = client.chat.completions.create(model=self.model_path, messages=messages, **dict(params, n=1))
            responses.append(extra)
            got += len(as_dict(extra).get("choices") or []) or 1
        exps = self._to_experiences(responses, messages)
        self._record(exps)
        return exps

    async def chat_async(self, messages: Messages, **kwargs: Any) -> list[Any]:
        client = self._async_raw()
        params, n = sampling_request(self._defaults(), kwargs)
        responses = [await client.chat.completions.create(model=self.model_path, messages=messages, **params)]
        got = len(as_dict(responses[0]).get("choices") or [])
        while 0 < got < n:
            extra = await client.chat.completions.create(model=self.model_path, messages=messages, **dict(params, n=1))
            responses.append(extra)
            got += len(as_dict(extra).get("choices") or []) or 1
        exps = self._to_experiences(responses, messages)
        self._record(exps)
        return exps

    # The gateway speaks chat completions: a raw prompt is sent as one user message.
    def generate(self, prompts: list[str], **kwargs: Any) -> list[Any]:
        out: list[Any] = []
        for p in prompts:
            out += self.chat([{"role": "user", "content": p}], **kwargs)
        return out

    async def generate_async(self, prompts: list[str], **kwargs: Any) -> list[Any]:
        results = await asyncio.gather(*[self.chat_async([{"role": "user", "content": p}], **kwargs) for p in prompts])
        return [e for exps in results for e in exps]

    def _record(self, exps: list[Any]) -> None:
        if self.enable_history:
            self._history.extend(exps)

    def logprobs(self, tokens: list[int], temperature: float | None = None) -> Any:
        raise NotImplementedError(
            "logprobs() scores tokens inside the inference engine (vLLM prompt_logprobs); "
            "an OpenAI-compatible endpoint cannot, so the Agent RL debugger does not offer it"
        )

    async def logprobs_async(self, tokens: list[int], temperature: float | None = None) -> Any:
        return self.logprobs(tokens, temperature)

    def convert_messages_to_experience(
        self, messages: Messages, tools: list[Json] | None = None, temperature: float | None = None
    ) -> Any:
        tok = self._required_tokenizer("convert_messages_to_experience")
        ids, mask, prompt_length = tok.tokens_and_mask(messages, tools)
        self.conversions.record(ids, messages, tools)
        # Logprobs of a given conversation need the engine (prompt_logprobs): zeros here.
        zeros = [0.0] * (len(ids) - prompt_length)
        return make_experience(
            Sample(
                ids[:prompt_length],
                ids[prompt_length:],
                zeros,
                None,
                messages=messages,
                tools=tools,
                action_mask=mask[prompt_length:],
            )
        )

    async def convert_messages_to_experience_async(
        self, messages: Messages, tools: list[Json] | None = None, temperature: float | None = None
    ) -> Any:
        return self.convert_messages_to_experience(messages, tools, temperature)

    async def get_message_token_len(self, messages: Messages) -> int:
        return self._required_tokenizer("get_message_token_len").message_token_len(messages)

    # ---- OpenAI clients (explorer.rollout_model.enable_openai_api)

    def _recording_client(self, is_async: bool) -> Any:
        client = make_client(self._model, self._timeout, is_async=is_async, role=self._role)
        if self.enable_history:
            record_history(client, self._history, is_async, self.config.get("enable_thinking"))
        return client

    def get_openai_client(self) -> Any:
        if self.openai_client is None:
            self.openai_client = self._recording_client(is_async=False)
        self.openai_client.model_path = self.model_path
        return self.openai_client

    def get_openai_async_client(self) -> Any:
        if self.openai_async_client is None:
            self.openai_async_client = self._recording_client(is_async=True)
        self.openai_async_client.model_path = self.model_path
        return self.openai_async_client

    def extract_experience_from_history(self, clear_history: bool = True) -> list[Any]:
        if not self.enable_history:
            raise ValueError("History recording is not enabled.")
        return self._history.take(clear_history)

    async def extract_experience_from_history_async(self, clear_history: bool = True) -> list[Any]:
        return self.extract_experience_from_history(clear_history)

    def clone_with_isolated_history(self) -> DebugModelWrapper:
        new = copy.copy(self)
        new._history = History()
        new.history = new._history.items
        new.openai_client = None
        new.openai_async_client = None
        new._raw = None
        new._araw = None
        return new

    # ---- workflow state (async, under a lock, as upstream)

    @property
    def workflow_state(self) -> Json:
        return self._state.value

    @workflow_state.setter
    def workflow_state(self, value: Json) -> None:
        self._state.value = value

    async def set_workflow_state(self, state: Json) -> None:
        await self._state.update(state)

    async def clean_workflow_state(self) -> None:
        await self._state.reset(then=self._history.clear)

    async def get_workflow_state(self) -> Json:
        return await self._state.snapshot()

    # ---- the served model's identity; the debugger serves one fixed model (no weight sync, no LoRA, no load)

    @property
    def model_path(self) -> str:
        """The served model's name: what the workflow's requests must name at this endpoint."""
        return self._model["name"]

    @property
    async def model_path_async(self) -> str:
        return self.model_path

    @property
    def model_name(self) -> str:
        return self.config.get("name") or self._model["name"]

    @property
    def model_config(self) -> Obj:
        return self.config

    @property
    def model_version(self) -> int:
        return 0

    @property
    async def model_version_async(self) -> int:
        return 0

    @property
    def api_key(self) -> str:
        return self._model["apiKey"]

    @property
    def generate_kwargs(self) -> Json:
        return self._generate_kwargs

    def get_lora_request(self) -> None:
        return None

    async def get_lora_request_async(self) -> None:
        return None

    async def get_current_load(self) -> int:
        return 0

    async def sync_model_weights(self, model_version: int) -> None:
        return None


def auxiliary_wrappers(
    plan: RunnerPlan, timeout: float, conversions: Conversions | None = None
) -> list[DebugModelWrapper]:
    """One wrapper per explorer.auxiliary_models entry. Each talks to its own gateway URL
    from plan.auxiliaryModels (recorded like the rollout model's calls), else to the main
    endpoint under the main model's name; every call is tagged auxiliary/<i>."""
    cfg = _obj(plan.get("config"))
    entries = _obj(cfg.get("explorer")).get("auxiliary_models") or []
    given = plan.get("auxiliaryModels") or []
    main = plan["model"]
    out = []
    for i in range(len(entries)):
        ep = _obj(given[i]) if i < len(given) else {}
        model: ModelEndpoint = {
            "baseUrl": ep.get("baseUrl") or main["baseUrl"],
            "apiKey": ep.get("apiKey") or main["apiKey"],
            "name": ep.get("name") or main["name"],
        }
        out.append(
            DebugModelWrapper(
                model,
                {},
                timeout,
                config=engine_config(cfg, i),
                role=f"auxiliary/{i}",
                enable_history=True,
                conversions=conversions,
            )
        )
    return out
