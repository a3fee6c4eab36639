import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { fromTensors } from '../../../src/tokens/experience';
import { fromWire, toWire } from '../../../src/tokens/experience-wire';

test('an experience crosses JSON and comes back the same, NaN as null', () => {
  const e = fromTensors({ tokens: [5, 6, 7, 8], prompt_length: 2, logprobs: [-0.5, -1.25], action_mask: [1, 0], advantages: [0.5, 0.5] });
  const texts = { joined: 'abcd', offsets: Uint32Array.from([0, 1, 2, 3, 4]), flags: Uint8Array.from([1, 0, 2, 0]), partialBytes: { 2: 'e4' } };
  const wire = JSON.parse(JSON.stringify(toWire({ ...e, texts }))) as ReturnType<typeof toWire>;
  assert.deepEqual(wire.logprobs, [null, null, -0.5, -1.25]);
  const back = fromWire(wire);
  assert.deepEqual(Array.from(back.ids), [5, 6, 7, 8]);
  assert.deepEqual(Array.from(back.trained), [0, 0, 1, 0]);
  assert.deepEqual(
    Array.from(back.logprobs!).map((x) => (Number.isNaN(x) ? null : x)),
    [null, null, -0.5, -1.25],
  );
  assert.deepEqual(back.texts, texts);
  assert.equal(back.promptLength, 2);
});

test('parts whose length does not fit the ids are dropped, not trusted', () => {
  const wire = toWire(fromTensors({ tokens: [1, 2, 3], prompt_length: 9, action_mask: [1] }));
  const back = fromWire({ ...wire, logprobs: [0], trained: [1, 1], texts: { joined: 'ab', offsets: [0, 1, 2], flags: [0, 0], partialBytes: {} } });
  assert.equal(back.logprobs, undefined);
  assert.deepEqual(Array.from(back.trained), [0, 0, 0]);
  assert.equal(back.texts, undefined);
  assert.equal(back.promptLength, 3);
});
