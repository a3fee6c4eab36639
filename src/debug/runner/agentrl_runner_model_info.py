# The parts of trinity.common.models.model.ModelWrapper that are not about calls: the workflow
# state (async, under a lock, as upstream 0.5.2) and the model's identity properties. Mixed into
# DebugModelWrapper (agentrl_runner_model.py) so each file keeps one job. Standard library only.
import asyncio


class WorkflowStateMixin(object):
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


class ModelInfoMixin(object):
    # The served model's identity, as a ModelWrapper reports it; the debugger serves one fixed
    # model (no weight sync, no LoRA, no load).
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
