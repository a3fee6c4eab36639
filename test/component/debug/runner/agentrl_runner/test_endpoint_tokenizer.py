"""The tokenizer of an endpoint (agentrl_runner/endpoint_tokenizer.py), when the model's files are
not on this machine. The llama.cpp shape runs for real in the TypeScript suite (Trinity's frozen
lake against the fixture server); here a stand-in for vLLM, which cannot run on this machine:
no /apply-template, /tokenize takes the messages and applies the template itself."""

from __future__ import annotations

import asyncio
import http.server
import json
import threading
from typing import Any, ClassVar, Iterator

import pytest

from agentrl_runner import model as m
from agentrl_runner.endpoint_tokenizer import EndpointTokenizerError, endpoint_tokenizer


def _template(messages: list[dict], add_generation_prompt: bool = True) -> str:
    text = "".join(f"<{x['role']}>{x['content']}</>" for x in messages)
    return text + "<assistant>" if add_generation_prompt else text


class _VllmStandIn(http.server.BaseHTTPRequestHandler):
    """vLLM's /tokenize and /detokenize: one token per character (id = code point)."""

    seen: ClassVar[list[tuple[str, dict]]] = []

    def log_message(self, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        self.seen.append((self.path, body))
        if self.path == "/tokenize":
            if "messages" in body:
                text = _template(body["messages"], body.get("add_generation_prompt", True))
            else:
                text = body["prompt"]
            out: dict = {"tokens": [ord(c) for c in text], "count": len(text)}
        elif self.path == "/detokenize":
            out = {"prompt": "".join(chr(i) for i in body["tokens"])}
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = json.dumps(out).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


@pytest.fixture
def vllm() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _VllmStandIn)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    _VllmStandIn.seen = []
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_encode_decode_and_the_prompt_through_the_servers_template(vllm: str) -> None:
    tok = endpoint_tokenizer(vllm, "k", "served")
    assert tok.encode("héllo") == [ord(c) for c in "héllo"]
    assert tok.decode([104, 105]) == "hi"
    msgs = [{"role": "user", "content": "go"}]
    assert tok.message_token_len(msgs) == len("<user>go</><assistant>")
    route, body = _VllmStandIn.seen[-1]
    assert route == "/tokenize" and body["messages"] == msgs and body["add_generation_prompt"] is True
    assert body["model"] == "served", "vLLM picks the tokenizer by the model's name"
    convo = [*msgs, {"role": "assistant", "content": "ok"}, {"role": "user", "content": "x"}]
    ids, mask, prompt_length = tok.tokens_and_mask(convo)
    assert "".join(chr(i) for i in ids) == "<user>go</><assistant>ok</><user>x</>"
    trained = "".join(chr(i) for i, t in zip(ids, mask) if t)
    assert trained == "ok</>", "the assistant turn and its end, not its header nor the user's turn"
    assert prompt_length == len("<user>go</><assistant>")


def test_the_model_wrapper_falls_back_to_the_endpoint_when_model_path_is_not_here(vllm: str) -> None:
    endpoint = {"baseUrl": vllm, "apiKey": "k", "name": "Qwen/Qwen2.5-3B-Instruct"}
    w = m.DebugModelWrapper(endpoint, {}, 5, config={"model_path": "/nonexistent/Qwen2.5-3B-Instruct"})
    n = asyncio.run(w.get_message_token_len([{"role": "user", "content": "hi"}]))
    assert n == len("<user>hi</><assistant>")


def test_an_endpoint_that_does_not_tokenize_says_so_next_to_why_no_files() -> None:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/v1"
        with pytest.raises(EndpointTokenizerError, match="/tokenize answered 501"):
            endpoint_tokenizer(url, "k", None)
        endpoint = {"baseUrl": url, "apiKey": "k", "name": "x"}
        w = m.DebugModelWrapper(endpoint, {}, 5, config={"model_path": "/nonexistent/m"})
        with pytest.raises(RuntimeError, match="could not load: .*; the endpoint does not tokenize either"):
            asyncio.run(w.get_message_token_len([{"role": "user", "content": "hi"}]))
    finally:
        server.shutdown()
        server.server_close()
