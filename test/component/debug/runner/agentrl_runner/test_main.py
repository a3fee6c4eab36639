"""The runner's run loop (agentrl_runner/main.py): episodes, concurrency, what it reports."""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentrl_runner import main as runner

WORKFLOW = textwrap.dedent("""
    import threading, time
    from agentrl_runner.stack import current_episode
    state = {"now": 0, "peak": 0, "seen": []}
    lock = threading.Lock()
    def workflow(task, client):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
            state["seen"].append((task["id"], current_episode()))
        time.sleep(0.3)
        with lock:
            state["now"] -= 1
        return 1.0
""")


class FakeChannel:
    """The extension's end of the socket, in process: keeps what the runner sends, resumes at once."""

    stop_requested = False

    def __init__(self) -> None:
        self.sent: list[dict] = []

    def send(self, msg: dict) -> None:
        self.sent.append(msg)

    def request(self, msg: dict) -> int:
        self.sent.append(msg)
        return 0


def _plan(rows: list[Any], workflow: str, concurrency: int = 1) -> dict:
    return {
        "kind": "trinity",
        "cwd": ".",
        "tasks": {"source": {"type": "inline", "rows": rows}, "count": 0},
        "repeat": 1,
        "workflow": workflow,
        "workflowArgs": {},
        "rewardArgs": {},
        "format": {},
        "rolloutArgs": {},
        "model": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k", "name": "m"},
        "config": {},
        "clientTimeout": 5,
        "concurrency": concurrency,
    }


def test_episodes_run_concurrently_up_to_plan_concurrency_each_under_its_own_id(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """Episodes run concurrently up to plan.concurrency, each under its own episode id."""
    (tmp_path / "wf.py").write_text(WORKFLOW)
    monkeypatch.chdir(tmp_path)
    channel = FakeChannel()
    runner.run(channel, _plan([{"id": i} for i in range(4)], "wf.workflow", concurrency=3), ".")
    wf = sys.modules["wf"]  # the workspace module the run imported

    assert wf.state["peak"] == 3, "three episodes at once"
    assert sorted(wf.state["seen"]) == [(0, "T0#R0"), (1, "T1#R0"), (2, "T2#R0"), (3, "T3#R0")]
    ends = [m for m in channel.sent if m.get("type") == "episodeEnd"]
    assert sorted(m["reward"] for m in ends) == [1, 1, 1, 1]


def test_a_workflow_error_ends_its_episode_with_the_error_after_the_reward(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A raising workflow: an exception (phase workflow), then its reward (none), then episodeEnd with the error."""
    (tmp_path / "boom.py").write_text("def workflow(task, client):\n    raise ValueError('lost in ' + task['q'])\n")
    monkeypatch.chdir(tmp_path)
    channel = FakeChannel()
    runner.run(channel, _plan([{"id": "a", "q": "Paris"}], "boom.workflow"), ".")
    kinds = [m["type"] for m in channel.sent]
    assert kinds == ["tasks", "symbols", "episodeStart", "exception", "reward", "episodeEnd"]
    end = channel.sent[-1]
    assert (end["error"]["phase"], end["error"]["type"], end["error"]["message"]) == (
        "workflow",
        "ValueError",
        "lost in Paris",
    )
    assert end["error"]["traceback"][0]["path"].endswith("boom.py")
    assert end["reward"] is None


RETURNS_TOKENS = textwrap.dedent("""
    import types
    class Returns:
        def __init__(self, *, task, model, auxiliary_models=None):
            self.task = task
        def run(self):
            return [types.SimpleNamespace(tokens=[5, 6, 7, 8], prompt_length=2, action_mask=[1, 0], reward=0.5,
                                          messages=[{"role": "user", "content": "hi"}], metrics={}, info={})]
""")


def test_the_reward_carries_what_the_episode_returned(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """The reward (where a step out of the episode stops) carries its experiences and tokens, as episodeEnd does."""
    (tmp_path / "ret.py").write_text(RETURNS_TOKENS)
    monkeypatch.chdir(tmp_path)
    channel = FakeChannel()
    runner.run(channel, _plan([{"id": "a"}], "ret.Returns"), ".")
    reward = next(m for m in channel.sent if m["type"] == "reward")
    end = channel.sent[-1]
    assert reward["reward"] == 0.5
    assert reward["experienceTokens"] == end["experienceTokens"]
    assert reward["experiences"] == end["experiences"]
    tokens = reward["experienceTokens"][0]
    assert (tokens["tokens"], tokens["promptLength"], tokens["actionMask"]) == ([5, 6, 7, 8], 2, [1, 0])
