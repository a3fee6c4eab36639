// The token view's colour classes: logprob in ten probability steps, advantage in five steps each
// way relative to the largest, mask as prompt / trained / untrained response token.
import * as assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromTensors } from '../../../../src/tokens/experience';
import { advantageClass, colourClass, logprobClass, maxAbs } from '../../../../src/webview-ui/token-view/colour';

test('logprob steps by probability; no logprob, no colour', () => {
  assert.equal(logprobClass(Math.log(0.05)), 'tv-lp0');
  assert.equal(logprobClass(Math.log(0.55)), 'tv-lp5');
  assert.equal(logprobClass(0), 'tv-lp9');
  assert.equal(logprobClass(NaN), 'tv-none');
});

test('advantage steps by |a| / max |a|, green above zero, red below', () => {
  assert.equal(advantageClass(1, 1), 'tv-adv-pos5');
  assert.equal(advantageClass(-0.1, 1), 'tv-adv-neg1');
  assert.equal(advantageClass(0, 1), 'tv-none');
  assert.equal(maxAbs(Float32Array.from([0.5, -2, NaN])), 2);
});

test('mask: prompt, trained, a response token outside the mask', () => {
  const e = fromTensors({ tokens: [1, 2, 3, 4], prompt_length: 2, action_mask: [1, 0], logprobs: [-0.01, -3] });
  assert.deepEqual(
    [0, 2, 3].map((i) => colourClass(e, i, 'mask', 0)),
    ['tv-prompt', 'tv-trained', 'tv-untrained'],
  );
  assert.deepEqual(
    [2, 3].map((i) => colourClass(e, i, 'logprob', 0)),
    ['tv-lp9', 'tv-lp0'],
  );
  assert.equal(colourClass(e, 2, 'advantage', 0), 'tv-none');
});
