// The runner's stand-in for Trinity's ModelWrapper and its episode loop, run with the
// machine's python3 (standard library only, as shipped): how Trinity's generation settings
// become an OpenAI request, how replies become experiences, episodes running concurrently,
// and what a registry name says when trinity cannot be imported.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runnerPython as py } from '../../../harness/runner-python';

test("Trinity's generation settings: vLLM-only keys go in extra_body, None is dropped, n and logprobs kept", () => {
  const r = py(`
from agentrl_runner_sampling import sampling_request
# what SimpleWorkflow passes: asdict(GenerationConfig) with Trinity's defaults
kw = {"temperature": 1.0, "top_p": 1.0, "top_k": -1, "logprobs": 0, "max_tokens": 512, "n": 4, "min_p": None}
a, n = sampling_request({}, kw)
b, _ = sampling_request({"temperature": 0.7}, {"top_k": 20, "repetition_penalty": 1.1, "min_p": 0.05, "logprobs": 3, "lora_request": None, "bogus": 1})
print(json.dumps({"a": a, "n": n, "b": b}))`);
  assert.equal(r.status, 0, r.err);
  const { a, n, b } = r.out as { a: Record<string, unknown>; n: number; b: Record<string, unknown> };
  // neutral vLLM values stay out (a hosted API would refuse top_k); nothing is a TypeError for the SDK
  assert.deepEqual(a, { temperature: 1, top_p: 1, max_tokens: 512, logprobs: true, n: 4, extra_body: { return_token_ids: true } });
  assert.equal(n, 4);
  assert.deepEqual(b, { temperature: 0.7, logprobs: true, top_logprobs: 3,
    extra_body: { top_k: 20, repetition_penalty: 1.1, min_p: 0.05, return_token_ids: true } });
});

test('chat(): n experiences with token ids, prompt length and logprobs; an endpoint without n is asked again', () => {
  const r = py(`
import agentrl_runner_model as m
calls = []
def reply(i):
    return {"prompt_token_ids": [1, 2, 3], "choices": [{"index": 0, "message": {"role": "assistant", "content": "a%d" % i},
            "token_ids": [7, 8], "logprobs": {"content": [{"logprob": -0.5}, {"logprob": -0.25}]}, "finish_reason": "stop"}]}
class Completions:
    def create(self, **kw):
        calls.append(kw)
        return reply(len(calls))
class Client:
    chat = type("C", (), {"completions": Completions()})()
w = m.DebugModelWrapper({"baseUrl": "http://x/v1", "apiKey": "k", "name": "tiny"}, {}, 5, config={"temperature": 0.5}, enable_history=True)
w._raw = Client()
exps = w.chat([{"role": "user", "content": "hi"}], n=3, top_k=-1, temperature=None)
print(json.dumps({"calls": calls, "texts": [e.response_text for e in exps], "prompt_length": [e.prompt_length for e in exps],
                  "tokens": [list(e.tokens) for e in exps], "logprobs": [list(e.logprobs) for e in exps],
                  "history": len(w.extract_experience_from_history())}))`);
  assert.equal(r.status, 0, r.err);
  const o = r.out as { calls: Record<string, unknown>[]; texts: string[]; prompt_length: number[]; tokens: number[][]; logprobs: number[][]; history: number };
  assert.equal(o.calls.length, 3, 'one call for n=3, then one more per missing sample');
  assert.equal(o.calls[0].n, 3);
  assert.equal(o.calls[1].n, 1);
  assert.equal(o.calls[0].temperature, 0.5, "None in the call keeps the engine's default");
  assert.deepEqual(o.texts, ['a1', 'a2', 'a3']);
  assert.deepEqual(o.prompt_length, [3, 3, 3]);
  assert.deepEqual(o.tokens[0], [1, 2, 3, 7, 8]);
  assert.deepEqual(o.logprobs[0], [-0.5, -0.25]);
  assert.equal(o.history, 3);
});

