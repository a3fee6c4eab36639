// The GPU budget is said once, at the key to change, with the way out; its breakdown names each
// parallel factor (a walkthrough user who set `mode: both` on the 1-GPU sample once got the same
// "explorer requires 1 GPUs" on four lines; TP 2 × PP 2 was called "tensor_parallel_size 4").
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { repoRoot } from '../../../../harness/paths';
import { applyFix, describe, en, errors, expectClean, lineOf, run, trinity, zh } from '../../helpers';

const sample = () => fs.readFileSync(path.join(repoRoot, 'sample-workspace', 'toolcall', 'toolcall.yaml'), 'utf8');

test('mode both on one GPU: one error, at cluster.gpu_per_node, saying what to set; its fix makes the config clean', () => {
  const text = sample().replace('mode: explore', 'mode: both');
  const a = run(text);
  const found = a.findings.filter((f) => f.code === 'trinity.gpu.no-trainer-gpus');
  assert.equal(found.length, 1, describe(a));
  const [f] = found;
  assert.equal(a.lines.position(f.span.start).line, lineOf(text, 'gpu_per_node: 1'));
  assert.equal(
    en(f.message),
    "Not enough GPUs for the trainer: the explorer needs 1 GPU (1 engine × 1 GPU) of the cluster's 1, and the trainer needs at least 1. Set `cluster.gpu_per_node: 2`, or use `mode: explore` to run the explorer alone.",
  );
  assert.match(zh(f.message), /训练器/);
  // the other keys involved are related locations, not more errors
  assert.ok((f.related ?? []).length >= 3);
  assert.deepEqual(
    errors(a).map((e) => e.code),
    ['trinity.gpu.no-trainer-gpus'],
  );
  expectClean(run(applyFix(text, f)));
  const back = f.fixes?.find((x) => en(x.title).includes('explore'));
  assert.ok(back, 'offers mode explore too');
  expectClean(run(applyFix(text, f, f.fixes!.indexOf(back))));
});

test('fewer engines would fit: the error is at engine_num and names both ways', () => {
  const text = trinity({ explorer: { rollout_model: { engine_num: 4 } } });
  const a = run(text);
  const found = a.findings.filter((f) => f.code === 'trinity.gpu.no-trainer-gpus');
  assert.equal(found.length, 1, describe(a));
  assert.equal(a.lines.position(found[0].span.start).line, lineOf(text, 'engine_num: 4'));
  assert.match(
    en(found[0].message),
    /needs 4 GPUs \(4 engines × 1 GPU\) of the cluster's 4.*Set `explorer\.rollout_model\.engine_num: 3` or `cluster\.gpu_per_node: 5`/,
  );
  expectClean(run(applyFix(text, found[0])));
});

test('0.6: each parallel factor is named with its line, not folded into tensor_parallel_size', () => {
  for (const [over, words, keys] of [
    [
      { tensor_parallel_size: 2, pipeline_parallel_size: 2 },
      '1 engine × 4 GPUs (tensor_parallel_size 2 × pipeline_parallel_size 2)',
      ['tensor_parallel_size: 2', 'pipeline_parallel_size: 2'],
    ],
    [{ data_parallel_size: 4 }, '1 engine × 4 GPUs (data_parallel_size 4)', ['data_parallel_size: 4']],
  ] as const) {
    const text = trinity({ explorer: { rollout_model: { engine_num: 1, ...over } } });
    const a = run(text, { trinityVersion: '0.6.0' });
    const found = a.findings.filter((f) => f.code === 'trinity.gpu.no-trainer-gpus');
    assert.equal(found.length, 1, describe(a));
    assert.ok(en(found[0].message).includes(words), en(found[0].message));
    assert.doesNotMatch(en(found[0].message), /tensor_parallel_size 4/);
    const relatedLines = (found[0].related ?? []).map((r) => (r.span ? a.lines.position(r.span.start).line : -1));
    for (const k of keys) assert.ok(relatedLines.includes(lineOf(text, k)), `${k} is a related location`);
  }
  // explore mode: the same breakdown
  const text = trinity({ mode: 'explore', explorer: { rollout_model: { engine_num: 2, tensor_parallel_size: 2, pipeline_parallel_size: 2 } } });
  const f = run(text, { trinityVersion: '0.6.0' }).findings.find((x) => x.code === 'trinity.gpu.explorer-exceeds-total');
  assert.ok(f);
  assert.match(en(f.message), /\(8 = 2 engines × 4 GPUs \(tensor_parallel_size 2 × pipeline_parallel_size 2\)\)/);
});
