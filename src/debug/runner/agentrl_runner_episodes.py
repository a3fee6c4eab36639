# Runs one episode of a workflow in the protocol its author wrote it for:
#   Trinity-RFT   class Workflow(task=..., model=..., auxiliary_models=...).run() / run_async()
#   ASTuner/AJet  class with async execute(workflow_task, tuner) -> WorkflowOutput, + judge
#   plain         function (task, client) -> reward | dict | response, + reward function
# and reports reward, metrics and metadata. Reward / judge errors are told apart from
# workflow errors so the debugger can stop on each kind.
import asyncio
import inspect
import sys
import traceback
import types
import uuid

from agentrl_runner_channel import jsonable
from agentrl_runner_clients import make_client, make_tuner
from agentrl_runner_model import DebugModelWrapper, auxiliary_wrappers, engine_config
from agentrl_runner_stack import traceback_frames

NAMESPACE = uuid.UUID("6f1d3a5e-8c0b-4e59-9a3c-1b2d3e4f5a6b")


def error_info(exc, phase):
    frames = traceback_frames(exc.__traceback__)
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return {"phase": phase, "type": type(exc).__name__, "message": str(exc), "traceback": frames, "text": text}


class Reporter(object):
    """Stops (via the extension) where errors happen; each exception is reported once."""

    def __init__(self, channel, episode):
        self.channel = channel
        self.episode = episode
        self.judged = []  # rewards the judge produced during the episode

    def exception(self, exc, phase):
        if getattr(exc, "_agentrl_phase", None):
            return exc._agentrl_phase
        try:
            exc._agentrl_phase = phase
        except Exception:
            pass
        self.channel.request({"type": "exception", "episode": self.episode, "error": error_info(exc, phase)})
        return phase


def _call_with_accepted(fn, kwargs):
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):
        return fn(**kwargs)
    params = sig.parameters.values()
    if any(p.kind == p.VAR_KEYWORD for p in params):
        return fn(**kwargs)
    return fn(**{k: v for k, v in kwargs.items() if k in sig.parameters})


def _await(value):
    if inspect.isawaitable(value):
        return asyncio.run(_as_coro(value))
    return value


async def _as_coro(awaitable):
    return await awaitable


