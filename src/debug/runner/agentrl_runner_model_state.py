# The parts of the runner's ModelWrapper stand-in (agentrl_runner_model.DebugModelWrapper)
# that hold no generation logic: the recorded history and the workflow state (locked as
# upstream), and the properties and engine queries Trinity's ModelWrapper answers. Mixins,
# so the wrapper keeps upstream's one-class surface while each file stays one job.
import asyncio
import copy
import threading

from agentrl_runner_sampling import experiences_from_completion


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


class WorkflowStateMixin(object):
    """History extraction and workflow state of DebugModelWrapper (its attributes: enable_history,
    _history, history, workflow_state, _state_lock, the OpenAI clients)."""

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

    # ---- workflow state (async, under a lock, as upstream)

    def _lock(self):
        if self._state_lock is None:
            self._state_lock = asyncio.Lock()
        return self._state_lock

    async def set_workflow_state(self, state):
        async with self._lock():
            self.workflow_state.update(state)

    async def clean_workflow_state(self):
        async with self._lock():
            self.workflow_state = {}
            del self._history.items[:]

    async def get_workflow_state(self):
        async with self._lock():
            return self.workflow_state.copy()

    def clone_with_isolated_history(self):
        new = copy.copy(self)
        new._history = History()
        new.history = new._history.items
        new.openai_client = None
        new.openai_async_client = None
        new._raw = None
        new._araw = None
        return new


class ModelInfoMixin(object):
    """What DebugModelWrapper reports about its model (its attributes: _model, config, _generate_kwargs)."""

    @property
    def model_path(self):
        # The served model's name: what the workflow's requests must name at this endpoint.
        return self._model["name"]

    @property
    async def model_path_async(self):
        return self.model_path

    @property
    def model_name(self):
        return self.config.get("name") or self._model["name"]

    @property
    def model_config(self):
        return self.config

    @property
    def model_version(self):
        return 0  # the debugger serves one fixed model: no weight sync

    @property
    async def model_version_async(self):
        return 0

    @property
    def api_key(self):
        return self._model["apiKey"]

    @property
    def generate_kwargs(self):
        return self._generate_kwargs

    def get_lora_request(self):
        return None

    async def get_lora_request_async(self):
        return None

    async def get_current_load(self):
        return 0

    async def sync_model_weights(self, model_version):
        return None
