"""The runner's stand-in for Trinity's ModelWrapper (agentrl_runner/model.py)."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from typing import Any, ClassVar, Iterator

import pytest

from agentrl_runner import model as m
from agentrl_runner import stack

ENDPOINT = {"baseUrl": "http://x/v1", "apiKey": "k", "name": "tiny"}


def _reply(i: int) -> dict:
    return {
        "prompt_token_ids": [1, 2, 3],
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": f"a{i}"},
                "token_ids": [7, 8],
                "logprobs": {"content": [{"logprob": -0.5}, {"logprob": -0.25}]},
                "finish_reason": "stop",
            }
        ],
    }


class _OneChoiceClient:
    """An OpenAI client of an endpoint without `n`: one choice per call, whatever is asked."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.chat = self
        self.completions = self

    def create(self, **kw: Any) -> dict:
        self.calls.append(kw)
        return _reply(len(self.calls))


def test_chat_gives_n_experiences_and_asks_an_endpoint_without_n_again():
    """chat(): n experiences with token ids, prompt length and logprobs; an endpoint without n is asked again."""
    w = m.DebugModelWrapper(ENDPOINT, {}, 5, config={"temperature": 0.5}, enable_history=True)
    client = _OneChoiceClient()
    w._raw = client
    exps = w.chat([{"role": "user", "content": "hi"}], n=3, top_k=-1, temperature=None)
    assert len(client.calls) == 3, "one call for n=3, then one more per missing sample"
    assert [c.get("n") for c in client.calls] == [3, 1, 1]
    assert client.calls[0]["temperature"] == 0.5, "None in the call keeps the engine's default"
    assert [e.response_text for e in exps] == ["a1", "a2", "a3"]
    assert [e.prompt_length for e in exps] == [3, 3, 3]
    assert list(exps[0].tokens) == [1, 2, 3, 7, 8]
    assert list(exps[0].logprobs) == [-0.5, -0.25]
    assert len(w.extract_experience_from_history()) == 3


def test_token_lengths_without_a_tokenizer_say_what_to_do_and_history_off_raises():
    """Token lengths without a tokenizer: a clear error naming what to do; history off raises as upstream."""
    w = m.DebugModelWrapper(ENDPOINT, {}, 5, config={"model_path": "/nonexistent/model"}, enable_history=False)
    with pytest.raises(
        RuntimeError,
        match="get_message_token_len needs the model's tokenizer, which the Agent RL debugger could not load: ",
    ):
        asyncio.run(w.get_message_token_len([{"role": "user", "content": "hi"}]))
    with pytest.raises(ValueError, match="^History recording is not enabled.$"):
        w.extract_experience_from_history()


def test_workflow_state_is_shared_under_a_lock_and_cleaning_it_clears_the_history():
    """Workflow state: set, read back as a copy; clean_workflow_state empties it and the history."""
    w = m.DebugModelWrapper(ENDPOINT, {}, 5, enable_history=True)
    w._history.extend(["an experience"])

    async def scenario() -> tuple:
        await w.set_workflow_state({"turn": 1})
        await w.set_workflow_state({"done": False})
        got = await w.get_workflow_state()
        got["mutated"] = True
        await w.clean_workflow_state()
        return got, await w.get_workflow_state()

    got, after = asyncio.run(scenario())
    assert got == {"turn": 1, "done": False, "mutated": True}
    assert after == {}
    assert w.history == []


class _Recorder(http.server.BaseHTTPRequestHandler):
    seen: ClassVar[list[dict]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append(
            {
                "port": self.server.server_port,
                "path": self.path,
                "model": body.get("model"),
                "episode": self.headers.get("x-agentrl-episode"),
                "role": self.headers.get("x-agentrl-role"),
            }
        )
        out = json.dumps(
            {"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(out)))
        self.end_headers()
        self.wfile.write(out)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def two_servers() -> Iterator[list[http.server.ThreadingHTTPServer]]:
    _Recorder.seen = []
    servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder) for _ in range(2)]
    for s in servers:
        threading.Thread(target=s.serve_forever, daemon=True).start()
    yield servers
    for s in servers:
        s.shutdown()
        s.server_close()


def test_auxiliary_models_one_wrapper_per_entry_each_to_its_url_with_episode_and_role(two_servers: list):
    """Auxiliary models: one wrapper per explorer.auxiliary_models entry, each to its plan.auxiliaryModels URL
    (else the main endpoint), with the episode and role headers."""
    main, aux0 = two_servers

    def url(s: http.server.ThreadingHTTPServer, p: str) -> str:
        return f"http://127.0.0.1:{s.server_port}{p}"

    plan = {
        "model": {"baseUrl": url(main, "/v1"), "apiKey": "k", "name": "main-model"},
        "auxiliaryModels": [{"name": "judge", "baseUrl": url(aux0, "/aux/0/v1"), "apiKey": "k"}],
        "config": {"explorer": {"auxiliary_models": [{"model_path": "/m/judge"}, {"model_path": "/m/second"}]}},
    }
    aux = m.auxiliary_wrappers(plan, 5)
    stack.set_episode("T3#R0")
    for w in aux:
        w.chat([{"role": "user", "content": "judge this"}])
        client = w.get_openai_client()
        client.chat.completions.create(model=client.model_path, messages=[{"role": "user", "content": "x"}])
    assert len(aux) == 2, "one wrapper per auxiliary_models entry"
    seen = _Recorder.seen
    # entry 0 goes to its own gateway URL, entry 1 (no plan entry) to the main endpoint under the main model's name
    assert [(s["port"], s["path"], s["role"]) for s in seen] == [
        (aux0.server_port, "/aux/0/v1/chat/completions", "auxiliary/0"),
        (aux0.server_port, "/aux/0/v1/chat/completions", "auxiliary/0"),
        (main.server_port, "/v1/chat/completions", "auxiliary/1"),
        (main.server_port, "/v1/chat/completions", "auxiliary/1"),
    ]
    assert seen[0]["model"] == "judge"
    assert seen[2]["model"] == "main-model"
    assert all(s["episode"] == "T3#R0" for s in seen), "aux calls carry the episode header of the main calls"
