try:
    from {{pkg}} import {{tuner}}, Workflow, WorkflowOutput, WorkflowTask
except ImportError:  # {{frameworkName}} is not installed here: just enough of its API to debug a rollout (F5)
    from typing import Any

    from pydantic import BaseModel

    class Workflow(BaseModel):
        model_config = {"extra": "allow"}
        name: str = "default_workflow"
        trainable_targets: list[str] | None = None

    class WorkflowOutput(BaseModel):
        reward: float | None = None
        is_success: bool | None = None
        metadata: dict[str, Any] = {}

    {{tuner}} = WorkflowTask = Any  # used in annotations only
