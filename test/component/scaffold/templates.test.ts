// The generated Python does what its README says: rewards and judges score right and wrong
// answers on real dataset rows, workflows turn a model's replies into rewarded experiences, and
// the online agent runner speaks Trinity's serve-mode protocol. Run with python3 and no training
// framework installed (the generated files' stand-ins); the model and the serve-mode explorer are
// replaced by scripted fakes at their boundary (both need GPUs here).
import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { venvPython } from '../../harness/paths';
import { cli, python, tempDir, venvHas } from './helpers';

const scratch = tempDir();
after(() => fs.rmSync(scratch, { recursive: true, force: true }));
const noPython = !python() && 'python3 not found';

/** Generates the template into its own folder; returns the project folder. */
function generate(template: string): string {
  const r = cli(['new', template, path.join(scratch, template), '--no-launch', '--json'], scratch);
  assert.equal(r.code, 0, r.stderr);
  return (JSON.parse(r.stdout) as { projectDir: string }).projectDir;
}

/** Runs `code` with the project folder on sys.path; the script prints one JSON value. */
function py(project: string, code: string): unknown {
  const r = spawnSync('python3', ['-c', `import sys, json\nsys.path.insert(0, ${JSON.stringify(project)})\n${code}`], { encoding: 'utf8', cwd: project });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop()!);
}

/** Python: a task like the one Trinity builds, over the first row of data/train.jsonl. */
const TASK = `
from types import SimpleNamespace as NS
row = json.loads(open("data/train.jsonl").readline())
def task(reward_fn, **workflow_args):
    return NS(raw_task=row, format_args=NS(prompt_key="question", response_key="answer"),
              rollout_args=NS(temperature=1.0, top_p=None, max_tokens=256), workflow_args=workflow_args,
              reward_fn=reward_fn, reward_fn_args={}, repeat_times=None)
class Exp:  # stands in for trinity.common.experience.Experience
    def __init__(self, text):
        self.response_text, self.reward, self.metrics, self.eid = text, None, None, NS(run=None)
`;

describe('trinity-math', { skip: noPython }, () => {
  let project = '';
  before(() => (project = generate('trinity-math')));

  test('the reward scores the real GSM8K answer (#### 72) as accurate, others not', () => {
    const out = py(
      project,
      `
import reward
R = reward.REWARD_FUNCTIONS["math_agent_reward"]
truth = json.loads(open("data/train.jsonl").readline())["answer"]
r = R()
print(json.dumps([r(response="48/2 = 24, 48 + 24 = 72. \\\\boxed{72}", truth=truth),
                  r(response="\\\\boxed{70}", truth=truth), r(response="72", truth=truth),
                  R(format_bonus=0.5)(response="\\\\boxed{72.0}", truth=truth)]))`,
    );
    assert.deepEqual(out, [
      { accuracy: 1, format: 0.1 },
      { accuracy: 0, format: 0.1 },
      { accuracy: 0, format: 0 },
      { accuracy: 1, format: 0.5 },
    ]);
  });

  test('the workflow asks once for repeat_times answers and rewards each (run ids from run_id_base)', () => {
    const out = py(
      project,
      `${TASK}
import reward, workflow
calls = []
class Model:  # stands in for Trinity's ModelWrapper (needs a vLLM engine)
    def chat(self, messages, **kw):
        calls.append({"messages": messages, "kw": kw})
        return [Exp("so \\\\boxed{72}"), Exp("\\\\boxed{12}")]
W = workflow.WORKFLOWS["math_agent_workflow"]
wf = W(task=task(reward.REWARD_FUNCTIONS["math_agent_reward"]), model=Model())
wf.set_repeat_times(2, 10)
exps = wf.run()
print(json.dumps({"calls": calls, "rewards": [e.reward for e in exps], "runs": [e.eid.run for e in exps],
                  "metrics": [e.metrics for e in exps]}))`,
    ) as { calls: { messages: { role: string; content: string }[]; kw: Record<string, unknown> }[]; rewards: number[]; runs: number[]; metrics: object[] };
    assert.equal(out.calls.length, 1);
    assert.deepEqual(out.calls[0].kw, { n: 2, temperature: 1, max_tokens: 256 });
    assert.match(out.calls[0].messages[1].content, /^Natalia sold clips/);
    assert.deepEqual(out.rewards, [1.1, 0.1]);
    assert.deepEqual(out.runs, [10, 11]);
    assert.deepEqual(out.metrics[0], { accuracy: 1, format: 0.1 });
  });

  test('a missing reward fn is a clear error naming the config key', () => {
    const r = spawnSync('python3', ['-c', `import sys, json\n${TASK}\nimport workflow\nworkflow.MathWorkflow(task=task(None), model=None)`], {
      encoding: 'utf8',
      cwd: project,
    });
    assert.notEqual(r.status, 0);
    assert.match(r.stderr, /ValueError: no reward function: set default_reward_fn_type: math_agent_reward in config\.yaml/);
  });
});

