"""Re-scores recorded episodes with the workspace's current reward function, with no model:
``python -m agentrl_runner --rescore`` reads a JSON request on stdin and writes one result per
item on stdout. The request names the reward spec (as a plan does), its arguments, the task
format and, per item, the recorded task row and the workflow's final response.

What the reward raises is that item's error, not the run's: one bad row must not hide the rest.
"""

from __future__ import annotations

import inspect
import json
import os
import sys
from typing import Any, TypedDict

from agentrl_runner.episodes import _await, _call_with_accepted, reward_total
from agentrl_runner.imports import resolve
from agentrl_runner.values import jsonable


class RescoreItem(TypedDict):
    task: Any
    response: str


class RescoreRequest(TypedDict):
    cwd: str
    reward: str
    rewardArgs: dict[str, Any]
    format: dict[str, Any]
    items: list[RescoreItem]


def _truth(row: Any, fmt: dict[str, Any]) -> Any:
    if not isinstance(row, dict):
        return None
    return row.get(fmt.get("response_key") or "answer", row.get("answer"))


def score(reward_obj: Any, args: dict[str, Any], fmt: dict[str, Any], item: RescoreItem) -> dict[str, Any]:
    """One item's reward: the total, its parts when the reward gives named parts, or the error."""
    row, response = item["task"], item["response"]
    kwargs = {"task": row, "response": response, "truth": _truth(row, fmt)}
    try:
        if inspect.isclass(reward_obj):
            value = _await(_call_with_accepted(reward_obj(**args).__call__, kwargs))
        else:
            value = _await(_call_with_accepted(reward_obj, dict(args, **kwargs)))
    except Exception as e:
        return {"reward": None, "parts": {}, "error": f"{type(e).__name__}: {e}"}
    parts = {}
    if isinstance(value, dict):
        parts = {k: float(v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
    return {"reward": reward_total(value), "parts": parts, "value": jsonable(value)}


def rescore(request: RescoreRequest) -> list[dict[str, Any]]:
    cwd = request.get("cwd") or os.getcwd()
    os.chdir(cwd)
    reward_obj = resolve(request["reward"], cwd, "reward")
    args = dict(request.get("rewardArgs") or {})
    fmt = dict(request.get("format") or {})
    return [score(reward_obj, args, fmt, item) for item in request["items"]]


def main() -> None:
    request: RescoreRequest = json.load(sys.stdin)
    try:
        results = rescore(request)
    except Exception as e:
        sys.stderr.write(f"cannot load the reward function {request.get('reward')!r}: {type(e).__name__}: {e}\n")
        sys.exit(1)
    sys.stdout.write(json.dumps(results))
