"""Model clients handed to the workflow. They all talk to the extension's recording gateway
and tag each request with the episode and the user's call stack. With the ``openai`` package
installed the workflow gets real openai.OpenAI / AsyncOpenAI clients; without it, a small
standard-library client with the same ``chat.completions.create`` surface."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from http.client import HTTPResponse
from typing import Any, AsyncIterator, Callable, Coroutine, Dict, Iterator, Protocol, Tuple

from agentrl_runner.optional import optional_module
from agentrl_runner.protocol import HEADER_EPISODE, HEADER_ROLE, HEADER_STACK, ModelEndpoint
from agentrl_runner.sampling import assemble_stream, experiences_from_completion
from agentrl_runner.stack import current_episode, stack_header, user_stack
from agentrl_runner.values import Obj, as_dict, to_attr, wrap

Json = Dict[str, Any]


class CallHistory(Protocol):
    """Where a client records the experiences of the calls it makes (ModelWrapper.history)."""

    def extend(self, exps: list[Any]) -> None: ...


def call_headers(role: str | None = None) -> dict[str, str]:
    """The headers that tell the gateway which episode, stack and model role a call is from."""
    headers = {HEADER_STACK: stack_header(user_stack())}
    ep = current_episode()
    if ep:
        headers[HEADER_EPISODE] = ep
    if role:
        headers[HEADER_ROLE] = role
    return headers


def record(history: CallHistory, response: Any) -> None:
    """Records a chat.completions reply the workflow got from get_openai_client()."""
    try:
        history.extend(experiences_from_completion(response))
    except (TypeError, ValueError, AttributeError, KeyError):
        pass  # a reply of an unexpected shape is the workflow's business, not the history's


def _record_stream(stream: Iterator[Any], history: CallHistory) -> Iterator[Any]:
    chunks = []
    for c in stream:
        chunks.append(c)
        yield c
    record(history, assemble_stream(chunks))


async def _record_astream(stream: AsyncIterator[Any], history: CallHistory) -> AsyncIterator[Any]:
    chunks = []
    async for c in stream:
        chunks.append(c)
        yield c
    record(history, assemble_stream(chunks))


class APIError(Exception):
    """Raised by the standard-library client for a non-2xx reply (like openai.APIStatusError)."""

    def __init__(self, status: int, message: str, body: Any = None) -> None:
        Exception.__init__(self, f"Error code: {status} - {message}")
        self.status_code = status
        self.message = message
        self.body = body


# ---------------------------------------------------------------- standard-library client


class _MiniCompletions:
    def __init__(self, client: MiniOpenAI) -> None:
        self._client = client

    def create(self, **kwargs: Any) -> Any:
        return self._client.post("/chat/completions", kwargs, call_headers(self._client.role))


class _MiniChat:
    def __init__(self, client: MiniOpenAI) -> None:
        self.completions = _MiniCompletions(client)


class _MiniModels:
    def __init__(self, client: MiniOpenAI) -> None:
        self._client = client

    def list(self) -> Any:
        return wrap(self._client.get("/models"))


class MiniOpenAI:
    """``openai.OpenAI``'s chat surface on urllib (used when the openai package is missing)."""

    def __init__(self, base_url: str, api_key: str, timeout: float = 3600.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.role: str | None = None
        self.model_path = ""
        self.chat = _MiniChat(self)
        self.models = _MiniModels(self)

    def _request(self, path: str, body: Json | None, headers: dict[str, str] | None) -> HTTPResponse:
        data = None if body is None else json.dumps(body).encode("utf-8")
        h = {"authorization": "Bearer " + self.api_key, "content-type": "application/json"}
        h.update(headers or {})
        method = "GET" if body is None else "POST"
        req = urllib.request.Request(self.base_url + path, data=data, headers=h, method=method)
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                err = json.loads(raw)
                message = (err.get("error") or {}).get("message") or raw
            except ValueError:
                err, message = None, raw
            raise APIError(e.code, message, err) from None

    def get(self, path: str) -> Any:
        with self._request(path, None, None) as r:
            return json.loads(r.read().decode("utf-8"))

    def post(self, path: str, kwargs: Json, headers: dict[str, str]) -> Any:
        body = {k: v for k, v in kwargs.items() if k not in ("extra_headers", "extra_query", "timeout")}
        body.update(body.pop("extra_body", None) or {})
        r = self._request(path, body, headers)
        if not body.get("stream"):
            with r:
                return wrap(json.loads(r.read().decode("utf-8")))
        return _sse_iter(r)


def _sse_iter(resp: HTTPResponse) -> Iterator[Any]:
    with resp:
        for raw in resp:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            yield wrap(json.loads(data))


async def _aiter_from(items: list[Any]) -> AsyncIterator[Any]:
    for x in items:
        yield x


class _MiniAsyncCompletions:
    def __init__(self, client: MiniOpenAI) -> None:
        self._client = client

    async def create(self, **kwargs: Any) -> Any:
        headers = call_headers(self._client.role)  # the caller's stack, captured before leaving its thread
        loop = asyncio.get_event_loop()
        result = await loop.run_in_executor(None, lambda: self._client.post("/chat/completions", kwargs, headers))
        if kwargs.get("stream"):
            return _aiter_from(list(result))
        return result


class _MiniAsyncChat:
    def __init__(self, client: MiniOpenAI) -> None:
        self.completions = _MiniAsyncCompletions(client)


class MiniAsyncOpenAI:
    """``openai.AsyncOpenAI``'s chat surface over :class:`MiniOpenAI` on a worker thread."""

    def __init__(self, base_url: str, api_key: str, timeout: float = 3600.0) -> None:
        self.sync = MiniOpenAI(base_url, api_key, timeout)
        self.base_url = self.sync.base_url
        self.api_key = api_key
        self.model_path = ""
        self.chat = _MiniAsyncChat(self.sync)


# ---------------------------------------------------------------- client factory

HttpxHooks = Tuple[Callable[[Any], None], Callable[[Any], Coroutine[Any, Any, None]]]


def _hooks(role: str | None) -> HttpxHooks:
    """httpx request hooks (sync, async) that tag each request like call_headers()."""

    def sync_hook(request: Any) -> None:
        for k, v in call_headers(role).items():
            request.headers[k] = v

    async def async_hook(request: Any) -> None:
        sync_hook(request)

    return sync_hook, async_hook


def make_client(model: ModelEndpoint, timeout: float, *, is_async: bool = False, role: str | None = None) -> Any:
    """An OpenAI client pointed at the gateway, tagged per call (episode, stack, role)."""
    openai = optional_module("openai")
    sync_hook, async_hook = _hooks(role)
    client: Any
    if openai is not None:
        common = {"base_url": model["baseUrl"], "api_key": model["apiKey"], "max_retries": 0, "timeout": timeout}
        if is_async:
            http = openai.DefaultAsyncHttpxClient(event_hooks={"request": [async_hook]})
            client = openai.AsyncOpenAI(http_client=http, **common)
        else:
            http = openai.DefaultHttpxClient(event_hooks={"request": [sync_hook]})
            client = openai.OpenAI(http_client=http, **common)
    elif is_async:
        client = MiniAsyncOpenAI(model["baseUrl"], model["apiKey"], timeout)
        client.sync.role = role
    else:
        client = MiniOpenAI(model["baseUrl"], model["apiKey"], timeout)
        client.role = role
    client.model_path = model["name"]
    return client


def recording_kwargs(kwargs: Json, thinking: bool | None) -> Json:
    """What record_chat_completions adds to every call when history is on: logprobs on by
    default, vLLM token ids requested, the config's enable_thinking passed to the template."""
    kwargs = dict(kwargs)
    kwargs.setdefault("logprobs", True)
    extra = dict(kwargs.pop("extra_body", None) or {})
    if thinking is not None:
        ctk = dict(extra.get("chat_template_kwargs") or {})
        ctk["enable_thinking"] = thinking
        extra["chat_template_kwargs"] = ctk
    extra["return_token_ids"] = True
    kwargs["extra_body"] = extra
    return kwargs


def record_history(client: Any, history: CallHistory, is_async: bool, thinking: bool | None) -> None:
    """Makes ``client`` record every call's experiences into ``history``, the way
    ModelWrapper's record_chat_completions does."""
    completions = client.chat.completions
    original = completions.create
    if is_async:

        async def acreate(*args: Any, **kwargs: Any) -> Any:
            kwargs = recording_kwargs(kwargs, thinking)
            resp = await original(*args, **kwargs)
            if kwargs.get("stream"):
                return _record_astream(resp, history)
            record(history, as_dict(resp))
            return resp

        completions.create = acreate
        return

    def create(*args: Any, **kwargs: Any) -> Any:
        kwargs = recording_kwargs(kwargs, thinking)
        resp = original(*args, **kwargs)
        if kwargs.get("stream"):
            return _record_stream(resp, history)
        record(history, as_dict(resp))
        return resp

    completions.create = create


# ---------------------------------------------------------------- ASTuner / AgentJet tuner


class _TunerApi:
    """The model-registry half of ASTuner's ModelTuner / AgentJet's AjetTuner (a mixin of
    DebugTuner below, which is also an AgentScope chat model when agentscope is there)."""

    endpoint: ModelEndpoint
    timeout: float
    trainable_targets: list[str] | None
    registered: dict[str, Any]

    def is_trainable(self, name: str) -> bool:
        return not self.trainable_targets or name in self.trainable_targets

    def register_model(self, target_name: str, default_model: Any = None) -> Any:
        keep = self.is_trainable(target_name) or default_model is None
        self.registered[target_name] = self if keep else default_model
        return self.registered[target_name]

    def get_model(self, target_name: str) -> Any:
        if target_name not in self.registered:
            raise KeyError(f"no model registered as {target_name!r}")
        return self.registered[target_name]

    def get_llm_proxy(self) -> None:
        return None

    def get_context_tracker(self) -> Obj:
        return Obj({"context_overflow": False})

    # AgentJet
    def as_agentscope_model(self) -> Any:
        return self

    def as_raw_openai_sdk_client(self) -> Any:
        return make_client(self.endpoint, self.timeout, is_async=True)

    def as_oai_baseurl_apikey(self) -> Obj:
        return Obj(
            {"base_url": self.endpoint["baseUrl"], "api_key": self.endpoint["apiKey"], "model": self.endpoint["name"]}
        )

    def terminate_episode(self) -> None:
        pass


def make_tuner(model: ModelEndpoint, config: Any, timeout: float, trainable_targets: list[str] | None = None) -> Any:
    """ASTuner's ModelTuner / AgentJet's AjetTuner surface. With agentscope installed it is
    an AgentScope OpenAIChatModel talking to the gateway; without, the raw-client parts work
    and using it as an AgentScope model raises a clear error."""
    agentscope_model = optional_module("agentscope.model")
    chat_model = getattr(agentscope_model, "OpenAIChatModel", None)
    openai = optional_module("openai")

    # An AgentScope chat model first (its methods win), the tuner's registry beside it.
    bases = (chat_model, _TunerApi) if chat_model is not None else (_TunerApi,)

    class DebugTuner(*bases):  # type: ignore[misc]
        def __init__(self) -> None:
            if chat_model is not None:
                client_args: Json = {"base_url": model["baseUrl"], "max_retries": 0, "timeout": timeout}
                if openai is not None:
                    hooks = {"request": [_hooks(None)[1]]}
                    client_args["http_client"] = openai.DefaultAsyncHttpxClient(event_hooks=hooks)
                chat_model.__init__(
                    self, model_name=model["name"], api_key=model["apiKey"], stream=False, client_args=client_args
                )
            self.endpoint = model
            self.timeout = timeout
            self.config = to_attr(config)
            self.trainable_targets = trainable_targets
            self.registered = {}

        if chat_model is None:

            async def __call__(self, *args: Any, **kwargs: Any) -> Any:
                raise RuntimeError(
                    "This workflow uses its model as an AgentScope chat model, and agentscope is not "
                    "installed in this interpreter (pip install agentscope)"
                )

    return DebugTuner()