describe('trinity-toolcall', { skip: noPython }, () => {
  let project = '';
  before(() => (project = generate('trinity-toolcall')));

  test('the tool-calling loop runs the calculate tool and rewards the final equation', () => {
    const out = py(
      project,
      `${TASK}
import reward, workflow
from types import SimpleNamespace as NS
sent = []
def reply(content=None, calls=()):
    tool_calls = [NS(id="c%d" % i, function=NS(name=n, arguments=a)) for i, (n, a) in enumerate(calls)]
    return NS(choices=[NS(message=NS(content=content, tool_calls=tool_calls or None))])
script = [reply(calls=[("calculate", json.dumps({"expression": "44 + 19 + 35"})), ("shell", "{}")]),
          reply("<answer>44 + 19 + 35</answer>")]
class Completions:  # stands in for the OpenAI client of Trinity's rollout engine
    def create(self, **kw):
        sent.append(kw)
        return script[len(sent) - 1]
client = NS(chat=NS(completions=Completions()), model_path="m")
class Model:
    def get_openai_client(self): return client
    def extract_experience_from_history(self): return [Exp("a"), Exp("b")]
wf = workflow.WORKFLOWS["tool_agent_workflow"](task=task(reward.REWARD_FUNCTIONS["tool_agent_reward"]), model=Model())
exps = wf.run()
print(json.dumps({"tool_results": [m["content"] for m in sent[1]["messages"] if m["role"] == "tool"],
                  "tools": sent[0]["tools"][0]["function"]["name"], "user": sent[0]["messages"][1]["content"],
                  "rewards": [e.reward for e in exps], "metrics": exps[0].metrics}))`,
    ) as Record<string, unknown>;
    assert.deepEqual(out.tool_results, ['98', "error: unknown tool 'shell'"]);
    assert.equal(out.tools, 'calculate');
    assert.equal(out.user, 'Numbers: [44, 19, 35]. Target: 98.');
    assert.deepEqual(out.rewards, [1, 1]);
    assert.deepEqual(out.metrics, { accuracy: 1, format: 0, tool_calls: 2 });
  });

  test('the reward and the calculator refuse what is not a correct arithmetic answer', () => {
    const out = py(
      project,
      `
import reward, workflow
R = reward.REWARD_FUNCTIONS["tool_agent_reward"]()
truth = json.dumps({"numbers": [44, 19, 35], "target": 98})
calc = []
for e in ["2 ** 10", "__import__('os').system('true')", "1/0", "2 ** 1000"]:
    try: calc.append(workflow.evaluate_arithmetic(e))
    except ValueError: calc.append("refused")
print(json.dumps({"scores": [R(response=r, truth=truth) for r in ["<answer>44 + 19 + 35</answer>", "<answer>44 + 19 - 35</answer>",
                  "<answer>44 + 54</answer>", "98"]], "calc": calc}))`,
    );
    assert.deepEqual(out, {
      scores: [
        { accuracy: 1, format: 0 },
        { accuracy: 0, format: 0.1 },
        { accuracy: 0, format: 0 },
        { accuracy: 0, format: 0 },
      ],
      calc: [1024, 'refused', 'refused', 'refused'],
    });
  });
});