def reward_total(value):
    """A reward fn's result as one number: dict values are summed (Trinity), tuples give their first."""
    if value is None:
        return None
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, dict):
        nums = [v for v in value.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
        return float(sum(nums)) if nums else None
    if isinstance(value, (tuple, list)) and value:
        return reward_total(value[0])
    return None


def wrap_reward(reward_obj, reporter):
    """Trinity workflows instantiate task.reward_fn(**reward_fn_args) and call it: a subclass
    that reports judge errors where they happen and keeps the rewards it computed."""
    if reward_obj is None:
        return None
    if inspect.isclass(reward_obj):
        base = reward_obj

        def __call__(self, *args, **kwargs):
            try:
                result = base.__call__(self, *args, **kwargs)
            except BaseException as e:
                reporter.exception(e, "judge")
                raise
            reporter.judged.append(result)
            return result

        return type(base.__name__, (base,), {"__call__": __call__, "__module__": base.__module__})

    fn = reward_obj

    class FunctionReward(object):
        def __init__(self, **kwargs):
            self._kwargs = kwargs

        def __call__(self, *args, **kwargs):
            try:
                result = _await(_call_with_accepted(fn, dict(self._kwargs, **kwargs)) if not args else fn(*args, **kwargs))
            except BaseException as e:
                reporter.exception(e, "judge")
                raise
            reporter.judged.append(result)
            return result

    FunctionReward.__name__ = getattr(fn, "__name__", "reward")
    return FunctionReward


class TaskView(object):
    """trinity.common.workflows.Task's fields, for when trinity is not installed."""

    def __init__(self, **kw):
        self.__dict__.update(kw)

    @property
    def task_desc(self):
        return (self.raw_task or {}).get(getattr(self.format_args, "prompt_key", "prompt"))

    @property
    def truth(self):
        return (self.raw_task or {}).get(getattr(self.format_args, "response_key", "response"))

    def to_dict(self):
        return self.raw_task

    def to_workflow(self, model, auxiliary_models=None):
        return self.workflow(task=self, model=model, auxiliary_models=auxiliary_models)


FORMAT_DEFAULTS = {"prompt_type": "messages", "prompt_key": "prompt", "response_key": "response",
                   "system_prompt_key": None, "system_prompt": None, "messages_key": "message", "tools_key": "tools",
                   "image_key": None, "video_key": None, "reply_prefix": None, "workflow_key": "", "reward_fn_key": "",
                   "chosen_key": "chosen", "rejected_key": "rejected", "enable_concatenated_multi_turn": False,
                   "chat_template": None, "enable_thinking": None}
ROLLOUT_DEFAULTS = {"temperature": None, "top_p": None, "top_k": -1, "logprobs": None, "max_tokens": None, "n": 1}


def trinity_task(plan, workflow_cls, reward_cls, row, task_id):
    fmt = dict(FORMAT_DEFAULTS, **(plan.get("format") or {}))
    rollout = dict(ROLLOUT_DEFAULTS, **(plan.get("rolloutArgs") or {}))
    kw = dict(workflow=workflow_cls, repeat_times=1, workflow_args=dict(plan.get("workflowArgs") or {}),
              reward_fn_args=dict(plan.get("rewardArgs") or {}), is_eval=False, reward_fn=reward_cls,
              raw_task=row, batch_id=0, task_id=task_id, index={})
    try:  # the real classes when trinity is installed
        from trinity.common.config import FormatConfig, GenerationConfig  # type: ignore
        from trinity.common.workflows.workflow import Task  # type: ignore
        return Task(format_args=FormatConfig(**{k: v for k, v in fmt.items() if k in FormatConfig.__dataclass_fields__}),
                    rollout_args=GenerationConfig(**{k: v for k, v in rollout.items() if k in GenerationConfig.__dataclass_fields__}),
                    **kw)
    except Exception:
        return TaskView(format_args=types.SimpleNamespace(**fmt), rollout_args=types.SimpleNamespace(**rollout), **kw)


def _experience_summary(exps):
    out = []
    for e in exps or []:
        if isinstance(e, dict):
            d = {k: e.get(k) for k in ("reward", "metrics", "info", "response_text") if k in e}
        else:
            d = {k: getattr(e, k, None) for k in ("reward", "metrics", "info", "response_text")}
        out.append(jsonable(d))
    return out


def _reward_of_experiences(exps):
    vals = []
    for e in exps or []:
        r = e.get("reward") if isinstance(e, dict) else getattr(e, "reward", None)
        if isinstance(r, (int, float)) and not isinstance(r, bool):
            vals.append(float(r))
        elif hasattr(r, "item"):
            vals.append(float(r.item()))
    return sum(vals) / len(vals) if vals else None


def _metrics_of_experiences(exps):
    out = {}
    for e in exps or []:
        m = e.get("metrics") if isinstance(e, dict) else getattr(e, "metrics", None)
        for k, v in (m or {}).items():
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                out[k] = float(v)
    return out


def run_trinity(plan, workflow_cls, reward_obj, row, task_id, repeat, reporter):
    reward_cls = wrap_reward(reward_obj, reporter)
    task = trinity_task(plan, workflow_cls, reward_cls, row, task_id)
    timeout = plan.get("clientTimeout", 3600)
    cfg = plan.get("config") or {}
    rollout_model = ((cfg.get("explorer") or {}).get("rollout_model") or {}) if isinstance(cfg, dict) else {}
    model = DebugModelWrapper(plan["model"], plan.get("rolloutArgs"), timeout, config=engine_config(cfg),
                              enable_history=bool(rollout_model.get("enable_history", False)))
    wf = workflow_cls(task=task, model=model, auxiliary_models=auxiliary_wrappers(plan, timeout))
    if getattr(wf, "can_repeat", False) and hasattr(wf, "set_repeat_times"):
        wf.set_repeat_times(1, repeat)
    if getattr(wf, "is_async", False) or (not hasattr(wf, "run") and hasattr(wf, "run_async")):
        exps = asyncio.run(wf.run_async())
    else:
        exps = wf.run()
    reward = _reward_of_experiences(exps)
    if reward is None and reporter.judged:
        reward = reward_total(reporter.judged[-1])
    metadata = {}
    if reporter.judged:
        metadata["judge"] = jsonable(reporter.judged[-1])
    return {"reward": reward, "success": None, "metrics": _metrics_of_experiences(exps), "metadata": metadata,
            "experiences": _experience_summary(exps)}


def _astuner_classes():
    for pkg in ("ajet", "agentscope_tuner", "astuner"):
        try:
            mod = __import__(pkg + ".schema.task", fromlist=["WorkflowTask", "Task"])
            return mod.WorkflowTask, mod.Task
        except Exception:
            continue
    return None, None


def run_astuner(plan, workflow_cls, judge_obj, row, task_id, repeat, index, reporter, episode):
    cfg = plan.get("config") or {}
    root = cfg.get("ajet") or cfg.get("astuner") or {}
    query = row.get("main_query") or row.get("question") or row.get("query") or row.get("prompt") or "" if isinstance(row, dict) else str(row)
    init_messages = (row.get("init_messages") if isinstance(row, dict) else None) or [{"role": "user", "content": query}]
    metadata = dict(row) if isinstance(row, dict) else {"value": row}
    ep_uuid = uuid.uuid5(NAMESPACE, episode).hex
    WT, T = _astuner_classes()
    fields = dict(env_type="", task_id=task_id, task_thread_index=repeat, task_batch_index=index, task_tag=episode,
                  observation_window={"step": [], "token": [], "stop": []}, llm_inference_fn=None, tokenizer=None,
                  gym_env=None)
    task_fields = dict(main_query=query, init_messages=init_messages, task_id=task_id, env_type="", metadata=metadata)
    try:
        wt = WT(task=T(**task_fields), task_env_uuid=ep_uuid, episode_uuid=ep_uuid, **fields)
    except Exception:
        wt = types.SimpleNamespace(task=types.SimpleNamespace(**task_fields), task_env_uuid=ep_uuid, episode_uuid=ep_uuid, **fields)
    tuner = make_tuner(plan["model"], cfg, plan.get("clientTimeout", 3600))
    if inspect.isclass(workflow_cls):
        try:
            wf = workflow_cls(name="agentrl-debug")
        except TypeError:
            wf = workflow_cls()
        execute = getattr(wf, "execute", None) or getattr(wf, "agentscope_execute")
    else:
        execute = workflow_cls
    out = _await(execute(wt, tuner))
    reward = getattr(out, "reward", None) if not isinstance(out, dict) else out.get("reward")
    success = getattr(out, "is_success", None) if not isinstance(out, dict) else out.get("is_success")
    meta = getattr(out, "metadata", None) if not isinstance(out, dict) else out.get("metadata")
    if reward is None and judge_obj is not None:
        try:
            judge = judge_obj(_to_attr_config(cfg)) if inspect.isclass(judge_obj) else None
            result = _await(judge.compute_reward(wt, out) if judge else judge_obj(wt, out))
        except BaseException as e:
            reporter.exception(e, "judge")
            raise
        if isinstance(result, (tuple, list)):
            reward, success = result[0], (result[1] if len(result) > 1 else success)
        else:
            reward = reward_total(result)
    return {"reward": reward_total(reward), "success": success, "metrics": {}, "metadata": jsonable(meta or {}),
            "experiences": []}


def _to_attr_config(cfg):
    from agentrl_runner_clients import _to_attr
    return _to_attr(cfg)


def run_plain(plan, fn, reward_obj, row, task_id, reporter):
    client = make_client(plan["model"], plan.get("clientTimeout", 3600),
                         is_async=inspect.iscoroutinefunction(fn))
    result = _await(_call_with_accepted(fn, {"task": row, "client": client, "model": plain_model_arg(fn, plan),
                                             "args": plan.get("workflowArgs") or {}}) if _named(fn) else fn(row, client))
    if not isinstance(result, (dict, int, float)) and hasattr(result, "reward"):
        # AgentScope tuner's WorkflowOutput (reward, response, metrics)
        result = {k: getattr(result, k) for k in ("reward", "response", "metrics") if getattr(result, k, None) is not None}
    reward, metadata, response = None, {}, result
    if isinstance(result, (int, float)) and not isinstance(result, bool):
        reward, response = float(result), None
    elif isinstance(result, dict):
        reward = reward_total(result.get("reward")) if "reward" in result else None
        metadata = {k: v for k, v in result.items() if k != "reward"}
        response = result.get("response", result)
    if reward_obj is not None and reward is None:
        fmt = plan.get("format") or {}
        truth = row.get(fmt.get("response_key", "answer"), row.get("answer")) if isinstance(row, dict) else None
        args = dict(plan.get("rewardArgs") or {})
        try:
            if inspect.isclass(reward_obj):
                value = _await(_call_with_accepted(reward_obj(**args).__call__, {"task": row, "response": response, "truth": truth}))
            else:
                value = _await(_call_with_accepted(reward_obj, dict(args, task=row, response=response, truth=truth)))
        except BaseException as e:
            reporter.exception(e, "judge")
            raise
        reward = reward_total(value)
        metadata["judge"] = jsonable(value)
    return {"reward": reward, "success": None, "metrics": {}, "metadata": jsonable(metadata), "experiences": []}


def _param_names(fn):
    try:
        return list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        return []


def _named(fn):
    names = _param_names(fn)
    return "task" in names and ("client" in names or "model" in names)


def plain_model_arg(fn, plan):
    """What a plain function's `model` parameter gets. The AgentScope tuner style
    `workflow(task, model)` (no `client`) gets an AgentScope chat model talking to the gateway
    (a clear error on first use when agentscope is not installed); next to a `client`
    parameter, `model` is the model name."""
    names = _param_names(fn)
    if "model" in names and "client" not in names:
        return make_tuner(plan["model"], plan.get("config") or {}, plan.get("clientTimeout", 3600))
    return plan["model"]["name"]


def protocol_of(plan, workflow):
    if inspect.isfunction(workflow) or inspect.iscoroutinefunction(workflow) or (callable(workflow) and not inspect.isclass(workflow)):
        return "plain"
    if plan.get("kind") in ("astuner", "ajet") or hasattr(workflow, "execute") or hasattr(workflow, "agentscope_execute"):
        if not hasattr(workflow, "run") and not hasattr(workflow, "run_async"):
            return "astuner"
    return "trinity"


def run_episode(plan, workflow, reward_obj, row, task_id, index, repeat, episode, reporter):
    proto = protocol_of(plan, workflow)
    if proto == "plain":
        return run_plain(plan, workflow, reward_obj, row, task_id, reporter)
    if proto == "astuner":
        return run_astuner(plan, workflow, reward_obj, row, task_id, repeat, index, reporter, episode)
    return run_trinity(plan, workflow, reward_obj, row, task_id, repeat, reporter)
