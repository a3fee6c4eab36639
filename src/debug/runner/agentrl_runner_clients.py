# Model clients handed to the workflow. They all talk to the extension's recording gateway
# and tag each request with the episode and the user's call stack. With the `openai`
# package installed the workflow gets real openai.OpenAI / AsyncOpenAI clients; without it,
# a small standard-library client with the same `chat.completions.create` surface.
import asyncio
import json
import urllib.error
import urllib.request

from agentrl_runner_stack import current_episode, stack_header, user_stack

HEADER_EPISODE = "x-agentrl-episode"
HEADER_STACK = "x-agentrl-stack"
HEADER_ROLE = "x-agentrl-role"  # "auxiliary/<i>" on an auxiliary model's calls (the rollout model's carry none)


def call_headers(role=None):
    headers = {HEADER_STACK: stack_header(user_stack())}
    ep = current_episode()
    if ep:
        headers[HEADER_EPISODE] = ep
    if role:
        headers[HEADER_ROLE] = role
    return headers


class Obj(dict):
    """A JSON object with attribute access, standing in for the SDK's pydantic models."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        try:
            return wrap(self[name])
        except KeyError:
            return None

    def __getitem__(self, key):
        return wrap(dict.__getitem__(self, key))

    def model_dump(self, **_):
        return json.loads(json.dumps(self))

    to_dict = model_dump


def wrap(v):
    if isinstance(v, dict) and not isinstance(v, Obj):
        return Obj(v)
    if isinstance(v, list):
        return [wrap(x) for x in v]
    return v


class APIError(Exception):
    """Raised by the standard-library client for a non-2xx reply (like openai.APIStatusError)."""

    def __init__(self, status, message, body=None):
        Exception.__init__(self, "Error code: %s - %s" % (status, message))
        self.status_code = status
        self.message = message
        self.body = body


def as_dict(resp):
    if isinstance(resp, dict):
        return resp
    dump = getattr(resp, "model_dump", None)
    return dump() if callable(dump) else {}


_as_dict = as_dict


def _assemble(chunks):
    from agentrl_runner_sampling import assemble_stream
    return assemble_stream(chunks)


def _record_stream(stream, kwargs, history):
    chunks = []
    for c in stream:
        chunks.append(c)
        yield c
    history.add(kwargs, _assemble(chunks))


async def _record_astream(stream, kwargs, history):
    chunks = []
    async for c in stream:
        chunks.append(c)
        yield c
    history.add(kwargs, _assemble(chunks))


# ---------------------------------------------------------------- standard-library client


class _MiniCompletions(object):
    def __init__(self, client):
        self._client = client

    def create(self, **kwargs):
        return self._client._post("/chat/completions", kwargs, call_headers(self._client.role))


class _MiniChat(object):
    def __init__(self, client):
        self.completions = _MiniCompletions(client)


class _MiniModels(object):
    def __init__(self, client):
        self._client = client

    def list(self):
        return wrap(self._client._get("/models"))


class MiniOpenAI(object):
    """`openai.OpenAI`'s chat surface on urllib (used when the openai package is missing)."""

    def __init__(self, base_url, api_key, timeout=3600.0):
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout
        self.role = None
        self.chat = _MiniChat(self)
        self.models = _MiniModels(self)

    def _request(self, path, body, headers):
        data = None if body is None else json.dumps(body).encode("utf-8")
        h = {"authorization": "Bearer " + self.api_key, "content-type": "application/json"}
        h.update(headers or {})
        req = urllib.request.Request(self.base_url + path, data=data, headers=h, method="GET" if body is None else "POST")
        try:
            return urllib.request.urlopen(req, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                err = json.loads(raw)
                message = (err.get("error") or {}).get("message") or raw
            except ValueError:
                err, message = None, raw
            raise APIError(e.code, message, err)

    def _get(self, path):
        with self._request(path, None, None) as r:
            return json.loads(r.read().decode("utf-8"))

    def _post(self, path, body, headers):
        body = {k: v for k, v in body.items() if k not in ("extra_headers", "extra_query", "timeout")}
        extra = body.pop("extra_body", None) or {}
        body.update(extra)
        r = self._request(path, body, headers)
        if not body.get("stream"):
            with r:
                return wrap(json.loads(r.read().decode("utf-8")))
        return _sse_iter(r)


def _sse_iter(resp):
    with resp:
        for raw in resp:
            line = raw.decode("utf-8").strip()
            if not line.startswith("data:"):
                continue
            data = line[5:].strip()
            if data == "[DONE]":
                return
            yield wrap(json.loads(data))


class _MiniAsyncCompletions(object):
    def __init__(self, client):
        self._client = client

    async def create(self, **kwargs):
        headers = call_headers(self._client._sync.role)  # the caller's stack, captured before leaving its thread
        loop = asyncio.get_event_loop()
        result = await loop.run_in_executor(None, lambda: self._client._sync._post("/chat/completions", kwargs, headers))
        if kwargs.get("stream"):
            return _aiter_from(list(result))
        return result


async def _aiter_from(items):
    for x in items:
        yield x


class MiniAsyncOpenAI(object):
    def __init__(self, base_url, api_key, timeout=3600.0):
        self._sync = MiniOpenAI(base_url, api_key, timeout)
        self.base_url = self._sync.base_url
        self.api_key = api_key
        self.chat = type("Chat", (), {})()
        self.chat.completions = _MiniAsyncCompletions(self)


# ---------------------------------------------------------------- client factory


def _openai():
    try:
        import openai  # noqa: F401
        return openai
    except Exception:
        return None


def _hooks(role):
    def sync_hook(request):
        for k, v in call_headers(role).items():
            request.headers[k] = v

    async def async_hook(request):
        sync_hook(request)

    return sync_hook, async_hook


_sync_hook, _async_hook = _hooks(None)


def make_client(model, timeout, history=None, is_async=False, role=None, record_kwargs=None):
    """An OpenAI client pointed at the gateway, tagged per call (episode, stack, role),
    recording `history` the way ModelWrapper's record_chat_completions does."""
    openai = _openai()
    sync_hook, async_hook = _hooks(role)
    if openai is not None:
        common = dict(base_url=model["baseUrl"], api_key=model["apiKey"], max_retries=0, timeout=timeout)
        if is_async:
            client = openai.AsyncOpenAI(http_client=openai.DefaultAsyncHttpxClient(event_hooks={"request": [async_hook]}), **common)
        else:
            client = openai.OpenAI(http_client=openai.DefaultHttpxClient(event_hooks={"request": [sync_hook]}), **common)
    else:
        cls = MiniAsyncOpenAI if is_async else MiniOpenAI
        client = cls(model["baseUrl"], model["apiKey"], timeout)
        (client._sync if is_async else client).role = role
    client.model_path = model["name"]
    if history is not None:
        _track_history(client, history, is_async, record_kwargs)
    return client


def _recording_kwargs(kwargs, record_kwargs):
    """record_chat_completions: logprobs on by default, vLLM token ids requested, the
    config's enable_thinking passed to the chat template."""
    if record_kwargs is None:
        return kwargs
    kwargs = dict(kwargs)
    kwargs.setdefault("logprobs", True)
    extra = dict(kwargs.pop("extra_body", None) or {})
    if record_kwargs.get("thinking") is not None:
        ctk = dict(extra.get("chat_template_kwargs") or {})
        ctk["enable_thinking"] = record_kwargs["thinking"]
        extra["chat_template_kwargs"] = ctk
    extra["return_token_ids"] = True
    kwargs["extra_body"] = extra
    return kwargs


def _track_history(client, history, is_async, record_kwargs=None):
    completions = client.chat.completions
    original = completions.create
    if is_async:
        async def create(*args, **kwargs):
            kwargs = _recording_kwargs(kwargs, record_kwargs)
            resp = await original(*args, **kwargs)
            if kwargs.get("stream"):
                return _record_astream(resp, kwargs, history)
            history.add(kwargs, _as_dict(resp))
            return resp
    else:
        def create(*args, **kwargs):
            kwargs = _recording_kwargs(kwargs, record_kwargs)
            resp = original(*args, **kwargs)
            if kwargs.get("stream"):
                return _record_stream(resp, kwargs, history)
            history.add(kwargs, _as_dict(resp))
            return resp
    completions.create = create


# ---------------------------------------------------------------- ASTuner / AgentJet tuner


def make_tuner(model, config, timeout, trainable_targets=None):
    """ASTuner's ModelTuner / AgentJet's AjetTuner surface. With agentscope installed it is
    an AgentScope OpenAIChatModel talking to the gateway; without, the raw-client parts work
    and using it as an AgentScope model raises a clear error."""
    try:
        from agentscope.model import OpenAIChatModel  # type: ignore
    except Exception:
        OpenAIChatModel = None
    base = (OpenAIChatModel,) if OpenAIChatModel is not None else (object,)

    class DebugTuner(base[0]):  # type: ignore[misc]
        def __init__(self):
            if OpenAIChatModel is not None:
                openai = _openai()
                client_args = {"base_url": model["baseUrl"], "max_retries": 0, "timeout": timeout}
                if openai is not None:
                    client_args["http_client"] = openai.DefaultAsyncHttpxClient(event_hooks={"request": [_async_hook]})
                OpenAIChatModel.__init__(self, model_name=model["name"], api_key=model["apiKey"], stream=False,
                                         client_args=client_args)
            self.config = _to_attr(config)
            self.trainable_targets = trainable_targets
            self._registered = {}

        if OpenAIChatModel is None:
            async def __call__(self, *args, **kwargs):
                raise RuntimeError("This workflow uses its model as an AgentScope chat model, and agentscope "
                                   "is not installed in this interpreter (pip install agentscope)")

        def is_trainable(self, name):
            return not self.trainable_targets or name in self.trainable_targets

        def register_model(self, target_name, default_model=None):
            self._registered[target_name] = self if self.is_trainable(target_name) or default_model is None else default_model
            return self._registered[target_name]

        def get_model(self, target_name):
            if target_name not in self._registered:
                raise KeyError("no model registered as %r" % target_name)
            return self._registered[target_name]

        def get_llm_proxy(self):
            return None

        def get_context_tracker(self):
            return Obj({"context_overflow": False})

        # AgentJet
        def as_agentscope_model(self):
            return self

        def as_raw_openai_sdk_client(self):
            return make_client(model, timeout, is_async=True)

        def as_oai_baseurl_apikey(self):
            return Obj({"base_url": model["baseUrl"], "api_key": model["apiKey"], "model": model["name"]})

        def terminate_episode(self):
            pass

    return DebugTuner()


def _to_attr(v):
    if isinstance(v, dict):
        return Obj({k: _to_attr(x) for k, x in v.items()})
    if isinstance(v, list):
        return [_to_attr(x) for x in v]
    return v
