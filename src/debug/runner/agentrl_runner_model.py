# trinity.common.models.model.ModelWrapper, method by method (sync and async exactly as
# upstream 0.5.2, 9051d63), served by the extension's recording gateway instead of a Ray
# actor around vLLM. Generation settings become an OpenAI request (agentrl_runner_sampling),
# replies become Trinity experiences (token ids, prompt length, logprobs), and what needs the
# model's tokenizer (token lengths, messages -> experience) uses it when it can be loaded.
# Auxiliary models (explorer.auxiliary_models) are wrappers too, tagged with their role.
import asyncio
import copy
import threading

from agentrl_runner_clients import Obj, as_dict, make_client
from agentrl_runner_model_info import ModelInfoMixin, WorkflowStateMixin
from agentrl_runner_sampling import experiences_from_completion, make_experience, sampling_request
from agentrl_runner_tokenizer import TokenizerUnavailable, load_tokenizer

ENGINE_DEFAULTS = (("temperature", "temperature"), ("top_p", "top_p"), ("top_k", "top_k"),
                   ("max_tokens", "max_response_tokens"), ("min_tokens", "min_response_tokens"),
                   ("logprobs", "logprobs"), ("ignore_eos", "ignore_eos"))


def _obj(v):
    return v if isinstance(v, dict) else {}


def engine_config(cfg, aux_index=None):
    """The InferenceModelConfig fields of the rollout model (or auxiliary model i): the
    explorer's entry over the top-level `model` section, as Trinity's config check fills it."""
    cfg = _obj(cfg)
    model = _obj(cfg.get("model"))
    explorer = _obj(cfg.get("explorer"))
    if aux_index is None:
        entry = _obj(explorer.get("rollout_model"))
        base = {k: model.get(k) for k in ("model_path", "temperature", "top_p", "top_k", "max_response_tokens",
                                            "min_response_tokens", "logprobs", "chat_template", "enable_thinking",
                                            "max_model_len", "max_prompt_tokens") if model.get(k) is not None}
    else:
        aux = explorer.get("auxiliary_models") or []
        entry = _obj(aux[aux_index]) if aux_index < len(aux) else {}
        base = {}
    out = dict(base)
    out.update({k: v for k, v in entry.items() if v is not None})
    return out


class History(object):
    """ModelWrapper.history: experiences of every recorded call, in call order."""

    def __init__(self):
        self.items = []
        self.lock = threading.Lock()

    def extend(self, exps):
        with self.lock:
            self.items.extend(exps)

    def add(self, kwargs, response):
        """Record a chat.completions reply the workflow got from get_openai_client()."""
        try:
            self.extend(experiences_from_completion(response))
        except Exception:
            pass


