"""Runs one episode of a workflow in the protocol its author wrote it for:

* Trinity-RFT   ``class Workflow(task=..., model=..., auxiliary_models=...).run()`` / ``run_async()``
* ASTuner/AJet  a class with ``async execute(workflow_task, tuner) -> WorkflowOutput``, plus a judge
* plain         a function ``(task, client) -> reward | dict | response``, plus a reward function

and reports reward, metrics and metadata. Reward / judge errors are told apart from workflow
errors so the debugger can stop on each kind.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import traceback
import types
import uuid
from typing import Any, Awaitable, Callable, Dict, Literal

from agentrl_runner.channel import Channel
from agentrl_runner.clients import make_client, make_tuner
from agentrl_runner.conversions import Conversions
from agentrl_runner.model import DebugModelWrapper, auxiliary_wrappers, engine_config
from agentrl_runner.optional import optional_module
from agentrl_runner.protocol import EpisodeResult, ErrorInfo, RunnerPlan
from agentrl_runner.stack import traceback_frames
from agentrl_runner.values import jsonable, to_attr, to_builtin

NAMESPACE = uuid.UUID("6f1d3a5e-8c0b-4e59-9a3c-1b2d3e4f5a6b")
Phase = Literal["workflow", "judge", "import", "tasks", "runner"]
Json = Dict[str, Any]


@dataclasses.dataclass
class EpisodeJob:
    """One episode to run: a task (its row, id and index in the taskset) and its repeat."""

    index: int
    task_id: str
    row: Any
    repeat: int

    @property
    def name(self) -> str:
        """T<task id>#R<repeat>: the episode's id (the debugger's thread name)."""
        return f"T{self.task_id}#R{self.repeat}"


@dataclasses.dataclass
class Workload:
    """What every episode of a run shares: the plan, the workflow and the reward / judge."""

    plan: RunnerPlan
    workflow: Any
    reward: Any = None

    @property
    def timeout(self) -> float:
        return self.plan.get("clientTimeout", 3600)

    @property
    def config(self) -> Any:
        return self.plan.get("config") or {}


def error_info(exc: BaseException, phase: Phase) -> ErrorInfo:
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {
        "phase": phase,
        "type": type(exc).__name__,
        "message": str(exc),
        "traceback": traceback_frames(exc.__traceback__),
        "text": text,
    }


class Reporter:
    """Stops (via the extension) where errors happen; each exception is reported once."""

    def __init__(self, channel: Channel, episode: str) -> None:
        self.channel = channel
        self.episode = episode
        self.judged: list[Any] = []  # rewards the judge produced during the episode

    def exception(self, exc: BaseException, phase: Phase) -> Phase:
        """Reports ``exc`` (once: the phase it was first reported in is returned after)."""
        seen: Phase | None = getattr(exc, "_agentrl_phase", None)
        if seen:
            return seen
        try:
            exc._agentrl_phase = phase  # type: ignore[attr-defined]
        except AttributeError:
            pass  # an exception type with __slots__: it may be reported twice
        self.channel.request({"type": "exception", "episode": self.episode, "error": error_info(exc, phase)})
        return phase

    def judge(self, compute: Callable[[], Any]) -> Any:
        """Runs a reward / judge computation, reporting what it raises as a judge error."""
        try:
            result = compute()
        except BaseException as e:
            self.exception(e, "judge")
            raise
        self.judged.append(result)
        return result


def _call_with_accepted(fn: Callable[..., Any], kwargs: Json) -> Any:
    """``fn(**kwargs)`` with only the keyword arguments it accepts."""
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn(**kwargs)
    if any(p.kind == p.VAR_KEYWORD for p in sig.parameters.values()):
        return fn(**kwargs)
    return fn(**{k: v for k, v in kwargs.items() if k in sig.parameters})


async def _as_coro(awaitable: Awaitable[Any]) -> Any:
    return await awaitable


def _await(value: Any) -> Any:
    """The value, or what it resolves to when it is awaitable (on a fresh event loop)."""
    if inspect.isawaitable(value):
        return asyncio.run(_as_coro(value))
    return value


