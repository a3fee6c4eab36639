// The Python runner's task loading and workflow import, run with the machine's python3
// (standard library only, as shipped).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runnerPython as py } from '../../../harness/runner-python';

test('tasks load from jsonl, json, csv and folders (by split); ids or the first N are picked', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tasks-'));
  fs.writeFileSync(path.join(d, 'a.jsonl'), '{"id": "x", "q": 1}\n\n{"id": "y", "q": 2}\n');
  fs.writeFileSync(path.join(d, 'b.json'), JSON.stringify({ data: [{ q: 3 }] }));
  fs.writeFileSync(path.join(d, 'c.csv'), 'task_id,q\nt1,4\nt2,5\n');
  fs.mkdirSync(path.join(d, 'ds'));
  fs.writeFileSync(path.join(d, 'ds', 'train.jsonl'), '{"q": "train"}\n');
  fs.writeFileSync(path.join(d, 'ds', 'test.jsonl'), '{"q": "test"}\n');
  const r = py(`
from agentrl_runner_tasks import load_rows, select
f = lambda p, split="train": load_rows({"type": "file", "path": p, "split": split}, ".")
print(json.dumps({
  "jsonl": [tid for _, tid, _ in select(f("a.jsonl"), {"ids": ["y"]})],
  "json": f("b.json"),
  "csv": [tid for _, tid, _ in select(f("c.csv"), {"count": 0})],
  "dir": f("ds", "test"),
}))`, d);
  assert.equal(r.status, 0, r.err);
  assert.deepEqual(r.out, { jsonl: ['y'], json: [{ q: 3 }], csv: ['t1', 't2'], dir: [{ q: 'test' }] });
});

test('clear errors: bad JSON line, missing ids, a Hugging Face id without `datasets`', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tasks-'));
  fs.writeFileSync(path.join(d, 'bad.jsonl'), '{"q": 1}\n{oops\n');
  const r = py(`
from agentrl_runner_tasks import load_rows, select, TaskError
out = []
for src, spec in [({"type": "file", "path": "bad.jsonl"}, {}), ({"type": "inline", "rows": [{}]}, {"ids": ["nope"]}), ({"type": "hf", "path": "openai/gsm8k", "split": "test"}, {})]:
    try:
        select(load_rows(src, "."), spec)
    except TaskError as e:
        out.append(str(e))
print(json.dumps(out))`, d);
  assert.equal(r.status, 0, r.err);
  const [bad, ids, hf] = r.out as string[];
  assert.match(bad, /bad\.jsonl:2: not valid JSON/);
  assert.match(ids, /task ids not found: nope \(the taskset has 1 rows\)/);
  assert.match(hf, /'openai\/gsm8k' is not a local file or folder.*`datasets` package is not installed/);
});

test('workflow specs: module->Class, path.py->Class, dotted path, registry name found in the workspace', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-imports-'));
  fs.mkdirSync(path.join(d, 'pkg'));
  fs.writeFileSync(path.join(d, 'pkg', '__init__.py'), '');
  fs.writeFileSync(path.join(d, 'pkg', 'flows.py'), 'class A:\n    pass\n\ndef tool(x):\n    return x\n');
  fs.writeFileSync(path.join(d, 'reg.py'), 'class R:\n    def register_module(self, name):\n        return lambda c: c\nWORKFLOWS = R()\n\n@WORKFLOWS.register_module("my_flow")\nclass Mine:\n    pass\n');
  const r = py(`
from agentrl_runner_imports import resolve, module_functions, SpecError
names = [resolve(s, ".").__name__ for s in ["pkg.flows->A", "pkg/flows.py->A", "pkg.flows.A", "my_flow"]]
try:
    resolve("pkg.flows.Missing", ".")
except SpecError as e:
    names.append(str(e))
names.append(sorted(module_functions(resolve("pkg.flows.A", "."))))
print(json.dumps(names))`, d);
  assert.equal(r.status, 0, r.err);
  assert.deepEqual(r.out, ['A', 'A', 'A', 'Mine', "pkg.flows has no attribute 'Missing' (from 'pkg.flows.Missing')", ['tool']]);
});

