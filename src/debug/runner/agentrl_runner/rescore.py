"""Re-scores recorded episodes with the workspace's current reward function, with no model:
``python -m agentrl_runner --rescore`` reads a JSON request on stdin and writes one result per
item on stdout. The request names the reward spec (as a plan does), its arguments, the task
format and, per item, the recorded task row and the workflow's final response.

What the reward raises is that item's error, not the run's: one bad row must not hide the rest.
A reward that returns NaN or an infinity is that item's error too, named as such. Each item's
result is one JSON line on stdout as soon as it is scored (after a ``{"ready": true}`` line once
the reward has loaded), so the caller, src/debug/rescore-process.ts, can hold each item to a
time limit; what the reward prints, and what its children print, goes to stderr.
"""

from __future__ import annotations

import inspect
import json
import math
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


def _number_name(x: float) -> str:
    return "NaN" if math.isnan(x) else "Infinity" if x > 0 else "-Infinity"


def _not_finite(total: float, parts: dict[str, float]) -> dict[str, Any] | None:
    """The item's error when its reward is NaN or infinite, naming the parts that made it so."""
    bad = [f"{k} is {_number_name(v)}" for k, v in parts.items() if not math.isfinite(v)]
    if math.isfinite(total) and not bad:
        return None
    finite = {k: v for k, v in parts.items() if math.isfinite(v)}
    why = f" ({', '.join(bad)})" if bad else ""
    error = f"RewardError: the reward is {_number_name(total)}{why}, not a number to compare"
    return {"reward": None, "parts": finite, "error": error}


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
    try:
        parts = {}
        if isinstance(value, dict):
            numeric = ((k, v) for k, v in value.items() if isinstance(v, (int, float)) and not isinstance(v, bool))
            parts = {str(k): float(v) for k, v in numeric}
        total = reward_total(value)
    except OverflowError:
        return {"reward": None, "parts": {}, "error": "RewardError: the reward is an integer too large for a float"}
    if total is not None:
        bad = _not_finite(total, parts)
        if bad:
            return bad
    return {"reward": total, "parts": parts, "value": jsonable(value)}


def _load(request: RescoreRequest) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    cwd = request.get("cwd") or os.getcwd()
    os.chdir(cwd)
    reward_obj = resolve(request["reward"], cwd, "reward")
    return reward_obj, dict(request.get("rewardArgs") or {}), dict(request.get("format") or {})


def rescore(request: RescoreRequest) -> list[dict[str, Any]]:
    reward_obj, args, fmt = _load(request)
    return [score(reward_obj, args, fmt, item) for item in request["items"]]


def _results_stream() -> Any:
    """A private copy of stdout for the results; fd 1 (inherited by the reward's children) and
    ``sys.stdout`` become stderr, so nothing the reward prints can corrupt a result line."""
    sys.stdout.flush()
    results = os.fdopen(os.dup(1), "w", encoding="utf-8")  # os.dup: not inherited by children
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return results


def main() -> None:
    results = _results_stream()
    request: RescoreRequest = json.load(sys.stdin)
    try:
        reward_obj, args, fmt = _load(request)
    except Exception as e:
        sys.stderr.write(f"cannot load the reward function {request.get('reward')!r}: {type(e).__name__}: {e}\n")
        sys.exit(1)
    results.write(json.dumps({"ready": True}) + "\n")  # loaded: from here each item has its time limit
    results.flush()
    for item in request["items"]:
        result = score(reward_obj, args, fmt, item)
        try:
            line = json.dumps(result, allow_nan=False)
        except (TypeError, ValueError):
            result.pop("value", None)
            line = json.dumps(result, allow_nan=False)
        results.write(line + "\n")
        results.flush()