def reward_total(value: Any) -> float | None:
    """A reward fn's result as one number: dict values are summed (Trinity), tuples give their first."""
    if value is None:
        return None
    if isinstance(value, (bool, int, float)):
        return float(value)
    if isinstance(value, dict):
        nums = [v for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return float(sum(nums)) if nums else None
    if isinstance(value, (tuple, list)) and value:
        return reward_total(value[0])
    return None


def wrap_reward(reward_obj: Any, reporter: Reporter) -> Any:
    """Trinity workflows instantiate task.reward_fn(**reward_fn_args) and call it: a subclass
    (or, for a function, a class around it) that reports judge errors where they happen and
    keeps the rewards it computed."""
    if reward_obj is None:
        return None
    if inspect.isclass(reward_obj):
        base = reward_obj

        def __call__(self: Any, *args: Any, **kwargs: Any) -> Any:
            return reporter.judge(lambda: base.__call__(self, *args, **kwargs))

        return type(base.__name__, (base,), {"__call__": __call__, "__module__": base.__module__})

    fn = reward_obj

    class FunctionReward:
        def __init__(self, **kwargs: Any) -> None:
            self._kwargs = kwargs

        def __call__(self, *args: Any, **kwargs: Any) -> Any:
            if args:
                return reporter.judge(lambda: _await(fn(*args, **kwargs)))
            return reporter.judge(lambda: _await(_call_with_accepted(fn, dict(self._kwargs, **kwargs))))

    FunctionReward.__name__ = getattr(fn, "__name__", "reward")
    return FunctionReward


class TaskView:
    """trinity.common.workflows.Task's fields, for when trinity is not installed."""

    def __init__(self, **kw: Any) -> None:
        self.__dict__.update(kw)

    @property
    def task_desc(self) -> Any:
        return (self.raw_task or {}).get(getattr(self.format_args, "prompt_key", "prompt"))

    @property
    def truth(self) -> Any:
        return (self.raw_task or {}).get(getattr(self.format_args, "response_key", "response"))

    def to_dict(self) -> Any:
        return self.raw_task

    def to_workflow(self, model: Any, auxiliary_models: Any = None) -> Any:
        return self.workflow(task=self, model=model, auxiliary_models=auxiliary_models)


FORMAT_DEFAULTS: Json = {
    "prompt_type": "messages",
    "prompt_key": "prompt",
    "response_key": "response",
    "system_prompt_key": None,
    "system_prompt": None,
    "messages_key": "message",
    "tools_key": "tools",
    "image_key": None,
    "video_key": None,
    "reply_prefix": None,
    "workflow_key": "",
    "reward_fn_key": "",
    "chosen_key": "chosen",
    "rejected_key": "rejected",
    "enable_concatenated_multi_turn": False,
    "chat_template": None,
    "enable_thinking": None,
}
ROLLOUT_DEFAULTS: Json = {"temperature": None, "top_p": None, "top_k": -1, "logprobs": None, "max_tokens": None, "n": 1}


def _trinity_configs(fmt: Json, rollout: Json) -> tuple[Any, Any, Any] | None:
    """(FormatConfig, GenerationConfig, Task) of the installed trinity, or None."""
    config = optional_module("trinity.common.config")
    workflow = optional_module("trinity.common.workflows.workflow")
    if config is None or workflow is None:
        return None

    def known(cls: Any, values: Json) -> Json:
        return {k: v for k, v in values.items() if k in cls.__dataclass_fields__}

    return (
        config.FormatConfig(**known(config.FormatConfig, fmt)),
        config.GenerationConfig(**known(config.GenerationConfig, rollout)),
        workflow.Task,
    )


def trinity_task(work: Workload, job: EpisodeJob, reward_cls: Any) -> Any:
    """The episode's task as Trinity's own Task when trinity is installed, else a TaskView."""
    plan = work.plan
    fmt = dict(FORMAT_DEFAULTS, **(plan.get("format") or {}))
    rollout = dict(ROLLOUT_DEFAULTS, **(plan.get("rolloutArgs") or {}))
    kw: Json = {
        "workflow": work.workflow,
        "repeat_times": 1,
        "workflow_args": dict(plan.get("workflowArgs") or {}),
        "reward_fn_args": dict(plan.get("rewardArgs") or {}),
        "is_eval": False,
        "reward_fn": reward_cls,
        "raw_task": job.row,
        "batch_id": 0,
        "task_id": job.task_id,
        "index": {},
    }
    # An installed trinity whose classes refuse these fields gets the stand-in too.
    with contextlib.suppress(Exception):
        real = _trinity_configs(fmt, rollout)
        if real is not None:
            format_args, rollout_args, task = real
            return task(format_args=format_args, rollout_args=rollout_args, **kw)
    return TaskView(format_args=types.SimpleNamespace(**fmt), rollout_args=types.SimpleNamespace(**rollout), **kw)


def _field(e: Any, name: str) -> Any:
    return e.get(name) if isinstance(e, dict) else getattr(e, name, None)


def _experience_summary(exps: Any) -> list[Any]:
    keys = ("reward", "metrics", "info", "response_text")
    return [jsonable({k: _field(e, k) for k in keys if not isinstance(e, dict) or k in e}) for e in exps or []]


MAX_EXPERIENCE_TOKENS = 65536


def _int_list(v: Any) -> list[int] | None:
    """A tensor, array or list of numbers as ints; None when it is none of them."""
    v = to_builtin(v) if v is not None and not isinstance(v, list) else v
    if not isinstance(v, list) or not all(isinstance(x, (int, float, bool)) for x in v):
        return None
    return [int(x) for x in v]


def _float_list(v: Any) -> list[float] | None:
    """A tensor, array or list of numbers as floats; None when it is none of them."""
    v = to_builtin(v) if v is not None and not isinstance(v, list) else v
    if not isinstance(v, list) or not all(isinstance(x, (int, float)) for x in v):
        return None
    return [float(x) for x in v]


def _experience_tokens(exps: Any, conversions: Conversions | None = None) -> list[Json]:
    """Per experience with token ids: the ids, prompt length, action mask and logprobs as Trinity
    keeps them (the mask and the logprobs cover the response), with the messages and tools it was
    built from: its own, else those of the model's conversion that returned the same ids
    (Trinity's Workflow.process_messages_to_experience drops them)."""
    out: list[Json] = []
    for i, e in enumerate(exps or []):
        tokens = _int_list(_field(e, "tokens"))
        if not tokens or len(tokens) > MAX_EXPERIENCE_TOKENS:
            continue
        mask = _int_list(_field(e, "action_mask"))
        prompt_length = _field(e, "prompt_length")
        messages, tools = jsonable(_field(e, "messages")), jsonable(_field(e, "tools"))
        converted = conversions.find(tokens) if conversions is not None and not messages else None
        if converted is not None:
            messages, tools = converted.messages, tools or converted.tools
        out.append(
            {
                "index": i,
                "tokens": tokens,
                "promptLength": int(prompt_length) if isinstance(prompt_length, int) else None,
                "actionMask": mask,
                "logprobs": _float_list(_field(e, "logprobs")),
                "messages": messages,
                "tools": tools,
            }
        )
    return out


def _reward_of_experiences(exps: Any) -> float | None:
    vals = []
    for e in exps or []:
        r = _field(e, "reward")
        if isinstance(r, (int, float)) and not isinstance(r, bool):
            vals.append(float(r))
        elif hasattr(r, "item"):
            vals.append(float(r.item()))
    return sum(vals) / len(vals) if vals else None


def _metrics_of_experiences(exps: Any) -> dict[str, float]:
    out = {}
    for e in exps or []:
        for k, v in (_field(e, "metrics") or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = float(v)
    return out


def run_trinity(work: Workload, job: EpisodeJob, reporter: Reporter) -> EpisodeResult:
    task = trinity_task(work, job, wrap_reward(work.reward, reporter))
    cfg = work.config
    rollout_model = _obj(_obj(_obj(cfg).get("explorer")).get("rollout_model"))
    conversions = Conversions()  # the episode's: its wrappers share it, its end clears it
    model = DebugModelWrapper(
        work.plan["model"],
        work.plan.get("rolloutArgs"),
        work.timeout,
        config=engine_config(cfg),
        enable_history=bool(rollout_model.get("enable_history", False)),
        conversions=conversions,
    )
    auxiliary = auxiliary_wrappers(work.plan, work.timeout, conversions)
    try:
        wf = work.workflow(task=task, model=model, auxiliary_models=auxiliary)
        if getattr(wf, "can_repeat", False) and hasattr(wf, "set_repeat_times"):
            wf.set_repeat_times(1, job.repeat)
        if getattr(wf, "is_async", False) or (not hasattr(wf, "run") and hasattr(wf, "run_async")):
            exps = asyncio.run(wf.run_async())
        else:
            exps = wf.run()
        reward = _reward_of_experiences(exps)
        if reward is None and reporter.judged:
            reward = reward_total(reporter.judged[-1])
        metadata = {"judge": jsonable(reporter.judged[-1])} if reporter.judged else {}
        return {
            "reward": reward,
            "success": None,
            "metrics": _metrics_of_experiences(exps),
            "metadata": metadata,
            "experiences": _experience_summary(exps),
            "experienceTokens": _experience_tokens(exps, conversions),
        }
    finally:
        conversions.clear()


def _obj(v: Any) -> Json:
    return v if isinstance(v, dict) else {}


def _astuner_classes() -> tuple[Any, Any]:
    """(WorkflowTask, Task) of the installed AgentJet / AgentScope tuner / ASTuner, or Nones."""
    for pkg in ("ajet", "agentscope_tuner", "astuner"):
        mod = optional_module(pkg + ".schema.task")
        if mod is not None and hasattr(mod, "WorkflowTask") and hasattr(mod, "Task"):
            return mod.WorkflowTask, mod.Task
    return None, None


def astuner_task(work: Workload, job: EpisodeJob) -> Any:
    """The episode's WorkflowTask: the installed tuner's own class, else a namespace like it."""
    row = job.row
    if isinstance(row, dict):
        query = row.get("main_query") or row.get("question") or row.get("query") or row.get("prompt") or ""
        init_messages = row.get("init_messages") or [{"role": "user", "content": query}]
        metadata = dict(row)
    else:
        query = str(row)
        init_messages = [{"role": "user", "content": query}]
        metadata = {"value": row}
    ep_uuid = uuid.uuid5(NAMESPACE, job.name).hex
    fields: Json = {
        "env_type": "",
        "task_id": job.task_id,
        "task_thread_index": job.repeat,
        "task_batch_index": job.index,
        "task_tag": job.name,
        "observation_window": {"step": [], "token": [], "stop": []},
        "llm_inference_fn": None,
        "tokenizer": None,
        "gym_env": None,
    }
    task_fields: Json = {
        "main_query": query,
        "init_messages": init_messages,
        "task_id": job.task_id,
        "env_type": "",
        "metadata": metadata,
    }
    workflow_task, task = _astuner_classes()
    if workflow_task is not None:
        # A tuner version whose classes refuse these fields gets the namespace below.
        with contextlib.suppress(Exception):
            return workflow_task(task=task(**task_fields), task_env_uuid=ep_uuid, episode_uuid=ep_uuid, **fields)
    return types.SimpleNamespace(
        task=types.SimpleNamespace(**task_fields), task_env_uuid=ep_uuid, episode_uuid=ep_uuid, **fields
    )


def _execute_of(workflow: Any) -> Callable[..., Any]:
    if not inspect.isclass(workflow):
        return workflow
    try:
        wf = workflow(name="agentrl-debug")
    except TypeError:
        wf = workflow()
    return getattr(wf, "execute", None) or wf.agentscope_execute


def _output_field(out: Any, name: str) -> Any:
    return out.get(name) if isinstance(out, dict) else getattr(out, name, None)


def run_astuner(work: Workload, job: EpisodeJob, reporter: Reporter) -> EpisodeResult:
    wt = astuner_task(work, job)
    tuner = make_tuner(work.plan["model"], work.config, work.timeout)
    out = _await(_execute_of(work.workflow)(wt, tuner))
    reward = _output_field(out, "reward")
    success = _output_field(out, "is_success")
    meta = _output_field(out, "metadata")
    judge_obj = work.reward
    if reward is None and judge_obj is not None:
        if inspect.isclass(judge_obj):
            result = reporter.judge(lambda: _await(judge_obj(to_attr(work.config)).compute_reward(wt, out)))
        else:
            result = reporter.judge(lambda: _await(judge_obj(wt, out)))
        if isinstance(result, (tuple, list)):
            reward, success = result[0], (result[1] if len(result) > 1 else success)
        else:
            reward = reward_total(result)
    return {
        "reward": reward_total(reward),
        "success": success,
        "metrics": {},
        "metadata": jsonable(meta or {}),
        "experiences": [],
    }


def _param_names(fn: Any) -> list[str]:
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _named(fn: Any) -> bool:
    names = _param_names(fn)
    return "task" in names and ("client" in names or "model" in names)


def plain_model_arg(fn: Any, plan: RunnerPlan) -> Any:
    """What a plain function's ``model`` parameter gets. The AgentScope tuner style
    ``workflow(task, model)`` (no ``client``) gets an AgentScope chat model talking to the gateway
    (a clear error on first use when agentscope is not installed); next to a ``client``
    parameter, ``model`` is the model name."""
    names = _param_names(fn)
    if "model" in names and "client" not in names:
        return make_tuner(plan["model"], plan.get("config") or {}, plan.get("clientTimeout", 3600))
    return plan["model"]["name"]


def _plain_result(result: Any) -> tuple[float | None, Json, Any]:
    """(reward, metadata, response) of what a plain workflow function returned."""
    if not isinstance(result, (dict, int, float)) and hasattr(result, "reward"):
        # AgentScope tuner's WorkflowOutput (reward, response, metrics)
        fields = ("reward", "response", "metrics")
        result = {k: getattr(result, k) for k in fields if getattr(result, k, None) is not None}
    if isinstance(result, (int, float)) and not isinstance(result, bool):
        return float(result), {}, None
    if isinstance(result, dict):
        reward = reward_total(result.get("reward")) if "reward" in result else None
        return reward, {k: v for k, v in result.items() if k != "reward"}, result.get("response", result)
    return None, {}, result


def run_plain(work: Workload, job: EpisodeJob, reporter: Reporter) -> EpisodeResult:
    fn, plan, row = work.workflow, work.plan, job.row
    client = make_client(plan["model"], work.timeout, is_async=inspect.iscoroutinefunction(fn))
    if _named(fn):
        model = plain_model_arg(fn, plan)
        args = {"task": row, "client": client, "model": model, "args": plan.get("workflowArgs") or {}}
        result = _await(_call_with_accepted(fn, args))
    else:
        result = _await(fn(row, client))
    reward, metadata, response = _plain_result(result)
    reward_obj = work.reward
    if reward_obj is not None and reward is None:
        fmt = plan.get("format") or {}
        truth = row.get(fmt.get("response_key", "answer"), row.get("answer")) if isinstance(row, dict) else None
        args = dict(plan.get("rewardArgs") or {})
        if inspect.isclass(reward_obj):
            value = reporter.judge(
                lambda: _await(
                    _call_with_accepted(
                        reward_obj(**args).__call__, {"task": row, "response": response, "truth": truth}
                    )
                )
            )
        else:
            value = reporter.judge(
                lambda: _await(_call_with_accepted(reward_obj, dict(args, task=row, response=response, truth=truth)))
            )
        reward = reward_total(value)
        metadata["judge"] = jsonable(value)
    return {"reward": reward, "success": None, "metrics": {}, "metadata": jsonable(metadata), "experiences": []}


def protocol_of(plan: RunnerPlan, workflow: Any) -> Literal["plain", "astuner", "trinity"]:
    if (
        inspect.isfunction(workflow)
        or inspect.iscoroutinefunction(workflow)
        or (callable(workflow) and not inspect.isclass(workflow))
    ):
        return "plain"
    astuner_kind = plan.get("kind") in ("astuner", "ajet")
    if (astuner_kind or hasattr(workflow, "execute") or hasattr(workflow, "agentscope_execute")) and (
        not hasattr(workflow, "run") and not hasattr(workflow, "run_async")
    ):
        return "astuner"
    return "trinity"


RUNNERS: dict[str, Callable[[Workload, EpisodeJob, Reporter], EpisodeResult]] = {
    "plain": run_plain,
    "astuner": run_astuner,
    "trinity": run_trinity,
}


def run_episode(work: Workload, job: EpisodeJob, reporter: Reporter) -> EpisodeResult:
    return RUNNERS[protocol_of(work.plan, work.workflow)](work, job, reporter)