test('token lengths without a tokenizer: a clear error naming what to do; history off raises as upstream', () => {
  const r = py(`
import asyncio, agentrl_runner_model as m
w = m.DebugModelWrapper({"baseUrl": "http://x/v1", "apiKey": "k", "name": "tiny"}, {}, 5, config={"model_path": "/nonexistent/model"}, enable_history=False)
out = {}
try:
    asyncio.run(w.get_message_token_len([{"role": "user", "content": "hi"}]))
except RuntimeError as e:
    out["len"] = str(e)
try:
    w.extract_experience_from_history()
except ValueError as e:
    out["history"] = str(e)
print(json.dumps(out))`);
  assert.equal(r.status, 0, r.err);
  const o = r.out as { len: string; history: string };
  assert.match(o.len, /get_message_token_len needs the model's tokenizer, which the Agent RL debugger could not load: /);
  assert.equal(o.history, 'History recording is not enabled.');
});

test('episodes run concurrently up to plan.concurrency, each under its own episode id', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-conc-'));
  fs.writeFileSync(path.join(d, 'wf.py'), `
import threading, time
from agentrl_runner_stack import current_episode
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
`);
  const r = py(`
import agentrl_runner as runner, wf
sent = []
class Ch:
    stop_requested = False
    def send(self, m): sent.append(m)
    def request(self, m): sent.append(m); return 0
plan = {"kind": "trinity", "cwd": ".", "tasks": {"source": {"type": "inline", "rows": [{"id": i} for i in range(4)]}, "count": 0},
        "repeat": 1, "workflow": "wf.workflow", "workflowArgs": {}, "rewardArgs": {}, "format": {}, "rolloutArgs": {},
        "model": {"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k", "name": "m"}, "config": {}, "clientTimeout": 5, "concurrency": int(sys.argv[1]) if len(sys.argv) > 1 else 3}
runner.run(Ch(), plan, ".")
ends = [m for m in sent if m.get("type") == "episodeEnd"]
print(json.dumps({"peak": wf.state["peak"], "seen": sorted(wf.state["seen"]), "ends": len(ends), "rewards": sorted(m["reward"] for m in ends)}))`, d);
  assert.equal(r.status, 0, r.err);
  const o = r.out as { peak: number; seen: [number, string][]; ends: number; rewards: number[] };
  assert.equal(o.peak, 3, 'three episodes at once');
  assert.deepEqual(o.seen, [[0, 'T0#R0'], [1, 'T1#R0'], [2, 'T2#R0'], [3, 'T3#R0']]);
  assert.equal(o.ends, 4);
  assert.deepEqual(o.rewards, [1, 1, 1, 1]);
});

test("without trinity, a registry name's message names the interpreter and how to fix it", () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-reg-'));
  const r = py(`
from agentrl_runner_imports import resolve, SpecError
try:
    resolve("math_workflow", ".", "workflow")
except SpecError as e:
    print(json.dumps(str(e)))`, d);
  assert.equal(r.status, 0, r.err);
  const msg = r.out as string;
  assert.match(msg, /workflow 'math_workflow' is a Trinity registry name, but trinity-rft cannot be imported by the Python in use \(\/\S*python\S*: ModuleNotFoundError/);
  assert.match(msg, /Pick an interpreter that has trinity-rft/);
  assert.match(msg, /point the config at a workflow in the workspace/);
});

test('auxiliary models: one wrapper per explorer.auxiliary_models entry, each to its plan.auxiliaryModels URL (else the main endpoint), with the episode and role headers', () => {
  const r = py(`
import threading, http.server, agentrl_runner_model as m, agentrl_runner_stack as st
seen = []
class H(http.server.BaseHTTPRequestHandler):
    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["content-length"])))
        seen.append({"port": self.server.server_port, "path": self.path, "model": body.get("model"),
                     "episode": self.headers.get("x-agentrl-episode"), "role": self.headers.get("x-agentrl-role")})
        out = json.dumps({"choices": [{"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]}).encode()
        self.send_response(200); self.send_header("content-type", "application/json"); self.send_header("content-length", str(len(out)))
        self.end_headers(); self.wfile.write(out)
    def log_message(self, *a): pass
servers = [http.server.ThreadingHTTPServer(("127.0.0.1", 0), H) for _ in range(2)]
for s in servers: threading.Thread(target=s.serve_forever, daemon=True).start()
url = lambda s, p: "http://127.0.0.1:%d%s" % (s.server_port, p)
plan = {"model": {"baseUrl": url(servers[0], "/v1"), "apiKey": "k", "name": "main-model"},
        "auxiliaryModels": [{"name": "judge", "baseUrl": url(servers[1], "/aux/0/v1"), "apiKey": "k"}],
        "config": {"explorer": {"auxiliary_models": [{"model_path": "/m/judge"}, {"model_path": "/m/second"}]}}}
aux = m.auxiliary_wrappers(plan, 5)
st.set_episode("T3#R0")
for w in aux:
    w.chat([{"role": "user", "content": "judge this"}])
    w.get_openai_client().chat.completions.create(model=w.get_openai_client().model_path, messages=[{"role": "user", "content": "x"}])
print(json.dumps({"n": len(aux), "seen": seen, "ports": [s.server_port for s in servers]}))`);
  assert.equal(r.status, 0, r.err);
  const o = r.out as { n: number; seen: { port: number; path: string; model: string; episode: string; role: string }[]; ports: number[] };
  assert.equal(o.n, 2, 'one wrapper per auxiliary_models entry');
  assert.equal(o.seen.length, 4);
  // entry 0 goes to its own gateway URL, entry 1 (no plan entry) to the main endpoint under the main model's name
  assert.deepEqual(o.seen.map((s) => [s.port, s.path, s.role]), [
    [o.ports[1], '/aux/0/v1/chat/completions', 'auxiliary/0'], [o.ports[1], '/aux/0/v1/chat/completions', 'auxiliary/0'],
    [o.ports[0], '/v1/chat/completions', 'auxiliary/1'], [o.ports[0], '/v1/chat/completions', 'auxiliary/1']]);
  assert.equal(o.seen[0].model, 'judge');
  assert.equal(o.seen[2].model, 'main-model');
  for (const s of o.seen) assert.equal(s.episode, 'T3#R0', 'aux calls carry the episode header of the main calls');
});