test('AgentScope tuner style workflow(task, model): the model is an AgentScope chat model on the gateway', () => {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-astuner-fn-'));
  // A stand-in for agentscope.model.OpenAIChatModel (agentscope is not installable here):
  // it records how it was constructed, as the real class would be.
  fs.mkdirSync(path.join(d, 'agentscope', 'model'), { recursive: true });
  fs.writeFileSync(path.join(d, 'agentscope', '__init__.py'), '');
  fs.writeFileSync(
    path.join(d, 'agentscope', 'model', '__init__.py'),
    'class OpenAIChatModel:\n    def __init__(self, model_name, api_key, stream, client_args):\n        self.model_name, self.base_url = model_name, client_args["base_url"]\n',
  );
  const plan = { model: { baseUrl: 'http://127.0.0.1:9/v1', name: 'tiny', apiKey: 'k' }, config: {} };
  const code = (withAgentscope: boolean) => `
${withAgentscope ? '' : 'sys.path = [p for p in sys.path if p not in ("", ".")]'}
from agentrl_runner_episodes import plain_model_arg
async def run_agent(task, model): pass
def with_client(task, client, model): pass
plan = ${JSON.stringify(plan)}
m = plain_model_arg(run_agent, plan)
out = {"type": type(m).__mro__[1].__module__, "name": getattr(m, "model_name", None), "url": getattr(m, "base_url", None),
       "beside_client": plain_model_arg(with_client, plan)}
if not ${withAgentscope ? 'True' : 'False'}:
    import asyncio
    try:
        asyncio.run(m([]))
    except RuntimeError as e:
        out["error"] = str(e)
print(json.dumps(out))`;
  const withAs = py(code(true), d);
  assert.equal(withAs.status, 0, withAs.err);
  assert.deepEqual(withAs.out, { type: 'agentscope.model', name: 'tiny', url: 'http://127.0.0.1:9/v1', beside_client: 'tiny' });
  const without = py(code(false), os.tmpdir());
  assert.equal(without.status, 0, without.err);
  assert.match((without.out as { error: string }).error, /AgentScope chat model, and agentscope is not installed/);
  assert.equal((without.out as { beside_client: string }).beside_client, 'tiny');
});

test('tool frames: functions of the workspace modules a workflow imports its tools from (issue 18)', () => {
  // The sample's shape: workflow.py does `from tools import TOOLS, call_tool`; get_weather lives
  // in tools.py. Before, only workflow.py's own functions were known, so a get_weather frame
  // opened the LLM call's line instead of the tool's.
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-tools-'));
  fs.writeFileSync(path.join(d, 'tools.py'), 'import json\n\n\ndef get_weather(city):\n    return {}\n\n\ndef call_tool(name, args):\n    return get_weather(**args)\n');
  fs.writeFileSync(path.join(d, 'helpers.py'), 'def add(a, b):\n    return a + b\n');
  fs.writeFileSync(path.join(d, 'flow.py'), 'import json\nimport helpers\nfrom tools import call_tool\n\n\nclass Flow:\n    pass\n\n\ndef local_tool():\n    pass\n');
  const r = py(`
import os
from agentrl_runner_imports import resolve, module_functions
fns = module_functions(resolve("flow->Flow", "."))
print(json.dumps({k: [os.path.basename(v["path"]), v["line"]] for k, v in sorted(fns.items())}))`, d);
  assert.equal(r.status, 0, r.err);
  assert.deepEqual(r.out, { add: ['helpers.py', 1], call_tool: ['tools.py', 8], get_weather: ['tools.py', 4], local_tool: ['flow.py', 10] });
  fs.rmSync(d, { recursive: true, force: true });
});