class DebugModelWrapper(WorkflowStateMixin, ModelInfoMixin):
    """The ModelWrapper a workflow gets: `model` is the gateway endpoint ({baseUrl, apiKey,
    name}); `config` the engine's InferenceModelConfig fields (engine_config())."""

    def __init__(self, model, rollout_args, timeout, config=None, role=None, enable_history=None):
        self._model = model
        self._timeout = timeout
        self._role = role
        self._rollout_args = dict(rollout_args or {})
        self.config = Obj(dict(config or {}))
        self.enable_history = bool(self.config.get("enable_history", True) if enable_history is None else enable_history)
        self.history = []
        self._history = History()
        self.history = self._history.items
        self.openai_client = None
        self.openai_async_client = None
        self.workflow_state = {}
        self._state_lock = None
        self._tokenizer = None
        self._tokenizer_error = None
        self._generate_kwargs = {"temperature": self.config.get("temperature"), "top_p": self.config.get("top_p"),
                                 "max_tokens": self.config.get("max_response_tokens")}
        if self.config.get("enable_thinking") is not None:
            self._generate_kwargs["extra_body"] = {"chat_template_kwargs": {"enable_thinking": self.config.get("enable_thinking")}}

    # ---- engine defaults, tokenizer

    def _defaults(self):
        out = {}
        for key, field in ENGINE_DEFAULTS:
            v = self.config.get(field)
            if v is None and self._role is None:
                v = self._rollout_args.get(key)
            if v is not None:
                out[key] = v
        if self.config.get("enable_thinking") is not None:
            out["extra_body"] = {"chat_template_kwargs": {"enable_thinking": self.config.get("enable_thinking")}}
        return out

    def tokenizer(self, required=None):
        if self._tokenizer is None and self._tokenizer_error is None:
            try:
                self._tokenizer = load_tokenizer(self.config.get("model_path"), self.config.get("chat_template"),
                                                 self.config.get("enable_thinking"))
            except TokenizerUnavailable as e:
                self._tokenizer_error = str(e)
        if self._tokenizer is None and required:
            raise RuntimeError("%s needs the model's tokenizer, which the Agent RL debugger could not load: %s"
                               % (required, self._tokenizer_error))
        return self._tokenizer

    # ---- inference (ModelWrapper.chat / generate and their _async twins)

    def _client(self):
        return make_client(self._model, self._timeout, role=self._role)

    def _chat_request(self, client, messages, kwargs):
        params, n = sampling_request(self._defaults(), kwargs)
        resp = client.chat.completions.create(model=self.model_path, messages=messages, **params)
        return params, n, resp

    def _to_experiences(self, responses, messages):
        tok = self.tokenizer()
        out = []
        for resp in responses:
            out += experiences_from_completion(as_dict(resp), tok, messages)
        return out

    def chat(self, messages, **kwargs):
        client = self._sync_raw()
        params, n, resp = self._chat_request(client, messages, kwargs)
        responses = [resp]
        got = len(as_dict(resp).get("choices") or [])
        while 0 < got < n:  # an endpoint without `n` (llama.cpp, some hosted APIs): one call per sample
            extra = client.chat.completions.create(model=self.model_path, messages=messages, **dict(params, n=1))
            responses.append(extra)
            got += len(as_dict(extra).get("choices") or []) or 1
        exps = self._to_experiences(responses, messages)
        self._record(exps)
        return exps

    async def chat_async(self, messages, **kwargs):
        client = self._async_raw()
        params, n = sampling_request(self._defaults(), kwargs)
        resp = await client.chat.completions.create(model=self.model_path, messages=messages, **params)
        responses = [resp]
        got = len(as_dict(resp).get("choices") or [])
        while 0 < got < n:
            extra = await client.chat.completions.create(model=self.model_path, messages=messages, **dict(params, n=1))
            responses.append(extra)
            got += len(as_dict(extra).get("choices") or []) or 1
        exps = self._to_experiences(responses, messages)
        self._record(exps)
        return exps

    # The gateway speaks chat completions: a raw prompt is sent as one user message.
    def generate(self, prompts, **kwargs):
        out = []
        for p in prompts:
            out += self.chat([{"role": "user", "content": p}], **kwargs)
        return out

    async def generate_async(self, prompts, **kwargs):
        results = await asyncio.gather(*[self.chat_async([{"role": "user", "content": p}], **kwargs) for p in prompts])
        return [e for exps in results for e in exps]

    def _record(self, exps):
        if self.enable_history:
            self._history.extend(exps)

    def _sync_raw(self):
        if getattr(self, "_raw", None) is None:
            self._raw = self._client()
        return self._raw

    def _async_raw(self):
        if getattr(self, "_araw", None) is None:
            self._araw = make_client(self._model, self._timeout, is_async=True, role=self._role)
        return self._araw

    def logprobs(self, tokens, temperature=None):
        raise NotImplementedError("logprobs() scores tokens inside the inference engine (vLLM prompt_logprobs); "
                                  "an OpenAI-compatible endpoint cannot, so the Agent RL debugger does not offer it")

    async def logprobs_async(self, tokens, temperature=None):
        return self.logprobs(tokens, temperature)

    def convert_messages_to_experience(self, messages, tools=None, temperature=None):
        tok = self.tokenizer(required="convert_messages_to_experience")
        ids, mask, prompt_length = tok.tokens_and_mask(messages, tools)
        # Logprobs of a given conversation need the engine (prompt_logprobs): zeros here.
        return make_experience(ids[:prompt_length], ids[prompt_length:], [0.0] * (len(ids) - prompt_length), None,
                               messages=messages, tools=tools, action_mask=mask[prompt_length:])

    async def convert_messages_to_experience_async(self, messages, tools=None, temperature=None):
        return self.convert_messages_to_experience(messages, tools, temperature)

    async def get_message_token_len(self, messages):
        return self.tokenizer(required="get_message_token_len").message_token_len(messages)

    # ---- OpenAI clients (explorer.rollout_model.enable_openai_api)

    def get_openai_client(self):
        if self.openai_client is None:
            self.openai_client = make_client(self._model, self._timeout, self._history if self.enable_history else None,
                                             role=self._role, record_kwargs=self._record_kwargs())
        self.openai_client.model_path = self.model_path
        return self.openai_client

    def get_openai_async_client(self):
        if self.openai_async_client is None:
            self.openai_async_client = make_client(self._model, self._timeout, self._history if self.enable_history else None,
                                                   is_async=True, role=self._role, record_kwargs=self._record_kwargs())
        self.openai_async_client.model_path = self.model_path
        return self.openai_async_client

    def _record_kwargs(self):
        """What record_chat_completions adds to every call when history is on."""
        thinking = self.config.get("enable_thinking")
        return {"thinking": thinking} if self.enable_history else None

    def extract_experience_from_history(self, clear_history=True):
        if not self.enable_history:
            raise ValueError("History recording is not enabled.")
        with self._history.lock:
            exps = list(self._history.items)
            if clear_history:
                del self._history.items[:]
        return exps

    async def extract_experience_from_history_async(self, clear_history=True):
        return self.extract_experience_from_history(clear_history)

    def clone_with_isolated_history(self):
        new = copy.copy(self)
        new._history = History()
        new.history = new._history.items
        new.openai_client = None
        new.openai_async_client = None
        new._raw = None
        new._araw = None
        return new


def auxiliary_wrappers(plan, timeout):
    """One wrapper per explorer.auxiliary_models entry. Each talks to its own gateway URL
    from plan.auxiliaryModels (recorded like the rollout model's calls), else to the main
    endpoint under the main model's name; every call is tagged auxiliary/<i>."""
    cfg = _obj(plan.get("config"))
    entries = _obj(cfg.get("explorer")).get("auxiliary_models") or []
    given = plan.get("auxiliaryModels") or []
    out = []
    for i, _ in enumerate(entries):
        ep = given[i] if i < len(given) and isinstance(given[i], dict) else {}
        model = {"baseUrl": ep.get("baseUrl") or plan["model"]["baseUrl"], "apiKey": ep.get("apiKey") or plan["model"]["apiKey"],
                 "name": ep.get("name") or plan["model"]["name"]}
        out.append(DebugModelWrapper(model, {}, timeout, config=engine_config(cfg, i), role="auxiliary/%d" % i,
                                     enable_history=True))
    return out
