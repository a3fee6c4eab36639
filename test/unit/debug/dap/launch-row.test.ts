// The bad-input reasons of a training row's replay (src/debug/dap/launch-row.ts) in the language
// the launch is given: vscode.l10n in the debug adapter (the real zh-cn bundle here), English in
// the CLI (`agentrl rollout --from-job`, whose English the component test
// test/component/debug/experience.test.ts reads).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { english, type L10n } from '../../../../src/base/l10n';
import { planRowReplays, prepareRowReplay } from '../../../../src/debug/dap/launch-row';
import type { RecordedExperience } from '../../../../src/debug/experience/recorded';
import type { ExperienceReader } from '../../../../src/feature-api/experience-reader';
import { repoRoot } from '../../../harness/paths';

const zh = JSON.parse(fs.readFileSync(path.join(repoRoot, 'l10n', 'bundle.l10n.zh-cn.json'), 'utf8')) as Record<string, string>;
const chinese: L10n = { t: (message, ...args) => english.t(zh[message] ?? `UNTRANSLATED ${message}`, ...args) };

const config = { buffer: { explorer_input: { taskset: { path: 'math.jsonl', format: { prompt_key: 'question' } }, default_workflow_type: 'math_workflow' } } };
const where = path.join(os.tmpdir(), 'agentrl-no-such-job');
const tokensOnly: RecordedExperience = {
  id: '5',
  tokens: { ids: [1, 2, 3, 4], spans: [[2, 4]] },
  reward: 1,
  parts: {},
  modelVersion: 3,
  taskIndex: 0,
  tasksetId: null,
  run: 0,
  step: 3,
};
const spoken = (r: Awaited<ReturnType<typeof prepareRowReplay>>): string => {
  assert.ok(!r.ok, 'the replay is refused');
  return r.message;
};

test('a row the reader cannot read, and no reader at all: said in Chinese, the reader’s own reason kept', async () => {
  // The reader's side (the relay) has no language of its own: its reason stays as it said it.
  const unreachable: ExperienceReader = {
    read: () => Promise.reject(new Error('cannot reach the relay at ws://127.0.0.1:9/')),
    rows: () => Promise.reject(new Error('not used')),
  };
  const en = spoken(await prepareRowReplay({ fromJob: 'ws://127.0.0.1:9/', id: 4 }, unreachable, '/', config, 'math.yaml'));
  assert.equal(en, 'Cannot read experience 4 of ws://127.0.0.1:9/: cannot reach the relay at ws://127.0.0.1:9/');
  const cn = spoken(await prepareRowReplay({ fromJob: 'ws://127.0.0.1:9/', id: 4 }, unreachable, '/', config, 'math.yaml', chinese));
  assert.equal(cn, '无法读取 ws://127.0.0.1:9/ 的经验 4：cannot reach the relay at ws://127.0.0.1:9/');
  assert.match(spoken(await prepareRowReplay({ fromJob: where, id: 4 }, undefined, '/', config, 'math.yaml', chinese)), /^重放训练运行需要 relay 读取器/);
});

test('a row the reader reads but that keeps no conversation: "Cannot replay" with the reason, both in Chinese', async () => {
  const reader: ExperienceReader = {
    read: (_where, id) => Promise.resolve({ id, detail: { reward: 1, messages: [{ role: 'user', content: 'hi' }] } }),
    rows: () => Promise.reject(new Error('not used')),
  };
  const cn = spoken(await prepareRowReplay({ fromJob: where, id: 9 }, reader, '/', config, 'math.yaml', chinese));
  assert.match(cn, /^无法重放：经验 9 没有可重放的对话：/);
});

test("a row of tokens alone whose run's tokenizer the config does not name, and a taskset that is not there: in Chinese", () => {
  const tokens = planRowReplays([tokensOnly], where, config, path.join(where, 'math.yaml'), chinese);
  assert.ok(!tokens.ok);
  assert.equal(
    tokens.message,
    '无法重放：经验 5 只以 token 和 action mask 保存其对话（Trinity 的多轮工作流不保存 messages）；重建其轮次需要该运行的分词器，而配置中没有 model.model_path',
  );
  const elsewhere = planRowReplays([{ ...tokensOnly, tasksetId: 2 }], where, config, path.join(where, 'math.yaml'), chinese);
  assert.ok(!elsewhere.ok);
  assert.equal(elsewhere.message, '无法重放经验 5：该经验所属的任务集 #2 不在 math.yaml 中（共 1 个任务集）');
  // The CLI's English, unchanged.
  const en = planRowReplays([{ ...tokensOnly, tasksetId: 2 }], where, config, path.join(where, 'math.yaml'));
  assert.ok(!en.ok);
  assert.equal(en.message, "Cannot replay experience 5: the experience's taskset #2 is not in math.yaml (1 taskset(s))");
});
