// The explorer and trainer halves of one decoupled job must agree; disagreements are
// reported in both files, each linking the other.
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { test } from 'node:test';
import { ConfigIndex } from '../../../../src/config/engine/crossfile';
import { en, lineOf, run, trinity, zh } from '../helpers';

const explorerPatch = { mode: 'explore', name: 'async-job', synchronizer: { sync_method: 'checkpoint', sync_interval: 10 } };
const trainerPatch = { mode: 'train', name: 'async-job', buffer: { train_batch_size: 32 }, synchronizer: { sync_method: 'checkpoint', sync_interval: 10 } };

function pair(explorer: string, trainer: string) {
  const files = { explorer: path.join('/ws/job', 'explorer.yaml'), trainer: path.join('/ws/job', 'trainer.yaml') };
  const index = new ConfigIndex();
  for (const [k, t] of [
    ['explorer', explorer],
    ['trainer', trainer],
  ] as const)
    index.set(files[k], run(t, { file: files[k] }).docs[0].facts);
  return {
    explorer: run(explorer, { file: files.explorer, peers: index }),
    trainer: run(trainer, { file: files.trainer, peers: index }),
    files,
  };
}

test('an agreeing explorer/trainer pair has no cross-file findings', () => {
  const r = pair(trinity(explorerPatch), trinity(trainerPatch));
  assert.ok(!r.explorer.findings.some((f) => f.code === 'crossfile.mismatch'));
  assert.ok(!r.trainer.findings.some((f) => f.code === 'crossfile.mismatch'));
});

test('nccl in one and checkpoint in the other agree (both run checkpoint in these modes)', () => {
  const r = pair(trinity({ ...explorerPatch, synchronizer: { sync_method: 'nccl' } }), trinity(trainerPatch));
  assert.ok(!r.explorer.findings.some((f) => f.code === 'crossfile.mismatch'));
});

test('a different model, buffer or length is reported in both files, linking the other', () => {
  const explorer = trinity({
    ...explorerPatch,
    model: { model_path: 'Qwen/Qwen2.5-7B-Instruct' },
    buffer: { trainer_input: { experience_buffer: { name: 'exp_a' } } },
  });
  const trainer = trinity({ ...trainerPatch, model: { max_response_tokens: 256 }, buffer: { trainer_input: { experience_buffer: { name: 'exp_b' } } } });
  const r = pair(explorer, trainer);
  for (const [a, text, other] of [
    [r.explorer, explorer, r.files.trainer],
    [r.trainer, trainer, r.files.explorer],
  ] as const) {
    const mism = a.findings.filter((f) => f.code === 'crossfile.mismatch');
    const paths = mism.map((f) => f.path).sort();
    assert.deepEqual(paths, ['buffer.trainer_input.experience_buffer.name', 'model.max_response_tokens', 'model.model_path']);
    const model = mism.find((f) => f.path === 'model.model_path')!;
    assert.equal(model.severity, 'warning');
    assert.equal(a.lines.position(model.span.start).line, lineOf(text, 'model_path'));
    assert.equal(model.related?.[0].file, other);
    // the same finding in Chinese, as the language server shows it with the zh-cn bundle
    assert.match(en(model.message), /^The model path differs from the (trainer|explorer) config `[\w.-]+` of job '[^']+': `[^`]+` here, `[^`]+` there\./);
    assert.match(
      zh(model.message),
      /^模型路径与作业 '[^']+' 的(训练器|探索器)配置 `[\w.-]+` 不一致：此处为 `[^`]+`，那里为 `[^`]+`。解耦作业的两部分必须一致。$/,
    );
    assert.match(zh(model.related[0].message), /^[\w.-]+ 中的模型路径：/);
  }
});

test('configs of different jobs, or two trainers, are not paired', () => {
  const r = pair(trinity({ ...explorerPatch, name: 'job-a' }), trinity({ ...trainerPatch, name: 'job-b', model: { model_path: 'x/y' } }));
  assert.ok(!r.trainer.findings.some((f) => f.code === 'crossfile.mismatch'));
  const t = pair(trinity({ ...trainerPatch, model: { model_path: 'x/y' } }), trinity(trainerPatch));
  assert.ok(!t.trainer.findings.some((f) => f.code === 'crossfile.mismatch'));
});
