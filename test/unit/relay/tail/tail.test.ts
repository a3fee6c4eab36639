// `agentrl tail` prints one line per point from the client's columns: --json keeps its
// {"run","role","tag","step","wall_time","value"} object per point (non-finite values as
// strings), and the text form its one line per point.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { batchLines } from '../../../../src/relay/tail/tail';
import { decodePointsFrame, encodePointsFrame } from '../../../../src/relay-protocol/points-frame';
import type { PointsBatch } from '../../../../src/relay-protocol/messages';

const f = (xs: number[]) => Float64Array.from(xs);
const batch: PointsBatch = {
  type: 'points',
  source: 'tfevents:a',
  run: 'gsm8k',
  role: 'explorer',
  series: [
    { tag: 'rollout/reward/mean', step: f([1, 2]), wallTime: f([1700000000.5, 1700000001.25]), value: f([0.25, NaN]) },
    { tag: 'empty', step: f([]), wallTime: f([]), value: f([]) },
    { tag: 'train/loss', step: f([1]), wallTime: f([1700000000.5]), value: f([-Infinity]) },
  ],
  cursor: { source: 'tfevents:a', offset: 1 },
};

test('tail --json: one object per point, the same fields and numbers as before the binary frames', () => {
  assert.deepEqual(batchLines(decodePointsFrame(encodePointsFrame(batch)), true), [
    '{"run":"gsm8k","role":"explorer","tag":"rollout/reward/mean","step":1,"wall_time":1700000000.5,"value":0.25}',
    '{"run":"gsm8k","role":"explorer","tag":"rollout/reward/mean","step":2,"wall_time":1700000001.25,"value":"NaN"}',
    '{"run":"gsm8k","role":"explorer","tag":"train/loss","step":1,"wall_time":1700000000.5,"value":"-Infinity"}',
  ]);
});

test('tail: --tag filters whole tags; the text form is one line per point', () => {
  assert.deepEqual(batchLines(batch, false, /^train\//), ['gsm8k/explorer  train/loss  step=1  -Infinity']);
});