describe('ASTuner and AgentJet judges', { skip: noPython }, () => {
  test("astuner-math: MathAnswerJudge returns (reward, is_success) from the row's reference answer", () => {
    const project = generate('astuner-math');
    const out = py(
      project,
      `
from types import SimpleNamespace as NS
import judge
row = json.loads(open("data/train.jsonl").readline())
wt = NS(task=NS(main_query=row["main_query"], metadata=row))
j = judge.MathAnswerJudge(config=None)
print(json.dumps([j.compute_reward(wt, NS(metadata={"final_answer": a})) for a in ["\\\\boxed{72}", "\\\\boxed{7}", ""]]))`,
    );
    assert.deepEqual(out, [
      [1, true],
      [0, false],
      [0, false],
    ]);
  });

  test('ajet-countdown: CountdownJudge scores 1 / 0.1 / 0 like the AgentJet tutorial', () => {
    const project = generate('ajet-countdown');
    const out = py(
      project,
      `
from types import SimpleNamespace as NS
import judge
row = json.loads(open("data/train.jsonl").readline())
j = judge.CountdownJudge(config=None)
meta = lambda a: NS(metadata={"final_answer": a, "target": row["target"], "nums": row["nums"]})
print(json.dumps([j.compute_reward(None, meta(a)) for a in ["\\\\boxed{44 + 19 + 35}", "\\\\boxed{44 * 19 + 35}", "\\\\boxed{44 + 35}", "98"]]))`,
    );
    assert.deepEqual(out, [
      [1, true],
      [0.1, false],
      [0.1, false],
      [0, false],
    ]);
  });
});

describe('trinity-online agent runner', { skip: (!venvHas('openai') && 'openai is not in .cache/venv (scripts/setup.sh python)') || undefined }, () => {
  interface Seen {
    chats: { model: string; messages: { role: string; content: string }[] }[];
    feedback: { msg_ids: string[]; reward: number; task_id: string; run_id: number }[];
    commits: number;
  }
  let project = '';
  let server: http.Server;
  let url = '';
  const seen: Seen = { chats: [], feedback: [], commits: 0 };
  before(async () => {
    project = generate('trinity-online');
    // Stands in for Trinity's serve-mode explorer (FastAPI proxy over vLLM engines: needs GPUs).
    server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        const json = (status: number, v: unknown) => {
          res.writeHead(status, { 'content-type': 'application/json' });
          res.end(JSON.stringify(v));
        };
        if (req.url === '/v1/chat/completions') {
          const chat = JSON.parse(body) as Seen['chats'][number];
          seen.chats.push(chat);
          const n = seen.chats.length;
          const content = chat.messages[1].content.startsWith('Natalia') && n % 2 === 1 ? 'So \\boxed{72}' : '\\boxed{0}';
          return json(200, {
            id: `chatcmpl-${n}`,
            object: 'chat.completion',
            created: 0,
            model: chat.model,
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
          });
        }
        if (req.url === '/feedback') {
          seen.feedback.push(JSON.parse(body) as Seen['feedback'][number]);
          return json(200, { status: 'success' });
        }
        if (req.url === '/commit') {
          seen.commits++;
          return json(200, { status: 'success' });
        }
        json(404, { detail: 'Not Found' });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => server?.close());

  function runner(args: string[]): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve) => {
      const p = spawn(venvPython, ['agent_runner.py', ...args], { cwd: project, env: { PATH: process.env.PATH ?? '' } });
      let out = '';
      p.stdout.on('data', (b) => (out += b));
      p.stderr.on('data', (b) => (out += b));
      p.on('close', (code) => resolve({ code, out }));
    });
  }

  test('chats, sends one /feedback per answer with its completion id, and commits', async () => {
    const r = await runner(['--url', url, '--tasks', 'data/train.jsonl', '--limit', '2', '--group', '2', '--commit-every', '1']);
    assert.equal(r.code, 0, r.out);
    assert.equal(seen.chats.length, 4);
    assert.equal(seen.chats[0].model, 'Qwen/Qwen2.5-0.5B-Instruct');
    assert.deepEqual(
      seen.feedback.map((f) => f.msg_ids),
      [['chatcmpl-1'], ['chatcmpl-2'], ['chatcmpl-3'], ['chatcmpl-4']],
    );
    assert.deepEqual(
      seen.feedback.map((f) => f.reward),
      [1, 0, 0, 0],
      'only the right answer to the first task is rewarded',
    );
    assert.deepEqual(
      seen.feedback.map((f) => f.run_id),
      [0, 1, 0, 1],
    );
    assert.equal(seen.feedback[0].task_id, seen.feedback[1].task_id, 'a group shares its task_id');
    assert.notEqual(seen.feedback[1].task_id, seen.feedback[2].task_id);
    assert.equal(seen.commits, 2);
  });

  test('an explorer that is not there is a one-line error, not a traceback', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const r = await runner(['--url', `http://127.0.0.1:${port}`, '--limit', '1']);
    assert.equal(r.code, 1);
    assert.match(r.out, /^agent_runner\.py: Connection error\./m);
    assert.doesNotMatch(r.out, /Traceback/);
  });
});
