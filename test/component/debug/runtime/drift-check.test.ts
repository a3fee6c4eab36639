// Retokenization drift in a debug run, over real DAP against the real llama.cpp fixture server and
// a real runner (the sample tool-calling workflow: a tool call, then an answer after the tool
// result). With the model's own chat template the engine's ids and the template's agree on every
// call; with a template that renders tool results with one more newline (a trainer whose template
// differs from the server's), the second call — after the tool result — drifts, and only it.
//
// Then: no template drift on Trinity-RFT 0.5.2's own multi-turn workflow: frozen_lake_workflow
// (Trinity's source from ../shared/upstream in .cache/trinity-venv, its example config from
// ../shared/corpus, unmodified) under `agentrl rollout` against the real llama.cpp fixture model,
// with the model folder holding the fixture's tokenizer and chat template. Every LLM call is
// checked against the template (the count proves the check ran): no drift from the template; and
// the experience it returns, which Trinity rebuilds without its messages, has its action mask
// checked on the turns of the conversation the model converted (found again by its token ids):
// no mask warning, no "not checked" note. What the check
// does find on this run is real: the fixture model samples a word (` The`) as two tokens
// where its tokenizer gives one, so a trainer that re-tokenizes the messages trains on other ids
// than the engine generated. Those findings, and only those, are allowed: same text, other split.
import { describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { collectOutput, launch, modelAndWorkspace, sdkPython, skipWithoutModel, startAdapter } from '../helpers';
import { skipNoTokenizer, tinyTokenizerDir } from '../../../harness/tiny-tokenizer';
import { hasShared, repoRoot, sharedDir } from '../../../harness/paths';
import { modelRuntimeInstalled, startModelServer } from '../../../harness/model-server';

describe('retokenization drift in a debug run (real model server, real runner)', { skip: skipWithoutModel || skipNoTokenizer }, () => {
  const env = modelAndWorkspace((ws) => {
    const yaml = fs.readFileSync(path.join(ws, 'toolcall.yaml'), 'utf8');
    for (const [name, edit] of [
      ['same', (t: string) => t],
      ['other', (t: string) => t.replace("'\\n<tool_response>\\n'", "'\\n<tool_response>\\n\\n'")],
    ] as const) {
      const dir = path.join(ws, `model-${name}`);
      fs.mkdirSync(dir);
      for (const f of ['tokenizer.json', 'tokenizer_config.json']) fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(dir, f));
      const template = fs.readFileSync(path.join(tinyTokenizerDir, 'chat_template.jinja'), 'utf8');
      const edited = edit(template);
      if (name === 'other') assert.notEqual(edited, template, 'the fixture template renders tool results as expected');
      fs.writeFileSync(path.join(dir, 'chat_template.jinja'), edited);
      fs.writeFileSync(path.join(ws, `${name}.yaml`), yaml.replace(/model_path: tiny-toolcall/, `model_path: ${JSON.stringify(dir)}`));
    }
  });

  async function run(config: string): Promise<{ output: string; stops: string[]; toasts: string[] }> {
    const adapter = await startAdapter();
    const dc = adapter.dc;
    const out = collectOutput(dc);
    const stops: string[] = [];
    dc.on('stopped', (e: DebugProtocol.StoppedEvent) => {
      stops.push(`${e.body.reason}: ${e.body.description ?? ''}`);
      void dc.continueRequest({ threadId: e.body.threadId! });
    });
    try {
      const ended = dc.waitForEvent('terminated', 120000);
      await launch(
        dc,
        {
          config: path.join(env.ws, config),
          cwd: env.ws,
          workspaceRoot: env.ws,
          python: sdkPython,
          model: { baseUrl: env.model.url },
          tasks: 1,
          record: false,
        },
        { exceptionFilters: ['drift'] },
      );
      await ended;
      // 'important' output is what VS Code shows as a notification
      const toasts = out.events.filter((e) => e.body.category === 'important').map((e) => e.body.output);
      return { output: out.text(), stops, toasts };
    } finally {
      await adapter.close();
    }
  }

  // The fixture's template renders tool-call arguments (a JSON string in OpenAI messages) as a
  // quoted string where the server renders the object: a real drift, on the call that made the
  // tool call, in its completion — and not again on later calls whose history holds it.
  const argumentsDrift =
    /^T\w+#R0: Turn 1: \d+ tokens differ in the completion: engine ` \{"city": "Paris"\}\}↵` vs template ` "\{\\"city\\":\\"Paris\\"\}"\}↵`$/;

  test("the model's own template: the arguments drift on call 1 only, a drift stop there, a summary line", async () => {
    const r = await run('same.yaml');
    const findings = r.output.split('\n').filter((l) => /tokens differ/.test(l));
    assert.equal(findings.length, 1, r.output);
    assert.match(findings[0], argumentsDrift);
    assert.equal(r.stops.length, 1, r.stops.join('\n'));
    assert.match(r.stops[0], /^exception: Turn 1: /);
    assert.match(r.output, /retokenization drift: 1 LLM call\(s\) in 1 episode\(s\)/);
    // in the Debug Console, not a notification on every run (the sandbox's newcomer saw one each time)
    assert.deepEqual(
      r.toasts.filter((t) => /tokens differ/.test(t)),
      [],
      r.toasts.join(''),
    );
  });

  test('a template that differs after the tool result: a finding on call 2, after the tool result, and nowhere else new', async () => {
    const r = await run('other.yaml');
    const findings = r.output.split('\n').filter((l) => /tokens differ/.test(l));
    assert.equal(findings.length, 2, r.output);
    assert.match(findings[0], argumentsDrift);
    assert.match(findings[1], /^T\w+#R0: Turn 2: 1 tokens differ after the tool result: engine `.*` vs template `.*`$/);
    assert.deepEqual(
      r.stops.map((s) => /^exception: Turn (\d)/.exec(s)?.[1]),
      ['1', '2'],
    );
    assert.match(r.output, /retokenization drift: 2 LLM call\(s\) in 1 episode\(s\)/);
  });
});

const cli = path.join(repoRoot, 'dist', 'agentrl.js');
const venvPython = path.join(repoRoot, '.cache', 'trinity-venv', 'bin', 'python');
const examples = path.join(sharedDir, 'corpus', 'trinity-rft', 'examples');
const skip = !hasShared
  ? 'needs ../shared (Trinity corpus and upstream source)'
  : !fs.existsSync(path.join(sharedDir, 'upstream', 'trinity-rft-0.5.2'))
    ? 'needs ../shared/upstream/trinity-rft-0.5.2'
    : !fs.existsSync(venvPython)
      ? 'needs .cache/trinity-venv (bash scripts/setup.sh trinity)'
      : !modelRuntimeInstalled
        ? 'needs llama.cpp (bash scripts/setup.sh model)'
        : !fs.existsSync(cli)
          ? 'dist/agentrl.js not built'
          : false;

interface Summary {
  episodes: number;
  errors: number;
  llmCalls: number;
  drift?: unknown;
  maskWarnings?: unknown;
  tokenChecks?: { calls: number; experiences: number };
}

describe("Trinity's own multi-turn workflow under the debugger: no template drift, a correct mask", { skip }, () => {
  test('frozen_lake_workflow: every call checked, no template drift (only sampled splits), the returned mask checked and correct', async () => {
    // Ten turns of ~300 tokens outgrow the fixture's context: a longer one, 16 tokens per reply.
    const model = await startModelServer({ context: 6144, maxTokens: 16 });
    const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-drift-upstream-'));
    try {
      const modelDir = path.join(ws, 'model');
      fs.mkdirSync(modelDir);
      for (const f of ['tokenizer.json', 'tokenizer_config.json', 'chat_template.jinja'])
        fs.copyFileSync(path.join(tinyTokenizerDir, f), path.join(modelDir, f));
      const dataDir = path.join(ws, 'frozen');
      fs.mkdirSync(dataDir);
      fs.writeFileSync(path.join(dataDir, 'train.jsonl'), '{"size": 3, "p": 0.8, "seed": 11}\n');
      const pythonpath = spawnSync('bash', [path.join(sharedDir, 'upstream', 'make-trinity-venv.sh'), '--pythonpath'], { encoding: 'utf8' }).stdout.trim();
      const env = {
        ...process.env,
        PYTHONPATH: pythonpath,
        HF_HUB_OFFLINE: '1',
        TRANSFORMERS_OFFLINE: '1',
        HF_DATASETS_OFFLINE: '1',
        TRINITY_MODEL_PATH: modelDir,
        TRINITY_TASKSET_PATH: dataDir,
      };
      const args = [
        cli,
        'rollout',
        '--tasks',
        '1',
        '--python',
        venvPython,
        '--cwd',
        ws,
        '--json',
        '--timeout',
        '300',
        '--config',
        path.join(examples, 'grpo_frozen_lake', 'frozen_lake.yaml'),
        '--model-base-url',
        model.url,
      ];
      const r = spawnSync(process.execPath, args, { encoding: 'utf8', env, cwd: ws, timeout: 400_000 });
      assert.equal(r.status, 0, r.stderr);
      const summary = JSON.parse(r.stdout) as Summary;
      assert.equal(summary.episodes, 1, r.stderr);
      assert.equal(summary.errors, 0, r.stderr);
      assert.ok(summary.llmCalls >= 2, `multi-turn: ${summary.llmCalls} LLM calls`);
      assert.equal(summary.tokenChecks?.calls, summary.llmCalls, `every call checked for drift: ${JSON.stringify(summary.tokenChecks)}\n${r.stderr}`);
      // Trinity's Workflow.process_messages_to_experience rebuilds the Experience without its
      // messages; the runner finds them again by the ids its model's conversion returned, so the
      // returned experience's mask is located on the turns and gets a verdict: correct.
      assert.ok((summary.tokenChecks?.experiences ?? 0) >= 1, `the returned experience's mask checked: ${JSON.stringify(summary.tokenChecks)}\n${r.stderr}`);
      assert.equal(summary.maskWarnings, undefined, r.stderr);
      assert.doesNotMatch(r.stderr, /action mask not checked/, r.stderr);
      assert.match(
        r.stderr,
        /checked against the chat template: \d+ LLM call\(s\) for retokenization drift, [1-9]\d* returned experience\(s\) for their action mask/,
        r.stderr,
      );
      assert.doesNotMatch(r.stderr, /tokens differ|are trained:/, 'no template drift, no mask warning');
      const splits = r.stderr.split('\n').filter((l) => /^T\w+#R0: Turn \d+: /.test(l));
      for (const l of splits)
        assert.match(l, /: Turn \d+: `.*` in the completion is \d+ engine tokens where re-tokenizing gives \d+ \(same text, another split\)$/);
    } finally {
      await model.stop();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  });
});
