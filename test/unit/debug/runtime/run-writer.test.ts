// The run's closing lines (formatSummary): the debug console shows them in the window's language
// through the injected l10n (vscode.l10n in the extension), here with the real zh-cn bundle;
// `agentrl rollout` prints them in English. The token checks' line says what was checked, so no
// drift and no mask line means "checked, fine" and not "never checked". And a run's folder: two
// runs started in one millisecond never share one.
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { test } from 'node:test';
import { english, type L10n } from '../../../../src/base/l10n';
import { formatSummary, RunWriter } from '../../../../src/debug/runtime/run-writer';
import { RUNS_DIR, type RolloutSummary } from '../../../../src/debug/trajectory/trajectory';
import { repoRoot } from '../../../harness/paths';

const zh = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
/** vscode.l10n.t with the zh-cn bundle: the translation of the message, placeholders filled. */
const chinese: L10n = { t: (message, ...args) => english.t(zh[message] ?? `UNTRANSLATED ${message}`, ...args) };

const summary: RolloutSummary = {
  id: 'r1',
  status: 'completed',
  backbone: 'native',
  startedAt: '2026-01-01T00:00:00.000Z',
  finishedAt: '2026-01-01T00:00:12.500Z',
  wallMs: 12500,
  episodes: 2,
  errors: 0,
  rewardMean: 0.5,
  rewardByTask: { a: 1, b: 0 },
  tokens: { prompt: 90, completion: 10, total: 100 },
  llmCalls: 10,
  drift: { calls: 4, episodes: 1 },
  maskWarnings: { spans: 1, episodes: 1 },
  tokenChecks: { calls: 10, experiences: 2 },
};

test('English: the counts, the token checks (what they found and what they checked), where the results are', () => {
  assert.deepEqual(formatSummary(summary, '/ws/.agentrl/runs/r1').split('\n'), [
    'Rollout completed: 2 episode(s), mean reward 0.500, 0 error(s), 10 LLM call(s), 100 tokens, 12.5 s',
    '  reward per task: a=1.000 b=0.000',
    "  retokenization drift: 4 LLM call(s) in 1 episode(s) get other tokens from the chat template than the engine's",
    '  action mask: 1 span(s) of tool output, user or system tokens marked trained in 1 episode(s)',
    '  checked against the chat template: 10 LLM call(s) for retokenization drift, 2 returned experience(s) for their action mask',
    '  results: /ws/.agentrl/runs/r1',
    '',
  ]);
  const clean = formatSummary(
    { ...summary, status: 'terminated', drift: undefined, maskWarnings: undefined, tokenChecks: undefined, rewardByTask: {} },
    undefined,
  );
  assert.deepEqual(clean.split('\n'), [
    'Rollout terminated: 2 episode(s), mean reward 0.500, 0 error(s), 10 LLM call(s), 100 tokens, 12.5 s',
    '  results: not saved ("record": false)',
    '',
  ]);
});

test('zh-cn: every line of the summary in Chinese, numbers in place', () => {
  const lines = formatSummary({ ...summary, status: 'failed' }, '/ws/.agentrl/runs/r1', chinese).split('\n');
  assert.deepEqual(lines, [
    'Rollout 失败：2 个回合，平均奖励 0.500，0 个错误，10 次 LLM 调用，100 个 token，12.5 秒',
    '  每个任务的奖励：a=1.000 b=0.000',
    '  重新分词偏差：1 个回合中有 4 次 LLM 调用，其对话模板给出的 token 与推理引擎的不同',
    '  action mask：1 个回合中有 1 段工具输出、用户或系统 token 被标记为参与训练',
    '  已对照对话模板检查：10 次 LLM 调用的重新分词偏差，2 个返回的 experience 的 action mask',
    '  结果：/ws/.agentrl/runs/r1',
    '',
  ]);
  for (const status of ['completed', 'terminated'] as const) assert.doesNotMatch(formatSummary({ ...summary, status }, undefined, chinese), /UNTRANSLATED/);
});

test('reward 0 from a tiny local model: the summary says it is not expected to solve the task (en, zh-cn); a large model or a reward gets no such line', () => {
  const zero = { ...summary, rewardMean: 0, rewardByTask: { a: 0, b: 0 } };
  const line = formatSummary(zero, undefined, english, 'Qwen/Qwen2.5-0.5B-Instruct')
    .split('\n')
    .find((l) => l.includes('not expected'));
  assert.equal(
    line,
    '  reward 0.000 from Qwen/Qwen2.5-0.5B-Instruct: a model this small is not expected to solve the task. This run shows that the loop works (LLM calls, tools, reward); a larger model gives a real signal.',
  );
  assert.match(formatSummary(zero, undefined, chinese, 'tiny-toolcall'), /tiny-toolcall.*不/);
  assert.doesNotMatch(formatSummary(zero, undefined, chinese, 'tiny-toolcall'), /UNTRANSLATED/);
  for (const [s, model] of [
    [zero, 'Qwen/Qwen3-8B'],
    [zero, 'gpt-4o'],
    [summary, 'Qwen/Qwen2.5-0.5B-Instruct'],
    [zero, undefined],
  ] as const) {
    assert.doesNotMatch(formatSummary(s, undefined, english, model), /not expected/, String(model));
  }
  assert.match(formatSummary(zero, undefined, english, 'llama-3.2-1b-instruct-q4_k_m.gguf'), /not expected/);
});

test('nothing checked against the chat template (no tokenizer here): the summary says so and why, in both languages', () => {
  const unchecked = {
    ...summary,
    drift: undefined,
    maskWarnings: undefined,
    tokenChecks: undefined,
    tokenChecksSkipped: 'tiny-toolcall is not a folder on this machine',
  };
  assert.ok(
    formatSummary(unchecked, undefined)
      .split('\n')
      .includes(
        '  not checked against the chat template (retokenization drift, action masks): no tokenizer on this machine (tiny-toolcall is not a folder on this machine)',
      ),
  );
  assert.match(formatSummary(unchecked, undefined, chinese), /未对照对话模板检查.*tiny-toolcall is not a folder/);
});

test("runs started in the same millisecond each get a folder of their own, never one another's", (t) => {
  t.mock.timers.enable({ apis: ['Date'], now: new Date(2026, 10, 27, 16, 20, 5, 7).getTime() });
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'agentrl-run-writer-'));
  try {
    // a folder another run (another process) took at this very millisecond
    fs.mkdirSync(path.join(root, RUNS_DIR, '20261127-162005-007'), { recursive: true });
    fs.writeFileSync(path.join(root, RUNS_DIR, '20261127-162005-007', 'launch.json'), '{"other":true}\n');
    const a = new RunWriter(root, { run: 'a' });
    const b = new RunWriter(root, { run: 'b' });
    assert.deepEqual([a.id, b.id], ['20261127-162005-007-2', '20261127-162005-007-3']);
    assert.equal(
      fs.readFileSync(path.join(root, RUNS_DIR, '20261127-162005-007', 'launch.json'), 'utf8'),
      '{"other":true}\n',
      "the other run's folder is left alone",
    );
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(a.dir, 'launch.json'), 'utf8')), { run: 'a' });
    assert.deepEqual(JSON.parse(fs.readFileSync(path.join(b.dir, 'launch.json'), 'utf8')), { run: 'b' });
    a.close();
    b.close();
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
});
